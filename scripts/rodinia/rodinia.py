#!/usr/bin/env python3
"""Helper of run.sh: generates Rodinia's inputs, builds its CUDA programs for PTX, runs them on
ptxsim's libcuda.so.1 and checks what they compute.

  rodinia.py run <checkout> <build dir> <script dir>  -> <build>/results.tsv, logs, a summary

Rodinia's CUDA programs (cuda/*) mostly do not check their own results, and the inputs its
`run` scripts name (data/) are a separate download the repository lacks. So each program in
BENCHMARKS below has: how it is built (its own Makefile, with the make variables overridden),
its command (the folder's `run` script's, with smaller arguments where the default is sized for
a GPU: ARGS), the inputs it needs (generated here, with a fixed seed), and how its result is
judged (`how`):

  self      the program checks itself (its `-v` flag, or a CPU computation it always does);
  cpu       the same program of the suite's openmp/ folder, built with g++/gcc, runs on the same
            input and its output (a file or stdout) is compared number by number;
  python    a reference computed here from the generated input (BFS distances, the hotspot
            kernel's formula);
  none      the program prints no result; exit 0 without a diagnostic is RAN, not PASS.

Verdicts: PASS (the check agreed), RAN (exit 0, nothing to compare), FAIL (the check disagreed,
or a non-zero exit), ERROR (a ptxsim diagnostic, a CUDA error, a signal), TIMEOUT, SKIP (the
input is not in the repository and no generator exists), BUILD-FAIL (with the first error).
"""
import math
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

# results.tsv is written as HeCBench's campaign writes it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hecbench"))
from hecbench import write  # noqa: E402

