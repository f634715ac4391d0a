"""The stateless gRPC engine for the patience rules library.

Modules, each with one job:
- `server`: EngineConfig (from the environment), start_server, the worker supervisor,
  the `patience-engine` entry point;
- `servicer`: the Engine RPCs;
- `codec`: GameState bytes and Move messages to and from the rules library's values;
- `views`: the player's view and the variant descriptions;
- `wire`: the protobuf bytes the hot path writes directly;
- `memo`: bounded tables of remembered results;
- `sealing`: states encrypted and authenticated (AES-256-GCM-SIV) under the engine's
  keys (a state that opens is read on trust);
- `errors`: the error reasons of docs/errors.md;
- `client`: EngineClient (async) and SyncEngineClient (blocking).
"""
