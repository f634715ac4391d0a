"""How the bench talks to the service: its HTTP client, the gateway's calls, players of
the engine and of the gateway, the Locust file and its runner, raw-socket probes, and
games found with the rules library that never run out of moves."""
