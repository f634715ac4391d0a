"""`python -m patience_launcher` is the `patience` command."""

import sys

from patience_launcher.cli import main

sys.exit(main())
