#!/usr/bin/env python3
"""Builds the CUDA programs of NVIDIA's developer-blog code samples (the code-samples repository
of the NVIDIA-developer-blog organisation: posts/*, series/cuda-cpp/*, c++11_cuda) for PTX only
and runs them on ptxsim's libcuda.so.1, unmodified.

  blog.py <code-samples checkout> [build dir, default /tmp/ptxsim-nvidia-blog]

Each program is built as its Makefile builds it (the flags below are the Makefile's, less its
-arch/-gencode and its -std=c++11/14: CUDA 13's headers need C++17, nvcc's default) and judged by what it checks itself or by a value computed here independently
of the program (the `judge` functions). Programs that need libraries ptxsim does not provide
(cuBLAS, cuRAND, cuFFT, NVML, MPI, OpenACC, TensorRT, EGL) are SKIP rows.

Environment: BENCHMARKS (a regular expression: only the programs whose name matches), TIMEOUT
(seconds per program, default 120), PTXSIM_LIBCUDA, PTXSIM_NVIDIA_ROOT, CPP11_RANGE (a checkout
of harrism/cpp11-range, the submodule c++11_cuda includes; without it c++11_cuda is a
BUILD-FAIL). Writes
<build>/results.tsv and <build>/logs/NAME.{build,run}.log.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "suites"))
from suite import from_arguments  # noqa: E402


def all_zero(pattern, what):
    """Every number the pattern captures is 0 (an error count the program prints)."""
    def judge(body):
        values = [float(v) for v in re.findall(pattern, body)]
        if not values:
            return None
        if any(values):
            return "FAIL", f"{what}: {values}"
        return "PASS", f"{what} 0 ({len(values)} check(s))"
    return judge


def below(pattern, limit, what):
    def judge(body):
        values = [float(v) for v in re.findall(pattern, body)]
        if not values:
            return None
        if max(values) > limit:
            return "FAIL", f"{what} up to {max(values):g} (limit {limit:g})"
        return "PASS", f"{what} at most {max(values):g} ({len(values)} check(s), limit {limit:g})"
    return judge


def lines(expected):
    """The program's output holds these lines, in this order (values derived from the
    source's semantics, by hand)."""
    def judge(body):
        got = [l.strip() for l in body.splitlines() if l.strip() in expected]
        if got == expected:
            return "PASS", f"printed the {len(expected)} expected lines"
        missing = next((e for e in expected if e not in got), expected[0])
        return "FAIL", f"expected the line {missing!r}"
    return judge


def none_of(pattern, passed, what):
    def judge(body):
        bad = re.findall(pattern, body, re.M)
        if bad:
            return "FAIL", f"{what}: {bad[0]}"
        if passed and not re.search(passed, body, re.M):
            return None
        return "PASS", f"no {what}"
    return judge


def xyzw(checkout):
    """c++11_cuda counts the letters x, y, z and w in warandpeace.txt (at most 16 MiB)."""
    text = (checkout / "c++11_cuda" / "warandpeace.txt").read_bytes()[:16 * 1048576]
    count = sum(text.count(c) for c in b"xyzw")

    def judge(body):
        m = re.search(r"counted (\d+) instances", body)
        if not m:
            return None
        if int(m.group(1)) != count:
            return "FAIL", f"counted {m.group(1)}, the text has {count}"
        return "PASS", f"counted {count}, as the text has"
    return judge


def haxpy(body):
    """haxpy: y = 2 * 1 + i in half precision, exact for i < 100."""
    values = [float(l) for l in body.split() if re.fullmatch(r"-?\d+\.\d+", l)]
    expected = [float(i + 2) for i in range(100)]
    if values == expected:
        return "PASS", "y[i] = i + 2 for the 100 elements"
    return "FAIL", f"y differs: first values {values[:4]}"


ELEMENT = ["On device: name=hello, value=10", "On host: name=dello, value=11"]
ELEMENT_CXX2 = [
    "On device by pointer:       name=hello, value=10",
    "On host (after by-pointer): name=pello, value=11",
    "On device by ref:           name=pello, value=11",
    "On host (after by-ref):     name=rello, value=12",
    "On device by value:         name=rello, value=12",
    "On host (after by-value):   name=rello, value=12",
]
CUDA_CPP = "series/cuda-cpp"