# name: (folder under cuda/, make arguments, extra nvcc flags, command, how, reference)
# The reference (how == "cpu") is (folder under openmp/, make arguments, command, output
# compared: "stdout" or a file name, relative tolerance); the command runs in that folder.
# The tolerance allows for the GPU's fused multiply-adds and summation orders; exact
# integer outputs use 0.
BENCHMARKS = {
    "b+tree": dict(dir="b+tree", cmd="./b+tree.out file ../../data/b+tree/mil.txt command ../../data/b+tree/command.txt",
                   how="cpu", out="output.txt",
                   ref=("b+tree", [], "./b+tree.out core 1 file ../../data/b+tree/mil.txt command ../../data/b+tree/command.txt", 0)),
    "backprop": dict(dir="backprop", cmd="./backprop 16384", how="none"),
    "bfs": dict(dir="bfs", cmd="./bfs.out ../../data/bfs/graph4096.txt", how="python", out="result.txt"),
    "cfd": dict(dir="cfd", make=["euler3d"], cmd="./euler3d ../../data/cfd/domain.1K", how="cpu", out="density",
                keep="after_first_line", ref=("cfd", ["euler3d_cpu"], "./euler3d_cpu ../../data/cfd/domain.1K", 1e-3)),
    "dwt2d": dict(dir="dwt2d", cmd="./dwt2d ../../data/dwt2d/rgb.bmp -d 64x64 -f -5 -l 3", how="none"),
    # gaussian prints its solution only when `verbose`, which no option sets.
    "gaussian": dict(dir="gaussian", cmd="./gaussian -f ../../data/gaussian/matrix64.txt", how="none"),
    # The suite's ultrasound video is a separate download: heartwall_video.c writes one of the
    # same size (609x590) with avilib.
    "heartwall": dict(dir="heartwall", make=["OUTPUT=1"], cmd="./heartwall ../../data/heartwall/test.avi 2",
                      how="cpu", out="result.txt",
                      ref=("heartwall", ["OUTPUT=1"], "./heartwall ../../data/heartwall/test.avi 2 1", 0)),
    # The OpenMP hotspot takes a time step 1,000 times smaller and treats the edges apart:
    # its result is another computation's, so the reference is the CUDA kernel's formula here.
    "hotspot": dict(dir="hotspot", cmd="./hotspot 64 2 2 ../../data/hotspot/temp_64 ../../data/hotspot/power_64 output.out",
                    how="python", out="output.out"),
    "hotspot3D": dict(dir="hotspot3D", cmd="./3D 64 8 10 ../../data/hotspot3D/power_64x8 ../../data/hotspot3D/temp_64x8 output.out",
                      how="cpu", out="output.out",
                      ref=("hotspot3D", [], "./3D 64 8 10 ../../data/hotspot3D/power_64x8 ../../data/hotspot3D/temp_64x8 output.out", 1e-4)),
    "huffman": dict(dir="huffman", cmd="./pavle ../../data/huffman/skewed256K.in", how="self"),
    "hybridsort": dict(dir="hybridsort", cmd="./hybridsort r", how="self"),
    "kmeans": dict(dir="kmeans", cmd="./kmeans -o -i ../../data/kmeans/points.txt", how="none"),
    "lavaMD": dict(dir="lavaMD", make=["OUTPUT=1"], cmd="./lavaMD -boxes1d 2", how="cpu", out="result.txt", fixed_time=True,
                   ref=("lavaMD", ["OUTPUT=1"], "./lavaMD -cores 1 -boxes1d 2", 1e-3)),
    # Its input, a microscopy video, is in Rodinia's data download; it does not build anyway.
    "leukocyte": dict(dir="leukocyte", cmd="./CUDA/leukocyte ../../data/leukocyte/testfile.avi 2", how="none"),
    "lud": dict(dir="lud", cmd="cuda/lud_cuda -s 256 -v", how="self"),
    "mummergpu": dict(dir="mummergpu", cmd="bin/mummergpu ../../data/mummergpu/ref.fna ../../data/mummergpu/query.fna", how="none"),
    "myocyte": dict(dir="myocyte", cmd="./myocyte.out 100 1 0", how="skip",
                    why="its inputs (data/myocyte/y.txt, params.txt: a cardiac cell model's state and parameters) are in Rodinia's data download, not in the repository"),
    "nn": dict(dir="nn", cmd="./nn ../../data/nn/filelist -r 5 -lat 30 -lng 90", how="cpu", out="stdout",
               keep="records", ref=("nn", ["nn"], "./nn ../../data/nn/filelist 5 30 90", 0)),
    "nw": dict(dir="nw", nvcc="-DTRACEBACK", cmd="./needle 256 10", how="cpu", out="result.txt",
               ref=("nw", ["needle", "CC_FLAGS=-O2 -fopenmp -DTRACEBACK"], "./needle 256 10 1", 0)),
    "particlefilter_naive": dict(dir="particlefilter", make=["naive"], cmd="./particlefilter_naive -x 128 -y 128 -z 4 -np 1000",
                                 how="cpu", out="stdout", fixed_time=True, keep="last_estimate",
                                 ref=("particlefilter", [], "./particle_filter -x 128 -y 128 -z 4 -np 1000", 1e-3)),
    "particlefilter_float": dict(dir="particlefilter", make=["float"], cmd="./particlefilter_float -x 128 -y 128 -z 4 -np 1000",
                                 how="cpu", out="stdout", fixed_time=True, keep="last_estimate",
                                 ref=("particlefilter", [], "./particle_filter -x 128 -y 128 -z 4 -np 1000", 1e-3)),
    "pathfinder": dict(dir="pathfinder", nvcc="-DBENCH_PRINT", cmd="./pathfinder 1000 100 20", how="cpu", out="stdout",
                       keep="numeric_lines", ref=("pathfinder", [], "./pathfinder 1000 100", 0)),
    # One iteration: the image is written as integers, truncated, and the mean and variance
    # of the whole image (summed in another order on the GPU) steer every pixel.
    "srad_v1": dict(dir="srad/srad_v1", cmd="./srad 1 0.5 128 128", how="cpu", out="image_out.pgm",
                    ref=("srad/srad_v1", [], "./srad 1 0.5 128 128 1", (0, 1))),
    "srad_v2": dict(dir="srad/srad_v2", nvcc="-DOUTPUT", cmd="./srad 128 128 0 31 0 31 0.5 2", how="cpu", out="stdout",
                    ref=("srad/srad_v2", ["CC_FLAGS=-O2 -fopenmp -DOUTPUT"], "./srad 128 128 0 31 0 31 1 0.5 2", 1e-3)),
    "streamcluster": dict(dir="streamcluster", cmd="./sc_gpu 10 20 16 1024 1024 100 none output.txt 1", how="cpu", out="output.txt",
                          ref=("streamcluster", ["omp"], "./sc_omp 10 20 16 1024 1024 100 none output.txt 1", 1e-3)),
}

