"""Tests of the Python package `ptxsim` (pip install ./crates/python; pytest crates/python/tests).

Expected values come from numpy (or plain Python) computing the same thing independently, never
from ptxsim's own output.
"""

from pathlib import Path

import numpy as np
import pytest

import ptxsim

SAMPLES = Path(__file__).resolve().parents[3] / "ptx-samples" / "nvcc"

# out[i] = a[i] + b[i] for i < n, over a grid of CTAs (what nvcc makes of the textbook kernel).
VECTOR_ADD = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry vector_add(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<5>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p ret;
    mul.wide.u32 %rd4, %r2, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd7], %f3;
    ret;
}

// y[i] = a * x[i] + y[i] (f64), for i < n.
.visible .entry axpy(.param .f64 a, .param .u64 x, .param .u64 y, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<2>;
    .reg .f64 %fd<5>;
    .reg .b64 %rd<5>;
    ld.param.f64 %fd1, [a];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u32 %r1, [n];
    mov.u32 %r0, %tid.x;
    setp.ge.u32 %p, %r0, %r1;
    @%p ret;
    mul.wide.u32 %rd3, %r0, 8;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd3, %rd2, %rd3;
    ld.global.f64 %fd2, [%rd4];
    ld.global.f64 %fd3, [%rd3];
    fma.rn.f64 %fd4, %fd1, %fd2, %fd3;
    st.global.f64 [%rd3], %fd4;
    ret;
}
"""

# Stores each scalar parameter's bits, one after the other, into `out` (thread 0 only).
SCALARS = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry scalars(.param .u64 out, .param .u8 a, .param .s16 b, .param .s32 c,
                        .param .u64 d, .param .f32 e, .param .f64 f, .param .f16 g,
                        .param .b32 h)
{
    .reg .b16 %rs<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u8 %rs1, [a];
    st.global.u8 [%rd1], %rs1;
    ld.param.s16 %rs2, [b];
    st.global.u16 [%rd1+2], %rs2;
    ld.param.s32 %r1, [c];
    st.global.u32 [%rd1+4], %r1;
    ld.param.u64 %rd2, [d];
    st.global.u64 [%rd1+8], %rd2;
    ld.param.b32 %r2, [e];
    st.global.b32 [%rd1+16], %r2;
    ld.param.b64 %rd3, [f];
    st.global.b64 [%rd1+24], %rd3;
    ld.param.b16 %rs1, [g];
    st.global.b16 [%rd1+32], %rs1;
    ld.param.b32 %r2, [h];
    st.global.b32 [%rd1+36], %r2;
    ret;
}
"""

# The layout SCALARS writes, as a numpy structured type.
SCALARS_LAYOUT = np.dtype(
    {
        "names": ["a", "b", "c", "d", "e", "f", "g", "h"],
        "formats": ["<u1", "<i2", "<i4", "<u8", "<f4", "<f8", "<f2", "<u4"],
        "offsets": [0, 2, 4, 8, 16, 24, 32, 36],
        "itemsize": 40,
    }
)

# Thread i stores i into out[i]; `mode` 1: trap, 2: loop forever.
FAULTS = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry store_index(.param .u64 out, .param .u32 mode)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd0, [out];
    ld.param.u32 %r3, [mode];
    mov.u32 %r0, %ctaid.x;
    mov.u32 %r1, %ntid.x;
    mov.u32 %r2, %tid.x;
    mad.lo.s32 %r0, %r0, %r1, %r2;
    setp.eq.u32 %p1, %r3, 1;
    @%p1 trap;
