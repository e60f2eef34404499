"""Host time of one kernel launch, three ways, on the graph500 pass over the normals (18 arguments).

1. ``launch_cuda_grid`` as the library calls it (type key, cached direct launch, cuda.core);
2. cuda.core's ``launch`` with the parameter list packed once;
3. the driver's ``cuLaunchKernel`` with a ctypes parameter block packed once.

Usage: ``python bench/launch_overhead.py [--scale 18]`` (needs a GPU).
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    from cuda.bindings import driver
    from cuda.core import launch

    from gpugraph.backend.kernels import (_array_parameters, _direct_launches, _type_key, launch_cuda_grid,
                                          resident_blocks)
    from gpugraph.graph500 import _kernels_cpu
    from graph500_check import captured_searcher

    searcher, _ = captured_searcher(args.scale, "cuda", 1)
    backend, kernels, graph = searcher.backend, searcher.kernels, searcher.graph
    kernel = kernels.normal_pass
    no_ids = searcher.no_ids
    arguments = (searcher.depth, searcher.parent, np.int32(99), np.int64(0), graph.nd.indptr, graph.nd.indices,
                 graph.nn.indptr, graph.nn.indices, searcher.delegate_depth, searcher.no_mark, no_ids,
                 graph.delegate_ids, searcher.stride, searcher.offset, searcher.counts, np.int64(0), searcher.flags,
                 no_ids, no_ids, searcher.no_bitmap, searcher.nn_bits)
    threads = 1 << _kernels_cpu.SEGMENT_BITS  # a block a segment, as the searcher launches it
    blocks = resident_blocks(kernel, backend, threads, *arguments)
    launch_cuda_grid(kernel, backend, blocks, threads, *arguments)
    direct = _direct_launches[(id(kernel), backend.device_id, *(_type_key(value) for value in arguments))]

    def timed(label, function):
        backend.synchronize()
        began = time.perf_counter()
        for _ in range(args.repeats):
            function()
        host = (time.perf_counter() - began) / args.repeats
        backend.synchronize()
        print(f"[launch] {label}: {host * 1e6:.1f} us host per launch", flush=True)

    timed("launch_cuda_grid", lambda: launch_cuda_grid(kernel, backend, blocks, threads, *arguments))
    timed("type keys alone", lambda: tuple(_type_key(value) for value in arguments))
    parameters = []
    for packer, value in zip(direct.packers, arguments):
        if packer is None:
            parameters += _array_parameters(value)
        elif isinstance(packer, type):
            parameters.append(packer(value))
        else:
            direct.compiled._prepare_args(packer, value, 0, [], parameters)
    config_ = direct._config(blocks, threads)
    timed(f"cuda.core launch, {len(parameters)} parameters packed once",
          lambda: launch(direct.stream, config_, direct.function, *parameters))
    storage = [value if isinstance(value, ctypes._SimpleCData) else
               (ctypes.c_bool(value) if isinstance(value, (bool, np.bool_)) else ctypes.c_int64(value))
               for value in parameters]
    block = (ctypes.c_void_p * len(storage))(*[ctypes.addressof(value) for value in storage])
    function = driver.CUfunction(int(direct.function._handle))
    address = ctypes.addressof(block)

    def raw():
        (error,) = driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, 0, address, 0)
        if error != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(error)

    raw()
    timed("cuLaunchKernel, parameter block packed once", raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
