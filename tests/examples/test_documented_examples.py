"""The examples in README.md and docs/*.md, run against `patience serve` and compared
with what the docs show (tests/examples/documented.py says how a block is marked), so
that a change of behaviour that makes a doc wrong fails here."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.examples import documented
from tests.examples.conftest import Service
from tests.tools import REPO, node, program

pytestmark = pytest.mark.xdist_group("examples")

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SESSION_SECONDS = 300
NO_SERVICE = Service(rest="http://127.0.0.1:9", grpc="127.0.0.1:9")  # never called
_PYTHON_END = "PATIENCE_DOC_PYTHON_END"


def _name(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def _with_service(text: str, service: Service) -> str:
    rest = service.rest.removeprefix("http://")
    for documented_rest in ("127.0.0.1:8000", "localhost:8000"):
        text = text.replace(documented_rest, rest)
    return text.replace("127.0.0.1:50051", service.grpc)


def _script(steps: list[documented.Step], service: Service, out: Path) -> str:
    """One bash session running every command of `steps`; command N leaves its
    output, errors and exit status in out/N.out, .err and .rc."""
    parts = ["set -o pipefail"]
    count = 0
    for step in steps:
        if step.kind == "sh":
            bodies = [command.text for command in step.commands]
        elif step.kind == "python":
            bodies = [f"\"$PYTHON\" - <<'{_PYTHON_END}'\n{step.source}\n{_PYTHON_END}"]
        else:
            continue
        for body in bodies:
            files = f'"{out}/{count}'
            parts.append(
                f'{{\n{_with_service(body, service)}\n}} >{files}.out" 2>{files}.err";'
                f' echo $? >{files}.rc"'
            )
            count += 1
    return "\n".join(parts) + "\n"


def _printed(out: Path, index: int) -> list[str]:
    lines = [line.rstrip() for line in (out / f"{index}.out").read_text().split("\n")]
    lines = [line.replace("\r", "") for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _compare(where: str, shown: list[str], printed: list[str]) -> list[str]:
    shown = [line.rstrip() for line in shown]
    while shown and not shown[-1]:
        shown.pop()
    if len(shown) == len(printed) and all(
        documented.output_matches(a, b) for a, b in zip(shown, printed, strict=True)
    ):
        return []
    return [
        f"{where}: the doc shows\n    "
        + "\n    ".join(shown)
        + "\n  the run printed\n    "
        + "\n    ".join(printed)
    ]


def _compare_json(where: str, shown: list[str], printed: list[str]) -> list[str]:
    try:
        same = json.loads("\n".join(shown)) == json.loads("\n".join(printed))
    except json.JSONDecodeError as error:
        return [f"{where}: not JSON ({error}): {printed}"]
    return [] if same else _compare(where, shown, printed)


def _outcomes(path: Path, steps: list[documented.Step], out: Path) -> list[str]:
    """Every difference between what the doc shows and what the session did."""
    failures: list[str] = []
    index = -1  # the last command run
    for step in steps:
        if step.kind == "output":
            where = f"{_name(path)}:{step.line} (output of the command before)"
            if index < 0:
                failures.append(f"{where}: no command was run before it")
                continue
            compare = _compare_json if step.json else _compare
            failures += compare(where, step.shown, _printed(out, index))
            continue
        lines = [c.line for c in step.commands] if step.kind == "sh" else [step.line]
        shown_by = [c.shown for c in step.commands] if step.kind == "sh" else [step.shown]
        for line, shown in zip(lines, shown_by, strict=True):
            index += 1
            where = f"{_name(path)}:{line}"
            rc_file = out / f"{index}.rc"
            if not rc_file.exists():
                return [*failures, f"{where}: did not finish within {SESSION_SECONDS} s"]
            status = int(rc_file.read_text())
            if status != 0:
                errors = (out / f"{index}.err").read_text()[-2000:]
                failures.append(f"{where}: exit status {status}\n{errors}")
            elif shown is not None:
                failures += _compare(where, shown, _printed(out, index))
    return failures


def run_document(path: Path, service: Service, folder: Path) -> list[str]:
    """Runs a document's checked examples in `folder`; the differences found."""
    steps = documented.steps(path)
    work, out = folder / "work", folder / "out"
    work.mkdir()
    out.mkdir()
    # Relative paths of the docs (.venv/bin/..., node_modules/.bin/buf) as in a checkout.
    for name in (".venv", "node_modules"):
        target = Path(sys.prefix) if name == ".venv" else REPO / name
        if target.exists():
            (work / name).symlink_to(target)
    script = folder / "session.sh"
    script.write_text(_script(steps, service, out))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHON": sys.executable,
    }
    # past the time, the first command without an exit status is reported
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(
            ["bash", str(script)], cwd=work, env=env, timeout=SESSION_SECONDS, check=False
        )
    return _outcomes(path, steps, out)