$loop:
    setp.eq.u32 %p2, %r3, 2;
    @%p2 bra $loop;
    mul.wide.u32 %rd1, %r0, 4;
    add.s64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r0;
    ret;
}
"""


def line_and_column_of(source: str, text: str) -> tuple[int, int]:
    """The 1-based line and column where `text` first occurs in `source`."""
    for number, line in enumerate(source.splitlines(), start=1):
        column = line.find(text)
        if column >= 0:
            return number, column + 1
    raise AssertionError(f"{text!r} is not in the source")


def test_vector_add_matches_numpy():
    module = ptxsim.Module(VECTOR_ADD)
    assert module.entries == ["vector_add", "axpy"]
    rng = np.random.default_rng(22)
    n = 1000  # not a multiple of the block: the last CTA's spare threads return early
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    report = module.launch("vector_add", (n + 255) // 256, 256, [a, b, out, n])
    np.testing.assert_array_equal(out, a + b)
    assert report.ctas == 4
    assert report.steps > 0
    # The inputs are copied back too, unchanged.
    assert not np.isnan(a).any()


def test_f64_scalar_and_in_out_array():
    module = ptxsim.Module(VECTOR_ADD)
    x = np.linspace(-3.0, 5.0, 64)
    y = np.arange(64, dtype=np.float64)
    expected = 0.25 * x + y  # exact: 0.25 * x is exact, one rounding in both
    module.launch("axpy", 1, (64, 1, 1), [np.float64(0.25), x, y, np.uint32(64)])
    np.testing.assert_array_equal(y, expected)


def test_scalars_are_typed_by_the_parameters():
    module = ptxsim.Module(SCALARS)
    out = np.zeros(1, dtype=SCALARS_LAYOUT)
    values = dict(a=200, b=-12345, c=-1, d=2**64 - 1, e=1.0 / 3.0, f=-2.5e300, g=1.0 / 3.0, h=-7)
    args = [out, *values.values()]
    module.launch("scalars", 1, 1, args)
    expected = np.zeros(1, dtype=SCALARS_LAYOUT)
    for name, value in values.items():
        if name == "h":  # a .b32 takes either reading of its bits
            value = np.int32(value).view(np.uint32)
        expected[name] = value  # numpy rounds 1/3 to f32 and f16 to nearest even
    assert out.tobytes() == expected.tobytes()


def test_numpy_scalars_and_bool():
    module = ptxsim.Module(SCALARS)
    out = np.zeros(1, dtype=SCALARS_LAYOUT)
    args = [out, np.uint8(7), np.int16(-2), True, np.uint64(5), np.float32(0.1),
            np.float32(0.1), np.float16(-0.1), np.uint32(3)]
    module.launch("scalars", 1, 1, args)
    assert out["a"][0] == 7 and out["b"][0] == -2 and out["c"][0] == 1 and out["d"][0] == 5
    assert out["e"][0] == np.float32(0.1)
    assert out["f"][0] == float(np.float32(0.1))  # widened exactly
    assert out["g"][0] == np.float16(-0.1)
    assert out["h"][0] == 3


def test_histogram_sample_kernel():
    """nvcc's histogram256 (ptx-samples/cuda/block.cu): shared memory and atomics."""
    module = ptxsim.Module((SAMPLES / "block.sm_90.ptx").read_text())
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2**32, size=3000, dtype=np.uint32)
    bins = np.zeros(256, dtype=np.uint32)
    module.launch("histogram256", 4, 128, [values, bins, values.size])
    expected = np.bincount(values & 255, minlength=256).astype(np.uint32)
    np.testing.assert_array_equal(bins, expected)


