"""What the runners of small CUDA suites share (scripts/polybench-acc, scripts/nvidia-blog):
building one program with NVIDIA's nvcc for PTX only, running it on ptxsim's libcuda.so.1 with
a timeout, and recording its verdict in results.tsv as HeCBench's campaign writes it.

A suite's runner gives each program: its sources and flags, its command, and a `judge` that
reads the program's output (its own check: a count of mismatches, a PASS line) and returns a
verdict or None (then HeCBench's classification decides: ptxsim diagnostics, CUDA errors,
signals, exit codes). Verdicts: PASS, RAN (exit 0, the program checks nothing), FAIL, ERROR,
TIMEOUT, SKIP, BUILD-FAIL, as in scripts/hecbench and scripts/rodinia.
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hecbench"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "rodinia"))
from hecbench import PTXSIM, classify, write  # noqa: E402
from rodinia import run as run_logged  # noqa: E402  (a command with a timeout, its output logged)

HERE = Path(__file__).resolve().parent
# Calls NVIDIA's driver refuses as well, which the program ignores: a launch of an empty grid
# (PolyBench's lu, in its last step), a second cudaFree of one allocation (CUDA by Example's
# Lock, passed to a kernel by value, frees its mutex in the copy's destructor too).
REFUSED = re.compile(r"ptxsim: (cuLaunchKernel: CUDA_ERROR_INVALID_CONFIGURATION: grid and block "
                     r"dimensions must be at least 1|cuMemFree_v2: CUDA_ERROR_INVALID_VALUE: "
                     r"0x[0-9a-f]+ is not the start of a device allocation)")
REPO = HERE.parent.parent


class Suite:
    """One campaign: <build>/lib holds ptxsim's libcuda.so.1 (copied, so that rebuilding it does
    not change a run under way) and NVIDIA's libcudart.so.13; <build>/logs the logs;
    <build>/results.tsv the verdicts (rows of an earlier, wider run are kept)."""

    def __init__(self, build):
        nvroot = Path(os.environ.get("PTXSIM_NVIDIA_ROOT", REPO / ".nv"))
        self.cu = nvroot / "nvidia" / "cu13"
        libcuda = Path(os.environ.get("PTXSIM_LIBCUDA", REPO / "target" / "release" / "libcuda.so"))
        if not (self.cu / "bin" / "nvcc").exists():
            sys.exit(f"no {self.cu}/bin/nvcc: run scripts/install-nvidia-tools.sh")
        # STEPS=build builds only; STEPS=run runs what an earlier call built.
        self.steps = os.environ.get("STEPS", "build run").split()
        self.build = Path(build).resolve()
        self.lib = self.build / "lib"
        self.logs = self.build / "logs"
        self.lib.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        if "run" in self.steps:
            if not libcuda.is_file():
                sys.exit(f"no {libcuda}: build crates/cuda (release) or set PTXSIM_LIBCUDA")
            shutil.copyfile(libcuda, self.lib / "libcuda.so.1.new")
            os.replace(self.lib / "libcuda.so.1.new", self.lib / "libcuda.so.1")
        cudart = self.lib / "libcudart.so.13"
        if not cudart.exists():
            cudart.symlink_to(self.cu / "lib" / "libcudart.so.13")
        self.timeout = int(os.environ.get("TIMEOUT", "120"))
        self.results_path = self.build / "results.tsv"
        self.results = {}
        if self.results_path.is_file():
            for line in self.results_path.read_text().splitlines()[1:]:
                self.results[line.split("\t", 1)[0]] = line

    def nvcc(self, args):
        """nvcc with PTX for compute_90 in the fatbin and no SASS, and compat.h (the runtime
        calls CUDA 13 removed)."""
        return [str(self.cu / "bin" / "nvcc"), "-gencode", "arch=compute_90,code=compute_90",
                "-include", str(HERE / "compat.h"), *args]

    def record(self, name, verdict, seconds, reason):
        reason = " ".join(reason.split())[:200]
        self.results[name] = f"{name}\t{verdict}\t{seconds:.1f}\t{reason}"
        print(f"{verdict:10} {name} ({seconds:.1f}s) {reason}", flush=True)
        write(self.results_path, self.results)

    def compile(self, name, commands, cwd):
        """Runs the build commands (lists of arguments) in `cwd`; False, with a BUILD-FAIL row
        naming the first error, when one fails."""
        if "build" not in self.steps:
            return not self.results.get(name, "").startswith(f"{name}\tBUILD-FAIL")
        t0 = time.time()
        with open(self.logs / f"{name}.build.log", "w") as log:
            for command in commands:
                log.write("$ " + " ".join(map(str, command)) + "\n")
                log.flush()
                rc = subprocess.run(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL).returncode
                if rc != 0:
                    break
        if rc == 0:
            self.results.pop(name, None)
            return True
        text = (self.logs / f"{name}.build.log").read_text(errors="replace")
        error = next((l for l in text.splitlines() if re.search(r"\berror\b", l)), "see the build log")
        self.record(name, "BUILD-FAIL", time.time() - t0, error.strip())
        return False

    def run(self, name, command, cwd, judge=None, env=None, note=""):
        """Runs `command` (a shell line) in `cwd` on ptxsim and records its verdict: `judge`'s
        (output -> (verdict, reason) or None) when the run finished cleanly, else HeCBench's."""
        if "run" not in self.steps:
            return
        environment = dict(os.environ, **(env or {}))
        environment["LD_LIBRARY_PATH"] = f"{self.lib}:{os.environ.get('LD_LIBRARY_PATH', '')}"
        rc, timed_out, seconds = run_logged(command, cwd, environment,
                                            self.logs / f"{name}.run.log", self.timeout)
        body = (self.logs / f"{name}.run.log").read_text(errors="replace")
        verdict = None
        # A call NVIDIA's driver refuses as well (REFUSED) is the program's doing, not a
        # failure to run it.
        refused = [l for l in PTXSIM.findall(body) if not REFUSED.match(l)]
        if judge and not timed_out and rc == 0 and not refused:
            verdict = judge(body)
            if verdict and PTXSIM.search(body):
                verdict = (verdict[0], f"{verdict[1]}; {PTXSIM.search(body).group(0)}")
        if verdict is None:
            verdict = classify(rc, timed_out, body)
            if verdict[0] == "PASS":  # nothing checked what the program computed
                verdict = ("RAN", verdict[1])
        self.record(name, verdict[0], seconds, note + verdict[1])

    def summary(self):
        counts = {}
        for line in self.results.values():
            verdict = line.split("\t")[1]
            counts[verdict] = counts.get(verdict, 0) + 1
        print(" ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"-> {self.results_path}")


def from_arguments(default_build, marker, what):
    """The checkout the command line names (argv[1]), checked by a path it must hold
    (`marker`; else exit saying it is not `what`), and the Suite of the build folder (argv[2],
    else `default_build`)."""
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} <{what}> [build dir, default {default_build}]")
    checkout = Path(sys.argv[1]).resolve()
    if not (checkout / marker).exists():
        sys.exit(f"{checkout} is not {what} (no {marker})")
    return checkout, Suite(sys.argv[2] if len(sys.argv) > 2 else default_build)
