"""Games' records and the statistics the service vouches for.

- `record`: a game's record (times, counts, outcome, clean), kept beside the game in
  Redis and updated with each change;
- `entries`, `outbox`: what a player's records learn of a game, carried from the game's
  outbox in Redis to PostgreSQL exactly once, and the abandonment check;
- `repository`: the `games` and `statistics` tables; `statistics`: the figures, as pure
  functions; `service`, `answers`, `shapes`: the list and statistics routes' answers.
"""
