"""What each game operation does: read from the store, ask the engine, write back.

One module per kind of operation (`create`, `read`, `change`, `streams`, `variants`),
each a set of functions taking the operations' dependencies, `service.Games`, whose
opening they share. They answer `answers.Reply` (status, JSON bytes, headers) or raise
`patience_gateway.problems.ProblemError`; they know nothing of FastAPI.
"""
