"""Servers started and stopped around a block of code: `with Server() as server:`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class StartsAndStops(ABC):
    """Something that is started and stopped, usable as a context manager: entering
    starts it (and gives it back), leaving stops it whether or not the block raised."""

    @abstractmethod
    def start(self) -> Self: ...

    @abstractmethod
    def stop(self) -> int | None:
        """Stops it; the exit status of its process, for one that has it."""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