def _needs(path: Path) -> None:
    """Skips (fails in CI) when a tool the document's examples run is missing."""
    text = "\n".join(command.text for step in documented.steps(path) for command in step.commands)
    for tool in ("curl", "jq"):
        if tool in text:
            program(tool)
    if "node_modules/.bin/" in text or re.search(r"(^|\s)node\s", text):
        node()


def _with_examples() -> list[Path]:
    return [path for path in DOCUMENTS if documented.steps(path)]


@pytest.mark.parametrize("path", _with_examples(), ids=_name)
def test_documented_examples_print_what_the_docs_show(
    path: Path, service: Service, tmp_path: Path
) -> None:
    _needs(path)
    failures = run_document(path, service, tmp_path)
    assert not failures, "\n\n".join(failures)


SAMPLE = """\
<!-- checked: run
WORD=patience
-->

<!-- checked -->
```sh
echo "$WORD"   # patience
printf 'one\\ntwo\\n'
# one
# two

# a remark, not output
echo 'a # inside quotes'
# a # inside quotes
echo id-1234   # id-...
```

<!-- checked -->
```python
for n in range(2):
    print(n * 2)
    # 0
    # 2
print("done")  # done
```

<!-- checked -->
```sh
echo '{"b": [1, 2], "a": "x"}'
```

<!-- checked: output -->
```json
{"a": "x", "b": [1, 2]}
```
"""


def test_the_checker_passes_a_true_document(tmp_path: Path) -> None:
    doc = tmp_path / "sample.md"
    doc.write_text(SAMPLE)
    steps = documented.steps(doc)
    assert [step.kind for step in steps] == ["sh", "sh", "python", "sh", "output"]
    assert [c.shown for c in steps[1].commands] == [
        ["patience"],
        ["one", "two"],
        ["a # inside quotes"],
        ["id-..."],
    ]
    assert steps[2].shown == ["0", "2", "done"]
    (tmp_path / "run").mkdir()
    assert run_document(doc, NO_SERVICE, tmp_path / "run") == []


@pytest.mark.parametrize(
    ("true", "false"),
    [
        ('echo "$WORD"   # patience', 'echo "$WORD"   # solitaire'),
        ("# two\n", "# three\n"),
        ('print("done")  # done', 'print("done!")  # done'),
        ('{"a": "x", "b": [1, 2]}', '{"a": "x", "b": [2, 1]}'),
        ("echo id-1234", "echo di-1234"),
        ("WORD=patience", "WORD=patience; false"),
    ],
)
def test_the_checker_finds_a_wrong_document(tmp_path: Path, true: str, false: str) -> None:
    assert SAMPLE.count(true) == 1
    doc = tmp_path / "sample.md"
    doc.write_text(SAMPLE.replace(true, false))
    (tmp_path / "run").mkdir()
    failures = run_document(doc, NO_SERVICE, tmp_path / "run")
    assert len(failures) >= 1, false


def test_every_example_calling_the_service_is_marked() -> None:
    unmarked = [
        f"{_name(path)}:{block.line}"
        for path in DOCUMENTS
        for block in documented.blocks(path)
        if not block.marker and block.talks_to_the_service()
    ]
    assert not unmarked, (
        "these examples call the service but are not marked `<!-- checked -->` (or "
        f"`<!-- not checked: why -->`), see tests/examples/documented.py: {unmarked}"
    )
