# Shared by the scripts that run on a GPU machine; source it, then call gpu_session.
#
# gpu_session NAME OUTDIR: without a CUDA toolkit (nvcc) or a GPU (nvidia-smi), says so and ends
# the calling script with status 0. Otherwise sets `out` (OUTDIR, created, as an absolute
# path), `work` (a temporary directory, removed when the script exits) and `device` (the GPU's
# name, driver version and compute capability).
gpu_session() {
    if ! command -v nvcc >/dev/null || ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "$1: no CUDA toolkit or GPU here; nothing to do"
        exit 0
    fi
    mkdir -p "$2"
    out=$(cd "$2" && pwd)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    device=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n1)
}

# xz9 FILE OUT: FILE compressed with xz at preset 9 (Python's lzma; no xz binary needed).
xz9() {
    python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), preset=9))' "$1" "$2"
}
