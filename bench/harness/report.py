"""The results of a run: sections of Markdown tables, plus a flat dict of named
figures (written as JSON) that scripts and the smoke test can read."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path


def fmt(value: float | int | None, digits: int = 1) -> str:
    """A figure for a table cell: thousands separated, `-` when there is none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value * 100:.0f}%"


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        self.rows.append([str(cell) for cell in cells])

    def markdown(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], len(cell))

        def line(cells: list[str]) -> str:
            padded = [cell.ljust(widths[i]) for i, cell in enumerate(cells)]
            return "| " + " | ".join(padded) + " |"

        rule = "| " + " | ".join("-" * w for w in widths) + " |"
        return "\n".join([line(self.headers), rule, *(line(r) for r in self.rows)])


@dataclass
class Section:
    title: str
    blocks: list[str | Table] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.blocks.append(text)

    def table(self, *headers: str) -> Table:
        table = Table(list(headers))
        self.blocks.append(table)
        return table

    def markdown(self) -> str:
        parts = [f"## {self.title}"]
        for block in self.blocks:
            parts.append(block.markdown() if isinstance(block, Table) else block)
        return "\n\n".join(parts)


@dataclass
class Report:
    title: str = "patience-engine: measured speed"
    preamble: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    figures: dict[str, float] = field(default_factory=dict)

    def section(self, title: str) -> Section:
        section = Section(title)
        self.sections.append(section)
        return section

    def figure(self, name: str, value: float | None) -> None:
        """Record a named figure (NaN and None are left out)."""
        if value is not None and not math.isnan(value):
            self.figures[name] = float(value)

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
