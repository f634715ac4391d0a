"""One module per game, each declaring its ``VARIANT`` from the shared building blocks."""
