"""`python -m bench`: run the whole measured-speed suite (see bench/harness/cli.py)."""

import sys

from bench.harness.cli import main

sys.exit(main())
