//! The rest of the scalar ISA run end to end (check, build, execute): the extended-precision
//! carry chain (PTX ISA 9.7.2), `bfind`, `fns`, `bmsk`, `szext`, `dp4a`, `dp2a`, `copysign`,
//! `testp`, `set`, `nanosleep`, and the operand forms ptxas takes besides the common ones:
//! vector registers (`.reg .v2 .b16 v;`), `call` with `.reg` parameters, a register plus an
//! immediate, and the predefined constant `WARP_SZ`.
//!
//! Expected values come from the ISA text (its Semantics blocks and examples) or from host
//! integer arithmetic of what the instruction sequence computes (a 128-bit product as `u128`),
//! never from ptxsim's output. The bit-for-bit comparison of every form with an H200 is
//! `tests/hardware/scalar` (crates/exec/tests/suite/hardware.rs).

use ptxsim_exec::Argument;
use ptxsim_exec::grid::{self, GridOptions};

/// Runs the only kernel of `body` (wrapped in a module for sm_90 with one `.u64 out`
/// parameter, one thread) with an output buffer of `bytes` bytes and returns it.
pub(super) fn run(functions: &str, body: &str, bytes: usize) -> Vec<u8> {
    run_as(".version 8.0\n.target sm_90", functions, body, bytes)
}

/// [`run`] for a module with the `header` (`.version` and `.target`) given.
fn run_as(header: &str, functions: &str, body: &str, bytes: usize) -> Vec<u8> {
    let source = format!(
        "{header}\n.address_size 64\n{functions}\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .b64 %out;\n\
         \tld.param.u64 %out, [out];\n{body}\n\tret;\n}}\n"
    );
    let program = match ptxsim_exec::load(&source, None) {
        Ok(program) => program,
        Err(e) => panic!("does not load: {e:?}\n{source}"),
    };
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [1, 1, 1],
        100_000,
        vec![Argument::Buffer(vec![0; bytes])],
    )
    .expect("the launch is valid");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}\n{source}", run.failure);
    let address = addresses[0].expect("the output buffer has an address");
    device
        .global
        .buffer_at(address)
        .expect("the output buffer")
        .contents()
}

pub(super) fn words32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// PTX ISA 9.7.2.6's example, "extended-precision multiply: [r3,r2,r1,r0] = [r5,r4] *
/// [r7,r6]", run as written for several operands: the four words are the 128-bit product.
#[test]
fn the_madc_example_multiplies_two_64_bit_numbers() {
    for (x, y) in [
        (0xffff_ffff_ffff_ffffu64, 0xffff_ffff_ffff_ffffu64),
        (0xfedc_ba98_7654_3210, 0x0123_4567_89ab_cdef),
        (0x8000_0000_0000_0001, 0xffff_ffff_0000_0001),
        (0, 0x1234),
    ] {
        let body = format!(
            "\t.reg .u32 r<8>;\n\
             \tmov.u32 r4, {};\n\tmov.u32 r5, {};\n\tmov.u32 r6, {};\n\tmov.u32 r7, {};\n\
             \tmul.lo.u32     r0,r4,r6;\n\
             \tmul.hi.u32     r1,r4,r6;\n\
             \tmad.lo.cc.u32  r1,r5,r6,r1;\n\
             \tmadc.hi.u32    r2,r5,r6,0;\n\
             \tmad.lo.cc.u32   r1,r4,r7,r1;\n\
             \tmadc.hi.cc.u32  r2,r4,r7,r2;\n\
             \taddc.u32        r3,0,0;\n\
             \tmad.lo.cc.u32   r2,r5,r7,r2;\n\
             \tmadc.hi.u32     r3,r5,r7,r3;\n\
             \tst.global.v4.u32 [%out], {{r0, r1, r2, r3}};",
            x as u32,
            x >> 32,
            y as u32,
            y >> 32
        );
        let w = words32(&run("", &body, 16));
        let product = w
            .iter()
            .rev()
            .fold(0u128, |acc, &word| acc << 32 | u128::from(word));
        assert_eq!(product, u128::from(x) * u128::from(y), "{x:#x} * {y:#x}");
    }
}

