"""The engine's contract, for the engine and for every program that calls it, and what
every service does alike.

- `solitaire.v1` (a package beside this one): the messages and service stubs generated
  from proto/solitaire/v1 (scripts/gen_protos.py; never edited by hand);
- `errors`: the engine's error reasons (docs/errors.md), how they travel as a
  google.rpc.Status and how a client reads them back;
- `client`: each RPC once (its request, and what its caller is given of the reply), and
  EngineClient (async) and SyncEngineClient (blocking), made of those calls;
- `settings` (with `environment`, its pydantic-settings side): how every service reads
  its environment variables, and the variables two services read;
- `key_files`: the key files the launcher writes and the services read;
- `logs`, `tracing`: JSON log lines and OpenTelemetry traces, alike in every service.
"""
