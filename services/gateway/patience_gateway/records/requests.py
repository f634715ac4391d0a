"""The bodies the records' operator routes take."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class StandingChange(BaseModel):
    """An operator keeps a player off the boards (`on_boards`: false) or puts them back
    (true), saying who they are and why: both go into the audit."""

    model_config = ConfigDict(extra="forbid")
    on_boards: bool
    operator: Annotated[str, Field(min_length=1, max_length=64, description="Who decides.")]
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Why.")]
