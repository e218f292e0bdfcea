//! The SIMD video instructions (PTX ISA 9.7.18.2: `vadd2` ... `vset4`) run end to end.
//!
//! Every expected word is worked out by hand from the Semantics blocks of vadd4.md, vadd2.md,
//! vset4.md and vset2.md (the lanes are listed in each comment), never from ptxsim's output.
//! The kernels are accepted by `ptxas -arch sm_90`.

use super::scalar::{run, words32};

/// Runs `lines` (each writing one of `d0`..`d15`) with `a`, `b`, `c` (and `m`, `z`) set, and
/// returns the words `d0`.. in order.
fn video(a: u32, b: u32, c: u32, m: u32, lines: &[&str]) -> Vec<u32> {
    let mut body = format!(
        "\t.reg .b32 a, b, c, m, z, d<16>;\n\tmov.b32 a, {a};\n\tmov.b32 b, {b};\n\
         \tmov.b32 c, {c};\n\tmov.b32 m, {m};\n\tmov.b32 z, 0;\n"
    );
    for (i, line) in lines.iter().enumerate() {
        body.push_str(&format!(
            "\t{line}\n\tst.global.b32 [%out+{}], d{i};\n",
            4 * i
        ));
    }
    words32(&run("", &body, 4 * lines.len()))
}

/// `vabsdiff4` (the form of cuda-samples' stereoDisparity, `.add`), its `.sat` clamps, the
/// byte masks merging with `c` and accumulating, and the byte selectors. `a` = bytes (low
/// first) 0x05 0xff 0x80 0x10, `b` = 0x0a 0x01 0x7f 0x20.
#[test]
fn vabsdiff4_accumulates_saturates_and_merges() {
    let w = video(
        0x1080_ff05,
        0x207f_010a,
        100,
        0xaabb_ccdd,
        &[
            // unsigned: |5-10| + |255-1| + |128-127| + |16-32| = 5 + 254 + 1 + 16 = 276.
            "vabsdiff4.u32.u32.u32.add d0, a, b, c;",
            // signed: |5-10| + |-1-1| + |-128-127| + |16-32| = 5 + 2 + 255 + 16 = 278.
            "vabsdiff4.s32.s32.s32.add d1, a, b, c;",
            // 5, 254, 1, 16 all fit U8.
            "vabsdiff4.u32.u32.u32.sat d2, a, b, c;",
            // 5, 2, 255 -> S8_MAX 127, 16.
            "vabsdiff4.s32.s32.s32.sat d3, a, b, c;",
            // 5, 2, 255 (its low byte), 16.
            "vabsdiff4.s32.s32.s32 d4, a, b, c;",
            // .b20: t[0] = 5 and t[2] = 1; lanes 1 and 3 keep c's 0xcc and 0xaa.
            "vabsdiff4.u32.u32.u32 d5.b20, a, b, m;",
            // .b31: 100 + t[1] + t[3] = 100 + 254 + 16.
            "vabsdiff4.u32.u32.u32.add d6.b31, a, b, c;",
            // Va = bytes 7,6,5,4 in lanes 0..3 = 0x20 0x7f 0x01 0x0a; Vb = byte 0 (0x05)
            // four times: 27 + 122 + 4 + 5 = 158.
            "vabsdiff4.u32.u32.u32.add d7, a.b4567, b.b0000, z;",
        ],
    );
    assert_eq!(
        w,
        [
            376,
            378,
            0x1001_fe05,
            0x107f_0205,
            0x10ff_0205,
            0xaa01_cc05,
            370,
            158
        ]
    );
}

