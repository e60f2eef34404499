#!/bin/bash
# The runs that need several GPUs (issue 8's weak scaling and options; issue 7's scaling), for a
# machine of 4 GPUs (nvidia-h100-x4 or nvidia-h200-x4), a part per device call (each within the
# 10-minute limit; the kernel caches live in /tmp, so later calls on the same warm machine start
# faster):
#
#   run(command="bash bench/multi_gpu.sh weak", kind="nvidia-h100-x4")     # ~6-8 min
#   run(command="bash bench/multi_gpu.sh options")                         # ~5-7 min
#   run(command="bash bench/multi_gpu.sh distributed", carry=[".data"])    # issue 7, ~8 min
#   run(command="bash bench/multi_gpu.sh diag")                            # ~2 min
#   run(command="bash bench/multi_gpu.sh clocks")                          # ~3 min
#   run(command="bash bench/multi_gpu.sh scales")                          # ~6 min
#
# weak:        the environment; Graph500 scale 24 per GPU on 1, 2 and 4 GPUs (check at scale 18
#              with every tree validated, then 64 validated roots), and the weak-scaling table;
# options:     4 GPUs as 2 hosts x 2: the per-phase breakdown (8 roots), then DO off, blocking /
#              non-blocking reduction, uniquify, overlap, nn backward, local all-to-all (16 roots each), then
#              the threshold sweep (Figure 6);
# distributed: issue 7's strong scaling (docs/scaling.md) on 1, 2, 4 GPUs;
# diag:        where a 4-process search's time goes (bench/graph500_multi_diag.py: each rank's
#              search times and host profile; VARIANTS=default,lazy: NCCL peers connected at the
#              start, as the library does, and at first use).
# clocks:      the weak-scaling searches (1, 2, 4 GPUs at scale 24, 25, 26) timed inside their CUDA
#              graphs, cold and repeated after idle spells of REPEAT_AFTER_MS (default 0,0.1,1,10,100)
#              ms (bench/graph500_multi_diag.py --variants clocks): how long a search's first
#              meeting and merge take against how long the GPUs were idle before it.
# scales:      weak scaling at several scales per GPU (SCALES, default 24,25,26): 1, 2 and 4 GPUs
#              at scale s, s+1, s+2, 64 roots each, not validated (process 0 cannot hold a
#              scale-28 edge list to validate against), a table per scale.
# Records go to $OUT (graph500-cuda-<gpus>.json, distributed JSON); every part prints its tables.
# OPTIONS=nn_backward,overlap (boolean fields of graph500.bfs.Options) runs a part with them on
# (no-NAME: off; OPTIONS=no-peer_memory: the collectives instead of peer memory, the default on GPUs);
# STEPS=main runs the weak part without the scale-18 checks.
# A CPU rehearsal of the commands: DEVICE=cpu SCALE=10 OUT=/tmp/mg bash bench/multi_gpu.sh weak
set -u
part=${1:-weak}
device=${DEVICE:-cuda}
scale=${SCALE:-24}
SCALES=${SCALES:-24,25,26}
out=${OUT:-out}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-/tmp/nbcache} GPUGRAPH_CACHE_DIR=${GPUGRAPH_CACHE_DIR:-/tmp/ggcache}
options=${OPTIONS:-}  # e.g. OPTIONS=nn_backward: the weak runs with these Options turned on
tag=${options:+-${options//,/-}}  # in folder names ($OUT takes letters, digits, '.', '_', '-')
check() {  # the per-process count's records go to one folder each
  python3 bench/graph500_check.py --device "$device" --scale "$scale" --options "$options" \
    --out "$out/g500-$1$tag" --gpus "$@" 2>&1 \
    | grep -v -E "^root [0-9]+/" | cut -c1-2000
}
case "$part" in
  weak)
    if [ "$device" = cuda ]; then
      nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
      nvidia-smi topo -m
    fi
    python3 -c "import torch; print('torch', torch.__version__, 'cuda devices', torch.cuda.device_count())"
    env | grep -E "NCCL|MULTICAST|NVLS" | sort
    steps=${STEPS:-check,main}
    check 1 --steps "$steps"
    check 2 --steps "$steps"
    check 4 --gpus-per-host 2 --steps "$steps"
    python3 bench/graph500_scaling.py "$out"/g500-{1,2,4}$tag
    ;;
  options)
    check 4 --gpus-per-host 2 --steps profile,options,sweep --sweep "${SWEEP:-32,64,128,256,512}"
    python3 bench/graph500_scaling.py "$out"/g500-4$tag
    ;;
  distributed)
    python3 bench/distributed_scaling.py --device "$device" --ranks 1,2,4 --scale "$scale" \
      --real cnr-2000.txt.gz,soc-Slashdot0902.txt.gz --datasets .data --repeat 2 --out "$out" 2>&1 | cut -c1-2000
    ;;
  diag)
    mkdir -p "$out"
    python3 bench/graph500_multi_diag.py --device "$device" --gpus "${GPUS:-4}" --scale "${DIAG_SCALE:-22}" \
      --roots 16 --variants "${VARIANTS:-default,lazy}" --out "$out" 2>&1 | grep -v "^ms:" | cut -c1-300
    ;;
  scales)  # records in $OUT/s<scale>/g500-<gpus> (apart from the weak part's)
    root=$out
    for scale in ${SCALES//,/ }; do
      out=$root/s$scale
      for gpus in 1 2 4; do
        check $gpus --gpus-per-host $((gpus > 2 ? 2 : 1)) --steps main --main-unvalidated | grep -E "^\[main\]|rror"
      done
      python3 bench/graph500_scaling.py "$out"/g500-{1,2,4}$tag | sed -n '1,/^$/p'
    done
    ;;
  clocks)
    mkdir -p "$out"
    for gpus in 1 2 4; do
      python3 bench/graph500_multi_diag.py --device "$device" --gpus "$gpus" --scale $((scale + gpus / 2)) \
        --roots 16 --variants clocks --repeat-after-ms "${REPEAT_AFTER_MS:-0,0.1,1,10,100}" --out "$out" 2>&1 \
        | grep -v -E "^ms:|^$" | cut -c1-300
    done
    ;;
  *)
    echo "usage: bash bench/multi_gpu.sh weak|options|distributed|diag|clocks" >&2
    exit 2
    ;;
esac
