"""Entry point of a rank started by :func:`gpugraph.distributed.runner.launch`:
``python -m gpugraph.distributed._rank FOLDER RANK``."""

import sys

from gpugraph.distributed.runner import rank_entry

if __name__ == "__main__":
    rank_entry(sys.argv[1], int(sys.argv[2]))
