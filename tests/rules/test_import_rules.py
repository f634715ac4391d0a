"""The import rules that `make check` holds (pyproject.toml, `[tool.importlinter]`): a
circle of imports is refused, one that only type checkers follow (`if TYPE_CHECKING:`)
as much as one that runs, and the project's own tree keeps every rule.

The circles are small packages written for the test and checked with the project's own
settings and cycle contracts, pointed at them."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
SETTINGS: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
    "importlinter"
]
PACKAGE = "circle"

TYPE_ONLY = (
    "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from {module} import {name}\n"
)

# Each package: its modules (path -> source) beside an empty __init__.py.
PACKAGES: dict[str, dict[str, str]] = {
    "no circle": {
        "a.py": "from circle.b import helper\n\nA = helper()\n",
        "b.py": "def helper() -> int:\n    return 1\n",
    },
    "a circle at run time": {
        "a.py": "from circle.b import helper\n\nA = helper()\n",
        "b.py": "import circle.a\n\ndef helper() -> int:\n    return 1\n",
    },
    "a circle for type checkers only": {
        "a.py": "from circle.b import helper\n\nclass A:\n    pass\n",
        "b.py": TYPE_ONLY.format(module="circle.a", name="A")
        + '\ndef helper(a: "A") -> None:\n    pass\n',
    },
    "a circle between subpackages, three deep": {
        "x/__init__.py": "",
        "x/deep/__init__.py": "",
        "x/deep/a.py": "from circle.y.b import helper\n",
        "y/__init__.py": "",
        "y/b.py": TYPE_ONLY.format(module="circle.x.deep.a", name="helper"),
    },
}


def cycle_rules(package: str) -> str:
    """The project's import settings with its cycle contracts, aimed at ``package`` alone,
    as a configuration file."""
    lines = ["[tool.importlinter]", f'root_packages = ["{package}"]']
    lines += [
        f"{key} = {_toml(value)}"
        for key, value in SETTINGS.items()
        if key not in ("root_packages", "contracts")
    ]
    contracts = [c for c in SETTINGS["contracts"] if c["type"] == "acyclic_siblings"]
    assert contracts, "pyproject.toml has no cycle contract"
    for contract in contracts:
        lines += ["", "[[tool.importlinter.contracts]]"]
        lines += [
            f"{key} = {_toml([package] if key == 'ancestors' else value)}"
            for key, value in contract.items()
        ]
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("case", list(PACKAGES))
def test_the_import_rules_refuse_a_circle(case: str, tmp_path: Path) -> None:
    root = tmp_path / PACKAGE
    root.mkdir()
    (root / "__init__.py").write_text("")
    for path, source in PACKAGES[case].items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source)
    (tmp_path / "rules.toml").write_text(cycle_rules(PACKAGE))
    result = lint_imports(tmp_path, "--config", "rules.toml")
    output = result.stdout + result.stderr
    if case == "no circle":
        assert result.returncode == 0, output
        assert "BROKEN" not in output
    else:
        assert result.returncode == 1, output
        assert "BROKEN" in output and f"No cycles are allowed in {PACKAGE}" in output, output


def test_the_project_keeps_its_import_rules() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
