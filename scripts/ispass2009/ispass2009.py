#!/usr/bin/env python3
"""Builds GPGPU-Sim's ISPASS-2009 benchmarks (gpgpu-sim/ispass2009-benchmarks: AES, BFS, CP,
LIB, LPS, MUM, NN, NQU, RAY, STO; WP and DG are not tried) for PTX only, without their CUDA-SDK
makefiles, and runs them on ptxsim's libcuda.so.1 with the inputs their README.GPGPU-Sim names.

  ispass2009.py <ispass2009-benchmarks checkout> [build dir, default /tmp/ptxsim-ispass2009]

The benchmarks include the old CUDA SDK's cutil.h (and RAY cutil_math.h), which the SDK dropped
in CUDA 5: this folder has a small version of each, written from how the benchmarks call them.
Each program is its README's sources in one nvcc call; each runs in its own folder under
<build>/work (its output files land there), with the checkout's data/ linked in.

Verdicts:
  BFS   its result.txt (each node's cost from the source) against a breadth-first search of
        the same graph file done here in Python (see judge_bfs: the kernel races by design);
  CP    Parboil's cuda_short version; its output file against benchmarks/cp/output/short/ref.txt
        (the reference output the suite ships), each value within a relative 1e-3;
  LPS   its own check: the rms difference from its host version of the stencil (0 expected);
  NQU   its own CPU count and GPU count, and both against the number of solutions of the
        8-queens problem (92; OEIS A000170);
  STO   its own check of its SHA1 digests against its host's ("Test PASSED");
  LIB, NN  RAN: they print or write their results without a check. NN reads MNIST's
        t10k-images-idx3-ubyte, which the repository stores outside git (an empty file in a
        plain clone): when it is empty the runner writes 28 images of its own in that format.
  AES, MUM, RAY: BUILD-FAIL with nvcc 13 (texture references, removed in CUDA 12; RAY's
        `__global__ __device__` functions).

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import random
import re
import struct
import sys
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

HERE = Path(__file__).resolve().parent

# name: (folder, sources, arguments (README.GPGPU-Sim's, without the binary's path))
PROGRAMS = {
    "AES": ("AES", ["aesHost.cu", "aescuda.cpp", "aesCudaUtils.cpp"],
            "e 128 ./data/output.bmp ./data/key128.txt"),
    "BFS": ("BFS", ["bfs.cu"], "./data/graph65536.txt"),
    "CP": ("CP/benchmarks/cp/src/cuda_short",
           ["main.cu", "cuenergy_pre8_coalesce.cu", "../../../../common/src/parboil.c"],
           "-o cp.out"),
    "LIB": ("LIB", ["libor.cu"], ""),
    "LPS": ("LPS", ["laplace3d.cu", "laplace3d_gold.cpp"], ""),
    "MUM": ("MUM", ["mummergpu.cu", "mummergpu_main.cpp", "mummergpu_gold.cpp",
                    "suffix-tree.cpp", "PoolMalloc.cpp"],
            "./data/NC_003997.20k.fna ./data/NC_003997_q25bp.50k.fna"),
    "NN": ("NN", ["NN.cu"], "28"),
    "NQU": ("NQU", ["nqueen.cu"], ""),
    "RAY": ("RAY", ["rayTracing.cu", "EasyBMP.cpp", "makebmp.cpp"], "256 256"),
    "STO": ("STO", ["main.cu", "storeGPU.cu", "storeCPU.cpp", "md5_cpu.cpp", "sha1_cpu.cpp"], ""),
}


def read_graph(graph):
    """bfs.cu's input: node count; per node "first-edge edge-count"; the source; the edge
    count; per edge "destination cost". (nodes, edges, source)."""
    numbers = iter(map(int, graph.read_text().split()))
    n = next(numbers)
    nodes = [(next(numbers), next(numbers)) for _ in range(n)]
    source = next(numbers)
    edges = []
    for _ in range(next(numbers)):
        edges.append(next(numbers))
        next(numbers)
    return nodes, edges, source


def bfs_reference(nodes, edges, source):
    """Hop counts from the source (-1: unreachable)."""
    cost = [-1] * len(nodes)
    cost[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        start, count = nodes[u]
        for v in edges[start:start + count]:
            if cost[v] < 0:
                cost[v] = cost[u] + 1
                queue.append(v)
    return cost


def judge_bfs(work, graph):
    """BFS's kernel (kernel.cu) marks the nodes it reaches as the next frontier in the same
    launch that reads the frontier, so a node reached early in a launch may be expanded in that
    launch too, by a thread that reads its mask later: its costs are the lengths of paths the
    expansion took, not always the shortest, and depend on the order CTAs run in (on a GPU as
    on ptxsim, which runs a launch's CTAs one after another). What every order gives: the
    reachable nodes (those of a host BFS) and no others have a cost, no cost is below the
    shortest path's, and each cost is one more than that of a node with an edge to it."""
    def verdict(body):
        out = work / "result.txt"
        if not out.is_file():
            return "FAIL", "no result.txt"
        got = {}
        for line in out.read_text().splitlines():
            m = re.match(r"(\d+)\) cost:(-?\d+)", line)
            if m:
                got[int(m.group(1))] = int(m.group(2))
        nodes, edges, source = read_graph(graph)
        want = bfs_reference(nodes, edges, source)
        into = [[] for _ in nodes]
        for u, (start, count) in enumerate(nodes):
            for v in edges[start:start + count]:
                into[v].append(u)
        wrong = [v for v, d in enumerate(want)
                 if got.get(v) is None or (d < 0) != (got[v] < 0) or got[v] < d
                 or (got[v] > 0 and not any(got.get(u) == got[v] - 1 for u in into[v]))]
        if wrong:
            v = wrong[0]
            return "FAIL", (f"{len(wrong)} of {len(want)} costs are not path lengths a BFS "
                            f"expansion can give (node {v}: {got.get(v)}, shortest {want[v]})")
        exact = sum(got[v] == d for v, d in enumerate(want))
        return "PASS", (f"all {len(want)} costs are lengths of paths from the source, "
                        f"{exact} of them the shortest (longest {max(got.values())}, "
                        f"shortest-path depth {max(want)})")
    return verdict


def judge_cp(work, ref):
    """Parboil's compare for cp (common/python/textfilecompare.py as cp's DESCRIPTION uses it)
    is replaced by a stricter one here: every number within a relative 1e-3 (plus 1e-4 absolute,
    for values near 0) of ref.txt, which holds them printed with 4 significant digits."""
    def verdict(body):
        out = work / "cp.out"
        if not out.is_file():
            return "FAIL", "no cp.out"
        got = out.read_text().split()
        want = ref.read_text().split()
        if len(got) != len(want):
            return "FAIL", f"{len(got)} numbers in cp.out, {len(want)} in ref.txt"
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want))
               if abs(float(g) - float(w)) > 1e-3 * abs(float(w)) + 1e-4]
        if bad:
            i, g, w = bad[0]
            return "FAIL", f"{len(bad)} of {len(want)} values differ from ref.txt (#{i}: {g}, {w})"
        return "PASS", f"all {len(want)} values equal output/short/ref.txt's"
    return verdict