/// `add.cc` / `addc.cc` / `addc` (9.7.2.1-2's example: "extended-precision addition of two
/// 128-bit values") and `sub.cc` / `subc.cc` / `subc` (9.7.2.3-4's example) on 32-bit words,
/// against `u128` arithmetic.
#[test]
fn carry_chains_add_and_subtract_128_bit_values() {
    for (a, b) in [
        (u128::MAX, 1u128),
        (0x0000_0001_0000_0000_0000_0000_0000_0000, 1),
        (
            0x8000_0000_ffff_ffff_0000_0000_ffff_ffff,
            0x8000_0000_0000_0001_ffff_ffff_0000_0001,
        ),
    ] {
        let word = |v: u128, i: u32| (v >> (32 * i)) as u32;
        let mut body = String::from("\t.reg .u32 x<4>, y<4>, z<4>, s<4>;\n");
        for i in 0..4 {
            body += &format!(
                "\tmov.u32 x{i}, {};\n\tmov.u32 y{i}, {};\n",
                word(a, i),
                word(b, i)
            );
        }
        body += "\tadd.cc.u32 z0, x0, y0;\n\taddc.cc.u32 z1, x1, y1;\n\
                 \taddc.cc.u32 z2, x2, y2;\n\taddc.u32 z3, x3, y3;\n\
                 \tsub.cc.u32 s0, x0, y0;\n\tsubc.cc.u32 s1, x1, y1;\n\
                 \tsubc.cc.u32 s2, x2, y2;\n\tsubc.u32 s3, x3, y3;\n\
                 \tst.global.v4.u32 [%out], {z0, z1, z2, z3};\n\
                 \tst.global.v4.u32 [%out+16], {s0, s1, s2, s3};";
        let w = words32(&run("", &body, 32));
        let join = |w: &[u32]| {
            w.iter()
                .rev()
                .fold(0u128, |acc, &x| acc << 32 | u128::from(x))
        };
        assert_eq!(join(&w[..4]), a.wrapping_add(b), "{a:#x} + {b:#x}");
        assert_eq!(join(&w[4..]), a.wrapping_sub(b), "{a:#x} - {b:#x}");
    }
}

/// 64-bit carry chains: `add.cc.u64` then `addc.u64` is a 128-bit addition.
#[test]
fn sixty_four_bit_carry_chain() {
    let body = "\t.reg .u64 a<2>, b<2>, c<2>;\n\
                \tmov.u64 a0, 0xffffffffffffffff;\n\tmov.u64 a1, 1;\n\
                \tmov.u64 b0, 2;\n\tmov.u64 b1, 0x10;\n\
                \tadd.cc.u64 c0, a0, b0;\n\taddc.u64 c1, a1, b1;\n\
                \tst.global.v2.u64 [%out], {c0, c1};";
    let bytes = run("", body, 16);
    let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
    let sum = (1u128 << 64 | 0xffff_ffff_ffff_ffff) + (0x10u128 << 64 | 2);
    assert_eq!(u128::from(hi) << 64 | u128::from(lo), sum);
}

