"""The stateless gRPC engine for the patience rules library.

Modules, each with one job:
- `server`: EngineConfig (from the environment), start_server, the worker supervisor,
  the `patience-engine` entry point;
- `servicer`: the Engine RPCs;
- `codec`: GameState bytes and Move messages to and from the rules library's values;
- `views`: the player's view and the variant descriptions;
- `encoding`: the bytes of the replies, written by the speed path (by hand) or by the
  reference (protobuf's own serializer), which it equals byte for byte;
  PATIENCE_SPEED_PATHS=off runs the reference;
- `memo`: bounded tables of remembered results;
- `sealing`: states encrypted and authenticated (AES-256-GCM-SIV) under the engine's
  keys (a state that opens is read on trust);

The error reasons of docs/errors.md and the client (EngineClient, SyncEngineClient) are
the contract's (`patience_contract`), shared with every program that calls the engine.
"""