def judge_lps(body):
    m = re.search(r"rms error = ([0-9.eE+-]+)", body)
    if not m:
        return None
    if float(m.group(1)) > 1e-5:
        return "FAIL", f"rms difference from its host stencil {m.group(1)}"
    return "PASS", f"rms difference from its host stencil {m.group(1)}"


def judge_nqu(body):
    counts = dict(re.findall(r"(CPU|GPU): 8 queen = (\d+)", body))
    if set(counts) != {"CPU", "GPU"}:
        return None
    if counts["GPU"] != "92" or counts["CPU"] != "92":
        return "FAIL", f"8 queens: CPU {counts['CPU']}, GPU {counts['GPU']} solutions (92 exist)"
    return "PASS", "8 queens: 92 solutions on the GPU and the CPU (OEIS A000170: 92)"


def judge_sto(body):
    results = re.findall(r"Test (PASSED|FAILED)", body)
    if "FAILED" in results:
        return "FAIL", "its check of the GPU's SHA1 digests against the host's failed"
    if results:
        return "PASS", "the GPU's SHA1 digests equal the host's (its own check)"
    return None


def mnist_like(path, count):
    """MNIST's IDX image format (magic 2051, count, rows, columns, big-endian, then the pixels):
    `count` 28x28 images of random strokes, for NN when the real file is not in the checkout."""
    rng = random.Random(2009)
    pixels = bytearray()
    for _ in range(count):
        image = bytearray(28 * 28)
        for _ in range(60):
            image[rng.randrange(4, 24) * 28 + rng.randrange(4, 24)] = rng.randrange(128, 256)
        pixels += image
    path.write_bytes(struct.pack(">iiii", 2051, count, 28, 28) + bytes(pixels))


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-ispass2009", "README.ISPASS-2009",
                                     "an ispass2009-benchmarks checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    bin_dir = suite.build / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, (folder, sources, arguments) in PROGRAMS.items():
        if not only.search(name):
            continue
        where = checkout / folder
        command = suite.nvcc(["-O3", f"-I{HERE}", f"-I{where}",
                              f"-I{checkout / 'CP/common/include'}",
                              *[str(where / s) for s in sources], "-o", str(bin_dir / name)])
        if not suite.compile(name, [command], where):
            continue
        work = suite.build / "work" / name
        work.mkdir(parents=True, exist_ok=True)
        data = work / "data"
        if (where / "data").is_dir() and not data.exists():
            data.mkdir()
            for f in (where / "data").iterdir():
                (data / f.name).symlink_to(f)
        judge = None
        if name == "BFS":
            judge = judge_bfs(work, where / "data" / "graph65536.txt")
        elif name == "CP":
            judge = judge_cp(work, checkout / "CP/benchmarks/cp/output/short/ref.txt")
        elif name == "LPS":
            judge = judge_lps
        elif name == "NQU":
            judge = judge_nqu
        elif name == "STO":
            judge = judge_sto
        note = ""
        if name == "NN":
            images = data / "t10k-images-idx3-ubyte"
            if images.is_symlink() and images.stat().st_size == 0:
                images.unlink()
                mnist_like(images, 28)
            if not images.is_symlink():
                note = "generated images (the checkout's MNIST file is empty); "
        suite.run(name, f"{bin_dir / name} {arguments}", work, judge, note=note)
    suite.summary()


if __name__ == "__main__":
    main()
