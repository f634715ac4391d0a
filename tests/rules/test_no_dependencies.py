"""The rules library stands alone: it runs on the standard library only, with no
site-packages at all (its distribution declares no dependencies, and this holds it to
that)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import patience

RULES_ROOT = Path(patience.__file__).resolve().parent.parent

PROGRAM = """
import importlib, pkgutil, sys
sys.path.insert(0, sys.argv[1])
import patience
for module in pkgutil.walk_packages(patience.__path__, "patience."):
    importlib.import_module(module.name)
game = patience.Game("la-belle-lucie", deal=7)
game.push(game.legal_moves()[0])
from patience.solver import Budget, solve
solve(game.state, Budget(nodes=200))
outside = sorted(
    name for name, module in sys.modules.items()
    if name.partition(".")[0] != "patience"
    and getattr(module, "__file__", None)
    and not module.__file__.startswith(sys.base_prefix)
)
print(outside)
"""


def test_the_rules_library_imports_nothing_outside_the_standard_library() -> None:
    # -S: no site-packages on the path; -I: no user site, no PYTHON* variables
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROGRAM, str(RULES_ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