/// The examples and Semantics blocks of `fns` (9.7.1.17: "fns.b32 d, 0xaaaaaaaa, 3, 1; // d =
/// 3" ...), `bmsk` (9.7.1.22: "bmsk.wrap.b32 rd, 1, 2; // Creates a bitmask of 0x00000006"),
/// `szext` (9.7.1.21: "szext.wrap.u32 rd, 0xffffffff, 0; // Result is 0"), `bfind`
/// (9.7.1.16: the most significant non-sign bit, 0xffffffff when none, `.shiftamt` = msb - d).
#[test]
fn bit_instructions_follow_the_isa_examples() {
    let body = "\t.reg .b32 d<16>;\n\t.reg .u32 u;\n\t.reg .s64 s;\n\
                \tfns.b32 d0, 0xaaaaaaaa, 3, 1;\n\
                \tfns.b32 d1, 0xaaaaaaaa, 3, -1;\n\
                \tfns.b32 d2, 0xaaaaaaaa, 2, 1;\n\
                \tfns.b32 d3, 0xaaaaaaaa, 2, -1;\n\
                \tbmsk.wrap.b32 d4, 1, 2;\n\
                \tszext.wrap.u32 d5, 0xffffffff, 0;\n\
                \tszext.clamp.s32 d6, 0x80, 8;\n\
                \tszext.wrap.s32 d7, 0x1ff, 40;\n\
                \tmov.u32 u, 0x00010000;\n\
                \tbfind.u32 d8, u;\n\
                \tbfind.shiftamt.u32 d9, u;\n\
                \tmov.s64 s, -1;\n\
                \tbfind.s64 d10, s;\n\
                \tmov.s64 s, -5;\n\
                \tbfind.shiftamt.s64 d11, s;\n\
                \tbmsk.clamp.b32 d12, 30, 8;\n\
                \tbmsk.clamp.b32 d13, 40, 3;\n\
                \tfns.b32 d14, 0x00000100, 0, 0;\n\
                \tfns.b32 d15, 0x00000101, 31, -2;\n\
                \tst.global.v4.b32 [%out], {d0, d1, d2, d3};\n\
                \tst.global.v4.b32 [%out+16], {d4, d5, d6, d7};\n\
                \tst.global.v4.b32 [%out+32], {d8, d9, d10, d11};\n\
                \tst.global.v4.b32 [%out+48], {d12, d13, d14, d15};";
    let w = words32(&run("", body, 64));
    // szext.clamp.s32 0x80 with N = 8: bit 7 is the sign, replicated up to bit 31.
    // szext.wrap.s32 with b = 40: N = 40 & 0x1f = 8; 0x1ff's low 8 bits 0xff, sign set.
    // bfind.s64 of -1: no non-sign bit. -5 = ...1011: the most significant 0 is bit 2, and
    // the shift amount is 63 - 2.
    // bmsk.clamp 30, 8: bits 30..37 clipped at 31 (sum >= 32: mask1 = 0): 0xc0000000;
    // position 40 >= 32 with .clamp: 0.
    // fns with offset 0: mask[base]; base 0 of 0x100 is 0: none. From bit 31 down, the 2nd
    // set bit of 0x101 is bit 0.
    assert_eq!(
        w,
        [
            3,
            3,
            3,
            1,
            6,
            0,
            0xffff_ff80,
            0xffff_ffff,
            16,
            15,
            0xffff_ffff,
            61,
            0xc000_0000,
            0,
            0xffff_ffff,
            0
        ]
    );
}

/// `dp4a` / `dp2a` (9.7.1.23-24): `d = c + Σ Va[i] * Vb[i]` with each byte (or half of `a`)
/// sign- or zero-extended by its type.
#[test]
fn dot_products_extend_each_element_by_its_type() {
    let (a, b) = (0xff03_0201u32, 0xff06_0504u32);
    let body = format!(
        "\t.reg .b32 a, b, d<6>;\n\tmov.b32 a, {a};\n\tmov.b32 b, {b};\n\
         \tdp4a.u32.u32 d0, a, b, 10;\n\
         \tdp4a.s32.s32 d1, a, b, 10;\n\
         \tdp4a.s32.u32 d2, a, b, 0;\n\
         \tdp2a.lo.u32.u32 d3, a, b, 1;\n\
         \tdp2a.hi.s32.u32 d4, a, b, 0;\n\
         \tdp2a.hi.s32.s32 d5, a, b, -7;\n\
         \tst.global.v4.b32 [%out], {{d0, d1, d2, d3}};\n\
         \tst.global.v2.b32 [%out+16], {{d4, d5}};"
    );
    let w = words32(&run("", &body, 24));
    let ua = [1i64, 2, 3, 255];
    let sa = [1i64, 2, 3, -1];
    let ub = [4i64, 5, 6, 255];
    let sb = [4i64, 5, 6, -1];
    let dot4 =
        |x: [i64; 4], y: [i64; 4], c: i64| (c + (0..4).map(|i| x[i] * y[i]).sum::<i64>()) as u32;
    // a's halves: 0x0201 and 0xff03 (as .s32 halves: 513 and -253).
    let (uh, sh) = ([0x0201i64, 0xff03], [0x0201i64, -253]);
    assert_eq!(
        w,
        [
            dot4(ua, ub, 10),
            dot4(sa, sb, 10),
            dot4(sa, ub, 0),
            (1 + uh[0] * ub[0] + uh[1] * ub[1]) as u32,
            (sh[0] * ub[2] + sh[1] * ub[3]) as u32,
            (-7 + sh[0] * sb[2] + sh[1] * sb[3]) as u32,
        ]
    );
}

