"""The bench's and the research tools' commands still start: every part named in the
table has a module with its run function, and each command with a `python -m` of its own
answers --help."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from bench.parts import PARTS, SHARED_STACK
from research import fair_player

REPO_ROOT = Path(__file__).resolve().parents[2]

COMMANDS = [
    "bench",
    "bench.parts.rules",
    "bench.parts.load",
    "research.winnability",
    "research.fair_player",
    "research.following_hints",
    "research.hint_flood",
    "research.streams",
    "research.winnable_deals",
    "research.deal_budgets",
    "research.winnable_demand",
    "research.move_path",
]


@pytest.mark.parametrize("part", PARTS)
def test_every_part_has_a_run_function(part: str) -> None:
    module = importlib.import_module(f"bench.parts.{part}")
    assert callable(module.run)


def test_the_parts_on_the_shared_stack_run_in_a_row() -> None:
    # the command line starts the shared stack once, before the first of them
    positions = [PARTS.index(part) for part in SHARED_STACK]
    assert max(positions) - min(positions) == len(positions) - 1


@pytest.mark.parametrize("module", COMMANDS)
def test_command_answers_help(module: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert f"python -m {module}" in completed.stdout


def test_the_fair_players_section_made_again_keeps_the_line_of_the_run_that_made_it(
    tmp_path: Path,
) -> None:
    """`research.fair_player --render-only` makes the section again from the rows; the
    machine and time it names are those of the run that made them, not of this one."""
    document = tmp_path / "winnability.md"
    line = "Machine: some machine, 2 cores. Run at 2026-01-01 00:00 UTC."
    document.write_text(
        f"# Table\n\n{fair_player.BEGIN}\nMade by `python -m research.fair_player`. {line}\n"
        f"{fair_player.END}\n"
    )
    assert fair_player.earlier_machine_line(document) == line
    assert fair_player.earlier_machine_line(tmp_path / "none.md") is None
