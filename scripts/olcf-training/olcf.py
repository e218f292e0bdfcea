#!/usr/bin/env python3
"""Builds the solutions of the OLCF CUDA Training Series exercises (exercises/hw*/…) for PTX
only and runs them on ptxsim's libcuda.so.1, unmodified.

  olcf.py <cuda-training-series checkout> [build dir, default /tmp/ptxsim-olcf-training]

Every exercises/**/*_solution.cu and the complete programs beside them (hw5/reductions.cu,
hw11/test.cu without MPI, hw13's timer) are built as the exercise's readme says (its nvcc
flags, less -arch) and judged by their own check: a mismatch/incorrect/FAIL line is FAIL, a
Success/correct/PASS line without one is PASS; a program that checks nothing is RAN.
max_reduction prints its result beside the expected sum and maximum, compared here.

Environment: BENCHMARKS (a regular expression on the name, the path without .cu), TIMEOUT
(seconds per program, default 120), PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT. Writes
<build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402

# The readmes' flags (hw9's task2 is a cooperative launch with grid sync: -rdc=true), less
# -std=c++11/14: CUDA 13's headers need C++17, nvcc's default.
FLAGS = {
    "hw9/task2_solution": ["-rdc=true"],
    "hw11/test": ["-DNO_MPI"],
    "hw7/overlap_solution": ["-DUSE_STREAMS"],
}
EXTRA = ["hw5/reductions", "hw11/test", "hw13/axpy_stream_capture_timer"]
# Arguments: hw11's problem size (default 2^30 doubles, a thousand times).
ARGS = {"hw11/test": "65536"}
# hw7's multi spreads its work over four GPUs.
ENV = {"hw7/multi_solution": {"PTXSIM_DEVICE_COUNT": "4"}}
# Programs that compare their results and print only a mismatch (then exit non-zero or stop):
# exit 0 without one is their check passing.
SILENT = {"hw10/streams_solution", "hw7/overlap_solution", "hw7/multi_solution",
          "hw9/task2_solution"}
SKIPPED = {"hw13/Solutions/axpy_cublas_solution": "needs cuBLAS"}
# Sizes made for a GPU (a 8192^2 matrix product, 2^26-element streams, 500,000 blocks of 512
# threads per launch: hours on ptxsim): these programs run from a copy with the constant
# changed (pattern, replacement), and their rows say so.
REDUCED = {
    "hw1/matrix_mul_solution": [(r"DSIZE = 8192", "DSIZE = 256")],
    "hw2/matrix_mul_shared_solution": [(r"DSIZE = 8192", "DSIZE = 256")],
    "hw4/matrix_sums_solution": [(r"DSIZE = 16384", "DSIZE = 1024")],
    "hw5/matrix_sums_solution": [(r"DSIZE = 16384", "DSIZE = 1024")],
    "hw7/overlap_solution": [(r"ds = 1024\*1024\*chunks", "ds = 1024*chunks")],
    "hw7/multi_solution": [(r"ds = 1024\*1024\*chunks", "ds = 1024*chunks")],
    "hw10/streams_solution": [(r"ds = 1024\*1024\*chunks", "ds = 1024*chunks")],
    "hw8/task1/task1_solution": [(r"#define SIZE 4096", "#define SIZE 256")],
    "hw8/task2/task2_solution": [(r"#define SIZE 4096", "#define SIZE 256")],
    "hw8/task3/task3_solution": [(r"#define SIZE 4096", "#define SIZE 256")],
    "hw13/Solutions/axpy_stream_capture_solution": [(r"#define N 500000", "#define N 5000"),
                                                    (r"i < 1000;", "i < 10;")],
    "hw13/axpy_stream_capture_timer": [(r"#define N 500000", "#define N 5000"),
                                       (r"i < 1000;", "i < 10;")],
}

BAD = re.compile(r"^.*(mismatch|[Mm]ismatch|incorrect|\bFAIL\b|Error in element).*$", re.M)
GOOD = re.compile(r"Success|correct!|\bPASS\b|success!")


def judge(body):
    bad = BAD.search(body)
    if bad:
        return "FAIL", bad.group(0).strip()
    m = re.search(r"reduction output: ([-\d.e+]+), expected sum reduction output: ([-\d.e+]+), "
                  r"expected max reduction output: ([-\d.e+]+)", body)
    if m:
        got, _, maximum = map(float, m.groups())
        if got != maximum:
            return "FAIL", m.group(0)
        return "PASS", f"max reduction {got:g}, as expected"
    # hello<<<2,2>>>: one line per block and thread.
    hello = sorted(re.findall(r"^Hello from block: \d+, thread: \d+$", body, re.M))
    if hello:
        expected = [f"Hello from block: {b}, thread: {t}" for b in range(2) for t in range(2)]
        return ("PASS", "one greeting per thread of <<<2,2>>>") if hello == expected \
            else ("FAIL", f"greetings {hello}")
    # vector_add prints A[0], B[0] and C[0] = A[0] + B[0] (%f: six decimals).
    m = re.search(r"A\[0\] = ([-\d.]+)\nB\[0\] = ([-\d.]+)\nC\[0\] = ([-\d.]+)", body)
    if m:
        a, b, c = map(float, m.groups())
        return ("PASS", f"C[0] = A[0] + B[0] = {c}") if abs(a + b - c) <= 2e-6 \
            else ("FAIL", f"C[0] = {c}, A[0] + B[0] = {a + b}")
    # hw9's task1 sums 256 ones in 16-thread tiles: sixteen partial sums of 16.
    sums = re.findall(r"^group partial sum: (-?\d+)$", body, re.M)
    if sums:
        return ("PASS", "16 tiles of 16 threads sum 16 each") if sums == ["16"] * 16 \
            else ("FAIL", f"partial sums {sums}")
    good = GOOD.findall(body)
    if good:
        return "PASS", f"printed {', '.join(sorted(set(good)))}"
    return None


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-olcf-training", "exercises/hw1",
                                     "a checkout of the OLCF CUDA training series")
    exercises = checkout / "exercises"
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    names = sorted(str(p.relative_to(exercises).with_suffix(""))
                   for p in exercises.rglob("*_solution.cu")) + EXTRA
    for name in names:
        if not only.search(name):
            continue
        row = name.replace("/", "-")
        if name in SKIPPED:
            suite.record(row, "SKIP", 0, SKIPPED[name])
            continue
        source = exercises / f"{name}.cu"
        binary = suite.build / "bin" / row
        binary.parent.mkdir(exist_ok=True)
        compiled, note = source.name, ""
        if name in REDUCED:
            text = source.read_text()
            for pattern, replacement in REDUCED[name]:
                text, count = re.subn(pattern, replacement, text)
                if count == 0:
                    sys.exit(f"{source}: no {pattern!r} to reduce")
            compiled = suite.build / "bin" / f"{row}.cu"
            compiled.write_text(text)
            note = "sizes reduced (" + "; ".join(r for _, r in REDUCED[name]) + "): "
        command = suite.nvcc([*FLAGS.get(name, []), f"-I{source.parent}", str(compiled), "-o", str(binary)])
        if suite.compile(row, [command], source.parent):
            check = judge
            if name in SILENT:
                def check(body):
                    return judge(body) or ("PASS", "its own comparison printed no mismatch")
            suite.run(row, f"{binary} {ARGS.get(name, '')}".strip(), source.parent, check,
                      env=ENV.get(name), note=note)
    suite.summary()


if __name__ == "__main__":
    main()
