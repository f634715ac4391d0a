"""The REST surface of the gateway: the FastAPI app (`factory`), its routes, middleware,
error answers and OpenAPI document, and the HTTP server (`server`). It hands each
request to a game operation (`patience_gateway.games`) and sends its reply."""
