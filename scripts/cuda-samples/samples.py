#!/usr/bin/env python3
"""Helper of run.sh: lists the cuda-samples in scope, runs the built ones on ptxsim, reports.

  samples.py list <checkout> <skip.tsv> "<category> ..."   -> name, category, scope, reason (TSV)
  samples.py run <checkout> <build dir> <NVIDIA lib dir>    -> report.tsv, missing-calls.tsv
  samples.py report <build dir>                             -> missing-calls.tsv and the summary
  samples.py fatbin <program or .fatbin> ...                -> the entries of its fatbins (PTX/ELF, arch)
"""
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

EXIT_WAIVED = 2
# "ptxsim: CALL: CUDA_ERROR_NAME[: message]", as crates/cuda prints a failed driver call.
PTXSIM_ERROR = re.compile(r"^ptxsim: (?!log:)(\w+): (CUDA_ERROR_\w+)(?:: (.*))?$")
# What samples print when they check their results and find them wrong.
FAILED = re.compile(r"Result = FAIL|[Tt]est [Ff]ailed|\bFAILED\b|\bFAILURE\b")
# A kernel that did not run: the sample may still exit 0 (simplePrintf checks nothing).
LAUNCH_FAILED = re.compile(r"^ptxsim: cuLaunch\w*: CUDA_ERROR_NOT_SUPPORTED", re.M)
PASSED = re.compile(r"Result = PASS|Test passed|\bPASSED\b|\bPASS\b", re.I)
WAIVED = re.compile(r"waiv", re.I)
# Failures that name no ptxsim call: a runtime call failing because cudart found no driver entry
# point (cudaErrorCallRequiresNewerDriver), or a sample's own dlsym of libcuda.so.1 failing.
RUNTIME_ERROR = re.compile(r'code=\d+\((cuda\w+)\) "(\w+)\(')
MISSING_SYMBOL = re.compile(r'Failed to find required function "(\w+)"')
ERRORISH = re.compile(r"error|fail|abort|assert|exception|terminate|unsupported|not supported|"
                      r"segmentation|core dumped|panick", re.I)


def read_skip(path):
    skip = {}
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("sample\t"):
            continue
        name, reason = line.split("\t", 1)
        skip[name] = reason
    return skip


def cmd_list(checkout, skip_tsv, categories):
    skip = read_skip(skip_tsv)
    for category in categories.split():
        folder = Path(checkout) / "Samples" / category
        for sample in sorted(p for p in folder.iterdir() if (p / "CMakeLists.txt").is_file()):
            name = sample.name
            if name in skip:
                print(f"{name}\t{category}\tskip\t{skip[name]}")
            else:
                print(f"{name}\t{category}\tin-scope\t")


def read_tsv(path):
    rows = []
    if Path(path).is_file():
        for line in Path(path).read_text().splitlines():
            if line:
                rows.append(line.split("\t"))
    return rows


def executables(directory):
    """The programs a sample's build directory holds (ELF files with the execute bit)."""
    found = []
    for path in sorted(Path(directory).rglob("*")):
        if "CMakeFiles" in path.parts or not path.is_file() or not os.access(path, os.X_OK):
            continue
        if path.suffix in (".so", ".a", ".o") or ".so." in path.name:
            continue
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        found.append(path)
    return found


def reason_of(text, status):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if PTXSIM_ERROR.match(l)]
    if status == "PASS":
        passed = [l for l in lines if PASSED.search(l)]
        return (passed or lines or [""])[-1]
    if status == "WAIVED":
        waived = [l for l in lines if WAIVED.search(l)]
        return (waived or errors or lines or [""])[-1]
    if errors:
        return errors[-1]
    errorish = [l for l in lines if ERRORISH.search(l) and not l.startswith("ptxsim: log:")]
    if errorish:
        return errorish[-1]
    return lines[-1] if lines else ""


