"""The compiled solver (patience/solver/native.py) against its reference, the Python
modules: the same searches, run once with the speed paths on and once off (each in a
process of its own, as a module is compiled or not for a whole process), give the same
verdicts, the same lines and the same positions entered, on every game; and a build of
other sources, or of another Python, is never used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from patience.solver import native

REPO = Path(__file__).resolve().parents[2]

# Searches capped in positions (never in time), so that both runs search alike: deals of
# every game, and positions after random moves from them.
SEARCHES = """
import json, random, sys
import patience
from patience.solver import Budget, native, solve
from tests.solver.soundness import random_play

rng = random.Random(44)
rows = []
for variant in patience.VARIANTS:
    for deal in (1, 2, 3):
        state = patience.get_variant(variant).new_game(deal)
        for moves in (0, 10, 40):
            start = random_play(state, rng, moves)
            result = solve(start, Budget(nodes=4000, seconds=600, cpu_time=True))
            rows.append([
                variant, deal, moves, result.verdict.value, result.nodes,
                " ".join(map(str, result.line)), " ".join(map(str, result.promising_line)),
            ])
print(json.dumps({"compiled": native.compiled(), "rows": rows}))
"""


def searched(speed_paths: str) -> dict[str, object]:
    env = {**os.environ, native.SPEED_PATHS: speed_paths}
    done = subprocess.run(
        [sys.executable, "-c", SEARCHES], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


@pytest.mark.skipif(not native.usable(), reason="no compiled build (make compiled)")
def test_the_compiled_search_equals_the_python_one() -> None:
    on, off = searched("on"), searched("off")
    assert on["compiled"] is True
    assert off["compiled"] is False
    assert on["rows"] == off["rows"]


def test_a_build_of_other_sources_is_not_used(tmp_path: Path) -> None:
    package = tmp_path / "solver"
    package.mkdir()
    for name in native.MODULES:
        shutil.copy(native.PACKAGE / f"{name}.py", package)
    build = tmp_path / "compiled"
    build.mkdir()
    suffix = native.extension_suffix()
    for name in (*native.MODULES, f"{native.GROUP}__mypyc"):
        (build / f"{name}{suffix}").touch()
    stamp = {"suffix": suffix, "sources": native.fingerprints(package)}
    (build / "sources.json").write_text(json.dumps(stamp))
    assert native.usable(build, package)
    # a source edited since the build
    with (package / "search.py").open("a") as source:
        source.write("\n# edited\n")
    assert not native.usable(build, package)
    # built for another Python
    stamp = {"suffix": ".cpython-0-x.so", "sources": native.fingerprints(package)}
    (build / "sources.json").write_text(json.dumps(stamp))
    assert not native.usable(build, package)
    # a module missing
    stamp["suffix"] = suffix
    (build / "sources.json").write_text(json.dumps(stamp))
    (build / f"dead_ends{suffix}").unlink()
    assert not native.usable(build, package)


def test_the_switch_turns_the_build_off() -> None:
    for value in ("off", "false", "0", "No"):
        assert native.search_path(["here"], {native.SPEED_PATHS: value}) == ["here"]
    assert native.speed_paths_on({})
    assert native.speed_paths_on({native.SPEED_PATHS: "on"})
