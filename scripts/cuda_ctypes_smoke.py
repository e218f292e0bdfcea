#!/usr/bin/env python3
"""Drives ptxsim's libcuda.so through ctypes the way tinygrad's runtime/ops_cuda.py does.

Usage: scripts/cuda_ctypes_smoke.py [PATH/TO/libcuda.so]   (default: $CUDA_PATH, as tinygrad
reads it, else libcuda.so.1 from the library path). Standard library only.

The calls, in tinygrad's order: cuInit, cuDeviceGet, cuCtxCreate_v2, cuDeviceComputeCapability,
cuDeviceGetCount; per program cuCtxSetCurrent, cuModuleLoadData, cuModuleGetFunction,
cuFuncSetAttribute (dynamic shared memory); allocations with cuMemAlloc_v2 and, for copies in,
pinned cuMemHostAlloc + cuMemcpyHtoDAsync_v2; launches with cuLaunchKernel and `extra` (the
arguments as one struct: pointers at 8-byte offsets, then 32-bit values), timed with
cuEventCreate / cuEventRecord / cuEventSynchronize / cuEventElapsedTime / cuEventDestroy_v2;
cuCtxSynchronize, cuMemFreeHost, cuMemcpyDtoH_v2; transfers with cuMemcpyDtoDAsync_v2 and
cuStreamWaitEvent; cuModuleUnload, cuMemFree_v2, cuGetErrorString. Exits 0 and prints "ok" when
every result is right.
"""
import ctypes
import os
import struct
import sys

# out[i] = a[i] * b[i] + scale (an int parameter) for i < n, in the style of tinygrad's PTX
# renderer; dynamic shared memory holds the products on their way out.
KERNEL = r"""
.version 7.8
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry E_fma(
	.param .u64 data0,
	.param .u64 data1,
	.param .u64 data2,
	.param .u32 scale,
	.param .u32 n
)
{
	.reg .pred %p;
	.reg .b32 %r<8>;
	.reg .f32 %f<6>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [data0];
	ld.param.u64 %rd2, [data1];
	ld.param.u64 %rd3, [data2];
	ld.param.u32 %r1, [scale];
	ld.param.u32 %r2, [n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r6, %r3, %r4, %r5;
	setp.ge.s32 %p, %r6, %r2;
	@%p bra DONE;
	mul.wide.s32 %rd4, %r6, 4;
	add.s64 %rd5, %rd2, %rd4;
	add.s64 %rd6, %rd3, %rd4;
	ld.global.f32 %f1, [%rd5];
	ld.global.f32 %f2, [%rd6];
	mul.rn.f32 %f3, %f1, %f2;
	mov.u32 %r7, smem;
	shl.b32 %r5, %r5, 2;
	add.s32 %r7, %r7, %r5;
	st.shared.f32 [%r7], %f3;
	ld.shared.f32 %f4, [%r7];
	cvt.rn.f32.s32 %f5, %r1;
	add.rn.f32 %f4, %f4, %f5;
	add.s64 %rd7, %rd1, %rd4;
	st.global.f32 [%rd7], %f4;
DONE:
	ret;
}
"""

BROKEN = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tbogus;\n}\n"


