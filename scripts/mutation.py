"""Mutation testing (mutmut) of the rules library, the solver, the gateway's body, event,
view and store modules and the launcher's supervisor, each part against the tests of
that part (docs/testing.md).

    make mutation                                  every part (hours on two cores)
    make mutation PARTS="solver"                   one part, or several
    make mutation FILES="rules/patience/solver/pruning.py ..."
    make mutation SINCE=origin/main                the files changed since a commit
    make mutation PARTS=gateway NAMES="*GameStore*__init__*"   only the mutants named

Each part runs in a workspace of its own under build/mutation/<part>/: the package
copied to src/, the tests copied beside it, a pyproject.toml with the part's mutmut
settings. mutmut mutates the copy (never the working tree, where other work goes on),
runs, for each mutant, the tests that reach the mutated function, and keeps its
results there, so a second run only tries what changed. The report at the end gives,
per module, the mutants tried, killed, survived and mutmut's score (killed and timed
out over those tried); `mutmut results` and `mutmut show NAME` in the workspace show
each survivor.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutation"


@dataclass(frozen=True)
class Part:
    package: str  # the package's folder, relative to the repository root
    mutate: tuple[str, ...]  # globs of the modules to mutate, relative to the package's parent
    skip: tuple[str, ...]  # globs of modules left alone
    tests: tuple[str, ...]  # the part's tests, relative to the root
    # tests of the part left out: slow ones that reach the part only through others
    ignore: tuple[str, ...] = ()
    # folders of the repository the tests import, copied beside them (docs always is)
    also: tuple[str, ...] = ()
    # mutmut's `process_isolation`: "fork" forks each mutant's run from the process that
    # ran the whole part's tests; "forkserver" from a clean one, for tests whose servers
    # (gRPC's) cannot be forked once they have run
    isolation: str = "fork"

    @property
    def name(self) -> str:
        return Path(self.package).name


RULES = "rules/patience"
HINTS = ("patience/solver/hints.py", "patience/solver/unseen.py")
# The body rules' tests: every request passes the body middleware, so the rest of the
# suite reaches it too, but these are the ones that send the bodies it refuses.
BODY_TESTS = tuple(
    f"tests/gateway/{name}.py"
    for name in (
        "test_body_rules", "test_body_chunks", "test_gateway_depth", "test_gateway_errors",
        "test_gateway_fast_moves",
    )
)  # fmt: skip
# The gateway part's tests: those of its three modules (events and streams; the views'
# answers; the store's operations, outcomes, races, costs and replicas; players, records
# and what ends a game). The rest of tests/gateway reaches them only as these do, through
# whole games over HTTP, failover and timed searches, which the mutated code's slower
# calls would upset; and tests that talk to gateways in processes of their own cannot
# kill a mutant at all (those processes import the code unmutated).
GATEWAY_TESTS = tuple(
    f"tests/gateway/{name}.py"
    for name in (
        "test_gateway_errors",
        "test_gateway_event_hub", "test_gateway_events", "test_stream_overflow",
        "test_stream_tickets",
        "test_gateway_answer_schemas", "test_gateway_reads", "test_openapi_contract",
        "test_gateway_operations", "test_gateway_outcomes", "test_gateway_concurrency",
        "test_gateway_create_once", "test_gateway_deal_reveal", "test_gateway_redis_cost",
        "test_gateway_cluster",  # the replicas' confirmation of each kind of change
        "test_game_store",  # the store built inside each test: its settings, its fields
        # hints and settings; players, records and what ends a game (PostgreSQL's)
        "test_gateway_solver", "test_players", "test_records", "test_daily", "test_statistics",
        "test_challenges", "test_replays_and_shares", "test_signed_results",
    )
)  # fmt: skip
PARTS: dict[str, Part] = {
    "rules": Part(
        RULES,
        ("patience/*.py", "patience/games/*.py"),
        ("patience/solver/*", "patience/__init__.py"),
        ("tests/rules",),
        # imports the package in a bare interpreter, which cannot load mutmut's switches
        ("tests/rules/test_no_dependencies.py",),
    ),
    "solver": Part(
        RULES,
        ("patience/solver/*.py",),
        ("patience/solver/__init__.py", *HINTS),
        ("tests/solver",),
        # hints over arrangements of the unseen cards: many whole searches per test, which
        # reach the search's shortcuts only through it
        ("tests/solver/test_fair_hints.py",),
    ),
    # The hints and the arrangements of the unseen cards, against every solver test (the
    # fair hints' own among them): apart from the solver part, whose shortcuts are
    # checked faster without the fair hints' many whole searches.
    "hints": Part(RULES, HINTS, (), ("tests/solver",)),
    "bodies": Part(
        "services/gateway/patience_gateway",
        ("patience_gateway/http/bodies.py",),
        (),
        BODY_TESTS,
        (),
        ("bench",),
        "forkserver",  # the tests' engines and the gateway's channels are gRPC's
    ),
    "gateway": Part(
        "services/gateway/patience_gateway",
        (
            "patience_gateway/games/streams.py",
            "patience_gateway/games/answers.py",
            "patience_gateway/storage/store.py",
        ),
        (),
        GATEWAY_TESTS,
        (),
        ("bench",),  # some tests start gateways with the bench's harness
        "forkserver",  # the tests' engines and the gateway's channels are gRPC's
    ),
    "launcher": Part(
        "services/launcher/patience_launcher",
        ("patience_launcher/supervisor.py",),
        (),
        ("tests/launcher/test_supervisor.py",),
    ),
}


def part_of(path: str) -> tuple[str, str] | None:
    """The part a changed file belongs to, and its glob inside the workspace."""
    for key, part in PARTS.items():
        if not path.startswith(part.package + "/") or not path.endswith(".py"):
            continue
        inside = str(Path(part.name) / Path(path).relative_to(part.package))
        if any(fnmatch.fnmatch(inside, g) for g in part.mutate) and not any(
            fnmatch.fnmatch(inside, g) for g in part.skip
        ):
            return key, inside
    return None


def prepare(key: str, part: Part, only: list[str]) -> Path:
    """The part's workspace: the package under src/, the tests, the settings."""
    work = BUILD / key
    src = work / "src" / part.name
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / part.package, src, ignore=shutil.ignore_patterns("__pycache__"))
    if (work / "tests").exists():
        shutil.rmtree(work / "tests")
    shutil.copytree(ROOT / "tests", work / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    copied = ("docs", *part.also)  # some tests read the guides
    for folder in copied:
        shutil.rmtree(work / folder, ignore_errors=True)
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    lines = [
        "[tool.mutmut]",
        'source_paths = ["src"]',
        "also_copy = " + json.dumps(list(copied)),
        "only_mutate = " + json.dumps(["src/" + g for g in only]),
        "do_not_mutate = " + json.dumps(["src/" + g for g in part.skip]),
        "pytest_add_cli_args_test_selection = " + json.dumps(list(part.tests)),
        "pytest_add_cli_args = "
        + json.dumps(
            ["-p", "no:cacheprovider", "-q", *(f"--ignore={path}" for path in part.ignore)]
        ),
        "timeout_multiplier = 10.0",
        f'process_isolation = "{part.isolation}"',
        "use_git_change_detection = false",
        "",
        "[tool.pytest.ini_options]",
        'asyncio_mode = "auto"',
        'asyncio_default_fixture_loop_scope = "session"',
        'asyncio_default_test_loop_scope = "session"',
        "timeout = 300",
        'markers = ["both_stores: on a single Redis server and on a Redis Cluster"]',
        "",
    ]
    settings = "\n".join(lines)
    # Results are kept between runs only while the code and the tests are the same:
    # mutmut cannot tell which of its results a change of the tests makes stale.
    digest = hashlib.sha256(settings.encode())
    for path in sorted([*(work / "src").rglob("*.py"), *(work / "tests").rglob("*")]):
        if path.is_file():
            digest.update(str(path.relative_to(work)).encode() + b"\0" + path.read_bytes())
    stamp = work / "inputs.sha256"
    if not stamp.exists() or stamp.read_text() != digest.hexdigest():
        shutil.rmtree(work / "mutants", ignore_errors=True)
        stamp.write_text(digest.hexdigest())
    (work / "pyproject.toml").write_text(settings)
    return work


def run_part(
    key: str, only: list[str], children: int, names: list[str]
) -> dict[str, dict[str, int]]:
    part = PARTS[key]
    work = prepare(key, part, only)
    mutmut = Path(sys.executable).with_name("mutmut")
    env = {**os.environ, "PATIENCE_MUTATION": "1"}
    print(f"== {key}: {', '.join(only)} against {', '.join(part.tests)}", flush=True)
    # names: mutmut's own globs over its mutant names (`mutmut results` lists them)
    command = [str(mutmut), "run", "--max-children", str(children), *names]
    status = subprocess.run(command, cwd=work, env=env, check=False).returncode
    if status != 0:
        print(f"mutmut ended with status {status} in {work}", file=sys.stderr)
    return scores(work)


def scores(work: Path) -> dict[str, dict[str, int]]:
    """Per module: how many mutants ended each way (mutmut's own names: killed,
    survived, timeout, no tests, ...), read from the workspace's results."""
    from mutmut.stats import status_by_exit_code  # the tool's own reading of its codes

    out: dict[str, dict[str, int]] = {}
    for meta in sorted((work / "mutants" / "src").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        module = str(meta.relative_to(work / "mutants" / "src"))[: -len(".py.meta")]
        counts = out.setdefault(module.replace("/", "."), {})
        for code in data.get("exit_code_by_key", {}).values():
            kind = status_by_exit_code[code]
            counts[kind] = counts.get(kind, 0) + 1
    return out


def report(results: dict[str, dict[str, int]]) -> None:
    """mutmut's score per module: killed (tests or timeout) over the mutants checked."""
    print()
    print(
        f"{'module':44} {'mutants':>7} {'killed':>7} {'survived':>8} {'no tests':>8} {'score':>6}"
    )
    for module, counts in sorted(results.items()):
        tried = sum(v for k, v in counts.items() if k not in ("not checked", "skipped"))
        killed = counts.get("killed", 0) + counts.get("timeout", 0)
        score = f"{100 * killed / tried:.1f}%" if tried else "-"
        print(
            f"{module:44} {tried:7} {killed:7} {counts.get('survived', 0):8} "
            f"{counts.get('no tests', 0):8} {score:>6}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="", help="parts to run: " + " ".join(PARTS))
    parser.add_argument("--files", default="", help="only these files (repository paths)")
    parser.add_argument("--since", default="", help="only the files changed since this commit")
    parser.add_argument("--children", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--names", default="", help="only the mutants these globs name (mutmut's names)"
    )
    args = parser.parse_args()
    files = args.files.split()
    if args.since:
        changed = subprocess.run(
            ["git", "diff", "--name-only", args.since, "--", *{p.package for p in PARTS.values()}],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        files += [f for f in changed if (ROOT / f).exists()]
    wanted: dict[str, list[str]] = {}
    if files or args.since:
        for path in files:
            found = part_of(path)
            if found is None:
                print(f"not mutated (no part, or left alone): {path}", file=sys.stderr)
                continue
            wanted.setdefault(found[0], []).append(found[1])
        if not wanted:
            print("nothing to mutate")
            return 0
    else:
        for key in args.parts.split() or list(PARTS):
            if key not in PARTS:
                parser.error(f"unknown part {key!r}: one of {' '.join(PARTS)}")
            wanted[key] = list(PARTS[key].mutate)
    results: dict[str, dict[str, int]] = {}
    for key, only in wanted.items():
        results.update(run_part(key, only, args.children, args.names.split()))
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
