"""What every part of the bench stands on: the command line and its settings, the
report, the statistics and meters, the servers the bench starts, and the machine."""
