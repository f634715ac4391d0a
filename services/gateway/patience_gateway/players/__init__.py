"""Players without passwords: accounts, their devices' sessions and access tokens.

- `service`: what each player route does (create, me, rename, refresh, sign out, link);
- `access_tokens`: short-lived signed JWTs (Ed25519), verified without storage;
- `sessions`: refresh tokens, rotated on use, kept as hashes in PostgreSQL;
- `repository`: the `players` table; `names`: display names, normalised;
- `shapes`, `requests`: the bodies answered and taken.
"""