def test_dynamic_shared_memory_sample_kernel():
    """nvcc's block_sum_dynamic (ptx-samples/cuda/warp.cu): one partial sum per warp in dynamic
    shared memory. Small integers, so that every order of the additions gives the exact sum."""
    module = ptxsim.Module((SAMPLES / "warp.sm_90.ptx").read_text())
    block, blocks = 256, 3
    values = np.arange(block * blocks, dtype=np.float32) % 17
    sums = np.zeros(blocks, dtype=np.float32)
    module.launch("block_sum_dynamic", blocks, block, [values, sums, values.size],
                  shared=block // 32 * 4)
    np.testing.assert_array_equal(sums, values.reshape(blocks, block).sum(axis=1))


def test_two_dimensional_arrays_and_read_only_inputs():
    module = ptxsim.Module(VECTOR_ADD)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    a.flags.writeable = False
    b = bytes(np.full(12, 0.5, dtype=np.float32).tobytes())
    out = np.zeros((3, 4), dtype=np.float32)
    module.launch("vector_add", 1, 12, [a, b, out, 12])
    np.testing.assert_array_equal(out, a + np.float32(0.5))


def test_check_error_raises_ptx_error_with_locations():
    source = VECTOR_ADD.replace("add.rn.f32 %f3", "add.rn.f32 %f9")
    with pytest.raises(ptxsim.PtxError) as raised:
        ptxsim.Module(source)
    line, column = line_and_column_of(source, "%f9")
    message = str(raised.value)
    assert message.startswith(f"{line}:{column}: error[")
    assert "%f9" in message
    assert [(d[0], d[1]) for d in raised.value.diagnostics] == [(line, column)]
    assert isinstance(raised.value, ptxsim.Error)


def test_target_gating_and_target_names():
    # The sm_100a sample uses instructions that sm_90 does not have.
    sm100a = (SAMPLES / "fp4_convert.sm_100a.ptx").read_text()
    with pytest.raises(ptxsim.PtxError, match=r"^\d+:\d+: error\["):
        ptxsim.Module(sm100a, target="sm_90")
    assert ptxsim.Module(sm100a, target=None).target is None
    with pytest.raises(ValueError, match="not a target"):
        ptxsim.Module(VECTOR_ADD, target="gfx90a")


def test_out_of_bounds_store_raises_launch_error():
    module = ptxsim.Module(FAULTS)
    out = np.full(64, -1, dtype=np.int32)
    with pytest.raises(ptxsim.LaunchError) as raised:
        module.launch("store_index", 1, 128, [out, 0])  # 128 threads, 64 words
    error = raised.value
    assert (error.line, error.column) == line_and_column_of(FAULTS, "st.global.u32")
    assert f"{error.line}:{error.column}:" in str(error)
    assert error.cta == (0, 0, 0)
    assert error.thread[0] >= 64
    # What the threads in bounds stored before the launch stopped is in the array.
    assert (out[out >= 0] == np.arange(64)[out >= 0]).all()


def test_trap_and_step_limit_raise_launch_error():
    module = ptxsim.Module(FAULTS)
    out = np.zeros(4, dtype=np.int32)
    with pytest.raises(ptxsim.LaunchError, match="trap") as raised:
        module.launch("store_index", 1, 4, [out, 1])
    assert (raised.value.line, raised.value.column) == line_and_column_of(FAULTS, "@%p1 trap;")  # a guarded instruction starts at its guard
    with pytest.raises(ptxsim.LaunchError, match="step limit") as raised:
        module.launch("store_index", 1, 4, [out, 2], max_steps=1000)
    assert raised.value.line is None


def test_unknown_kernel_raises():
    module = ptxsim.Module(VECTOR_ADD)
    with pytest.raises(ValueError, match="vector_add"):
        module.launch("vector_sub", 1, 1, [])


def test_wrong_arguments_raise():
    module = ptxsim.Module(VECTOR_ADD)
    a = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="takes 4 argument"):
        module.launch("vector_add", 1, 4, [a, a, a])
    with pytest.raises(TypeError, match="integer"):
        module.launch("vector_add", 1, 4, [a, a, a, 4.0])
    with pytest.raises(TypeError, match="not a pointer"):
        module.launch("vector_add", 1, 4, [a, a, a, a])
    with pytest.raises(OverflowError):
        module.launch("vector_add", 1, 4, [a, a, a, -1])
    with pytest.raises(TypeError, match="C-contiguous"):
        module.launch("vector_add", 1, 4, [a, a, np.zeros(8, dtype=np.float32)[::2], 4])
    with pytest.raises(TypeError, match="big-endian"):
        module.launch("vector_add", 1, 4, [a, a, a.astype(">f4"), 4])
    with pytest.raises(ValueError, match="block"):
        module.launch("vector_add", 1, 0, [a, a, a, 4])
    with pytest.raises(ValueError, match="grid"):
        module.launch("vector_add", (1, 1, 1, 1), 4, [a, a, a, 4])


