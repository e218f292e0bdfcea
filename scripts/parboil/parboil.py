#!/usr/bin/env python3
"""Builds Parboil's CUDA benchmarks (benchmarks/NAME/src/{cuda,cuda_base}) for PTX only, without
Parboil's Makefile driver, runs them on ptxsim's libcuda.so.1 on small generated inputs, and
compares their output files with those of Parboil's own CPU version of the benchmark
(src/cpu or src/base, built with the host compiler) run on the same input.

  parboil.py <Parboil checkout> [build dir, default /tmp/ptxsim-parboil]

Parboil's data sets are a separate download; this runner writes inputs in the formats the
benchmarks read (the reading code is cited beside each generator), small enough for a simulator.
A version is its folder's source files (those no other file there #includes) plus Parboil's
common/src/parboil{,_cuda}.c and args.c, compiled by one nvcc call (the CPU version too: nvcc
hands .c and .cc files to the host compiler).

Verdicts: PASS when the CUDA version's output file holds the numbers of the CPU version's
within the tolerance Parboil's compare-output tool for that benchmark uses; FAIL otherwise;
SKIP for benchmarks whose inputs need a tool the checkout does not have.

Environment: BENCHMARKS, TIMEOUT, PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT (as for scripts/hecbench).
Writes <build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import random
import re
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402


def matrix(path, rows, cols, rng):
    """sgemm's io.cc readColMajorMatrixFile: "rows cols" then the values, column-major."""
    values = " ".join(f"{rng.uniform(-1, 1):.6f}" for _ in range(rows * cols))
    path.write_text(f"{rows} {cols} {values}\n")


def sgemm(folder, rng):
    # main.cu: A (M x K) in inpFiles[0], B transposed (N x K) in inpFiles[2]; inpFiles[1]
    # (B) is not read but must be named. The kernels' tiles divide 128.
    m, n, k = 128, 128, 64
    matrix(folder / "A.txt", m, k, rng)
    matrix(folder / "B.txt", k, n, rng)
    matrix(folder / "BT.txt", n, k, rng)
    return "-i A.txt,B.txt,BT.txt", ""


def stencil(folder, rng):
    # main.cu read_data: nx*ny*nz floats, x fastest; the arguments are nx ny nz iterations.
    nx, ny, nz = 64, 32, 16
    data = [rng.uniform(0, 1) for _ in range(nx * ny * nz)]
    (folder / "grid.bin").write_bytes(struct.pack(f"<{len(data)}f", *data))
    return "-i grid.bin", f"-- {nx} {ny} {nz} 4"


def mri(folder, rng, name, per_sample):
    """mri-q's and mri-fhd's file.cc inputData: numK, numX (int32), then kx, ky, kz (numK
    floats each), x, y, z (numX each), then `per_sample` more arrays of numK floats (phiR, phiI;
    mri-fhd: and dR, dI)."""
    num_k, num_x = 512, 2048
    arrays = [[rng.uniform(-0.5, 0.5) for _ in range(n)]
              for n in (num_k,) * 3 + (num_x,) * 3 + (num_k,) * per_sample]
    body = struct.pack("<ii", num_k, num_x) + b"".join(struct.pack(f"<{len(a)}f", *a)
                                                        for a in arrays)
    (folder / name).write_bytes(body)
    return f"-i {name}", ""


def mri_q(folder, rng):
    return mri(folder, rng, "q.bin", 2)


def mri_fhd(folder, rng):
    return mri(folder, rng, "fhd.bin", 4)


def bfs(folder, rng):
    # main.cu: node count, per node "first-edge edge-count", the source, the edge count, per
    # edge "destination cost". An undirected random graph, each edge stored both ways.
    nodes = 4096
    neighbours = [set() for _ in range(nodes)]
    for v in range(1, nodes):  # a random tree (connected), then random extra edges
        u = rng.randrange(v)
        neighbours[u].add(v)
        neighbours[v].add(u)
    for _ in range(nodes * 2):
        u, v = rng.randrange(nodes), rng.randrange(nodes)
        if u != v:
            neighbours[u].add(v)
            neighbours[v].add(u)
    lines, edges, start = [str(nodes)], [], 0
    for v in range(nodes):
        lines.append(f"{start} {len(neighbours[v])}")
        edges += [f"{w} 1" for w in sorted(neighbours[v])]
        start += len(neighbours[v])
    lines += ["0", str(len(edges))] + edges
    (folder / "graph.txt").write_text("\n".join(lines) + "\n")
    return "-i graph.txt", ""