def run_one(exe, args, env, timeout, log_path):
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        log.write(f"$ ./{exe.name} {' '.join(args)}   (in {exe.parent})\n".encode())
        log.flush()
        # stdbuf: line-buffered stdout, so that a killed (timed-out) sample leaves its output.
        proc = subprocess.Popen(["stdbuf", "-oL", f"./{exe.name}", *args], cwd=exe.parent, env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
            timed_out = True
    seconds = time.monotonic() - t0
    with open(log_path, "rb") as log:
        data = log.read()
    if len(data) > 20_000_000:  # keep the head and the tail of runaway output
        data = data[:10_000_000] + b"\n[...]\n" + data[-10_000_000:]
    text = data.decode(errors="replace")
    body = text.split("\n", 1)[1] if "\n" in text else ""
    if timed_out:
        status = "TIMEOUT"
    elif rc == EXIT_WAIVED or (rc == 0 and WAIVED.search(body) and not PASSED.search(body)):
        status = "WAIVED"
    elif rc == 0 and not FAILED.search(body) and not LAUNCH_FAILED.search(body):
        status = "PASS"
    else:
        status = "FAIL"
    reason = reason_of(body, status)
    if timed_out:
        reason = f"timed out after {timeout}s; last line: {reason}"
    elif rc < 0:
        reason = f"killed by {signal.Signals(-rc).name}; {reason}"
    elif status == "FAIL" and rc == 0 and LAUNCH_FAILED.search(body):
        reason = "exit 0 but a kernel launch failed: " + [
            l for l in body.splitlines() if LAUNCH_FAILED.match(l)][-1].strip()
    elif status == "FAIL" and rc == 0:
        reason = f"exit 0 but printed a failure: {[l for l in body.splitlines() if FAILED.search(l)][-1].strip()}"
    elif status == "FAIL":
        reason = f"exit {rc}: {reason}"
    return status, seconds, reason.replace("\t", " ")[:300], body


def cmd_run(checkout, build, nvlib):
    build = Path(build)
    timeout = int(os.environ.get("SAMPLE_TIMEOUT", "300"))
    config_path = Path(checkout) / "test_args.json"
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    scope = read_tsv(build / "scope.tsv")
    # SMALL=1: small-args.tsv (beside this script; sample, arguments, why) gives the smallest
    # sizes a sample's main accepts, in place of test_args.json's (docs/cuda-programs.md, "The
    # timed-out programs at sizes that finish").
    small = {}
    if os.environ.get("SMALL") == "1":
        for row in read_tsv(Path(__file__).parent / "small-args.tsv"):
            if row and not row[0].startswith("#"):
                small[row[0]] = row[1].split() if len(row) > 1 else []
    built = {row[0]: row[1:] for row in read_tsv(build / "build-status.tsv")}
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(
        p for p in (str(build / "lib"), nvlib, os.environ.get("LD_LIBRARY_PATH", "")) if p)
    env.pop("PTXSIM_LOG", None)
    # NVRTC programs (the *_nvrtc samples) compile for the device's sm_XX and load the cubin:
    # libptxsim_nvrtc.so (crates/nvrtc), preloaded into every sample, hands them NVRTC's PTX
    # instead. It defines nothing else, so the other samples do not notice it.
    shim = build / "lib" / "libptxsim_nvrtc.so"
    if shim.is_file():
        env["LD_PRELOAD"] = " ".join(p for p in (str(shim), os.environ.get("LD_PRELOAD", "")) if p)
    report = build / "report.tsv"
    with open(report, "w") as out:
        out.write("sample\tcategory\tstatus\tseconds\treason\n")
    total = len(scope)
    for index, row in enumerate(scope, 1):
        name, category, kind = row[0], row[1], row[2]
        reason = row[3] if len(row) > 3 else ""
        results = []
        if kind != "in-scope":
            results.append((name, "SKIP", 0.0, reason))
        elif name not in built:
            results.append((name, "BUILD-FAIL", 0.0, "not built (build step not run)"))
        elif built[name][0] != "BUILT":
            results.append((name, "BUILD-FAIL", 0.0, built[name][1] if len(built[name]) > 1 else ""))
        else:
            programs = executables(build / "cmake" / category / name)
            if not programs:
                results.append((name, "BUILD-FAIL", 0.0, "no executable in the build directory"))
            for exe in programs:
                runs = [{"args": []}]
                entry = config.get(exe.name, {})
                if entry.get("skip"):
                    results.append((exe.name, "SKIP", 0.0, "test_args.json: skip"))
                    continue
                if exe.name in small:
                    runs = [{"args": small[exe.name]}]
                elif "args" in entry:
                    runs = [{"args": entry["args"]}]
                elif "runs" in entry:
                    runs = [r for r in entry["runs"] if not r.get("skip")]
                for i, r in enumerate(runs):
                    label = exe.name if len(runs) == 1 else f"{exe.name}#{i + 1}"
                    log = build / "logs" / f"{label}.run.log"
                    status, seconds, why, body = run_one(exe, r.get("args", []), env, timeout, log)
                    if status in ("FAIL", "TIMEOUT") and os.environ.get("RERUN_LOG") == "1":
                        env_log = dict(env, PTXSIM_LOG="calls")
                        run_one(exe, r.get("args", []), env_log, timeout,
                                build / "logs" / f"{label}.calls.log")
                    results.append((label, status, seconds, why))
        with open(report, "a") as out:
            for label, status, seconds, why in results:
                out.write(f"{label}\t{category}\t{status}\t{seconds:.1f}\t{why}\n")
                print(f"[{index}/{total}] {label}: {status} ({seconds:.1f}s) {why}", flush=True)
    cmd_report(build)


def cmd_report(build):
    build = Path(build)
    rows = read_tsv(build / "report.tsv")[1:]
    counts = collections.Counter(r[2] for r in rows)
    # Failed driver calls: over the logs of every sample that did not pass.
    hits = collections.defaultdict(set)      # (call, error) -> samples
    last = collections.defaultdict(set)      # (call, error) -> samples where it was the last one
    messages = collections.defaultdict(collections.Counter)
    for r in rows:
        if r[2] not in ("FAIL", "TIMEOUT", "WAIVED", "PASS"):
            continue
        log = build / "logs" / f"{r[0]}.run.log"
        if not log.is_file():
            continue
        found = []
        for line in log.read_text(errors="replace").splitlines():
            m = PTXSIM_ERROR.match(line.strip())
            if m:
                # One row per call, error and kind of message (without kernel names and
                # positions), so that unsupported instructions stay apart.
                detail = re.sub(r"kernel `[^`]*`: |\b\d+:\d+: ", "", m.group(3) or "")
                detail = re.sub(r"\d+", "N", detail)
                key = (m.group(1), m.group(2) + (f": {detail[:120]}" if detail else ""))
                found.append(key)
                messages[key][(m.group(3) or "")[:160]] += 1
            elif (m := RUNTIME_ERROR.search(line)) and m.group(1) == "cudaErrorCallRequiresNewerDriver":
                key = (m.group(2), m.group(1))
                found.append(key)
                messages[key]["cudart found no driver entry point for it (cuGetProcAddress)"] += 1
            elif m := MISSING_SYMBOL.search(line):
                key = (m.group(1), "missing symbol")
                found.append(key)
                messages[key]["the sample's dlsym on libcuda.so.1 found no such symbol"] += 1
        for key in found:
            hits[key].add((r[0], r[2]))
        if found and r[2] != "PASS":
            last[found[-1]].add(r[0])
    ranked = sorted(hits, key=lambda k: (-len([s for s in hits[k] if s[1] != "PASS"]), k))
    with open(build / "missing-calls.tsv", "w") as out:
        out.write("call\terror\tfailing_samples\tlast_error_in\tpassing_samples\tmessage\tsamples\n")
        for key in ranked:
            failing = sorted(s for s, st in hits[key] if st != "PASS")
            passing = sorted(s for s, st in hits[key] if st == "PASS")
            message = messages[key].most_common(1)[0][0]
            out.write(f"{key[0]}\t{key[1]}\t{len(failing)}\t{len(last[key])}\t{len(passing)}\t"
                      f"{message}\t{','.join(failing + passing)}\n")
    print()
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" (of {len(rows)})")
    print(f"report: {build / 'report.tsv'}")
    print(f"failed driver calls (ranked by failing samples): {build / 'missing-calls.tsv'}")
    for key in ranked:
        failing = [s for s, st in hits[key] if st != "PASS"]
        if failing:
            print(f"  {len(failing):3d} ({len(last[key])} last)  {key[0]}: {key[1]}")


def cmd_fatbin(paths):
    """Prints the kind and architecture of each fatbin entry: a check that nvcc embedded PTX only."""
    import struct
    import tempfile
    for path in paths:
        data = Path(path).read_bytes()
        if data[:4] == b"\x7fELF":
            with tempfile.NamedTemporaryFile() as tmp:
                subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", path, tmp.name],
                               check=True)
                data = Path(tmp.name).read_bytes()
        entries, offset = [], 0
        while offset + 16 <= len(data):
            magic, _, header, size = struct.unpack_from("<IHHQ", data, offset)
            if magic != 0xBA55ED50:
                offset += 8
                continue
            p, end = offset + header, offset + header + size
            while p < end:
                kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, p)
                arch = struct.unpack_from("<I", data, p + 28)[0]
                entries.append(f"{ {1: 'PTX', 2: 'ELF'}.get(kind, hex(kind)) }_{arch}")
                p += entry_header + payload
            offset = end
        print(f"{path}: {' '.join(entries) or 'no fatbin entries'}")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "list" and len(sys.argv) == 5:
        cmd_list(*sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "run" and len(sys.argv) == 5:
        cmd_run(*sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "fatbin":
        cmd_fatbin(sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "report" and len(sys.argv) == 3:
        cmd_report(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
