#!/bin/bash
# An A/B of two versions of the package on one device machine, in one call (machines of the same
# kind differ by up to ~15% at 4 GPUs: compare versions only within a call, alternating).
#
# Here (needs git):      bash bench/graph500_ab.sh prepare REF_A REF_B
#                        (git archive of each ref's gpugraph/ into .ab/a and .ab/b; keep .ab/ in
#                        .git/info/exclude)
# On the device:         run(command="bash bench/graph500_ab.sh run", kind="nvidia-h200-x4", carry=[".ab"])
#
# run: ROUNDS (2) rounds of a then b, each bench/graph500_check.py --steps STEPS (quick: 16 roots,
# not validated; main: 64 roots, every tree validated) on GPUS (4) processes at scale 24 per GPU
# (--gpus-per-host 2 with 4), OPTIONS passed to --options; each run's summary line, labelled.
set -u
case "${1:-}" in
  prepare)
    [ $# -eq 3 ] || { echo "usage: bash bench/graph500_ab.sh prepare REF_A REF_B" >&2; exit 2; }
    rm -rf .ab/a .ab/b && mkdir -p .ab/a .ab/b
    git archive "$2" gpugraph | tar -x -C .ab/a && git archive "$3" gpugraph | tar -x -C .ab/b || exit 1
    printf '%s\n%s\n' "$2" "$3" > .ab/refs
    grep -qx ".ab/" .git/info/exclude 2>/dev/null || echo ".ab/" >> .git/info/exclude
    echo "a = $2, b = $3 in .ab/"
    ;;
  run)
    [ -d .ab/a ] && [ -d .ab/b ] || { echo "no .ab/a and .ab/b: run 'prepare' first and carry .ab" >&2; exit 2; }
    export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-/tmp/nbcache} GPUGRAPH_CACHE_DIR=${GPUGRAPH_CACHE_DIR:-/tmp/ggcache}
    export PYTHONUNBUFFERED=1
    gpus=${GPUS:-4}; out=${OUT:-out}; extra=""
    [ "$gpus" -ge 4 ] && extra="--gpus-per-host 2"
    cat .ab/refs 2>/dev/null
    for round in $(seq 1 "${ROUNDS:-2}"); do
      for version in a b; do
        PYTHONPATH=$PWD/.ab/$version:$PWD python3 bench/graph500_check.py --device cuda --gpus "$gpus" $extra \
          --scale 24 --steps "${STEPS:-quick}" --options "${OPTIONS:-}" --out "$out/ab-$version-$round" 2>&1 \
          | grep -E "^\[(quick|main)\]|Error" | cut -c1-230 | sed "s/^/$version round $round: /"
      done
    done
    ;;
  *)
    echo "usage: bash bench/graph500_ab.sh prepare REF_A REF_B | run" >&2
    exit 2
    ;;
esac