# Edits of the build copy for CUDA 13, which removed members of cudaDeviceProp that these
# programs only print or test (the CUDA 13.0 release notes: clockRate, deviceOverlap,
# computeMode; cudaDeviceGetAttribute gives them). Nothing that reaches a kernel is edited.
CUDA13_EDITS = {
    "gaussian": [("gaussian.cu", "deviceProp.clockRate", "0"), ("gaussian.cu", "deviceProp. deviceOverlap", "1")],
    "huffman": [("hist.cu", "if(!prop.deviceOverlap)", "if(0)")],
}

# What a program prints when its own check fails, and when it passes.
FAILED = re.compile(r"\bFAIL\b|dismatch|NOT matching|[Mm]ismatch", re.M)
# ptxsim's own diagnostics: "ptxsim: CALL: CUDA_ERROR_...", a kernel fault, a checker error.
PTXSIM = re.compile(r"^ptxsim: (?!log:).*$", re.M)
CUDA_ERROR = re.compile(r"^.*(CUDA error|cuda error|CUDA Error|cudaError\w+|an illegal|"
                        r"invalid device|no kernel image|unspecified launch failure).*$", re.M)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.I)


# ---------------------------------------------------------------------------------------------
# Inputs. Each writes under <build>/src/data/<name>/ (the programs' ../../data), seeded.

def gen_bfs(d, rng):
    """Rodinia's graph format (its graphgen's): the node count, then each node's first edge
    and degree, the source, the edge count, then each edge's destination and cost."""
    n = 4096
    adj = [[] for _ in range(n)]
    for u in range(n):
        for _ in range(rng.randint(1, 4)):
            v = rng.randrange(n)
            adj[u].append(v)
            adj[v].append(u)
    lines = [str(n)]
    start = 0
    for u in range(n):
        lines.append(f"{start} {len(adj[u])}")
        start += len(adj[u])
    lines += ["", "0", "", str(start)]
    lines += [f"{v} 1" for u in range(n) for v in adj[u]]
    (d / "graph4096.txt").write_text("\n".join(lines) + "\n")


def gen_btree(d, rng):
    keys = rng.sample(range(1, 1_000_000), 10000)
    (d / "mil.txt").write_text(f"{len(keys)}\n" + "\n".join(map(str, keys)) + "\n")
    # j: 1,000 range queries of 100 keys each; k: 1,000 single-key queries (the keys are
    # rand()'s, the same in the CUDA and the OpenMP program).
    (d / "command.txt").write_text("j 1000 100\nk 1000\n")


def gen_hotspot(d, rng):
    n = 64
    (d / f"temp_{n}").write_text("".join(f"{rng.uniform(320, 345):.6f}\n" for _ in range(n * n)))
    (d / f"power_{n}").write_text("".join(f"{rng.uniform(0, 1e-3):.9f}\n" for _ in range(n * n)))


def gen_hotspot3d(d, rng):
    n, layers = 64, 8
    (d / f"power_{n}x{layers}").write_text("".join(f"{rng.uniform(0, 1e-3):.9f}\n" for _ in range(n * n * layers)))
    (d / f"temp_{n}x{layers}").write_text("".join(f"{rng.uniform(320, 345):.6f}\n" for _ in range(n * n * layers)))


def gen_huffman(d, rng):
    # Bytes with a skewed distribution (as the suite's test1024_H2.2 input, entropy ~2.2 bits).
    weights = [2.0 ** -min(i, 20) for i in range(256)]
    data = bytes(rng.choices(range(256), weights=weights, k=256 * 1024))
    (d / "skewed256K.in").write_bytes(data)


def gen_gaussian(d, rng):
    """A 64x64 system A x = b in gaussian's file format: A diagonally dominant (no pivoting
    needed, as Rodinia's elimination does none), b = A x for a random x. (The program never
    prints its solution, so x is not kept.)"""
    n = 64
    a = [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)]
    for i in range(n):
        a[i][i] += n if a[i][i] >= 0 else -n
    x = [rng.uniform(-1, 1) for _ in range(n)]
    b = [sum(a[i][j] * x[j] for j in range(n)) for i in range(n)]
    rows = "\n".join("\t".join(f"{v:.9f}" for v in row) for row in a)
    (d / "matrix64.txt").write_text(f"{n}\n\n{rows}\n\n" + "\t".join(f"{v:.9f}" for v in b) + "\n")


