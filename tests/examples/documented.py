"""The examples of the Markdown docs that are run and checked, read from the docs.

A fenced block is checked when an HTML comment (invisible once rendered) stands on
the line before its opening fence:

    <!-- checked -->          the block (sh or python) is run; the output it shows
                              is compared with what the run prints
    <!-- checked: output -->  the block is the output of the command run just before
                              it (a json block is compared as JSON, others line by line)
    <!-- not checked: why --> the block is left out on purpose, for the reason given

and a comment of its own can run commands without showing them, to set up what the
next block shows (any name used in it is the reader's to ignore):

    <!-- checked: run
    GAME=...
    -->

Every checked block of one document runs in order in one bash session (variables
carry over from block to block), in a folder of its own, against one running service;
the addresses the docs use (127.0.0.1:8000 for REST, 127.0.0.1:50051 for gRPC) are
replaced by the service's. A python block runs with the project's Python.

What a block shows as output:
- sh: a command's output is the comment lines right under it (`# text` per line of
  output), or a comment at the end of its last line after two or more spaces
  (`cmd   # text`). A comment after a blank line is a remark, not output. A command
  that shows no output is only required to succeed.
- python: the comment lines right under a line that calls print( at its indentation,
  or a comment at the end of that line; the whole of what the block prints must be
  what those comments show, in order.
- In a shown output line, `...` stands for any text (an id, a token, a time).
Every command must exit with status 0 (bash with pipefail).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

CHECKED = "checked"
OUTPUT = "output"
RUN = "run"

_MARKER = re.compile(r"^<!--\s*(not checked|checked)\s*(?::\s*(.*?))?\s*(-->)?\s*$")
_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
_TRAILING_OUTPUT = re.compile(r"^(.*?\S)\s{2,}#(?: (.*)|)$")
_CONTINUED = re.compile(r"(\\|\||&&)\s*$")
# Fenced blocks that talk to a running service must be marked one way or the other.
SERVICE_WORDS = ("curl ", "grpcurl", "127.0.0.1:8000", "localhost:8000", "127.0.0.1:50051")


@dataclass
class Command:
    """A shell command (its lines joined) and the output the doc shows for it."""

    text: str
    line: int
    shown: list[str] | None = None  # None: no output shown, only success required


@dataclass
class Step:
    """One thing to do in a document's session, in order."""

    kind: str  # "sh", "python" or "output"
    line: int
    commands: list[Command] = field(default_factory=list)  # sh
    source: str = ""  # python
    shown: list[str] = field(default_factory=list)  # python: printed lines; output: the block
    json: bool = False  # output: compared as JSON


@dataclass
class Block:
    """A fenced block and the marker before it ("" when unmarked)."""

    language: str
    line: int  # of the opening fence, counted from 1
    body: list[str]
    marker: str
    marker_argument: str

    def talks_to_the_service(self) -> bool:
        text = "\n".join(self.body)
        return any(word in text for word in SERVICE_WORDS)


def _quotes_balanced(text: str) -> bool:
    """True when `text` does not end inside a quoted string (so a `#` after it starts
    a comment)."""
    quote = ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
    return not quote


def _comment_text(line: str) -> str:
    body = line.strip()[1:]
    return body[1:] if body.startswith(" ") else body


def shell_commands(lines: list[str], first_line: int) -> list[Command]:
    """The commands of a shell block, each with the output shown for it."""
    commands: list[Command] = []
    current: Command | None = None  # the command whose output lines may follow
    continuing = False
    for offset, raw in enumerate(lines):
        line = raw.rstrip()
        number = first_line + offset
        if continuing and current is not None:
            current.text += "\n" + line
            continuing = bool(_CONTINUED.search(line))
            if not continuing:
                _split_trailing_output(current)
            continue
        if not line.strip():
            current = None
            continue
        if line.lstrip().startswith("#"):
            if current is not None:
                current.shown = [*(current.shown or []), _comment_text(line)]
            continue
        current = Command(line, number)
        commands.append(current)
        continuing = bool(_CONTINUED.search(line))
        if not continuing:
            _split_trailing_output(current)
    return commands


def _split_trailing_output(command: Command) -> None:
    head, _, last = command.text.rpartition("\n")
    match = _TRAILING_OUTPUT.match(last)
    if match and _quotes_balanced(match.group(1)):
        command.text = (head + "\n" if head else "") + match.group(1)
        command.shown = [match.group(2) or ""]


def python_output(lines: list[str]) -> list[str]:
    """The printed lines a python block shows, in order."""
    shown: list[str] = []
    print_indent: int | None = None  # set right after a line that prints
    for raw in lines:
        line = raw.rstrip()
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if stripped.startswith("#"):
            if print_indent is not None and indent == print_indent:
                shown.append(_comment_text(line))
                continue
            print_indent = None
            continue
        print_indent = None
        if "print(" in line:
            match = _TRAILING_OUTPUT.match(line)
            if match and _quotes_balanced(match.group(1)):
                shown.append(match.group(2) or "")
            else:
                print_indent = indent
    return shown


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, each with its marker; a hidden `run`
    comment is returned as a block of language `sh` marked `checked: run`."""
    lines = path.read_text().split("\n")
    found: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        marker = _MARKER.match(line.strip())
        if marker and marker.group(1) == CHECKED and (marker.group(2) or "") == RUN:
            end = index + 1
            while end < len(lines) and "-->" not in lines[end]:
                end += 1
            found.append(Block("sh", index + 1, lines[index + 1 : end], CHECKED, RUN))
            index = end + 1
            continue
        fence = _FENCE.match(line)
        if fence:
            opening = fence.group(2)
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith(opening):
                end += 1
            previous = _MARKER.match(lines[index - 1].strip()) if index else None
            kind, argument = ("", "")
            if previous:
                kind, argument = previous.group(1), previous.group(2) or ""
            found.append(Block(fence.group(3), index + 1, lines[index + 1 : end], kind, argument))
            index = end + 1
            continue
        index += 1
    return found


def steps(path: Path) -> list[Step]:
    """What a document's checked blocks ask to run and to compare, in order."""
    result: list[Step] = []
    for block in blocks(path):
        if block.marker != CHECKED:
            continue
        first = block.line + 1
        if block.marker_argument == OUTPUT:
            json_block = block.language == "json"
            result.append(Step(OUTPUT, block.line, shown=block.body, json=json_block))
        elif block.language in ("sh", "bash", "shell", "console"):
            result.append(Step("sh", block.line, commands=shell_commands(block.body, first)))
        elif block.language == "python":
            source = "\n".join(block.body)
            result.append(
                Step("python", block.line, source=source, shown=python_output(block.body))
            )
        else:
            raise ValueError(f"{path}:{block.line}: a checked block must be sh or python")
    return result


def output_matches(shown: str, printed: str) -> bool:
    """One line: equal, where `...` in the shown line stands for any text."""
    if "..." not in shown:
        return shown == printed
    pattern = ".*?".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed) is not None
