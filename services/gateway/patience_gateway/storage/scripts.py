"""The Lua scripts that read and write a game in Redis, from the package's `lua/` files.

A file whose name starts with `_` is a part (a helper function, or the opening and
closing of the compare-and-set writes); each script below is its parts and its own
file, joined in order.

Every script names all the keys it touches in KEYS, always in the order of
`keys.script_keys`: meta, states, moves, redo, idem, idem_order, then the one hash of
the earlier layout (read only to upgrade a game stored in it), then the events, then
the outbox (what a player's records have still to learn of the game). The keys share
the game id as a hash tag, so they live in one Redis Cluster slot and a script may use
them all.

The states list holds the game's sealed states at positions 0, K, 2K, ... (K is the
game's `every` field, fixed at its creation) and, last, the state at the current
position p when p is not itself a multiple of K: the current state is always the
last element, and the list has floor(p / K) + 1 elements, one more when K does not
divide p. Undo replays fewer than K moves from the checkpoint at or before its
target, whatever the length of the game.

Reads are scripts too, so that one round trip fetches what an operation needs
(state, version, token hash, the idempotency record) and refreshes the time to
live. Writes are compare-and-set: they check the version read earlier, and are the
only writes an operation makes, so a change is applied entirely or not at all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

_FILES = resources.files(__package__ or "patience_gateway.storage") / "lua"


@dataclass(frozen=True, slots=True)
class Script:
    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())

    @classmethod
    def joined(cls, *names: str) -> Script:
        """The script made of the files `names` (without `.lua`), in order."""
        return cls.of("".join((_FILES / f"{name}.lua").read_text() for name in names))


# What every read of a game starts with: the time to live, the upgrade of the earlier
# layout, the answer kept for an Idempotency-Key, the metadata.
_READ = ("_touch", "_upgrade", "_answer", "_meta")

LOAD_STATE = Script.joined(*_READ, "load_state")
LOAD_FOR_UNDO = Script.joined(*_READ, "load_for_undo")
LOAD_FOR_REDO = Script.joined(*_READ, "load_for_redo")
LOAD_HISTORY = Script.joined(*_READ, "load_history")
AFTER_HINT = Script.joined("after_hint")
TOUCH = Script.joined("_touch", "touch_game")
CREATE = Script.joined("_outbox", "create")
DELETE = Script.joined("_touch", "_upgrade", "_meta", "_events", "_outbox", "delete")
ISSUE_TICKET = Script.joined("issue_ticket")
OPEN_STREAM = Script.joined("open_stream")

# The compare-and-set writes, one per kind of step (`writes.Step`): the check, the step
# itself, then the commit.
_CHECK = ("_touch", "_cas_check")
_COMMIT = ("_events", "_outbox", "_cas_commit")
COMMIT_NEW = Script.joined(*_CHECK, "_forward", "commit_new", *_COMMIT)
COMMIT_UNDO = Script.joined(*_CHECK, "commit_undo", *_COMMIT)
COMMIT_REDO = Script.joined(*_CHECK, "_forward", "commit_redo", *_COMMIT)
COMMIT_NONE = Script.joined(*_CHECK, *_COMMIT)