def gen_nn(d, rng):
    """Hurricane records in the format of the suite's hurricane_gen.c (fixed columns: year,
    month, date, hour, number, name, latitude, longitude, speed, pressure)."""
    names = ["ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE"]
    files = []
    for f in range(4):
        lines = []
        for _ in range(1024):
            lat, lon = rng.uniform(7, 63), rng.uniform(0, 358)
            lines.append("%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d" % (
                rng.randint(1950, 2004), rng.randint(1, 12), rng.randint(1, 28), rng.choice([0, 6, 12, 18]),
                rng.randint(1, 28), rng.choice(names), lat, lon, rng.randint(10, 164), rng.randint(0, 899)))
        name = f"cane4_{f}.db"
        (d / name).write_text("\n".join(lines) + "\n")
        files.append(f"../../data/nn/{name}")
    (d / "filelist").write_text("\n".join(files) + "\n")


def gen_srad(d, rng):
    n = 128
    pixels = " ".join(str(rng.randint(0, 255)) for _ in range(n * n))
    (d / "image.pgm").write_text(f"P2\n{n} {n}\n255\n{pixels}\n")


def gen_dwt2d(d, rng):
    """A 64x64 24-bit BMP of random pixels."""
    w = h = 64
    pixels = bytes(rng.randrange(256) for _ in range(w * h * 3))
    header = b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    (d / "rgb.bmp").write_bytes(header + info + pixels)


def gen_cfd(d, rng):
    """A mesh in euler3d's format: the element count, then per element its volume and, for
    each of its 4 faces, the neighbour (-1 a wall, -2 the far field) and the face's normal.
    The elements form a chain (neighbours i-1 and i+1, the two other faces walls) with
    normals of unit length, so that the flow stays finite."""
    n = 1024
    lines = [str(n)]
    for i in range(n):
        faces = [(i - 1 if i > 0 else -2, (-1.0, 0.0, 0.0)), (i + 1 if i < n - 1 else -2, (1.0, 0.0, 0.0)),
                 (-1, (0.0, 1.0, 0.0)), (-1, (0.0, -1.0, 0.0))]
        row = [f"{rng.uniform(0.5, 1.5):.6f}"]
        for nb, normal in faces:
            row.append(str(nb + 1 if nb >= 0 else nb))
            row += [f"{c * rng.uniform(0.9, 1.1):.6f}" for c in normal]
        lines.append(" ".join(row))
    (d / "domain.1K").write_text("\n".join(lines) + "\n")


GENERATORS = {"bfs": gen_bfs, "b+tree": gen_btree, "hotspot": gen_hotspot, "hotspot3D": gen_hotspot3d,
              "huffman": gen_huffman, "gaussian": gen_gaussian, "nn": gen_nn, "srad": gen_srad,
              "dwt2d": gen_dwt2d, "cfd": gen_cfd}


def gen_heartwall(d, tree, here):
    """3 frames of heartwall_video.c's video, built with the checkout's avilib."""
    avi = tree / "cuda" / "heartwall" / "AVI"
    tool = d / "heartwall_video"
    subprocess.run(["gcc", "-O2", "-o", str(tool), str(here / "heartwall_video.c"), str(avi / "avilib.c"),
                    f"-I{avi}", "-lm"], check=True, stdin=subprocess.DEVNULL)
    subprocess.run([str(tool), str(d / "test.avi"), "3"], check=True, stdin=subprocess.DEVNULL)


def generate(data, tree, here):
    d = data / "heartwall"
    if not (d / "test.avi").is_file():
        d.mkdir(parents=True, exist_ok=True)
        gen_heartwall(d, tree, here)
    for name, gen in GENERATORS.items():
        d = data / name
        if d.is_dir() and any(d.iterdir()):
            continue
        d.mkdir(parents=True, exist_ok=True)
        gen(d, random.Random(31))


# ---------------------------------------------------------------------------------------------
# Checks.

def numbers(text):
    return NUMBER.findall(text)


