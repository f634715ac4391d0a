"""Measurements with a command of their own, not parts of `python -m bench`: the
winnability table and the fair player (docs/winnability.md), hints followed and flooded,
the path of a move through the code, open event streams, and winnable deals and their
demand (research/README.md says what each measures and how to run it)."""
