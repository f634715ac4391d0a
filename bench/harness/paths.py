"""Where the bench's files are: the repository it runs from, and its results folder."""

from __future__ import annotations

from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = BENCH_DIR.parent
# git-ignored: every run writes its tables and figures here
RESULTS = BENCH_DIR / "results"