def compare(got, want, tol):
    """Compares two outputs number by number (the words between them are ignored). `tol` is a
    relative tolerance, or (relative, absolute): a pair agrees when it is within either.
    None when they agree exactly; "~X" (X the largest relative difference) when they agree
    within the tolerance; otherwise the first pair that does not."""
    rel, absolute = tol if isinstance(tol, tuple) else (tol, 0)
    a, b = numbers(got), numbers(want)
    if len(a) != len(b):
        return f"{len(a)} numbers, the reference {len(b)}"
    if not a:
        return "no numbers to compare"
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        fx, fy = float(x), float(y)
        if fx == fy or math.isnan(fx) and math.isnan(fy):
            continue
        diff = abs(fx - fy)
        scale = max(abs(fx), abs(fy))
        if diff > rel * scale and diff > absolute:
            return f"number {i}: {x}, the reference {y}"
        worst = max(worst, diff if absolute else diff / scale)
    return None if worst == 0 else f"~{worst:.1e}"


def keep(how, text):
    """The part of an output that is compared (`keep` in BENCHMARKS)."""
    lines = text.splitlines()
    if how == "after_first_line":  # cfd: its first line gives the padded element count too
        return "\n".join(lines[1:])
    if how == "numeric_lines":  # pathfinder: the data and the result, not the launch shape
        return "\n".join(l for l in lines if re.fullmatch(r"[-0-9. ]+", l.strip() or "x"))
    if how == "records":  # nn: the neighbours, in the order of their distance
        rows = [re.sub(r"-->\s*(Distance=)?", "", l).split() for l in lines if "-->" in l]
        return "\n".join(" ".join(r) for r in sorted(rows, key=lambda r: (float(r[-1]), r)))
    if how == "last_estimate":  # particlefilter: the last frame's estimate and its error
        at = max((i for i, l in enumerate(lines) if l.startswith("XE:")), default=None)
        return "" if at is None else "\n".join(lines[at:at + 3])
    return text


TIMING = re.compile(r"^.*(time|TIME|Time|took|TOOK|ms\)|\(ms\)|seconds|[0-9.]+ s\b|%|Exec:|Compute|"
                    r"WG size|Device|device|GPU|CUDA|thread block|Configuration|DONE|Memory|"
                    r"^The file).*$", re.M)


def strip_timing(text):
    return TIMING.sub("", text)


def check_python(name, folder, data, body):
    if name == "bfs":
        lines = (data / "bfs" / "graph4096.txt").read_text().split("\n")
        n = int(lines[0])
        firsts = [tuple(map(int, lines[1 + u].split())) for u in range(n)]
        edges = [int(l.split()[0]) for l in lines[n + 5:] if l.strip()]
        cost = [-1] * n
        cost[0] = 0
        frontier = [0]
        while frontier:
            nxt = []
            for u in frontier:
                start, deg = firsts[u]
                for v in edges[start:start + deg]:
                    if cost[v] < 0:
                        cost[v] = cost[u] + 1
                        nxt.append(v)
            frontier = nxt
        want = "".join(f"{i}) cost:{c}\n" for i, c in enumerate(cost))
        got = (folder / "result.txt").read_text()
        return None if got == want else "result.txt differs from the BFS distances computed here: " + (
            next((f"{g.strip()} (want {w.strip()})" for g, w in zip(got.splitlines(), want.splitlines()) if g != w), "length"))
    if name == "hotspot":
        return check_hotspot(folder, data)
    return "no check"


