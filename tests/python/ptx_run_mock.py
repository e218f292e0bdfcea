"""ptx_run called as tinygrad's mock CUDA calls gpuocelot (test/mockgpu/helpers.py and
test/mockgpu/cuda/cuda.py): the library found through OCELOT_PATH, device buffers that are
Python bytearrays passed by address, and the launch's argument struct (64-bit pointers, then
32-bit ints) turned into a list of c_void_p values. Standard library only."""
import ctypes
import os
import struct
import sys

lib = ctypes.CDLL(os.environ["OCELOT_PATH"])
ptx_run = lib.ptx_run
ptx_run.restype = None
ptx_run.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)] + [ctypes.c_int] * 7
lib.ptx_last_error.restype = ctypes.c_char_p

# What tinygrad's PTX renderer emits for `out = a + b` on int32 with a runtime size.
SOURCE = b"""
.version 7.5
.target sm_35
.address_size 64
.visible .entry E_n(
	.param .u64 data0,
	.param .u64 data1,
	.param .u64 data2,
	.param .s32 n
)
.maxntid 32
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd0, [data0+0];
	ld.param.u64 %rd1, [data1+0];
	ld.param.u64 %rd2, [data2+0];
	ld.param.s32 %r0, [n+0];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.s32 %r3, %r1, 32, %r2;
	setp.ge.s32 %p0, %r3, %r0;
	@%p0 bra $end;
	mul.wide.s32 %rd3, %r3, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	add.s64 %rd6, %rd0, %rd3;
	ld.global.s32 %r4, [%rd4+0];
	ld.global.s32 %r5, [%rd5+0];
	add.s32 %r6, %r4, %r5;
	st.global.s32 [%rd6+0], %r6;
$end:
	ret;
}
"""


def mv_address(mv):
    return ctypes.addressof(ctypes.c_char.from_buffer(mv))


def launch(source, bufs, vals, local, glob):
    # tinygrad's encode_args: CUdeviceptr fields, then c_int32 fields; cuLaunchKernel's mock
    # casts every field to c_void_p.
    fields = [(f"f{i}", ctypes.c_uint64) for i in range(len(bufs))] + [
        (f"v{i}", ctypes.c_int32) for i in range(len(vals))
    ]
    Args = type("Args", (ctypes.Structure,), {"_fields_": fields})
    extra = Args(*bufs, *vals)
    cargs = [ctypes.cast(getattr(extra, name), ctypes.c_void_p) for name, _ in fields]
    src = ctypes.create_string_buffer(source)
    ptx_run(ctypes.cast(src, ctypes.c_char_p), len(cargs), (ctypes.c_void_p * len(cargs))(*cargs),
            *local, *glob, 0)
    return lib.ptx_last_error()


n = 100
a = memoryview(bytearray(struct.pack(f"{n}i", *range(n))))
b = memoryview(bytearray(struct.pack(f"{n}i", *(-3 * i for i in range(n)))))
out = memoryview(bytearray(4 * 128))
error = launch(SOURCE, [mv_address(out), mv_address(a), mv_address(b)], [n], (32, 1, 1), (4, 1, 1))
assert error is None, error
got = struct.unpack(f"{n}i", out[: 4 * n])
assert list(got) == [-2 * i for i in range(n)], got
assert bytes(out[4 * n:]) == bytes(4 * 28), "bytes past n were written"

# A negative scalar: cast to c_void_p, it is widened; the kernel sees the low 32 bits.
error = launch(SOURCE, [mv_address(out), mv_address(a), mv_address(b)], [-1], (32, 1, 1), (4, 1, 1))
assert error is None, error

# Invalid PTX: an error message, no exception, no crash.
error = launch(SOURCE.replace(b"add.s32", b"add.q32"), [mv_address(out), mv_address(a), mv_address(b)],
               [n], (32, 1, 1), (4, 1, 1))
assert error is not None and b"error[" in error, error
print("ok")