def load():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUDA_PATH", "libcuda.so.1")
    if os.path.exists(path):
        path = os.path.abspath(path)  # dlopen searches the library path for a bare name
    lib = ctypes.CDLL(path)
    c = ctypes
    sig = {
        "cuInit": [c.c_uint],
        "cuDeviceGet": [c.POINTER(c.c_int), c.c_int],
        "cuCtxCreate_v2": [c.POINTER(c.c_void_p), c.c_uint, c.c_int],
        "cuDeviceComputeCapability": [c.POINTER(c.c_int), c.POINTER(c.c_int), c.c_int],
        "cuDeviceGetCount": [c.POINTER(c.c_int)],
        "cuDeviceCanAccessPeer": [c.POINTER(c.c_int), c.c_int, c.c_int],
        "cuCtxSetCurrent": [c.c_void_p],
        "cuCtxSynchronize": [],
        "cuModuleLoadData": [c.POINTER(c.c_void_p), c.c_char_p],
        "cuModuleGetFunction": [c.POINTER(c.c_void_p), c.c_void_p, c.c_char_p],
        "cuModuleUnload": [c.c_void_p],
        "cuFuncSetAttribute": [c.c_void_p, c.c_int, c.c_int],
        "cuMemAlloc_v2": [c.POINTER(c.c_uint64), c.c_size_t],
        "cuMemFree_v2": [c.c_uint64],
        "cuMemHostAlloc": [c.POINTER(c.c_void_p), c.c_size_t, c.c_uint],
        "cuMemFreeHost": [c.c_void_p],
        "cuMemcpyHtoDAsync_v2": [c.c_uint64, c.c_void_p, c.c_size_t, c.c_void_p],
        "cuMemcpyDtoH_v2": [c.c_void_p, c.c_uint64, c.c_size_t],
        "cuMemcpyDtoDAsync_v2": [c.c_uint64, c.c_uint64, c.c_size_t, c.c_void_p],
        "cuLaunchKernel": [c.c_void_p] + [c.c_uint] * 7
        + [c.c_void_p, c.POINTER(c.c_void_p), c.POINTER(c.c_void_p)],
        "cuEventCreate": [c.POINTER(c.c_void_p), c.c_uint],
        "cuEventRecord": [c.c_void_p, c.c_void_p],
        "cuEventSynchronize": [c.c_void_p],
        "cuEventElapsedTime": [c.POINTER(c.c_float), c.c_void_p, c.c_void_p],
        "cuEventDestroy_v2": [c.c_void_p],
        "cuStreamWaitEvent": [c.c_void_p, c.c_void_p, c.c_uint],
        "cuGetErrorString": [c.c_int, c.POINTER(c.c_char_p)],
        "cuCtxEnablePeerAccess": [c.c_void_p, c.c_uint],
    }
    for name, args in sig.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, c.c_int
    return lib