def test_empty_arrays_zero_dimensional_scalars_and_aliasing():
    module = ptxsim.Module(VECTOR_ADD)
    empty = np.zeros(0, dtype=np.float32)
    module.launch("vector_add", 1, 32, [empty, empty, empty, 0])
    a = np.arange(8, dtype=np.float32)
    b = np.full(8, 0.25, dtype=np.float32)
    expected = a + b
    # The same array twice is two copies; the later argument's bytes are copied back last.
    module.launch("vector_add", 1, 8, [a, b, a, np.array(8, dtype=np.int64)])
    np.testing.assert_array_equal(a, expected)
    with pytest.raises(TypeError, match="integer"):
        module.launch("vector_add", 1, 8, [a, b, a, np.array(8.0)])


BF16 = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry store_bf16(.param .u64 out, .param .bf16 value)
{
    .reg .b16 %rs1;
    .reg .b64 %rd1;
    ld.param.u64 %rd1, [out];
    ld.param.b16 %rs1, [value];
    st.global.b16 [%rd1], %rs1;
    ret;
}
"""


def bf16_bits(value: float) -> int:
    """`value` rounded to bfloat16 (nearest, ties to even) from its float32 bits; `value` is
    exactly a float32 here, so there is one rounding."""
    bits = int(np.float32(value).view(np.uint32))
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def test_bf16_parameter_rounds_to_nearest_even():
    module = ptxsim.Module(BF16)
    out = np.zeros(1, dtype=np.uint16)
    for value in [1.0, -2.5, float(np.float32(1.0 / 3.0)), float(np.float32(1.00390625)), 65280.0]:
        module.launch("store_bf16", 1, 1, [out, value])
        assert int(out[0]) == bf16_bits(value), value


# out[i] = f64(x[i] * p.scale) + p.bias + f64(p.shift) for i < n, with the struct
# `struct { float scale; int shift; double bias; }` (16 bytes, align 8) passed by value.
STRUCT_PARAM = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry affine(.param .align 8 .b8 p[16], .param .u64 x, .param .u64 out, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .f64 %fd<6>;
    .reg .b64 %rd<6>;
    ld.param.f32 %f1, [p];
    ld.param.s32 %r1, [p+4];
    ld.param.f64 %fd1, [p+8];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %tid.x;
    setp.ge.u32 %p, %r3, %r2;
    @%p ret;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd3, %rd1, %rd3;
    ld.global.f32 %f2, [%rd3];
    mul.rn.f32 %f3, %f2, %f1;
    cvt.f64.f32 %fd2, %f3;
    add.rn.f64 %fd3, %fd2, %fd1;
    cvt.rn.f64.s32 %fd4, %r1;
    add.rn.f64 %fd5, %fd3, %fd4;
    mul.wide.u32 %rd4, %r3, 8;
    add.s64 %rd5, %rd2, %rd4;
    st.global.f64 [%rd5], %fd5;
    ret;
}
"""

AFFINE = np.dtype([("scale", "<f4"), ("shift", "<i4"), ("bias", "<f8")], align=True)


def test_struct_parameter_takes_bytes_of_its_size():
    module = ptxsim.Module(STRUCT_PARAM)
    n = 40
    x = np.linspace(-3.0, 5.0, n, dtype=np.float32)
    params = np.zeros(1, dtype=AFFINE)
    params["scale"] = 1.7
    params["shift"] = -3
    params["bias"] = 0.1
    # numpy computes the same: an f32 product, widened, then two f64 additions in order.
    product = (x * np.float32(1.7)).astype(np.float64)
    expected = (product + 0.1) + np.float64(-3)
    assert AFFINE.itemsize == 16
    for value in (
        params[0],  # a numpy structured scalar
        params,  # a one-element structured array
        params.tobytes(),
        bytearray(params.tobytes()),
        np.frombuffer(params.tobytes(), dtype=np.uint8).copy(),
    ):
        out = np.zeros(n, dtype=np.float64)
        module.launch("affine", 1, 64, [value, x, out, n])
        np.testing.assert_array_equal(out, expected)