def check_hotspot(folder, data):
    """The CUDA hotspot's step (hotspot.cu, `calculate_temp`), in double precision: each cell
    gains step/Cap times its power, the heat from its four neighbours (a missing neighbour at
    the edge is the cell itself) and from the ambient, for 2 steps (the run's sim_time)."""
    n, steps = 64, 2
    temp = [float(v) for v in (data / "hotspot" / "temp_64").read_text().split()]
    power = [float(v) for v in (data / "hotspot" / "power_64").read_text().split()]
    t_chip, chip, k_si, spec_heat, factor = 0.0005, 0.016, 100, 1.75e6, 0.5
    gh = gw = chip / n
    cap = factor * spec_heat * t_chip * gw * gh
    rx = gw / (2.0 * k_si * t_chip * gh)
    ry = gh / (2.0 * k_si * t_chip * gw)
    rz = t_chip / (k_si * gh * gw)
    step = 0.001 / (3.0e6 / (factor * t_chip * spec_heat))
    amb = 80.0
    for _ in range(steps):
        new = temp[:]
        for r in range(n):
            for c in range(n):
                t = temp[r * n + c]
                north = temp[max(r - 1, 0) * n + c]
                south = temp[min(r + 1, n - 1) * n + c]
                west = temp[r * n + max(c - 1, 0)]
                east = temp[r * n + min(c + 1, n - 1)]
                new[r * n + c] = t + step / cap * (power[r * n + c] + (south + north - 2.0 * t) / ry
                                                   + (east + west - 2.0 * t) / rx + (amb - t) / rz)
        temp = new
    got = [float(line.split()[1]) for line in (folder / "output.out").read_text().splitlines() if line.strip()]
    if len(got) != n * n:
        return f"output.out has {len(got)} values, not {n * n}"
    err = max(abs(g - w) / abs(w) for g, w in zip(got, temp))
    return None if err < 1e-5 else f"output.out differs from the kernel's formula computed here by {err:.1e} (relative)"


# ---------------------------------------------------------------------------------------------
# Building and running.

def build(name, spec, tree, env, logs, log_name):
    folder = tree / "cuda" / spec["dir"]
    for file, old, new in CUDA13_EDITS.get(name, []):
        path = folder / file
        path.write_text(path.read_text(errors="replace").replace(old, new))
    benv = dict(env, RODINIA_NVCC_FLAGS=spec.get("nvcc", ""))
    t0 = time.time()
    with open(logs / f"{log_name}.build.log", "w") as log:
        rc = subprocess.run(["make", "-C", str(folder)] + spec.get("make", []) + env["MAKEVARS"].split(),
                            stdout=log, stderr=subprocess.STDOUT, env=benv, stdin=subprocess.DEVNULL).returncode
    return rc == 0, time.time() - t0


def run(command, folder, env, log_path, timeout):
    t0 = time.time()
    timed_out = False
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["bash", "-c", command], cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
            timed_out = True
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    return rc, timed_out, time.time() - t0


def reference(name, spec, tree, env, logs, timeout):
    """Builds and runs the OpenMP program of the same name; its output (text)."""
    sub, make_args, command, _tol = spec["ref"]
    folder = tree / "openmp" / sub
    with open(logs / f"{name}.ref.build.log", "w") as log:
        rc = subprocess.run(["make", "-C", str(folder)] + make_args, stdout=log, stderr=subprocess.STDOUT,
                            env=env, stdin=subprocess.DEVNULL).returncode
    if rc != 0:
        return None, "the OpenMP reference did not build (see its log)"
    out = spec["out"]
    if out != "stdout":
        (folder / out).unlink(missing_ok=True)
    rc, timed_out, _ = run(command, folder, dict(env, OMP_NUM_THREADS="1"), logs / f"{name}.ref.log", timeout)
    if rc != 0 or timed_out:
        return None, f"the OpenMP reference failed (exit {rc}{', timed out' if timed_out else ''})"
    if out == "stdout":
        return (logs / f"{name}.ref.log").read_text(errors="replace"), None
    if not (folder / out).is_file():
        return None, f"the OpenMP reference wrote no {out}"
    return (folder / out).read_text(errors="replace"), None


