"""The PostgreSQL database where `patience serve`'s gateway keeps players and their
records, as the launcher chooses it:

- DATABASE_URL unset: an embedded server, a supervised child like the embedded Redis
  (restarted when it dies), its data in `<data folder>/postgres` (kept across runs;
  with `--ephemeral`, temporary), the database `patience` created if missing.
- DATABASE_URL set: that database, which must exist; the launcher waits until it
  answers. The gateway creates its tables itself.
- DATABASE_URL set but empty: no records; the gateway's player routes answer 503.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from patience_contract.settings import declared
from patience_gateway.settings import Settings as GatewaySettings

from patience_launcher.data_folder import prepare
from patience_launcher.services import redact, start_postgres, use_database_url
from patience_launcher.supervisor import Supervisor

# Read here by its presence: set but empty means no database, unset an embedded one.
VARIABLE = declared(GatewaySettings, "database_url").name
FOLDER_NAME = "postgres"


@dataclass(frozen=True, slots=True)
class Database:
    """The database the gateway is given (`url`, "" for none) and where it comes from."""

    url: str
    source: str

    @property
    def banner(self) -> str:
        if not self.url:
            return f"none: no records kept, the players' routes answer 503 ({self.source})"
        return f"{redact(self.url)}  ({self.source})"

    @property
    def env(self) -> dict[str, str]:
        """What the gateway is started with."""
        return {VARIABLE: self.url}


def start_database(
    supervisor: Supervisor, environ: Mapping[str, str], data_folder: Path, timeout: float
) -> Database:
    """Starts the embedded server, or waits for the one DATABASE_URL names (see the
    module docstring)."""
    given = environ.get(VARIABLE)
    if given is None:
        folder = prepare(data_folder / FOLDER_NAME)
        return Database(start_postgres(supervisor, folder, timeout), f"embedded, data in {folder}")
    if not given.strip():
        return Database("", f"{VARIABLE} is empty")
    use_database_url(supervisor, given.strip(), timeout)
    return Database(given.strip(), f"from {VARIABLE}")