/// `testp` (9.7.3.1) on the special values of `.f32` and `.f64` ("positive and negative zero
/// are considered normal numbers"), `copysign` (9.7.3.2: "Copy sign bit of a into value of
/// b"), and `set` (9.7.6.1: "1.0f is written for floating-point destination types, and
/// 0xffffffff is written for integer destination types").
#[test]
fn testp_copysign_and_set() {
    // Per value: finite, infinite, number, notanumber, normal, subnormal as bits 0..5.
    let values: [(u32, u32); 6] = [
        (0x0000_0000, 0b01_0101),
        (0x8000_0001, 0b10_0101),
        (0x3f80_0000, 0b01_0101),
        (0xff80_0000, 0b00_0110),
        (0x7fc0_0000, 0b00_1000),
        (0x7f80_0001, 0b00_1000),
    ];
    let mut body = String::from("\t.reg .f32 x;\n\t.reg .pred p;\n\t.reg .u32 t, m;\n");
    for (i, (bits, _)) in values.iter().enumerate() {
        body += &format!("\tmov.b32 x, 0x{bits:08x};\n\tmov.u32 m, 0;\n");
        for (k, op) in [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ]
        .iter()
        .enumerate()
        {
            body += &format!(
                "\ttestp.{op}.f32 p, x;\n\tselp.u32 t, {}, 0, p;\n\tor.b32 m, m, t;\n",
                1 << k
            );
        }
        body += &format!("\tst.global.u32 [%out+{}], m;\n", 4 * i);
    }
    body += "\t.reg .f64 y;\n\tmov.b64 y, 0x0008000000000000;\n\ttestp.subnormal.f64 p, y;\n\
             \tselp.u32 t, 1, 0, p;\n\tst.global.u32 [%out+24], t;\n\
             \t.reg .f32 c;\n\tcopysign.f32 c, 0fBF800000, 0f40490FDB;\n\
             \tst.global.f32 [%out+28], c;\n\
             \t.reg .f32 s;\n\t.reg .u32 su;\n\t.reg .pred q;\n\tsetp.ne.u32 q, 1, 0;\n\
             \tset.lt.and.f32.s32 s, -3, 2, q;\n\tst.global.f32 [%out+32], s;\n\
             \tset.lt.and.f32.s32 s, -3, 2, !q;\n\tst.global.f32 [%out+36], s;\n\
             \tset.eq.u32.u32 su, 7, 7;\n\tst.global.u32 [%out+40], su;\n\
             \tset.gtu.u32.f32 su, 0f7FC00000, 0f00000000;\n\tst.global.u32 [%out+44], su;";
    let w = words32(&run("", &body, 48));
    for (i, (bits, expected)) in values.iter().enumerate() {
        assert_eq!(w[i], *expected, "testp of {bits:#010x}");
    }
    assert_eq!(w[6], 1, "0x0008000000000000 is an f64 subnormal");
    assert_eq!(w[7], 0xc049_0fdb, "copysign(-1, pi) = -pi");
    assert_eq!(&w[8..], [0x3f80_0000, 0, 0xffff_ffff, 0xffff_ffff]);
}

