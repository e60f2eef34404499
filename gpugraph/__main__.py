"""``python -m gpugraph`` runs the command line."""

import sys

from gpugraph.cli import main

sys.exit(main())
