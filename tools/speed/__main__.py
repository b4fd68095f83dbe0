"""`python -m tools.speed` runs the same as the installed `speed` command."""

import sys

from tools.speed.cli import main

sys.exit(main())