/// Operand forms: `WARP_SZ` (32), a vector register moved to and from a scalar (`.x` in the
/// low bits) and stored whole, `call` with `.reg` parameters and return value, a register plus
/// an immediate as a source operand, and `nanosleep` (a no-op).
#[test]
fn operand_forms() {
    let functions = ".func (.reg .b32 r) twice_plus(.reg .b32 x, .reg .b32 y)\n{\n\
                     \t.reg .b32 t;\n\tadd.s32 t, x, x;\n\tadd.s32 r, t, y;\n\tret;\n}";
    let body = "\t.reg .b32 %r<4>;\n\t.reg .v2 .b16 v;\n\t.reg .v4 .b32 q;\n\
                \tmov.u32 %r0, WARP_SZ;\n\
                \tmov.b32 v, 0xbeef1234;\n\
                \tmov.b32 %r1, v;\n\
                \tcall (%r2), twice_plus, (%r0, 5);\n\
                \tnanosleep.u32 100;\n\
                \tmov.v4.b32 q, {%r0, %r1, %r2, 0};\n\
                \tst.global.v4.b32 [%out], q;\n\
                \tst.global.b16 [%out+16], v.y;\n\
                \tst.global.u64 [%out+24], %out + 3;\n\
                \tld.global.v2.b16 v, [%out+16];\n\
                \tst.global.v2.b16 [%out+20], v;";
    let bytes = run(functions, body, 32);
    let w = words32(&bytes);
    assert_eq!(&w[..4], [32, 0xbeef_1234, 69, 0]);
    // `v.y` stored alone, then loaded back whole (`v.y` from the zero bytes above it) and
    // stored whole.
    assert_eq!(w[4], 0xbeef);
    assert_eq!(w[5], 0xbeef);
    let address = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
    assert_eq!(
        address & 0xfff,
        3,
        "the buffer address plus 3: {address:#x}"
    );
}

/// A `.reg` parameter call from many threads keeps each thread's values apart, and the callee
/// runs in lockstep with the caller's warp.
#[test]
fn register_parameters_are_per_thread() {
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
                  .func (.reg .u32 r) square(.reg .u32 x)\n{\n\tmul.lo.u32 r, x, x;\n\tret;\n}\n\
                  .visible .entry k(.param .u64 out)\n{\n\t.reg .u32 t, s;\n\t.reg .u64 o, w;\n\
                  \tld.param.u64 o, [out];\n\tmov.u32 t, %tid.x;\n\
                  \tcall (s), square, (t);\n\tmul.wide.u32 w, t, 4;\n\tadd.u64 o, o, w;\n\
                  \tst.global.u32 [o], s;\n\tret;\n}\n";
    let program = ptxsim_exec::load(source, None).expect("loads");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [64, 1, 1],
        10_000,
        vec![Argument::Buffer(vec![0; 256])],
    )
    .expect("valid");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let out = device
        .global
        .buffer_at(addresses[0].expect("address"))
        .expect("buffer")
        .contents();
    let expected: Vec<u32> = (0..64).map(|t| t * t).collect();
    assert_eq!(words32(&out), expected);
}

/// PTX ISA 6.4.2, "Arrays as Operands": "`mov.u32 s, a[1]; // move address of a[1] into s`" —
/// `name[N]` is the address of element `N`, `N` times the element size past the array's start
/// (tinygrad writes `mov.u64 %rd, local0[0]` for its shared buffers).
#[test]
fn array_element_operands_are_element_addresses() {
    let body = "\t.reg .b64 %a, %b, %c;\n\t.shared .align 8 .b64 arr[16];\n\
                \t.shared .align 4 .v2 .f32 pairs[4];\n\
                \tmov.u64 %a, arr[0];\n\tmov.u64 %b, arr[5];\n\tsub.u64 %b, %b, %a;\n\
                \tmov.u64 %c, pairs[3];\n\tmov.u64 %a, pairs[0];\n\tsub.u64 %c, %c, %a;\n\
                \tst.global.v2.u64 [%out], {%b, %c};";
    let bytes = run("", body, 16);
    let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    assert_eq!(word(0), 5 * 8, "arr[5] is 40 bytes past arr[0]");
    assert_eq!(
        word(1),
        3 * 8,
        "pairs[3] is 3 .v2 .f32 elements past pairs[0]"
    );
}