def judge(name, spec, folder, rc, timed_out, body, tree, env, logs, data, timeout):
    ptxsim = PTXSIM.findall(body)
    if timed_out:
        return "TIMEOUT", (ptxsim[-1] if ptxsim else "")
    if ptxsim:
        return "ERROR", ptxsim[0][:200]
    if rc < 0 or rc - 128 in (4, 6, 7, 8, 11):
        return "ERROR", f"killed by signal {(-rc if rc < 0 else rc - 128)}"
    errors = CUDA_ERROR.findall(body)
    if errors:
        return "ERROR", errors[-1].strip()[:200]
    if rc != 0:
        last = [l for l in body.splitlines() if l.strip()]
        return "FAIL", f"exit {rc}: " + (last[-1].strip()[:160] if last else "")
    how = spec["how"]
    if how == "self":
        failed = [l for l in body.splitlines() if FAILED.search(l)]
        if failed:
            return "FAIL", "its own check: " + failed[0].strip()[:160]
        return "PASS", "its own check (CPU result computed by the program)"
    if how == "none":
        return "RAN", "exit 0; prints no result to check"
    if how == "python":
        why = check_python(name, folder, data, body)
        return ("PASS", "agrees with the reference computed here from the input") if why is None else ("FAIL", why)
    # cpu
    out = spec["out"]
    got = body if out == "stdout" else ((folder / out).read_text(errors="replace") if (folder / out).is_file() else None)
    if got is None:
        return "FAIL", f"wrote no {out}"
    want, why = reference(name, spec, tree, env, logs, timeout)
    if want is None:
        return "RAN", "exit 0; " + why
    tol = spec["ref"][3]
    part = spec.get("keep", "")
    diff = compare(keep(part, strip_timing(got)), keep(part, strip_timing(want)), tol)
    if diff is None or diff.startswith("~"):
        within = f"{tol:g} relative" if not isinstance(tol, tuple) else f"{tol[1]:g}"
        what = "relative difference" if not isinstance(tol, tuple) else "difference"
        return "PASS", f"{out} equal to the OpenMP program's" + (
            "" if diff is None else f" within {within} (largest {what} {diff[1:]})")
    return "FAIL", f"{out} differs from the OpenMP program's: {diff}"


def cmd_run(checkout, build_dir, here):
    logs = build_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    tree = build_dir / "src"
    # A fresh copy of cuda/, openmp/ and common/ (the Makefiles include ../../common/make.config).
    for sub in ("cuda", "openmp", "common"):
        shutil.rmtree(tree / sub, ignore_errors=True)
        shutil.copytree(checkout / sub, tree / sub, symlinks=True)
    data = tree / "data"
    generate(data, tree, here)
    timeout = int(os.environ.get("TIMEOUT", "120"))
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = f"{build_dir / 'lib'}:{env.get('LD_LIBRARY_PATH', '')}"
    results_path = build_dir / "results.tsv"
    results = {}
    if results_path.is_file():  # a run of a narrower scope updates the earlier rows
        for line in results_path.read_text().splitlines()[1:]:
            results[line.split("\t", 1)[0]] = line
    for name, spec in BENCHMARKS.items():
        if not only.search(name):
            continue
        if spec["how"] == "skip":
            results[name] = f"{name}\tSKIP\t0\t{spec['why']}"
            print(f"SKIP     {name}: {spec['why']}", flush=True)
            write(results_path, results)
            continue
        folder = tree / "cuda" / spec["dir"]
        ok, built = build(name, spec, tree, env, logs, name)
        if not ok:
            log = (logs / f"{name}.build.log").read_text(errors="replace")
            errors = [l for l in log.splitlines() if re.search(r"error|Error|undefined", l)]
            # The removal of texture references (CUDA 12) is the cause wherever it appears.
            err = next((l for l in errors if "texture" in l), errors[0] if errors else "see the build log")
            results[name] = f"{name}\tBUILD-FAIL\t{built:.0f}\t{err.strip()[:200]}"
            print(f"BUILD-FAIL {name}: {err.strip()[:200]}", flush=True)
            write(results_path, results)
            continue
        if spec.get("out") and spec["out"] != "stdout":
            (folder / spec["out"]).unlink(missing_ok=True)
        renv = dict(env)
        if spec.get("fixed_time"):
            # The program seeds its random numbers with time(NULL): both it and its reference
            # see the same fixed time, so that they draw the same numbers.
            renv["LD_PRELOAD"] = str(build_dir / "lib" / "fixed_time.so")
        log_path = logs / f"{name}.run.log"
        rc, timed_out, seconds = run(spec["cmd"], folder, renv, log_path, timeout)
        body = log_path.read_text(errors="replace")
        status, why = judge(name, spec, folder, rc, timed_out, body, tree, renv, logs, data, timeout)
        why = why.replace("\t", " ")
        results[name] = f"{name}\t{status}\t{seconds:.1f}\t{why}"
        print(f"{status:8} {name} ({seconds:.1f}s, built in {built:.0f}s) {why}", flush=True)
        write(results_path, results)
    counts = {}
    for line in results.values():
        status = line.split("\t")[1]
        counts[status] = counts.get(status, 0) + 1
    print(" ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"-> {results_path}")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        cmd_run(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
