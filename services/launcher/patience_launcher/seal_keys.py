"""The engine's seal key as the launcher chooses it: one key per data store, never a
throwaway one for data that outlives the run.

- ENGINE_SEAL_KEY or ENGINE_SEAL_KEY_FILE set: the operator's keys, as they are
  (ENGINE_SEAL_KEY set but empty: no key, the engine's unsafe development mode).
- Otherwise, with the embedded Redis: the key file `engine-seal.key` in the data folder,
  beside the Redis data it opens, made once (mode 0600). With `--ephemeral` the folder is
  temporary, and so is the key, like the games.
- Otherwise, with REDIS_URL: no key can be chosen here. The games live in that Redis,
  perhaps shared by engines on other machines; a key made up now would make every game
  unreadable after a restart. `patience serve` refuses to start and says what to set.

Then, with any Redis, the launcher records the current key's id in it
(`patience:seal-key-id`) and refuses to start when the id recorded there is none of the
configured keys: the games kept there would not open (409 state-unreadable). A rotation
(the recorded key among the old keys) moves the record to the new current key.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patience_contract import key_files
from patience_contract.key_files import KeyProblem
from patience_contract.settings import declared, read_settings
from patience_engine.config import SealKeySettings
from patience_engine.sealing import key_id_of

KEY_FILE_NAME = "engine-seal.key"
STORE_RECORD = "patience:seal-key-id"
_HEADER = (
    "# patience-engine seal keys: the first opens and seals, the others (older keys) only\n"
    "# open the states they sealed. Keep this file with the games it opens, mode 0600.\n"
)


@dataclass(frozen=True, slots=True)
class KeyChoice:
    """What the engine is started with: `env` to add to its environment, the key ids
    (current first; none without a key) and a line for the banner."""

    env: dict[str, str] = field(default_factory=dict)
    key_ids: tuple[str, ...] = ()
    source: str = ""

    @property
    def banner(self) -> str:
        if not self.key_ids:
            return (
                "NOT SEALED: unsafe development mode, states readable and forgeable "
                "(ENGINE_SEAL_KEY is empty)"
            )
        old = len(self.key_ids) - 1
        extra = f", {old} old key{'s' if old > 1 else ''}" if old else ""
        return f"sealed, key {self.key_ids[0]}{extra} ({self.source})"


def new_key() -> str:
    """A fresh key: 256 random bits in hex."""
    return secrets.token_hex(32)


def configured(environ: Mapping[str, str]) -> bool:
    """Whether the operator set the keys (set but empty counts: no key)."""
    return any(declared(SealKeySettings, field).name in environ for field in ("key", "key_file"))


def choose(
    environ: Mapping[str, str], data_folder: Path | None, *, redis_url_given: bool
) -> KeyChoice:
    """The keys to start the engine with (see the module docstring). `data_folder`: where
    the embedded Redis keeps its data, None when REDIS_URL names the Redis."""
    if configured(environ):
        given = read_settings(SealKeySettings, environ)
        keys = given.keys()
        source = (
            f"key file {given.key_file}"
            if given.key_file
            else declared(SealKeySettings, "key").name
        )
        return KeyChoice({}, tuple(key_id_of(key) for key in keys), source)
    if redis_url_given or data_folder is None:
        raise KeyProblem(
            "REDIS_URL is set but no seal key is: the games kept in that Redis need the "
            "same key at every start, and a key made up now would lock them out after a "
            "restart. Set ENGINE_SEAL_KEY (a new one: `patience key new`) or "
            "ENGINE_SEAL_KEY_FILE, or ENGINE_SEAL_KEY= (empty) for an unsafe development run"
        )
    path = ensure_key_file(data_folder / KEY_FILE_NAME)
    keys = [key.encode() for key in key_files.read(path, "seal")]
    return KeyChoice(
        {declared(SealKeySettings, "key_file").name: str(path)},
        tuple(key_id_of(key) for key in keys),
        f"key file {path}",
    )


def ensure_key_file(path: Path) -> Path:
    """`path`, made with a new key (mode 0600) if it does not exist yet."""
    key_files.make_once(path, _HEADER, new_key())
    return path


def rotate_key_file(path: Path) -> str:
    """Puts a new key first in the key file, keeping the others as old keys; returns the
    new key's id. The file is replaced whole (written beside it, then renamed)."""
    old = key_files.read(path, "seal") if path.exists() else []
    key = new_key()
    key_files.replace(path, _HEADER, [key, *old])
    return key_id_of(key.encode())


def check_store(redis_url: str, key_ids: Sequence[str], *, cluster: bool = False) -> None:
    """Records the current key's id in the Redis at `redis_url`, or raises KeyProblem when
    the id recorded there belongs to none of `key_ids` (its games would not open)."""
    import redis  # late: the engine's image path never needs it
    from redis.cluster import RedisCluster

    client = RedisCluster.from_url(redis_url) if cluster else redis.Redis.from_url(redis_url)
    try:
        recorded = client.get(STORE_RECORD)
        recorded_id = recorded.decode() if isinstance(recorded, bytes) else None
        if recorded_id is not None and recorded_id not in key_ids:
            have = ", ".join(key_ids) or "none (ENGINE_SEAL_KEY is empty)"
            raise KeyProblem(
                f"the games in this Redis were sealed with key {recorded_id}, which is not "
                f"among the configured keys ({have}): they would not open. Give the engine "
                "that key (as ENGINE_SEAL_KEY, or as an old key in ENGINE_OLD_SEAL_KEYS or "
                f"the key file), or delete {STORE_RECORD} from the Redis if those games "
                "may be lost"
            )
        if key_ids and recorded_id != key_ids[0]:
            client.set(STORE_RECORD, key_ids[0])
    finally:
        client.close()
