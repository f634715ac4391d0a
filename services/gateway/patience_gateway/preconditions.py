"""Versions as strong ETags, and the If-Match / If-None-Match headers."""

from __future__ import annotations

from patience_gateway.problems import ProblemError


def etag(version: int) -> str:
    return f'"{version}"'


def _tags(header: str) -> list[str]:
    return [part.strip() for part in header.split(",") if part.strip()]


def _version_of(tag: str) -> int | None:
    """The version a strong entity tag names; None for weak or foreign tags."""
    if len(tag) >= 2 and tag[0] == '"' and tag[-1] == '"':
        tag = tag[1:-1]
    elif tag.startswith("W/"):
        return None  # If-Match uses the strong comparison: weak tags never match
    return int(tag) if tag.isdigit() else None


def matches(if_match: str, version: int) -> bool:
    """RFC 9110 If-Match against the game's current version (`*`: any version).

    A bare number (`7`) is accepted as well as the quoted tag (`"7"`).
    """
    tags = _tags(if_match)
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
    """True when If-None-Match names the current version (the client's copy is fresh)."""
    if if_none_match is None:
        return False
    tags = _tags(if_none_match)
    wanted = {tag[2:] if tag.startswith("W/") else tag for tag in tags}  # weak comparison
    return "*" in wanted or etag(version) in wanted
