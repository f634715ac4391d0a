"""The HTTP resources: games, variants, and the operational endpoints."""