def main():
    cuda = load()
    failures = []

    def check(status, what):
        if status != 0:
            text = ctypes.c_char_p()
            cuda.cuGetErrorString(status, ctypes.byref(text))
            raise RuntimeError(f"{what}: CUDA Error {status}, {text.value.decode()}")

    def expect(cond, what):
        if not cond:
            failures.append(what)

    # CUDADevice.__init__
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v2(ctypes.byref(context), 0, device), "cuCtxCreate_v2")
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(cuda.cuDeviceComputeCapability(ctypes.byref(major), ctypes.byref(minor), 0),
          "cuDeviceComputeCapability")
    arch = f"sm_{major.value}{minor.value}"
    count = ctypes.c_int()
    check(cuda.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
    expect(count.value == 1, f"{count.value} devices")
    peer = ctypes.c_int(7)
    check(cuda.cuDeviceCanAccessPeer(ctypes.byref(peer), 0, 0), "cuDeviceCanAccessPeer")
    expect(peer.value == 0, "peer access")

    # CUDAProgram.__init__ (smem > 0: cuFuncSetAttribute)
    n, block = 1000, 128
    smem = block * 4
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), KERNEL.encode()), "cuModuleLoadData")
    prg = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(prg), module, b"E_fma"), "cuModuleGetFunction")
    check(cuda.cuFuncSetAttribute(prg, 8, smem), "cuFuncSetAttribute")

    # CUDAAllocator._alloc / _copyin (through pinned host memory)
    def alloc(size):
        ptr = ctypes.c_uint64()
        check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), size), "cuMemAlloc_v2")
        return ptr

    pending = []

    def copyin(dest, data: bytes):
        host = ctypes.c_void_p()
        check(cuda.cuMemHostAlloc(ctypes.byref(host), len(data), 0x01), "cuMemHostAlloc")
        pending.append(host)
        ctypes.memmove(host, data, len(data))
        check(cuda.cuMemcpyHtoDAsync_v2(dest, host, len(data), None), "cuMemcpyHtoDAsync_v2")

    def synchronize():
        check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        for host in pending:
            check(cuda.cuMemFreeHost(host), "cuMemFreeHost")
        pending.clear()

    def copyout(src, size):
        synchronize()
        out = ctypes.create_string_buffer(size)
        check(cuda.cuMemcpyDtoH_v2(out, src, size), "cuMemcpyDtoH_v2")
        return out.raw

    a = [float(i % 17) - 3.5 for i in range(n)]
    b = [0.25 * (i % 11) for i in range(n)]
    out, d_a, d_b = alloc(4 * n), alloc(4 * n), alloc(4 * n)
    copyin(d_a, struct.pack(f"<{n}f", *a))
    copyin(d_b, struct.pack(f"<{n}f", *b))

    # CUDAProgram.__call__: encode_args, cuLaunchKernel with extra, timed with events
    args, vals = [out, d_a, d_b], (5, n)
    fields = [(f"f{i}", ctypes.c_uint64) for i in range(len(args))] + \
             [(f"v{i}", ctypes.c_int32) for i in range(len(vals))]
    c_args_t = type("Args", (ctypes.Structure,), {"_fields_": fields, "_pack_": 1})
    c_args = c_args_t(*[x.value for x in args], *vals)
    size = ctypes.c_size_t(ctypes.sizeof(c_args))
    vargs = (ctypes.c_void_p * 5)(ctypes.c_void_p(1), ctypes.cast(ctypes.byref(c_args), ctypes.c_void_p),
                                  ctypes.c_void_p(2), ctypes.cast(ctypes.pointer(size), ctypes.c_void_p),
                                  ctypes.c_void_p(0))
    events = []
    for _ in range(2):
        ev = ctypes.c_void_p()
        check(cuda.cuEventCreate(ctypes.byref(ev), 0), "cuEventCreate")
        events.append(ev)
    check(cuda.cuEventRecord(events[0], None), "cuEventRecord")
    grid = (n + block - 1) // block
    check(cuda.cuLaunchKernel(prg, grid, 1, 1, block, 1, 1, smem, None, None, vargs), "cuLaunchKernel")
    check(cuda.cuEventRecord(events[1], None), "cuEventRecord")
    check(cuda.cuEventSynchronize(events[1]), "cuEventSynchronize")
    elapsed = ctypes.c_float()
    check(cuda.cuEventElapsedTime(ctypes.byref(elapsed), events[0], events[1]), "cuEventElapsedTime")
    expect(elapsed.value >= 0, f"elapsed {elapsed.value}")
    for ev in events:
        check(cuda.cuEventDestroy_v2(ev), "cuEventDestroy_v2")

    result = struct.unpack(f"<{n}f", copyout(out, 4 * n))
    expected = [struct.unpack("<f", struct.pack("<f", x * y))[0] + 5 for x, y in zip(a, b)]
    wrong = [i for i in range(n) if result[i] != struct.unpack("<f", struct.pack("<f", expected[i]))[0]]
    expect(not wrong, f"{len(wrong)} results differ, first at {wrong[:1]}")

    # CUDAAllocator._transfer
    copy = alloc(4 * n)
    event = ctypes.c_void_p()
    check(cuda.cuEventCreate(ctypes.byref(event), 0), "cuEventCreate")
    check(cuda.cuMemcpyDtoDAsync_v2(copy, out, 4 * n, None), "cuMemcpyDtoDAsync_v2")
    check(cuda.cuEventRecord(event, None), "cuEventRecord")
    check(cuda.cuStreamWaitEvent(None, event, 0), "cuStreamWaitEvent")
    expect(copyout(copy, 4 * n) == copyout(out, 4 * n), "device-to-device transfer")

    # Failures tinygrad sees: invalid PTX (module load failed with status code 218), peer access.
    bad = ctypes.c_void_p()
    status = cuda.cuModuleLoadData(ctypes.byref(bad), BROKEN.encode())
    expect(status == 218, f"invalid PTX gave {status}")
    status = cuda.cuCtxEnablePeerAccess(context, 0)
    expect(status == 217, f"cuCtxEnablePeerAccess of the device's own context gave {status}")

    check(cuda.cuModuleUnload(module), "cuModuleUnload")
    for ptr in (out, d_a, d_b, copy):
        check(cuda.cuMemFree_v2(ptr), "cuMemFree_v2")

    if failures:
        for failure in failures:
            print("FAILED:", failure, file=sys.stderr)
        return 1
    print(f"ok ({arch}, {n} elements, launch {elapsed.value:.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
