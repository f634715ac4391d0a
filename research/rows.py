"""The JSON-lines files of the long research tools: a row per task, appended as each task
ends, so that a run that is stopped resumes where it stopped."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

Task = TypeVar("Task")
Row = dict[str, object]


def read_rows(path: Path) -> list[Row]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def appended(
    run_task: Callable[[Task], Row], tasks: Sequence[Task], jobs: int, path: Path, per_process: int
) -> Iterator[Row]:
    """Each task's row, computed on `jobs` processes (each replaced after `per_process`
    tasks, so that a search's memory is given back), appended to `path` as it comes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out, multiprocessing.Pool(jobs, maxtasksperchild=per_process) as pool:
        for row in pool.imap_unordered(run_task, tasks, chunksize=1):
            out.write(json.dumps(row) + "\n")
            out.flush()
            yield row
