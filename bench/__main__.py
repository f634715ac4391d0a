"""`python -m bench`: run the whole measured-speed suite (see bench/cli.py)."""

import sys

from bench.cli import main

sys.exit(main())
