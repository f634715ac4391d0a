"""Measurements with a command of their own, not parts of `python -m bench`: the
winnability table, what open event streams cost, and how long winnable deals take."""
