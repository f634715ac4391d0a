"""`--solver-processes` of `patience serve` and `patience engine`: parsed, refused below
one, and the count the banner tells when the flag is not given."""

from __future__ import annotations

import pytest
from patience_launcher.cli import (
    DEFAULT_SOLVER_PROCESSES,
    UsageError,
    build_parser,
    main,
    search_note,
    search_processes,
)


@pytest.mark.parametrize("command", ["serve", "engine"])
def test_the_flag_is_parsed(command: str) -> None:
    parser = build_parser()
    assert parser.parse_args([command, "--solver-processes", "3"]).solver_processes == 3
    assert parser.parse_args([command]).solver_processes is None


@pytest.mark.parametrize("command", ["serve", "engine"])
@pytest.mark.parametrize("value", ["0", "-2"])
def test_fewer_than_one_is_refused(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--solver-processes", value])
    assert exited.value.code == 2
    assert "--solver-processes must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["serve", "engine"])
def test_a_count_that_is_not_a_number_is_refused(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--solver-processes", "two"])
    assert exited.value.code == 2
    assert "--solver-processes" in capsys.readouterr().err


def test_the_count_comes_from_the_flag_else_the_environment_else_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ENGINE_SOLVER_PROCESSES", raising=False)
    assert search_processes(None) == DEFAULT_SOLVER_PROCESSES
    monkeypatch.setenv("ENGINE_SOLVER_PROCESSES", "3")
    assert search_processes(None) == 3
    assert search_processes(2) == 2


@pytest.mark.parametrize("value", ["0", "many"])
def test_a_bad_count_in_the_environment_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ENGINE_SOLVER_PROCESSES", value)
    with pytest.raises(UsageError, match="ENGINE_SOLVER_PROCESSES"):
        search_processes(None)


def test_the_banner_note() -> None:
    assert search_note(1) == "1 search process each"
    assert search_note(4) == "4 search processes each"
