"""Entry point of a rank started by :func:`gpugraph.distributed.runner.launch`:
``python .../gpugraph/distributed/_rank.py FOLDER RANK``.

Started as a script, not with ``-m``: ``-m`` would put the launcher's working directory first
on the path, and a ``gpugraph`` there (another checkout) would be imported instead of the one
that launched the rank. The script's own folder, first on the path, is replaced by the folder
that holds this ``gpugraph`` package before anything is imported."""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[2])
    from gpugraph.distributed.runner import rank_entry

    rank_entry(sys.argv[1], int(sys.argv[2]))
