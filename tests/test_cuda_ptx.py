"""Every CUDA kernel compiles to PTX for Hopper (sm_90) with the signatures gpugraph launches.

The simulator runs kernels as Python, so it cannot catch typing or lowering errors; this test
runs the real numba-cuda compiler (NVVM from the ``numba-cuda[cu13]`` wheels) on the CPU-only CI
machine. It is skipped when NVVM is not installed or the simulator is on.
"""

import os

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="the simulator cannot compile PTX"
)

HOPPER = (9, 0)


def _kernels():
    from numba import types

    from gpugraph.algorithms import _bfs_cuda, _pagerank_cuda, _wcc_cuda
    from gpugraph.distributed import _push_cuda
    from gpugraph.engines.path import _device_layout_cuda, _rounds_cuda
    from gpugraph.graph import _cuda_kernels
    from gpugraph.io import _generator_cuda

    i32, i64, u64 = types.int32[:], types.int64[:], types.uint64
    f64, u8 = types.float64[:], types.uint8[:]
    return {
        **{
            f"path {name}[{out}]": (kernel, signature)
            for out, ids in (("int32", i32), ("int64", i64))
            for name, kernel, signature in (
                ("bucket_bound", _rounds_cuda.bucket_bound, (u8, u8, f64, f64)),
                ("wake_all", _rounds_cuda.wake_all, (u8, i64, i64, i64, i64)),
                ("wake_bucketed", _rounds_cuda.wake_bucketed, (u8, u8, f64, f64, types.float64, i64, i64, i64, i64)),
                ("path_round", _rounds_cuda.path_round,
                 (types.int64, i64, i64, i64, ids, f64, f64, f64, i64, types.float64, u8, types.int64, i64)),
                ("path_round_balanced", _rounds_cuda.path_round_balanced,
                 (types.int64, types.boolean, i64, types.boolean, types.int64[:, :], types.int64, i64, i64, ids, f64,
                  f64, f64, i64, types.float64, u8, types.int64, i64)),
                ("path_round_balanced_proxies", _rounds_cuda.path_round_balanced_proxies,
                 (types.int64, types.boolean, i64, types.boolean, types.int64[:, :], types.int64, i64, i64, ids, f64,
                  f64, f64, i64, types.float64, u8, types.int64, i64, types.int16[:], i64)),
                ("path_round_proxies", _rounds_cuda.path_round_proxies,
                 (types.int64, types.boolean, i64, i64, i64, ids, f64, f64, f64, i64, types.float64, u8, types.int64,
                  i64, types.int16[:], i64)),
                ("path_round_batched", _rounds_cuda.path_round_batched,
                 (types.int64, types.boolean, i64, i64, i64, ids, f64, f64, f64, i64, types.float64, u8, types.int64,
                  i64, u8)),
                ("unread_heads", _rounds_cuda.unread_heads, (i64, i64, ids, i64, u8)),
                ("path_round_buckets", _rounds_cuda.path_round_buckets,
                 (types.int64, types.boolean, i64, i64, i64, ids, f64, f64, f64, i64, types.float64, u8, u8, f64,
                  types.float64, types.int64, i64)),
                ("vertex_round", _rounds_cuda.vertex_round,
                 (types.int64, types.boolean, i64, i64, ids, f64, f64, f64, f64, u8, i64, types.float64, u8, i64)),
                ("layout order_rows", _device_layout_cuda.order_rows,
                 (types.int64, i64, ids, types.int64, i64, ids, i64, types.int8[:])),
                ("layout arc_keys", _device_layout_cuda.arc_keys, (types.int64, i64, ids, i64)),
                ("layout order_hub_slots", _device_layout_cuda.order_hub_slots,
                 (types.int64, i64, ids, types.int64, i64, i64, ids, i64)),
                ("layout trace_pieces", _device_layout_cuda.trace_pieces,
                 (types.int64, i64, i64, ids, i64, i64, i64, types.int64, types.int64, types.int8[:], ids, i64, i64,
                  i64, types.int64[:, :])),
                ("layout gather_pieces", _device_layout_cuda.gather_pieces,
                 (types.int64, i64, ids, i64, types.int64, i64, types.int64[:, :], types.int64[:, :], ids, i64, i64,
                  i64, ids, i64, i64, i64)),
                ("layout index_chunks", _device_layout_cuda.index_chunks,
                 (types.int64, i64, ids, i64, i64, i64, i64, f64, i64)),
            )
        },
        **{
            f"{name}[{out}]": (kernel, signature)
            for out, ids in (("int32", i32), ("int64", i64))
            for name, kernel, signature in (
                ("rmat_kernel", _generator_cuda.rmat_kernel,
                 (u64, types.int64, u64, u64, u64, u64, types.boolean, types.int64, ids, ids)),
                ("gnm_kernel", _generator_cuda.gnm_kernel,
                 (u64, types.int64, types.boolean, types.int64, ids, ids)),
                ("permutation_table_kernel", _generator_cuda.permutation_table_kernel,
                 (u64, types.int64, ids)),
            )
        },
        "uniform_integers_kernel": (
            _generator_cuda.uniform_integers_kernel,
            (u64, types.int64, types.int64, i64),
        ),
        "pagerank update": (
            _pagerank_cuda.update,
            (types.float64[:],) * 5 + (types.float64, types.float64[:], types.float64[:], types.float64[:], types.float64[:]),
        ),
        "count_ids_kernel[int32]": (_cuda_kernels.count_ids_kernel, (i32, i64)),
        "count_ids_kernel[int64]": (_cuda_kernels.count_ids_kernel, (i64, i64)),
        **{
            f"bottom_up_step[{out}]": (
                _bfs_cuda.bottom_up_step,
                (i64, ids, i64, types.uint8[:], types.int32, types.int32[:], i64, types.uint8[:], i64, types.int64),
            )
            for out, ids in (("int32", i32), ("int64", i64))
        },
        **{
            f"bottom_up_heavy[{out}]": (
                _bfs_cuda.bottom_up_heavy,
                (i64, ids, i64, i64, types.uint8[:], types.int32, types.int32[:], i64, types.uint8[:], i64),
            )
            for out, ids in (("int32", i32), ("int64", i64))
        },
        "wcc hook_range": (_wcc_cuda.hook_range, (i64, i32, types.int64, types.int64, types.int64, i64)),
        **{
            f"distributed {name}[{out}]": (kernel, signature)
            for out, ids in (("int32", i32), ("int64", i64))
            for name, kernel, signature in (
                ("push_min", _push_cuda.push_min, (i64, ids, f64, types.int64, i64, i64, types.int64, f64, u8)),
                ("push_add", _push_cuda.push_add, (i64, ids, i64, i64, types.int64, f64, f64)),
            )
        },
        **{
            f"top_down_levels[{out}]": (
                _bfs_cuda.top_down_levels,
                (i64, ids, types.int32[:], i64, ids, ids, types.int64, types.int64, i64, i64,
                 types.int64, types.int64, i64),
            )
            for out, ids in (("int32", i32), ("int64", i64))
        },
    }


@pytest.mark.parametrize("name", sorted(_kernels()))
def test_kernel_compiles_for_hopper(hopper_compiler, name):
    kernel, signature = _kernels()[name]
    ptx, _ = hopper_compiler.compile_ptx(kernel.py_func, signature, cc=HOPPER)
    assert ".entry" in ptx and ".target sm_90" in ptx
