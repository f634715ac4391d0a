"""A bounded table of remembered results, for pure functions on the hot path."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """Remembers up to `size` results; once full, the oldest entry goes first.

    Only for results that depend on nothing but the key, so that remembering one
    changes no answer. No reordering on a hit: cheaper than a true LRU, and the
    entries that matter are the ones written last.

    The entries live in an OrderedDict, whose `popitem(last=False)` drops the oldest
    in constant time. (A plain dict's `del d[next(iter(d))]` has to step over every
    slot already deleted at the front: at 65,536 entries that cost about 25 µs a put.)
    """

    __slots__ = ("_entries", "_evict", "_size", "get")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a memo holds at least one entry")
        self._size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._evict = self._entries.popitem
        # The table's own look-up, called directly: this runs dozens of times a call.
        self.get: Callable[[K], V | None] = self._entries.get

    def put(self, key: K, value: V) -> None:
        entries = self._entries
        if len(entries) >= self._size and key not in entries:
            self._evict(last=False)
        entries[key] = value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