/// `vadd4`, `vsub4`, `vavrg4`, `vmin4`, `vmax4` with the same bytes: unsigned, signed and
/// mixed operand types, `.sat`, and a negative accumulation.
#[test]
fn quad_byte_arithmetic_follows_the_semantics() {
    let w = video(
        0x1080_ff05,
        0x207f_010a,
        100,
        0,
        &[
            // 15, 256 -> 255, 255, 48.
            "vadd4.u32.u32.u32.sat d0, a, b, c;",
            // 15, 256 -> its low byte 0, 255, 48.
            "vadd4.u32.u32.u32 d1, a, b, c;",
            // -5 -> 0xfb, -2 -> 0xfe, -255 -> S8_MIN 0x80, -16 -> 0xf0.
            "vsub4.s32.s32.s32.sat d2, a, b, c;",
            // -5 -> U8_MIN 0, 254, 1, -16 -> 0.
            "vsub4.u32.u32.u32.sat d3, a, b, c;",
            // Va unsigned 5 255 128 16, Vb signed 10 1 127 32: -5, 254 -> 127, 1, -16.
            "vsub4.s32.u32.s32.sat d4, a, b, c;",
            // 100 + (-5) + (-2) + (-255) + (-16) = -178.
            "vsub4.s32.s32.s32.add d5, a, b, c;",
            // (15+1)>>1 = 8, (256+1)>>1 = 128, (255+1)>>1 = 128, (48+1)>>1 = 24.
            "vavrg4.u32.u32.u32 d6, a, b, c;",
            // 8, (0+1)>>1 = 0, -1 is negative: -1>>1 = -1 (0xff), 24.
            "vavrg4.s32.s32.s32 d7, a, b, c;",
            // 5, 1, 127, 16.
            "vmin4.u32.u32.u32 d8, a, b, c;",
            // 5, -1, -128, 16.
            "vmin4.s32.s32.s32 d9, a, b, c;",
            // 10, 255, 128, 32.
            "vmax4.u32.u32.u32 d10, a, b, c;",
            // 10, 1, 127, 32.
            "vmax4.s32.s32.s32 d11, a, b, c;",
        ],
    );
    assert_eq!(
        w,
        [
            0x30ff_ff0f,
            0x30ff_000f,
            0xf080_fefb,
            0x0001_fe00,
            0xf001_7ffb,
            (100i32 - 278) as u32,
            0x1880_8008,
            0x18ff_0008,
            0x107f_0105,
            0x1080_ff05,
            0x2080_ff0a,
            0x207f_010a,
        ]
    );
}

/// The dual half-word forms: `a` = halves (low first) 0xffff 0x8000, `b` = 0x0001 0x7fff;
/// `.sat` to S16/U16, the `.h1` mask, the half-word selectors.
#[test]
fn dual_half_word_forms_follow_the_semantics() {
    let w = video(
        0x8000_ffff,
        0x7fff_0001,
        100,
        0xaaaa_bbbb,
        &[
            // 100 + |65535-1| + |32768-32767| = 100 + 65534 + 1.
            "vabsdiff2.u32.u32.u32.add d0, a, b, c;",
            // 100 + |-1-1| + |-32768-32767| = 100 + 2 + 65535.
            "vabsdiff2.s32.s32.s32.add d1, a, b, c;",
            // 2, 65535 -> S16_MAX 0x7fff.
            "vabsdiff2.s32.s32.s32.sat d2, a, b, c;",
            // 65536 -> U16_MAX, 65535.
            "vadd2.u32.u32.u32.sat d3, a, b, c;",
            // 65536 -> its low half 0, 65535.
            "vadd2.u32.u32.u32 d4, a, b, c;",
            // -2 -> 0xfffe, -65535 -> S16_MIN 0x8000.
            "vsub2.s32.s32.s32.sat d5, a, b, c;",
            // (0+1)>>1 = 0, -1>>1 = -1.
            "vavrg2.s32.s32.s32 d6, a, b, c;",
            // -1, -32768.
            "vmin2.s32.s32.s32 d7, a, b, c;",
            // 1, 32767.
            "vmax2.s32.s32.s32 d8, a, b, c;",
            // .h1: lane 1 = 0x8000 + 0x7fff; lane 0 keeps m's 0xbbbb.
            "vadd2.u32.u32.u32 d9.h1, a, b, m;",
            // Va = halves 2, 3 (b's: 1, 0x7fff), Vb = half 0 (0xffff) twice:
            // 1 + 65535 + 32767 + 65535.
            "vadd2.u32.u32.u32.add d10, a.h32, b.h00, z;",
            // 65535 > 1, 32768 > 32767.
            "vset2.u32.u32.gt d11, a, b, c;",
            // -1 > 1 and -32768 > 32767 are false.
            "vset2.s32.s32.gt d12, a, b, c;",
        ],
    );
    assert_eq!(
        w,
        [
            65635,
            65637,
            0x7fff_0002,
            0xffff_ffff,
            0xffff_0000,
            0x8000_fffe,
            0xffff_0000,
            0x8000_ffff,
            0x7fff_0001,
            0xffff_bbbb,
            163_838,
            0x0001_0001,
            0,
        ]
    );
}

/// `vset4`: "`t[i] = compare( Va[i], Vb[i], cmp ) ? 1 : 0`", merged or accumulated.
#[test]
fn vset4_compares_each_byte() {
    let w = video(
        0x1080_ff05,
        0x207f_010a,
        100,
        0,
        &[
            // 5<10, 255<1, 128<127, 16<32.
            "vset4.u32.u32.lt d0, a, b, c;",
            // 5<10, -1<1, -128<127, 16<32.
            "vset4.s32.s32.lt d1, a, b, c;",
            // no byte is >=: 100.
            "vset4.s32.s32.ge.add d2, a, b, c;",
            // every byte differs: 100 + 4.
            "vset4.u32.u32.ne.add d3, a, b, c;",
        ],
    );
    assert_eq!(w, [0x0100_0001, 0x0101_0101, 100, 104]);
}