def cutcp(folder, rng):
    # readatom.c: ATOM/HETATM lines, "%*s %*d %*s %*s %*d x y z q".
    lines = [f"ATOM  {i + 1:5d} C    RES {i % 100 + 1:4d} {rng.uniform(0, 24):8.3f}"
             f" {rng.uniform(0, 24):8.3f} {rng.uniform(0, 24):8.3f} {rng.uniform(-1, 1):6.3f}"
             for i in range(400)]
    (folder / "atoms.pqr").write_text("\n".join(lines) + "\n")
    return "-i atoms.pqr", ""


def tpacf(folder, rng):
    # model_io: "ra dec" lines in degrees; -p the points per file, -n the random sets.
    points, sets = 487, 3
    names = []
    for index in range(sets + 1):
        name = f"points{index}.txt"
        (folder / name).write_text("".join(
            f"{rng.uniform(0, 360):.6f} {rng.uniform(-90, 90):.6f}\n" for _ in range(points)))
        names.append(name)
    return "-i " + ",".join(names), f"-- -n {sets} -p {points}"


def histo(folder, rng):
    # main.cu: img_width, img_height, histo_width, histo_height (uint32), then the image, one
    # uint32 bin index per pixel; the bins saturate at 255. The CUDA version's kernels work in
    # slices of 24 x 1024 bins (util.h's BINS_PER_BLOCK) and size their buffers by the image's
    # width: the histogram is one slice, as wide as the image.
    width, height, bins_w, bins_h = 256, 128, 256, 96
    # Half the pixels in the first hundred bins (past 255 each, the bins' 8-bit counters
    # overflow), half spread wide.
    pixels = [min(int(abs(rng.gauss(0, 40 if i % 2 else 4000))), bins_w * bins_h - 1)
              for i in range(width * height)]
    (folder / "image.bin").write_bytes(struct.pack("<4I", width, height, bins_w, bins_h)
                                       + struct.pack(f"<{len(pixels)}I", *pixels))
    return "-i image.bin", "-- 2"


def lbm(folder, rng):
    # lbm.cu LBM_loadObstacleFile: SIZE_Z planes (150) of SIZE_Y rows (120) of SIZE_X (120)
    # characters, '.' free and anything else an obstacle, a newline after each row and plane.
    # The grid's size is compiled in: the runner makes the run short (2 time steps) instead.
    planes = []
    for _ in range(150):
        rows = ["".join("#" if rng.random() < 0.05 else "." for _ in range(120))
                for _ in range(120)]
        planes.append("\n".join(rows) + "\n")
    (folder / "obstacles.txt").write_text("\n".join(planes) + "\n")
    return "-i obstacles.txt", "-- 2"


def sad(folder, rng):
    # image.c load_image: width and height (16-bit little-endian), then width*height 16-bit
    # pixels; the blocks are 16x16, so both are multiples of 16. The current image is the
    # reference shifted by a pixel, with noise.
    width, height = 64, 48
    reference = [rng.randrange(256) for _ in range(width * height)]
    current = [min(255, max(0, reference[(i + 1) % len(reference)] + rng.randrange(-8, 9)))
               for i in range(width * height)]
    for name, pixels in (("reference.img", reference), ("current.img", current)):
        (folder / name).write_bytes(struct.pack("<HH", width, height)
                                    + struct.pack(f"<{len(pixels)}h", *pixels))
    return "-i reference.img,current.img", ""


def pns(folder, rng):
    # main.cu: no input; the arguments are N (a 2N x 2N place-transition grid), the steps of a
    # trajectory and the number of trajectories. The program's Mersenne twister draws the
    # transitions; it writes four statistics of the trajectories.
    return "", "-- 16 200 256"


# name: (generator, output kind, tolerance, reference folder). A value passes when it is within
# the absolute tolerance, or the relative one, of the CPU version's; the absolute tolerance is
# at least the third number times the largest magnitude among the CPU version's values. The
# tolerances are those of each benchmark's tools/compare-output, or stricter.
PROGRAMS = {
    "sgemm": (sgemm, "text", (0.01, 0.01, 0), "cpu"),
    "stencil": (stencil, "float32", (0.001, 0.002, 0), "cpu"),
    "mri-q": (mri_q, "float32", (0, 0.002, 1e-4), "cpu"),
    "bfs": (bfs, "text", (0, 0, 0), "base"),
    "cutcp": (cutcp, "float32", (0, 0.005, 0), "base"),
    "tpacf": (tpacf, "text", (1, 0, 0), "base"),  # bin counts: at most one off
    "histo": (histo, "bytes", (0, 0, 0), "base"),
    "mri-fhd": (mri_fhd, "float32", (0, 0.002, 1e-4), "cpu"),
    "lbm": (lbm, "float32", (0, 0.002, 1e-3), "cpu"),
    "sad": (sad, "bytes", (0, 0, 0), "cpu"),
    "pns": (pns, "text", (0.01, 0.01, 0), "cpu"),
}
VERSIONS = ("cuda", "cuda_base")
SKIPPED = {"cp": "its sizes are compiled in: a 512x512 grid and 40,000 atoms, 10^10 "
                 "interactions, hours in a simulator",
           "spmv": "its CUDA versions read the matrix through common_src/convert-dataset, "
                   "which the checkout does not have"}


