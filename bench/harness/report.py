"""The results of a run: sections of Markdown tables, plus a flat dict of named figures
(written as JSON) that scripts and the smoke test can read.

A table is data: its columns say how their numbers are written (decimals, a unit, a
percentage), its rows hold the values themselves, and this module alone turns them into
text, so that every table of the bench and of the research tools reads the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.stats import Measurement


def fmt(value: float | None, digits: int = 1) -> str:
    """A number as a table writes it, for a note."""
    return Column("", digits).cell(value)


def pct(value: float | None) -> str:
    """A share as a percentage, for a note (a table's column says `percent`)."""
    return Column("", digits=0, percent=True).cell(value)


def _is_number(value: object) -> bool:
    if isinstance(value, list | tuple):
        return all(_is_number(item) for item in value)
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


@dataclass(frozen=True)
class Column:
    """A column's header, and how its numbers are written: thousands separated, `digits`
    decimals below 1,000 and none from there on, then `unit`; or, with `percent`, a share
    as a percentage with `digits` decimals. Several values in one cell are joined by
    `joiner`; a text is written as it is, a missing value (None, NaN) as `-`, a yes-or-no
    as `yes` or `no`."""

    header: str
    digits: int = 1
    unit: str = ""
    percent: bool = False
    joiner: str = " / "

    def cell(self, value: object) -> str:
        if isinstance(value, list | tuple):
            return self.joiner.join(self.cell(item) for item in value)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int | float):
            if self.percent:
                return f"{value * 100:.{self.digits}f}%"
            digits = 0 if abs(value) >= 1000 else self.digits
            text = f"{value:,}" if isinstance(value, int) else f"{value:,.{digits}f}"
            return text + self.unit
        return str(value)


@dataclass
class Table:
    """Rows of values under columns; a column of numbers only is aligned right."""

    columns: list[Column]
    rows: list[list[object]] = field(default_factory=list)

    def add(self, *values: object) -> None:
        if len(values) != len(self.columns):
            raise ValueError(f"{len(values)} values for {len(self.columns)} columns")
        self.rows.append(list(values))

    def markdown(self) -> str:
        texts = [[c.cell(v) for c, v in zip(self.columns, row, strict=True)] for row in self.rows]
        headers = [column.header for column in self.columns]
        widths = [max([len(h), *(len(row[i]) for row in texts)]) for i, h in enumerate(headers)]
        right = [
            bool(self.rows) and all(_is_number(row[i]) for row in self.rows)
            for i in range(len(headers))
        ]

        def line(cells: list[str]) -> str:
            padded = [
                cell.rjust(w) if r else cell.ljust(w)
                for cell, w, r in zip(cells, widths, right, strict=True)
            ]
            return "| " + " | ".join(padded) + " |"

        rules = ["-" * (w - 1) + ":" if r else "-" * w for w, r in zip(widths, right, strict=True)]
        rule = "| " + " | ".join(rules) + " |"
        return "\n".join([line(headers), rule, *(line(row) for row in texts)])


def table(*columns: Column | str) -> Table:
    """A table of these columns (a header alone: a column written as fmt writes)."""
    return Table([c if isinstance(c, Column) else Column(c) for c in columns])


# the latencies of a closed-loop measurement's row, as fractions
LATENCIES = (0.50, 0.95, 0.99)


def measurement_columns(
    rate: str = "calls/s", latencies: Sequence[float] = LATENCIES
) -> list[Column]:
    """The columns of measurement_cells."""
    return [
        Column(rate),
        *(Column(f"p{fraction * 100:g} ms", 2) for fraction in latencies),
        Column("server CPU µs/call", 0),
        Column("client CPU µs/call", 0),
        Column("errors"),
    ]


def measurement_cells(m: Measurement, latencies: Sequence[float] = LATENCIES) -> list[object]:
    """A closed-loop measurement's row: rate, latencies, server and client CPU, errors."""
    return [
        m.rate,
        *(m.latency_ms(fraction) for fraction in latencies),
        m.server_cpu_us_per_call,
        m.client_cpu_us_per_call,
        m.errors,
    ]


def cpu_by_process(m: Measurement) -> str:
    """Server CPU per call of each process measured, for a note."""
    return ", ".join(
        f"{process} {fmt(m.server_cpu_us_per_call_of(process), 0)} µs"
        for process in m.server_cpu_by_name
    )


@dataclass
class Figures:
    """Named figures, written as JSON beside the tables (NaN and None are left out)."""

    figures: dict[str, float] = field(default_factory=dict)

    def figure(self, name: str, value: float | None) -> None:
        if value is not None and not math.isnan(value):
            self.figures[name] = float(value)

    def record(self, prefix: str, **figures: float | None) -> None:
        """Figures named `prefix`.<name>."""
        for name, value in figures.items():
            self.figure(f"{prefix}.{name}", value)

    def measurement(self, prefix: str, m: Measurement) -> None:
        """A closed-loop measurement's figures under `prefix`: rate, p50/p90/p95/p99 in
        ms, server and client CPU µs per call, and the server's split by process
        (cpu_us.<process>)."""
        self.record(prefix, rate=m.rate, server_cpu_us=m.server_cpu_us_per_call)
        self.record(prefix, client_cpu_us=m.client_cpu_us_per_call)
        for percent in (50, 90, 95, 99):
            self.figure(f"{prefix}.p{percent}_ms", m.latency_ms(percent / 100))
        for process in m.server_cpu_by_name:
            self.figure(f"{prefix}.cpu_us.{process}", m.server_cpu_us_per_call_of(process))


@dataclass(kw_only=True)
class Section(Figures):
    """A section of the report: notes and tables; its figures are the report's."""

    title: str
    blocks: list[str | Table] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.blocks.append(text)

    def first_error(self, what: str, error: str) -> None:
        """A note of the first error a measurement met, if it met one."""
        if error:
            self.note(f"First error ({what}): {error}")

    def table(self, *columns: Column | str) -> Table:
        added = table(*columns)
        self.blocks.append(added)
        return added

    def markdown(self) -> str:
        parts = [f"## {self.title}"]
        for block in self.blocks:
            parts.append(block.markdown() if isinstance(block, Table) else block)
        return "\n\n".join(parts)


@dataclass(kw_only=True)
class Report(Figures):
    title: str = "patience-engine: measured speed"
    preamble: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)

    def section(self, title: str) -> Section:
        section = Section(title=title, figures=self.figures)
        self.sections.append(section)
        return section

    def markdown(self) -> str:
        parts = [f"# {self.title}", *self.preamble, *(s.markdown() for s in self.sections)]
        return "\n\n".join(parts) + "\n"

    def write(self, directory: Path, stem: str = "latest") -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        md_path = directory / f"{stem}.md"
        json_path = directory / f"{stem}.json"
        md_path.write_text(self.markdown(), encoding="utf-8")
        json_path.write_text(json.dumps(self.figures, indent=2, sort_keys=True) + "\n")
        return md_path, json_path