def test_struct_parameter_errors():
    module = ptxsim.Module(STRUCT_PARAM)
    x = np.zeros(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float64)
    with pytest.raises(ValueError, match="16-byte array .* 15 bytes were given"):
        module.launch("affine", 1, 4, [bytes(15), x, out, 4])
    with pytest.raises(ValueError, match="17 bytes were given"):
        module.launch("affine", 1, 4, [np.zeros(17, dtype=np.uint8), x, out, 4])
    with pytest.raises(TypeError, match="16-byte array"):
        module.launch("affine", 1, 4, [5, x, out, 4])
    with pytest.raises(TypeError, match="16-byte array"):
        module.launch("affine", 1, 4, [1.5, x, out, 4])
    with pytest.raises(TypeError, match="C-contiguous"):
        module.launch("affine", 1, 4, [np.zeros(32, dtype=np.uint8)[::2], x, out, 4])
    # The struct is an input: a writable buffer passed for it is not written.
    params = bytearray(16)
    module.launch("affine", 1, 4, [params, x, out, 4])
    assert params == bytearray(16)


# One mma.sync.m16n8k16 .bf16 tile whose D(0,0) tells an A100 from an H100 (as
# tests/mma-sim/mma_device.ptx, docs/tensor-cores.md): A(0,0) = B(0,0) = B(1,0) = 1,
# A(0,1) = 2^-25, C(0,0) = -1. MMA-Sim's algorithms: Hopper keeps 25 fraction bits, so
# D(0,0) = 2^-25; Ampere keeps 24 (and splits k), so D(0,0) = +0.
MMA_DEVICE = """\
.version 8.7
.target sm_80
.address_size 64

.visible .entry tile(.param .u64 out)
{
    .reg .b32 %a<4>, %b<2>;
    .reg .f32 %c<4>, %d<4>;
    .reg .u32 %lane;
    .reg .u64 %p;
    .reg .pred %first;
    mov.u32 %lane, %laneid;
    setp.eq.u32 %first, %lane, 0;
    selp.b32 %a0, 0x33003f80, 0, %first;
    selp.b32 %b0, 0x3f803f80, 0, %first;
    selp.f32 %c0, 0fBF800000, 0f00000000, %first;
    mov.b32 %a1, 0;
    mov.b32 %a2, 0;
    mov.b32 %a3, 0;
    mov.b32 %b1, 0;
    mov.f32 %c1, 0f00000000;
    mov.f32 %c2, 0f00000000;
    mov.f32 %c3, 0f00000000;
    mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
    ld.param.u64 %p, [out];
    @%first st.global.f32 [%p], %d0;
    ret;
}
"""


def test_the_device_picks_the_tensor_core_arithmetic(monkeypatch):
    monkeypatch.delenv("PTXSIM_DEVICE", raising=False)
    module = ptxsim.Module(MMA_DEVICE, target=None)

    def d00(**kwargs):
        out = np.full(1, 7.0, dtype=np.float32)
        module.launch("tile", 1, 32, [out], **kwargs)
        return int(out.view(np.uint32)[0])

    h100 = int(np.float32(2.0**-25).view(np.uint32))  # 0x33000000
    assert d00() == 0  # the module's sm_80: an A100, +0
    assert d00(device="sm_90") == h100
    monkeypatch.setenv("PTXSIM_DEVICE", "sm_90")
    assert d00() == h100
    assert d00(device="sm_86") == 0
    with pytest.raises(ValueError):
        d00(device="h100")