def sources(folder):
    """The folder's .cu/.cc/.c files that no other file there #includes."""
    files = sorted(p for p in folder.iterdir() if p.suffix in (".cu", ".cc", ".c", ".cpp"))
    included = set()
    for p in files:
        included |= set(re.findall(r'#include\s*"([^"]+\.(?:cu|cc|c|cpp))"',
                                   p.read_text(errors="replace")))
    return [p for p in files if p.name not in included]


def numbers(path, kind):
    data = path.read_bytes()
    if kind == "text":
        return [float(x) for x in re.findall(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf",
                                             data)]
    if kind == "float32":
        return list(struct.unpack(f"<{len(data) // 4}f", data[:len(data) // 4 * 4]))
    return list(data)


def compare(reference, output, kind, tolerance):
    if not output.is_file():
        return "FAIL", "no output file"
    want, got = numbers(reference, kind), numbers(output, kind)
    if len(want) != len(got):
        return "FAIL", f"{len(got)} values, the CPU version wrote {len(want)}"
    absolute, relative, of_largest = tolerance
    absolute = max(absolute, of_largest * max(map(abs, want), default=0))
    bad = [i for i, (r, c) in enumerate(zip(want, got))
           if not (abs(r - c) <= absolute or abs(r - c) <= relative * abs(r))]
    if bad:
        i = bad[0]
        return "FAIL", f"{len(bad)} of {len(want)} values differ from the CPU version's (first: " \
                       f"#{i} {got[i]} vs {want[i]})"
    return "PASS", f"{len(want)} values equal to the CPU version's within {tolerance}"


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-parboil", "common/src/parboil_cuda.c",
                                     "a Parboil checkout")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    common = checkout / "common"
    # parboil.h includes <CL/cl.h> whatever the language (for an OpenCL timing wrapper it
    # declares): the few OpenCL types it names, so that CUDA and CPU versions compile without
    # OpenCL's headers.
    (suite.build / "include/CL").mkdir(parents=True, exist_ok=True)
    (suite.build / "include/CL/cl.h").write_text(
        "#pragma once\ntypedef int cl_int;\ntypedef unsigned cl_uint;\n"
        + "".join(f"typedef struct _{t} *{t};\n"
                  for t in ("cl_command_queue", "cl_event", "cl_kernel", "cl_mem")))
    include = [f"-I{common / 'include'}", f"-I{suite.build / 'include'}"]
    for name, reason in SKIPPED.items():
        if only.search(name):
            suite.record(name, "SKIP", 0, reason)
    for name, (generate, kind, tolerance, reference) in PROGRAMS.items():
        if not only.search(name):
            continue
        work = suite.build / "bin" / name
        work.mkdir(parents=True, exist_ok=True)
        inputs, arguments = generate(work, random.Random(31))
        src = checkout / "benchmarks" / name / "src"
        # The CPU version: the reference every CUDA version is compared with.
        cpu = [str(suite.cu / "bin" / "nvcc"), "-O2", *include,
               *map(str, sources(src / reference)), str(common / "src/parboil.c"),
               str(common / "src/args.c"), "-lm", "-o", str(work / "reference")]
        if not suite.compile(f"{name}-reference", [cpu], src / reference):
            continue
        if "run" in suite.steps:
            (work / "reference.out").unlink(missing_ok=True)
            try:
                subprocess.run(f"./reference {inputs} -o reference.out {arguments}", shell=True,
                               cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=600)
            except subprocess.TimeoutExpired:
                pass
            if not (work / "reference.out").is_file():
                suite.record(f"{name}-reference", "ERROR", 0, "the CPU version wrote no output")
                continue
        for version in VERSIONS:
            if not (src / version).is_dir():
                continue
            flat = label = f"{name}-{version}"
            command = suite.nvcc(["-O2", *include, f"-I{src / version}",
                                  *map(str, sources(src / version)),
                                  str(common / "src/parboil_cuda.c"), str(common / "src/args.c"),
                                  "-lm", "-o", str(work / flat)])
            if not suite.compile(label, [command], src / version):
                continue
            output = work / f"{flat}.out"
            output.unlink(missing_ok=True)
            suite.run(label, f"./{flat} {inputs} -o {output.name} {arguments}", work,
                      lambda body: compare(work / "reference.out", output, kind, tolerance))
    suite.summary()


if __name__ == "__main__":
    main()
