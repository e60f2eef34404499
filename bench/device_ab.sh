#!/bin/bash
# Compare snapshots of the repository on the device machine in one call, on the same machine
# (machines of one kind differ by up to ~15% at 4 GPUs: compare versions only within a call).
#
# Here:   rm -rf .snap && mkdir -p .snap/A .snap/B && git archive main | tar -x -C .snap/A
#         git archive wip/branch | tar -x -C .snap/B && cp bench/device_ab.sh .snap/
# Device: run(command="cd .snap && GPUS=4 ROUNDS=2 STEPS=quick ./device_ab.sh A B", carry=[".snap"])
# ROUNDS (1) rounds of every snapshot in the order given, alternating; each runs its own
# bench/graph500_check.py with its own kernel caches on GPUS (1) processes (--gpus-per-host 2
# from 4 on) at SCALE (24) per GPU, STEPS (micro) and OPTIONS (--options); only the summary lines
# ([micro], [main], ... and the reference block) are printed, line by line (a call that runs out
# of time keeps what was printed), records and the whole log (log.txt) go to $OUT/<name>-<round>/
# ($OUT/<name>-<round>-2/ for a name's second run in a round, and so on).
gpus=${GPUS:-1}; layout=""
[ "$gpus" -ge 4 ] && layout="--gpus-per-host 2"
for round in $(seq 1 "${ROUNDS:-1}"); do
  for name in "$@"; do
    echo "=== $name, round $round"
    dir="$OUT/$name-$round"; again=2
    while [ -e "$dir" ]; do dir="$OUT/$name-$round-$again"; again=$((again + 1)); done  # a name twice in a round
    mkdir -p "$dir"
    (cd "$name" && PYTHONPATH=$PWD PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=/tmp/nbcache-$name \
      GPUGRAPH_CACHE_DIR=/tmp/ggcache-$name python3 bench/graph500_check.py --scale "${SCALE:-24}" --gpus "$gpus" \
      $layout --steps "${STEPS:-micro}" --options "${OPTIONS:-}" --out "$dir" 2>&1 \
      | tee "$dir/log.txt" \
      | grep --line-buffered -E "^\[|GTEPS|TEPS|median|Error|error|Traceback" | grep --line-buffered -v pstats \
      | cut -c1-1800)
  done
done
