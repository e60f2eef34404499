"""Can a search's CUDA graph skip the levels after its end? A probe of CUDA graph IF nodes.

A search launches a batch of levels as one CUDA graph, and the levels after the last one run
their kernels to find nothing to do (~27 us a level at 4 GPUs). An IF node (CUDA 12.4+) runs
its body only when a kernel before it set its condition (``cudaGraphSetConditional``, from the
device runtime library ``cudadevrt``). This probe checks, on a GPU:

1. a numba-cuda kernel can call ``cudaGraphSetConditional`` (declared with the C ABI, linked
   with ``cudadevrt``);
2. an IF node added in the middle of a stream capture (CuPy's), its body captured on a second
   stream that forks to a third and joins back, runs or is skipped as the condition says;
3. what an IF node costs: graphs of ``LEVELS`` levels of ``KERNELS`` one-block kernels, plain,
   each level wrapped in a taken IF node, and all levels after the first skipped.

Run: ``python bench/graph_conditional_probe.py`` (one GPU).

Measured 2026-11-28 on one H200 (numba-cuda 0.30.4, cuda-bindings 13.3.1, CuPy 14.2): 1 and 2
work (``cudadevrt`` found by numba-cuda in the ``nvidia/cu13`` wheel; a handle that no node
uses makes the instantiation fail); 9 levels x 14 kernels take 103.4 us plain (~0.8 us a
kernel), 165.6 us with levels 1-8 each in a taken IF node (~7.8 us more a level: the set
kernel and the node) and 56.0 us with them skipped (~5.6 us a skipped level). So skipping a
search's empty tail would save at most ~18 us a search at 4 GPUs (empty levels ~27 us each,
searches of 7 or 8 levels in a batch of 9) and cost a level that runs ~8 us: not pursued
(docs/graph500.md, "Thirtieth session").
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=9)
    parser.add_argument("--kernels", type=int, default=14, help="kernels a level")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    cuda = load_numba_cuda()
    import cupy
    from cuda.bindings import driver
    from numba.cuda.cudadrv.libs import get_cudalib

    devrt = get_cudalib("cudadevrt", static=True)
    print(f"cudadevrt: {devrt}")
    set_conditional = cuda.declare_device("cudaGraphSetConditional", "void(uint64, uint32)", link=[devrt], abi="c")

    @cuda.jit
    def set_from_cell(handle, cells, index):
        if cuda.grid(1) == 0:
            set_conditional(handle, np.uint32(cells[index] != 0))

    @cuda.jit
    def bump(cells, index):
        if cuda.grid(1) == 0:
            cells[index] += 1

    def check(result):
        """The driver call's one output (``None`` if it has none), or RuntimeError on its error."""
        if result[0] != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"driver call failed: {result[0]}")
        return result[1] if len(result) > 1 else None

    cells = cuda.to_device(np.zeros(64, dtype=np.int64))
    cupy_cells = cupy.asarray(cells)  # same memory, for reads

    started = time.perf_counter()
    bump[1, 32](cells, 63)
    set_from_cell.compile("void(uint64, int64[::1], int64)")  # linked here; launched only inside graphs
    cuda.synchronize()
    print(f"compile + first launch: {time.perf_counter() - started:.2f} s")

    nb_stream = {}

    def launch(kernel, stream, *kernel_args):
        key = int(stream.ptr)
        if key not in nb_stream:
            nb_stream[key] = cuda.external_stream(key)
        kernel[1, 32, nb_stream[key]](*kernel_args)

    context = check(driver.cuCtxGetCurrent())

    def capture_info(stream):
        """``(graph, dependencies)``: the graph ``stream`` captures into, and its last nodes."""
        error, _, _, graph, dependencies, _, count = driver.cuStreamGetCaptureInfo(stream.ptr)
        check((error,))
        return graph, dependencies[:count]

    def add_if(stream, handle):
        """An IF node after what ``stream`` captured so far; returns its body graph."""
        graph, dependencies = capture_info(stream)
        params = driver.CUgraphNodeParams()
        params.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        params.conditional.handle = handle
        params.conditional.type = driver.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
        params.conditional.size = 1
        params.conditional.ctx = context
        node = check(driver.cuGraphAddNode(graph, dependencies or None, None, len(dependencies), params))
        check(driver.cuStreamUpdateCaptureDependencies(
            stream.ptr, [node], None, 1,
            driver.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES))
        return params.conditional.phGraph_out[0]

    def new_handle(stream, default):
        """A conditional handle of the graph ``stream`` captures into, ``default`` at each launch."""
        graph, _ = capture_info(stream)
        return check(driver.cuGraphConditionalHandleCreate(graph, context, default,
                                                           driver.CU_GRAPH_COND_ASSIGN_DEFAULT))

    body_stream = cupy.cuda.Stream(non_blocking=True)
    side_stream = cupy.cuda.Stream(non_blocking=True)

    def capture_body(body, work):
        check(driver.cuStreamBeginCaptureToGraph(
            body_stream.ptr, body, None, None, 0,
            driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED))
        work(body_stream)
        check(driver.cuStreamEndCapture(body_stream.ptr))

    # --- 2. correctness: an IF node, taken or not, with a fork and join inside its body
    def level_with_fork(stream):
        launch(bump, stream, cells, 1)
        side_stream.wait_event(stream.record())
        launch(bump, side_stream, cells, 2)
        stream.wait_event(side_stream.record())
        launch(bump, stream, cells, 3)

    main_stream = cupy.cuda.Stream(non_blocking=True)
    with main_stream:
        main_stream.begin_capture()
        handle = new_handle(main_stream, 0)
        launch(set_from_cell, main_stream, np.uint64(int(handle)), cells, 0)
        body = add_if(main_stream, handle)
        capture_body(body, level_with_fork)
        launch(bump, main_stream, cells, 4)
        graph = main_stream.end_capture()
    for flag in (0, 1, 1, 0):
        cupy_cells[0] = flag
        graph.launch(main_stream)
        main_stream.synchronize()
    got = cupy_cells[1:5].get().tolist()
    print(f"IF node with fork/join: bumps {got} (expected [2, 2, 2, 4]) -> {'ok' if got == [2, 2, 2, 4] else 'WRONG'}")

    # --- 3. costs
    def level(stream, kernels):
        for _ in range(kernels):
            launch(bump, stream, cells, 10)

    def build(kind):
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            stream.begin_capture()
            level(stream, args.kernels)  # level 0 plain
            for index in range(1, args.levels):
                if kind == "plain":
                    level(stream, args.kernels)
                    continue
                handle = new_handle(stream, 0)  # (a handle no node uses fails the instantiation)
                launch(set_from_cell, stream, np.uint64(int(handle)), cells, 5 if kind == "taken" else 6)
                body = add_if(stream, handle)
                capture_body(body, lambda s: level(s, args.kernels))
            graph = stream.end_capture()
        return graph, stream

    cupy_cells[5] = 1
    cupy_cells[6] = 0
    for kind in ("plain", "taken", "skipped"):
        graph, stream = build(kind)
        for _ in range(10):
            graph.launch(stream)
        stream.synchronize()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        times = []
        for _ in range(args.repeat):
            start.record(stream)
            graph.launch(stream)
            stop.record(stream)
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e3)
        print(f"{kind:8s}: {args.levels} levels x {args.kernels} kernels: median {np.median(times):7.1f} us "
              f"(min {min(times):.1f})")


if __name__ == "__main__":
    main()