def programs(checkout, link, cub):
    """name: (folder, [build commands: nvcc arguments, or ["g++", ...]], run command, judge)."""
    vmm = [f"-L{link}", "-lcuda"]
    range_include = [f"-I{os.environ['CPP11_RANGE']}"] if os.environ.get("CPP11_RANGE") else []
    return {
        # cpp11-range is a submodule (harrism/cpp11-range): CPP11_RANGE=<its checkout>.
        "c++11_cuda": ("c++11_cuda", [["-Icpp11-range", *range_include, "c++11_cuda.cu"]],
                       "{bin}", xyzw(checkout)),
        "cuda-vmm-sync": ("posts/cuda-vmm", [["sync_main.cu", *vmm]], "{bin}", None),
        "cuda-vmm-vector": ("posts/cuda-vmm", [["vector_main.cpp", "cuvector.cpp", *vmm]], "{bin}", None),
        # 2^16 elements, each test type (update, read, write, read-write, update without a
        # loop), and the shared-memory variant with the most shared memory (`-s 0`: its sm_90
        # kernel indexes NSHMEM = 232,448 / 8 elements whatever size `-s` gives, so a smaller
        # one reads past the CTA's shared memory, which a GPU refuses as well) and 4 accesses
        # per element; the program verifies updates itself.
        "gups": ("posts/gups", [["-O3", "-DSTATIC_SHMEM", "gups.cu"]],
                 " && ".join(f"{{bin}} -n 16 -t {t}" for t in range(5)) + " && {bin} -n 16 -s 0 -a 4",
                 all_zero(r"Verification: Found (\d+) errors", "verification errors")),
        "haxpy": ("posts/mixed-precision", [["haxpy.cu"]], "{bin}", haxpy),
        # It includes cub/cub/cub.cuh from a submodule (CUB's repository): CUDA's own CUB here.
        "parallel_reduction_with_shfl": ("posts/parallel_reduction_with_shfl", [["-O3", f"-I{cub}", "main.cu"]],
                                         "{bin} 1000000 1", none_of(r"^.*INCORRECT.*$", r"CORRECT", "INCORRECT result")),
        # CASerror.h calls the driver (cuMemGetAddressRange): its CMakeLists links CUDA::cuda_driver.
        "printf-alternative": ("posts/printf-alternative", [["main.cu", f"-L{link}", "-lcuda"]], "{bin}", None),
        "dataElem": ("posts/unified-memory", [["dataElem.cu"]], "{bin}", lines(ELEMENT)),
        "dataElem_um": ("posts/unified-memory", [["dataElem_um.cu"]], "{bin}", lines(ELEMENT)),
        "dataElem_um_c++_1": ("posts/unified-memory", [["dataElem_um_c++_1.cu"]], "{bin}", lines(ELEMENT)),
        "dataElem_um_c++_2": ("posts/unified-memory", [["dataElem_um_c++_2.cu"]], "{bin}", lines(ELEMENT_CXX2)),
        "uvm_oversubs": ("posts/unified-memory-oversubscription", [["uvm_oversubs.cu"]],
                         "{bin} -h", None),
        "coalescing": (f"{CUDA_CPP}/coalescing-global", [["coalescing.cu"]], "{bin}", None),
        # An eighth-order stencil's derivative of sin/cos on 64 points: the program prints its
        # error against the analytic derivative, which the blog post gives as about 1e-6
        # (the limit here is generous).
        "finite-difference": (f"{CUDA_CPP}/finite-difference", [["finite-difference.cu"]], "{bin}",
                              below(r"MAX error: ([-+.\deE]+)", 1e-3, "derivative error")),
        "bandwidthtest": (f"{CUDA_CPP}/optimize-data-transfers", [["bandwidthtest.cu"]], "{bin}",
                          none_of(r"^\*\*\* .* transfers failed \*\*\*", r"bandwidth", "failed transfer")),
        "profile": (f"{CUDA_CPP}/optimize-data-transfers", [["profile.cu"]], "{bin}", None),
        # a[i] = sqrt(sin(i)^2 + cos(i)^2) with the GPU's sinf/cosf (2 ulp, CUDA C++
        # Programming Guide, "Mathematical Functions"): its error against 1 a few ulp (the blog
        # post prints 1.192093e-07, one ulp).
        "async": (f"{CUDA_CPP}/overlap-data-transfers", [["async.cu"]], "{bin}",
                  below(r"max error: ([-+.\deE]+)", 1e-6, "max error")),
        "shared-memory": (f"{CUDA_CPP}/shared-memory", [["shared-memory.cu"]], "{bin}",
                          none_of(r"^Error: .*", None, "Error line")),
        "transpose": (f"{CUDA_CPP}/transpose", [["transpose.cu"]], "{bin}",
                      none_of(r"^.*\*\*\* FAILED \*\*\*.*$", r"Bandwidth", "FAILED kernel")),
    }


SKIPPED = {
    "american-options": "needs cuRAND and cuBLAS",
    "cufft-callbacks": "needs cuFFT",
    "math-libraries-intro": "needs cuBLAS",
    "nvml": "needs NVML",
    "rnn": "needs cuBLAS and cuRAND",
    "tensor-cores": "needs cuBLAS and cuRAND",
    "cuda-aware-mpi-example": "needs MPI",
    "compiler_inst_nvtx": "needs the NVTX 2 library (libnvToolsExt), not in CUDA 13",
    "manual_nvtx": "needs NVTX 3's headers (nvtx3/nvToolsExt.h), not in the CUDA wheels",
}


def main():
    checkout, suite = from_arguments("/tmp/ptxsim-nvidia-blog", "series/cuda-cpp",
                                     "a checkout of the blog's code-samples")
    # -lcuda: the programs of the driver API link ptxsim's library.
    link = suite.build / "link"
    link.mkdir(exist_ok=True)
    if not (link / "libcuda.so").exists():
        (link / "libcuda.so").symlink_to(suite.lib / "libcuda.so.1")
    cub = suite.build / "include"
    (cub / "cub").mkdir(parents=True, exist_ok=True)
    if not (cub / "cub" / "cub").exists():
        (cub / "cub" / "cub").symlink_to(suite.cu / "include" / "cccl" / "cub")
    only = re.compile(os.environ.get("BENCHMARKS", ""))
    for name, why in SKIPPED.items():
        if only.search(name):
            suite.record(name, "SKIP", 0, why)
    for name, (folder, builds, command, judge) in programs(checkout, link, cub).items():
        if not only.search(name):
            continue
        binary = suite.build / "bin" / name
        binary.parent.mkdir(exist_ok=True)
        commands = [suite.nvcc([*args, "-o", str(binary)]) for args in builds]
        if suite.compile(name, commands, checkout / folder):
            suite.run(name, command.format(bin=binary), checkout / folder, judge)
    suite.summary()


if __name__ == "__main__":
    main()
