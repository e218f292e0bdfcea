#!/usr/bin/env python3
"""Helper of run.sh: selects HeCBench's CUDA benchmarks, builds them for PTX, runs them on ptxsim.

  hecbench.py select <checkout> <script dir>       -> name, scope, reason (TSV) on stdout
  hecbench.py run <checkout> <build dir> <script dir> -> <build>/results.tsv, logs, a summary
  hecbench.py nvcc <NVIDIA nvcc> ARGS...             -> nvcc ARGS for compute_90 PTX only

The selection is deterministic: every benchmark folder `src/*-cuda` in alphabetical order; those
whose Makefile links a vendor library (cuBLAS, cuRAND, ...), MPI, NCCL or OpenMP are SKIP; of
the rest, every STRIDE-th (environment, default 4: the 1st, 5th, 9th, ...) is selected, so that
the subset spreads over the whole alphabet (and so over many authors), and so is every one
that FEATURES names (programs that each exercise one CUDA feature). OFFSET (default 0) shifts
the stride: the candidates whose index (from 0) modulo STRIDE is OFFSET are selected, so that
OFFSET=0..STRIDE-1 are disjoint subsets that together cover every candidate; FEATURES are added
to OFFSET=0's subset only, so that another OFFSET runs its own quarter and nothing else. A
selected benchmark that skip.tsv lists, that is a PyTorch extension, or whose inputs are
fetched with DVC (a `*.dvc` file: the data is not in the repository), is SKIP too; the others
are in scope.
BENCHMARKS (a regular expression) narrows the scope further; ALL=1 takes every one (stride 1).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

# A Makefile line that links a library ptxsim does not provide.
LIBRARIES = [
    (re.compile(r"-lcublas"), "cuBLAS"), (re.compile(r"-lcurand"), "cuRAND"),
    (re.compile(r"-lcufft"), "cuFFT"), (re.compile(r"-lcusparse"), "cuSPARSE"),
    (re.compile(r"-lcusolver"), "cuSOLVER"), (re.compile(r"-lcudnn"), "cuDNN"),
    (re.compile(r"-lnccl"), "NCCL"), (re.compile(r"-lmpi|mpicc|mpicxx|MPI_"), "MPI"),
    (re.compile(r"-lnvshmem"), "NVSHMEM"), (re.compile(r"-lGL\b|-lglut"), "OpenGL"),
    (re.compile(r"-fopenmp"), "OpenMP (host threads or offload)"),
]
# Benchmarks that each exercise one CUDA feature (atomics, intrinsics, warp functions, number
# formats, streams, graphs, memory kinds, the device heap, assert): in scope besides the
# stride's, because such programs find the gaps of a driver and a simulator first.
FEATURES = {
    "assert", "atomicAggregate", "atomicCAS", "atomicIntrinsics", "atomicPerf", "atomicReduction",
    "blockAccess", "blockScan", "bscan", "clock", "cmp", "complex", "conversion", "dispatch",
    "f16atomic", "f16max", "f8cast", "fma", "graphExecution", "hadamard", "idivide", "interleave",
    "intrinsics-simd", "kernelLaunch", "layout", "loopback", "mallocFree", "memcpy", "mt", "nosync",
    "pointerchase", "popcount", "prefetch", "s8n", "sa", "shuffle", "streamOrderedAllocation",
    "tensorAccessor", "threadcpy", "vote", "warpexchange", "warpsort", "wmma", "zerocopy",
}
# What a benchmark prints when its own check fails, and when it passes.
FAILED = re.compile(r"^\s*FAIL(ED)?\b|\bFAIL(ED)?\s*$|\bFAIL\b|[Tt]est failed|verification failed|"
                    r"\bFailed\b(?! to open)|\bMismatch|\bincorrect\b|\bINCORRECT\b|\bError: .*mismatch",
                    re.M)
PASSED = re.compile(r"\bPASS(ED)?\b|\bPass(ed)?\b|[Tt]est passed|\bSUCCESS\b|\bCorrect\b", re.M)
# ptxsim's own diagnostics: "ptxsim: CALL: CUDA_ERROR_...", a kernel fault, a checker error.
# Not the lines PTXSIM_LOG=launches,profile writes ("ptxsim: launch 3 `k` ...", "ptxsim: profile
# of launch 3 ..."), which a run may ask for to see where its time goes.
PTXSIM = re.compile(r"^ptxsim: (?!log:|launch \d+ `|profile of launch \d+ `).*$", re.M)
# A launch that did not finish: never a pass, whatever the program prints afterwards.
FAULT = re.compile(r"ptxsim: (kernel launch|cuLaunch\w*): ")
# A driver call ptxsim does not implement.
MISSING = re.compile(r"^ptxsim: \w+: CUDA_ERROR_NOT_SUPPORTED", re.M)
CUDA_ERROR = re.compile(r"^.*(CUDA error|cuda error|CUDA Error|CUDA API failed|"
                        r"cudaError\w+|an illegal|invalid device|no kernel image|"
                        r"not supported|unspecified launch failure).*$", re.M)


def read_tsv(path):
    rows = {}
    if Path(path).is_file():
        for line in Path(path).read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            name, _, rest = line.partition("\t")
            rows[name] = rest
    return rows


def makefile_needs(makefile):
    text = makefile.read_text(errors="replace")
    return sorted({what for pattern, what in LIBRARIES if pattern.search(text)})


def select(checkout, here):
    skip = read_tsv(here / "skip.tsv")
    stride = 1 if os.environ.get("ALL") == "1" else int(os.environ.get("STRIDE", "4"))
    offset = 0 if stride == 1 else int(os.environ.get("OFFSET", "0"))
    if not 0 <= offset < stride:
        sys.exit(f"OFFSET={offset} is not in 0..{stride - 1} (STRIDE={stride})")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    rows = []
    candidates = 0
    for folder in sorted((checkout / "src").glob("*-cuda")):
        name = folder.name[:-len("-cuda")]
        makefile = folder / "Makefile"
        if not makefile.is_file():
            rows.append((name, "skip", "no Makefile"))
            continue
        needs = makefile_needs(makefile)
        if needs:
            rows.append((name, "skip", "needs " + ", ".join(needs)))
            continue
        selected = candidates % stride == offset or (offset == 0 and name in FEATURES)
        in_scope = selected and only.search(name)
        candidates += 1
        if not in_scope:
            rows.append((name, "not-selected", ""))
        elif name in skip:
            rows.append((name, "skip", skip[name]))
        elif re.search(r"PYTHON|torch", makefile.read_text(errors="replace")):
            rows.append((name, "skip", "a PyTorch extension (its Makefile builds and runs it "
                         "from Python with torch)"))
        elif any(folder.glob("*.dvc")):
            rows.append((name, "skip", "its inputs are fetched with DVC (" +
                         ", ".join(sorted(p.name for p in folder.glob("*.dvc"))) + "), not in the repository"))
        else:
            rows.append((name, "in-scope", ""))
    return rows


def prepare_tree(checkout, build):
    """<build>/src: links to everything under the checkout's src/ (data folders, the -sycl and
    -omp folders some Makefiles read inputs from), so that each benchmark is built in a copy."""
    tree = build / "src"
    tree.mkdir(parents=True, exist_ok=True)
    for entry in (checkout / "src").iterdir():
        link = tree / entry.name
        if not link.exists() and not link.is_symlink():
            link.symlink_to(entry)
    return tree


def build_one(checkout, tree, name, logs, nvcc_dir):
    folder = tree / f"{name}-cuda"
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(checkout / "src" / f"{name}-cuda", folder, symlinks=True)
    unpack(folder)
    env = dict(os.environ, PATH=f"{nvcc_dir}:{os.environ['PATH']}")
    t0 = time.time()
    with open(logs / f"{name}.build.log", "w") as log:
        rc = subprocess.run(["make", "-C", str(folder), "ARCH=compute_90", "CUDA_ARCH=compute_90",
                             "LAUNCHER="], stdout=log, stderr=subprocess.STDOUT, env=env,
                            stdin=subprocess.DEVNULL).returncode
    if rc == 0:
        (folder / ".ptxsim-built").touch()
    return rc == 0, time.time() - t0


def unpack(folder):
    """Inputs kept compressed in the repository (`alphas.csv.bz2`, `data.tar.gz`), unpacked
    beside the program as the benchmarks' READMEs ask."""
    for archive in sorted(folder.iterdir()):
        if re.search(r"\.tar\.(gz|bz2|xz)$|\.tgz$", archive.name):
            subprocess.run(["tar", "-xf", archive.name], cwd=folder, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        elif archive.suffix in (".bz2", ".gz", ".xz") and not archive.with_suffix("").exists():
            tool = {".bz2": "bunzip2", ".gz": "gunzip", ".xz": "unxz"}[archive.suffix]
            subprocess.run([tool, "-k", archive.name], cwd=folder, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)


def missing_input(folder, command):
    """The first argument of the command that names a data file (a path with a folder or an
    extension) that does not exist: some inputs of the repository are kept in Git LFS or DVC,
    which a plain checkout lacks."""
    cwd = folder
    for part in command.split("&&"):
        words = part.split()
        if words[:1] == ["cd"] and len(words) > 1:
            cwd = cwd / words[1]
            continue
        for word in words[1:]:
            if word.startswith("-") or not re.search(r"/|\.(ppm|bmp|pgm|jpg|png|txt|csv|dat|bin|egr|mtx|"
                                                     r"params|config|fasta|fa|graph|gr)$", word):
                continue
            if not (cwd / word).exists() and not re.search(r"^(output|out)|\.out$", word, re.I):
                return word
    return None


def run_command(folder, name, args_override):
    """The Makefile's `run` recipe (make -n prints it once the program is built), or
    `./PROGRAM ARGS` where args.tsv gives smaller arguments (or the whole command, where they
    begin with `./` or `cd `)."""
    out = subprocess.run(["make", "-s", "-n", "-C", str(folder), "run", "LAUNCHER="],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    # A recipe line continued with a backslash is one command.
    lines = [l.strip() for l in out.stdout.replace("\\\n", " ").splitlines()
             if l.strip() and not l.startswith(("make", "#")) and not re.match(r"^(nvcc|g\+\+|gcc)\b", l.strip())]
    if name in args_override and re.match(r"(\./|cd |mkdir )", args_override[name]):
        return args_override[name]
    if name in args_override:
        program = next((l.split()[0] for l in lines if l.startswith("./")), "./main")
        return f"{program} {args_override[name]}"
    return " && ".join(line.rstrip("; ") for line in lines) if lines else None


def classify(rc, timed_out, body):
    ptxsim = PTXSIM.findall(body)
    if timed_out:
        return "TIMEOUT", (ptxsim[-1] if ptxsim else "")
    failed = FAILED.findall(body) and [l for l in body.splitlines() if FAILED.search(l)]
    # RAN: exit 0 without a verdict (the program checks nothing, or prints only what it computed).
    ran = "RAN" if os.environ.get("RAN") == "1" else "PASS"
    if rc == 0 and not failed and not ptxsim:
        return ("PASS", "exit 0, printed PASS") if PASSED.search(body) else (ran, "exit 0 (prints no verdict)")
    if rc == 0 and not failed and not FAULT.search(body) and not MISSING.search(body):
        # A driver call failed (the program passed NULL, say) and the program went on and
        # passed its own check: the failure is the program's, as a GPU's driver refuses it too.
        if PASSED.search(body):
            return "PASS", "exit 0, printed PASS; " + ptxsim[-1][:160]
        return ran, "exit 0; " + ptxsim[-1][:160]
    if ptxsim:
        # The first failure is the cause; the calls after a fault fail because of it.
        fault = re.search(r"ptxsim: kernel launch: .*", body) or FAULT.search(body)
        first = body[fault.start():].split("\n", 1)[0] if fault else ptxsim[0]
        return "ERROR", first[:200]
    # A signal: negative from Popen, 128 + N from the shell of a recipe with several commands.
    if rc < 0 or rc - 128 in (4, 6, 7, 8, 11):
        return "ERROR", f"killed by signal {(-rc if rc < 0 else rc - 128)}"
    errors = CUDA_ERROR.findall(body)
    if errors:
        return "ERROR", errors[-1].strip()[:200]
    if failed:
        return "FAIL", failed[-1].strip()[:200]
    last = [l for l in body.splitlines() if l.strip()]
    return "FAIL", f"exit {rc}: " + (last[-1].strip()[:160] if last else "")


def cmd_run(checkout, build, here):
    logs = build / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    tree = prepare_tree(checkout, build)
    args_override = read_tsv(here / "args.tsv")
    if os.environ.get("SMALL") == "1":
        # small-args.tsv: name, arguments, why (the smallest sizes the program's main accepts
        # that still run its kernels and its own check); it overrides args.tsv.
        for name, rest in read_tsv(here / "small-args.tsv").items():
            args_override[name] = rest.split("\t", 1)[0]
    timeout = int(os.environ.get("TIMEOUT", "60"))
    steps = os.environ.get("STEPS", "build run").split()
    rows = select(checkout, here)
    results_path = build / os.environ.get("RESULTS", "results.tsv")
    results = {}
    if results_path.is_file():  # a run of a narrower scope updates the earlier rows
        for line in results_path.read_text().splitlines()[1:]:
            results[line.split("\t", 1)[0]] = line
    env = dict(os.environ, LD_LIBRARY_PATH=f"{build / 'lib'}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    for name, scope, reason in rows:
        if scope == "not-selected":
            continue
        if scope == "skip":
            results[name] = f"{name}\tSKIP\t0\t{reason}"
            continue
        folder = tree / f"{name}-cuda"
        built_seconds = 0.0
        if "build" in steps:
            ok, built_seconds = build_one(checkout, tree, name, logs, build / "bin")
            if not ok:
                log = (logs / f"{name}.build.log").read_text(errors="replace")
                err = next((l for l in log.splitlines() if "error" in l), "see the build log")
                results[name] = f"{name}\tBUILD-FAIL\t{built_seconds:.0f}\t{err.strip()[:200]}"
                print(f"BUILD-FAIL {name}: {err.strip()[:200]}", flush=True)
                write(results_path, results)
                continue
        elif results.get(name, "").split("\t")[1:2] == ["BUILD-FAIL"]:
            continue
        if not (folder / ".ptxsim-built").is_file():
            continue  # not built (yet)
        if "run" not in steps:
            results.setdefault(name, f"{name}\tBUILT\t{built_seconds:.0f}\t")
            print(f"built {name} ({built_seconds:.0f}s)", flush=True)
            write(results_path, results)
            continue
        command = run_command(folder, name, args_override)
        if not command:
            results[name] = f"{name}\tSKIP\t0\tno run target"
            continue
        missing = missing_input(folder, command)
        if missing:
            results[name] = f"{name}\tSKIP\t0\tits input {missing} is not in the checkout (Git LFS or DVC)"
            print(f"SKIP     {name}: no {missing}", flush=True)
            write(results_path, results)
            continue
        t0 = time.time()
        timed_out = False
        with open(logs / f"{name}.run.log", "w") as log:
            log.write(f"$ {command}\n")
            log.flush()
            proc = subprocess.Popen(["bash", "-c", command], cwd=folder, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                    start_new_session=True)
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
                timed_out = True
            finally:
                # Stopped itself (Ctrl-C, SIGTERM): the benchmark, in its own session, goes too.
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
        seconds = time.time() - t0
        body = (logs / f"{name}.run.log").read_text(errors="replace")
        status, why = classify(rc, timed_out, body)
        why = why.replace("\t", " ")
        results[name] = f"{name}\t{status}\t{seconds:.0f}\t{why}"
        print(f"{status:8} {name} ({seconds:.0f}s, built in {built_seconds:.0f}s) {why}", flush=True)
        write(results_path, results)
    write(results_path, results)
    counts = {}
    for line in results.values():
        status = line.split("\t")[1]
        counts[status] = counts.get(status, 0) + 1
    print(" ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"-> {results_path}")


def write(path, results):
    with open(path, "w") as out:
        out.write("name\tresult\tseconds\treason\n")
        for name in sorted(results):
            out.write(results[name] + "\n")


def nvcc(real, args):
    """Runs NVIDIA's nvcc (`real`) on `args` without their -arch/-gencode/-code flags, for
    -gencode arch=compute_90,code=compute_90 only: PTX in the fatbin, no SASS."""
    kept = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif arg in ("-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code",
                     "--gpu-code"):
            skip_next = True
        elif not re.match(r"(-gencode|--generate-code|-arch|--gpu-architecture|-code|--gpu-code)=",
                          arg):
            kept.append(arg)
    if "--version" not in args and "-V" not in args:
        kept.append("-gencode=arch=compute_90,code=compute_90")
    os.execv(real, [real] + kept)


def main():
    # SIGTERM ends the script through its `finally` blocks, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cmd = sys.argv[1]
    if cmd == "select":
        for row in select(Path(sys.argv[2]), Path(sys.argv[3])):
            print("\t".join(row))
    elif cmd == "nvcc":
        nvcc(sys.argv[2], sys.argv[3:])
    elif cmd == "run":
        cmd_run(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
