#!/bin/bash
# Compare snapshots of the repository on the device machine in one call, on the same machine.
#
# Here:   rm -rf .snap && mkdir -p .snap/A .snap/B && git archive HEAD~1 | tar -x -C .snap/A
#         git archive HEAD | tar -x -C .snap/B && cp bench/device_ab.sh .snap/
# Device: run(command="cd .snap && STEPS=micro ./device_ab.sh A B", carry=[".snap"])
# Each snapshot runs bench/graph500_check.py with its own kernel caches; only the summary lines
# ([micro], [main], ... and the reference block) are printed, records go to $OUT/<name>/.
for name in "$@"; do
  echo "=== $name"
  (cd "$name" && PYTHONPATH=$PWD PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=/tmp/nbcache-$name \
    GPUGRAPH_CACHE_DIR=/tmp/ggcache-$name python3 bench/graph500_check.py --scale "${SCALE:-24}" --gpus 1 \
    --steps "${STEPS:-micro}" --out "$OUT/$name" 2>&1 \
    | grep -E "^\[|GTEPS|TEPS|median|Error|error|Traceback" | grep -v pstats | cut -c1-1800)
done
