"""The stateless gRPC engine for the patience rules library.

Modules: `server` (EngineConfig, start_server, main), `servicer` (the RPCs),
`codec` (rules State <-> GameState and views), `sealing` (HMAC seals),
`errors` (reason codes), `client` (EngineClient, SyncEngineClient).
"""
