"""The engine's contract, for the engine and for every program that calls it.

- `solitaire.v1` (a package beside this one): the messages and service stubs generated
  from proto/solitaire/v1 (scripts/gen_protos.py; never edited by hand);
- `errors`: the engine's error reasons (docs/errors.md), how they travel as a
  google.rpc.Status and how a client reads them back;
- `client`: EngineClient (async) and SyncEngineClient (blocking).
"""