/// A variable named as the address of a generic access (no state space) is at its generic
/// address (PTX ISA 6.4.1: "If no state space is given, ... the address is a generic
/// address"; 5.1.6: the `.local`, `.shared`, `.const` and `.param` windows of the generic
/// space), as ZLUDA's `reg_local` and `cp_async` kernels use it and ptxas 13.5 accepts: a
/// generic `st` to a `.local` array and a generic `ld` of a `.shared` one reach the variables
/// the space-specific instructions use. Before, these read and wrote address 0 (a trap).
#[test]
fn a_named_variable_in_a_generic_access_is_at_its_generic_address() {
    let body = "\t.local .align 8 .b8 local_x[8];\n\t.shared .align 4 .b8 sh[16];\n\
        \t.reg .b64 %rd<4>;\n\t.reg .b32 %r<3>;\n\
        \tmov.u64 %rd1, 77;\n\tst.u64 [local_x], %rd1;\n\tld.local.u64 %rd2, [local_x];\n\
        \tst.global.u64 [%out], %rd2;\n\
        \tmov.u32 %r1, 5;\n\tst.shared.u32 [sh+4], %r1;\n\tld.b32 %r2, [sh+4];\n\
        \tst.global.u32 [%out+8], %r2;";
    assert_eq!(words32(&run("", body, 12)), [77, 0, 5]);
}

/// `.target sm_1x` arithmetic as CUDA compiles it for a newer device (PTX ISA 9.7.3.7, `mad`:
/// "When JIT-compiled for SM 2.0 devices, `mad.f32` is implemented as a fused multiply-add
/// (i.e., `fma.rn.ftz.f32`)"; "sm_1x: ... `mad.f32` flushes subnormal inputs and results to
/// sign-preserving zero", and the same note for `add.f32`, `mul.f32`, `min.f32`, ...). ptxas 13.5
/// `-arch sm_90` takes `mad.f32` without a rounding modifier for `.target sm_10` (at `.version
/// 1.4` and 3.2, where `.target sm_20` is an error) and emits `FFMA.FTZ`, `FMUL.FTZ`,
/// `FADD.FTZ`, `FMNMX.FTZ` (nvdisasm) for the sm_10 module and the forms without `.FTZ` for
/// `.target sm_50`. The values are worked by hand:
/// * a = b = 1 + 2^-12 (0x3F800800), c = -1: a*b = 1 + 2^-11 + 2^-24. Fused, d = 2^-11 + 2^-24
///   = 0x3A000400 exactly; a product rounded (or, on an sm_1x GPU, truncated) to 24 bits first
///   loses the 2^-24 and gives 2^-11 = 0x3A000000.
/// * 2^-70 * 2^-70 + 0 = 2^-140, below the smallest normal 2^-126: flushed, +0; else the
///   subnormal 2^9 * 2^-149 = 0x00000200.
/// * the subnormal 0x00000200 + 0: flushed, +0; else 0x00000200. min(-0x00000200, 1): flushed
///   -0 (0x80000000, sign preserved); else 0x80000200.
#[test]
fn sm_1x_f32_arithmetic_is_fused_and_flushes() {
    let body = "\t.reg .f32 f<12>;\n\
                \tmov.b32 f1, 0x3F800800;\n\tmov.b32 f2, 0xBF800000;\n\
                \tmad.f32 f3, f1, f1, f2;\n\
                \tmov.b32 f4, 0x1C800000;\n\tmov.b32 f5, 0;\n\
                \tmad.f32 f6, f4, f4, f5;\n\
                \tmul.f32 f7, f4, f4;\n\
                \tmov.b32 f8, 0x00000200;\n\
                \tadd.f32 f9, f8, f5;\n\
                \tmov.b32 f10, 0x80000200;\n\tmov.b32 f11, 0x3F800000;\n\
                \tmin.f32 f10, f10, f11;\n\
                \tst.global.v4.f32 [%out], {f3, f6, f7, f9};\n\
                \tst.global.f32 [%out+16], f10;";
    // The sm_1x module: `mad.f32` is `mad.rn.ftz.f32`, every `.f32` operation flushes.
    let old = words32(&run_as(".version 2.3\n.target sm_10", "", body, 20));
    assert_eq!(
        old,
        [0x3A00_0400, 0, 0, 0, 0x8000_0000],
        "sm_10: {old:08x?}"
    );
    // The same instructions with `mad.rn.f32` for sm_50: fused, subnormals kept.
    let new_body = body.replace("mad.f32", "mad.rn.f32");
    let new = words32(&run_as(".version 6.0\n.target sm_50", "", &new_body, 20));
    assert_eq!(
        new,
        [
            0x3A00_0400,
            0x0000_0200,
            0x0000_0200,
            0x0000_0200,
            0x8000_0200
        ],
        "sm_50: {new:08x?}"
    );
}
