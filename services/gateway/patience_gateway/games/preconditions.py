"""Versions as strong ETags, the If-Match / If-None-Match headers, and the form of an
Idempotency-Key.

Both headers are parsed strictly before anything else is read: a list of at most
MAX_HEADER_CHARS characters whose elements are `*`, an entity tag (`"7"`, `W/"7"`;
printable ASCII inside the quotes) or a bare number (`7`, accepted for convenience).
Anything else answers 400 `malformed-header`. A well-formed tag that is not one of
ours (`"abc"`, or more digits than any version has) is valid and simply never matches.
Only ASCII digits are read as numbers, and never more than MAX_VERSION_DIGITS of them.
"""

from __future__ import annotations

import re

from patience_gateway.problems import ProblemError

MAX_HEADER_CHARS = 1024
MAX_IDEMPOTENCY_KEY = 255
MAX_VERSION_DIGITS = 18
_ELEMENT = re.compile(r'\*|[0-9]+|(?:W/)?"[\x21\x23-\x7e]*"')
_VERSION = re.compile(rf"[0-9]{{1,{MAX_VERSION_DIGITS}}}")


def check_idempotency_key(key: str | None) -> str:
    """The key ("" for none), or malformed-header."""
    if key is None:
        return ""
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise ProblemError(
            "malformed-header", "Idempotency-Key must be 1..255 printable ASCII characters"
        )
    return key


def etag(version: int) -> str:
    return f'"{version}"'


def parse_tags(header: str, name: str) -> list[str]:
    """The elements of an If-Match or If-None-Match header, or malformed-header."""
    tags = (
        [part.strip(" \t") for part in header.split(",")] if len(header) <= MAX_HEADER_CHARS else []
    )
    tags = [tag for tag in tags if tag]
    if not tags or not all(_ELEMENT.fullmatch(tag) for tag in tags):
        raise ProblemError(
            "malformed-header",
            f'{name} must be `*` or a list of entity tags such as `"7"`, '
            f"at most {MAX_HEADER_CHARS} characters",
        )
    return tags


def check_tags(header: str | None, name: str) -> None:
    """Raise malformed-header unless the header is absent or well formed."""
    if header is not None:
        parse_tags(header, name)


def _version_of(tag: str) -> int | None:
    """The version a strong entity tag (or bare number) names; None for weak or
    foreign tags."""
    if tag.startswith("W/"):
        return None  # If-Match uses the strong comparison: weak tags never match
    if tag.startswith('"'):
        tag = tag[1:-1]
    return int(tag) if _VERSION.fullmatch(tag) else None


def matches(if_match: str, version: int) -> bool:
    """RFC 9110 If-Match against the game's current version (`*`: any version)."""
    tags = parse_tags(if_match, "If-Match")
    return "*" in tags or any(_version_of(tag) == version for tag in tags)


def require_match(if_match: str | None, version: int) -> None:
    """Raise stale-version when If-Match is given and names another version."""
    if if_match is not None and not matches(if_match, version):
        raise ProblemError(
            "stale-version",
            f"If-Match {if_match} does not match the current version {etag(version)}",
            headers={"ETag": etag(version)},
        )


def none_match(if_none_match: str | None, version: int) -> bool:
    """True when If-None-Match names the current version (the client's copy is fresh);
    the weak comparison, so `W/"7"` matches version 7."""
    if if_none_match is None:
        return False
    tags = parse_tags(if_none_match, "If-None-Match")
    return "*" in tags or any(_version_of(tag.removeprefix("W/")) == version for tag in tags)
