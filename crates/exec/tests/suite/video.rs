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

/// The scalar video instructions (9.7.18.1) modelled from their Semantics blocks (vadd.md,
/// vshl.md, vset.md, vmad.md) and the section's helper functions, written out here without
/// ptxsim: `partSelectSignExtend`, `optSaturate` ("taking into account the subword
/// destination size in the case of optional data merging"), `optSecondaryOp` ("The sign of
/// the third operand is based on dtype") and `optMerge`.
mod scalar_model {
    /// A selector: `None` for the whole word, `Some((true, i))` for `.h<i>`, `Some((false,
    /// i))` for `.b<i>`.
    pub type Sel = Option<(bool, u32)>;

    pub fn sel_text(sel: Sel) -> String {
        match sel {
            None => String::new(),
            Some((true, i)) => format!(".h{i}"),
            Some((false, i)) => format!(".b{i}"),
        }
    }

    /// `partSelectSignExtend( x, type, sel )`: the byte, half-word or word, sign- or
    /// zero-extended.
    pub fn part(x: u32, signed: bool, sel: Sel) -> i64 {
        let (value, width) = match sel {
            None => (x as u64, 32),
            Some((true, i)) => ((x as u64 >> (16 * i)) & 0xffff, 16),
            Some((false, i)) => ((x as u64 >> (8 * i)) & 0xff, 8),
        };
        let top = 1u64 << (width - 1);
        if signed && value & top != 0 {
            value as i64 - (1i64 << width)
        } else {
            value as i64
        }
    }

    /// `optSaturate( tmp, sat, sign, dsel )`.
    pub fn saturate(tmp: i128, sat: bool, sign: bool, dsel: Sel) -> i128 {
        if !sat {
            return tmp;
        }
        let width = match dsel {
            Some((false, _)) => 8,
            Some((true, _)) => 16,
            None => 32,
        };
        let (lo, hi) = if sign {
            (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
        } else {
            (0, (1i128 << width) - 1)
        };
        tmp.max(lo).min(hi)
    }

    /// `optSecondaryOp( op2, a, b )` then `optMerge( dsel, a, b )`, the word `d`.
    pub fn finish(op2: &str, tmp: i128, c: u32, c_signed: bool, dsel: Sel) -> u32 {
        let c_wide = if c_signed {
            c as i32 as i128
        } else {
            c as i128
        };
        let d = match op2 {
            "add" => tmp + c_wide,
            "min" => tmp.min(c_wide),
            "max" => tmp.max(c_wide),
            _ => tmp,
        } as u32;
        match dsel {
            Some((true, 0)) => (d & 0xffff) | (0xffff_0000 & c),
            Some((true, _)) => ((d & 0xffff) << 16) | (0x0000_ffff & c),
            Some((false, 0)) => (d & 0xff) | (0xffff_ff00 & c),
            Some((false, 1)) => ((d & 0xff) << 8) | (0xffff_00ff & c),
            Some((false, 2)) => ((d & 0xff) << 16) | (0xff00_ffff & c),
            Some((false, _)) => ((d & 0xff) << 24) | (0x00ff_ffff & c),
            None => d,
        }
    }

    /// `vmad`: the Semantics block of vmad.md with 128-bit `tmp`; the scaled result keeps
    /// its sign ("this result is sign-extended if the final result is signed").
    #[allow(clippy::too_many_arguments)]
    pub fn vmad(
        signs: [bool; 2],
        negate: [bool; 3],
        po: bool,
        sat: bool,
        scale: u32,
        ta: i64,
        tb: i64,
        c: u32,
    ) -> u32 {
        let signed_final = signs[0] || signs[1] || (negate[0] ^ negate[1]) || negate[2];
        let mut tmp = ta as i128 * tb as i128;
        let mut c = c;
        let mut lsb = 0i128;
        if po {
            lsb = 1;
        } else if negate[0] ^ negate[1] {
            tmp = !tmp;
            lsb = 1;
        } else if negate[2] {
            c = !c;
            lsb = 1;
        }
        let c128 = if signed_final {
            c as i32 as i128
        } else {
            c as i128
        };
        tmp = tmp + c128 + lsb;
        let mut result = tmp >> scale;
        if sat {
            let (lo, hi) = if signed_final {
                (i32::MIN as i128, i32::MAX as i128)
            } else {
                (0, u32::MAX as i128)
            };
            result = result.max(lo).min(hi);
        }
        result as u32
    }
}

/// A line of PTX and the model of the word it writes from `a`, `b`, `c`.
type ScalarForm = (String, Box<dyn Fn(u32, u32, u32) -> u32>);

/// Runs each line (writing `d`) in its own slot with `a`, `b`, `c` set and returns the words.
fn scalar_video(a: u32, b: u32, c: u32, lines: &[String]) -> Vec<u32> {
    let mut body = format!(
        "\t.reg .b32 a, b, c, d;\n\tmov.b32 a, {a};\n\tmov.b32 b, {b};\n\tmov.b32 c, {c};\n"
    );
    for (i, line) in lines.iter().enumerate() {
        body.push_str(&format!("\t{line}\n\tst.global.b32 [%out+{}], d;\n", 4 * i));
    }
    words32(&run("", &body, 4 * lines.len()))
}

/// `(a, b, c)` triples: bytes and half-words of both signs, shift amounts below and above
/// 32 (vshl.md: "`if ( mode == .clamp && tb > 32 ) tb = 32; if ( mode == .wrap ) tb = tb &
/// 0x1f;`"), values whose sums and products leave the 32-bit ranges.
const SCALAR_VALUES: [(u32, u32, u32); 5] = [
    (0x8000_ff85, 0x7fff_0123, 0x1234_5678),
    (0xffff_fff0, 0x0000_0028, 0x8000_0001),
    (0x7fff_ffff, 0x8000_0000, 0xffff_ffff),
    (5, 3, 100),
    (0x0102_8081, 0x2a1f_0621, 0xfedc_ba98),
];

/// Every line of `forms` against the model, for every triple of [`SCALAR_VALUES`].
fn check_scalar_forms(forms: &[ScalarForm]) {
    let lines: Vec<String> = forms.iter().map(|(line, _)| line.clone()).collect();
    for &(a, b, c) in &SCALAR_VALUES {
        for (chunk, got) in lines.chunks(200).zip(forms.chunks(200)) {
            let words = scalar_video(a, b, c, chunk);
            for ((line, model), word) in got.iter().zip(words) {
                let want = model(a, b, c);
                assert_eq!(
                    word, want,
                    "{line} with a = {a:#x}, b = {b:#x}, c = {c:#x}: {word:#x}, the model {want:#x}"
                );
            }
        }
    }
}

const TYPE_TRIPLES: [[bool; 3]; 4] = [
    [false, false, false],
    [true, true, true],
    [true, false, true],
    [false, true, false],
];

fn ty(signed: bool) -> &'static str {
    if signed { "s32" } else { "u32" }
}

/// The endings of a scalar video line: no `c`, `.op2` with `c`, `d.dsel` with `c`.
const TAILS: [(&str, scalar_model::Sel); 6] = [
    ("", None),
    ("add", None),
    ("min", None),
    ("max", None),
    ("", Some((false, 2))),
    ("", Some((true, 1))),
];

/// One line `vop.types{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` (`modifiers` after the
/// types).
fn scalar_line(
    opcode: &str,
    types: &[bool],
    modifiers: &str,
    (op2, dsel): (&str, scalar_model::Sel),
    asel: scalar_model::Sel,
    bsel: scalar_model::Sel,
) -> String {
    use scalar_model::sel_text;
    let types: String = types.iter().map(|&s| format!(".{}", ty(s))).collect();
    let op2_text = if op2.is_empty() {
        String::new()
    } else {
        format!(".{op2}")
    };
    let c = if op2.is_empty() && dsel.is_none() {
        ""
    } else {
        ", c"
    };
    format!(
        "{opcode}{types}{modifiers}{op2_text} d{}, a{}, b{}{c};",
        sel_text(dsel),
        sel_text(asel),
        sel_text(bsel)
    )
}

/// `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax` over the operand types, `.sat`, the selectors,
/// the secondary operations and the merges (vadd.md).
#[test]
fn scalar_arithmetic_follows_the_semantics() {
    use scalar_model::{finish, part, saturate};
    let selectors: [(scalar_model::Sel, scalar_model::Sel); 3] = [
        (None, None),
        (Some((false, 1)), Some((true, 0))),
        (Some((true, 1)), Some((false, 3))),
    ];
    let mut forms: Vec<ScalarForm> = Vec::new();
    for opcode in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] {
        for types in TYPE_TRIPLES {
            for sat in [false, true] {
                for (asel, bsel) in selectors {
                    for tail in TAILS {
                        let line = scalar_line(
                            opcode,
                            &types,
                            if sat { ".sat" } else { "" },
                            tail,
                            asel,
                            bsel,
                        );
                        let model = move |a: u32, b: u32, c: u32| {
                            let ta = part(a, types[1], asel);
                            let tb = part(b, types[2], bsel);
                            let tmp = i128::from(match opcode {
                                "vadd" => ta + tb,
                                "vsub" => ta - tb,
                                "vabsdiff" => (ta - tb).abs(),
                                "vmin" => ta.min(tb),
                                _ => ta.max(tb),
                            });
                            let tmp = saturate(tmp, sat, types[0], tail.1);
                            finish(tail.0, tmp, c, types[0], tail.1)
                        };
                        forms.push((line, Box::new(model)));
                    }
                }
            }
        }
    }
    check_scalar_forms(&forms);
}

/// `vshl`, `vshr` with `.clamp` and `.wrap` (vshl.md), and `vset` with each comparison
/// (vset.md: "The intermediate result of the comparison is always unsigned, and therefore
/// destination d and operand c are also unsigned").
#[test]
fn scalar_shifts_and_comparisons_follow_the_semantics() {
    use scalar_model::{finish, part, saturate};
    let mut forms: Vec<ScalarForm> = Vec::new();
    for opcode in ["vshl", "vshr"] {
        for [d_signed, a_signed] in [[false, false], [true, true], [true, false], [false, true]] {
            for clamp in [true, false] {
                for sat in [false, true] {
                    for (asel, bsel) in [(None, None), (Some((true, 1)), Some((false, 0)))] {
                        for tail in TAILS {
                            let modifiers = format!(
                                "{}.{}",
                                if sat { ".sat" } else { "" },
                                if clamp { "clamp" } else { "wrap" }
                            );
                            let line = scalar_line(
                                opcode,
                                &[d_signed, a_signed, false],
                                &modifiers,
                                tail,
                                asel,
                                bsel,
                            );
                            let model = move |a: u32, b: u32, c: u32| {
                                let ta = part(a, a_signed, asel);
                                let mut tb = part(b, false, bsel);
                                if clamp && tb > 32 {
                                    tb = 32;
                                }
                                if !clamp {
                                    tb &= 0x1f;
                                }
                                // An s33 shifted by up to 32 bits: 65 bits.
                                let tmp = if opcode == "vshl" {
                                    (ta as i128) << tb
                                } else {
                                    (ta >> tb) as i128
                                };
                                let tmp = saturate(tmp, sat, d_signed, tail.1);
                                finish(tail.0, tmp, c, d_signed, tail.1)
                            };
                            forms.push((line, Box::new(model)));
                        }
                    }
                }
            }
        }
    }
    for [a_signed, b_signed] in [[false, false], [true, true], [false, true]] {
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
            for (asel, bsel) in [(None, None), (Some((false, 3)), Some((true, 1)))] {
                for tail in TAILS {
                    let line = scalar_line(
                        "vset",
                        &[a_signed, b_signed],
                        &format!(".{cmp}"),
                        tail,
                        asel,
                        bsel,
                    );
                    let model = move |a: u32, b: u32, c: u32| {
                        let ta = part(a, a_signed, asel);
                        let tb = part(b, b_signed, bsel);
                        let t = match cmp {
                            "eq" => ta == tb,
                            "ne" => ta != tb,
                            "lt" => ta < tb,
                            "le" => ta <= tb,
                            "gt" => ta > tb,
                            _ => ta >= tb,
                        };
                        finish(tail.0, i128::from(t), c, false, tail.1)
                    };
                    forms.push((line, Box::new(model)));
                }
            }
        }
    }
    check_scalar_forms(&forms);
}

/// `vmad` (vmad.md) over the operand types, the negations ptxas takes, `.po`, `.sat`,
/// `.shr7`/`.shr15` and selectors.
#[test]
fn vmad_follows_the_semantics() {
    use scalar_model::{part, sel_text, vmad};
    let mut forms: Vec<ScalarForm> = Vec::new();
    let negations: [[bool; 3]; 5] = [
        [false, false, false],
        [true, false, false],
        [false, true, false],
        [false, false, true],
        [true, true, true],
    ];
    for types in TYPE_TRIPLES {
        for negate in negations {
            for po in [false, true] {
                if po && negate != [false; 3] {
                    continue;
                }
                for sat in [false, true] {
                    for (scale, scale_text) in [(0, ""), (7, ".shr7"), (15, ".shr15")] {
                        for (asel, bsel) in [(None, None), (Some((true, 1)), Some((false, 2)))] {
                            let minus = |n: bool| if n { "-" } else { "" };
                            let line = format!(
                                "vmad.{}.{}.{}{}{}{scale_text} d, {}a{}, {}b{}, {}c;",
                                ty(types[0]),
                                ty(types[1]),
                                ty(types[2]),
                                if po { ".po" } else { "" },
                                if sat { ".sat" } else { "" },
                                minus(negate[0]),
                                sel_text(asel),
                                minus(negate[1]),
                                sel_text(bsel),
                                minus(negate[2]),
                            );
                            let model = move |a: u32, b: u32, c: u32| {
                                let ta = part(a, types[1], asel);
                                let tb = part(b, types[2], bsel);
                                vmad([types[1], types[2]], negate, po, sat, scale, ta, tb, c)
                            };
                            forms.push((line, Box::new(model)));
                        }
                    }
                }
            }
        }
    }
    check_scalar_forms(&forms);
}

/// Hand-worked values: the examples of vadd.md, vmad.md and vset.md on chosen operands.
#[test]
fn scalar_video_examples() {
    let lines: Vec<String> = [
        // a.b0 = 0x85 unsigned 133, b.h0 = 0x0123 signed 291: 424.
        "vadd.s32.u32.s32.sat d, a.b0, b.h0;",
        // a.h1 = 0x8000 signed -32768, b.h1 = 0x7fff unsigned 32767: -65535, in S32 range.
        "vsub.s32.s32.u32.sat d, a.h1, b.h1;",
        // a.b0 = 0x85 signed -123, b.b2 = 0xff signed -1: |-122| = 122 = 0x7a into h0 of c.
        "vabsdiff.s32.s32.s32.sat d.h0, a.b0, b.b2, c;",
        // MIN(a, b) signed = a = 0x8000ff85 (-2147418235); + c 0x12345678: 0x9235_55fd.
        "vmin.s32.s32.s32.sat.add d, a, b, c;",
        // 0x85 * 0x23 = 133 * 35 = 4655 (u32 * u32 + u32) + 0x12345678.
        "vmad.u32.u32.u32 d, a.b0, b.b0, c;",
        // (0x8000 * 0x0123) >> 15 = 32768 * 291 >> 15 = 291, + c >> 15 folded in first:
        // (9535488 + 0x12345678) >> 15 = (9535488 + 305419896) >> 15 = 9611.
        "vmad.u32.u32.u32.shr15 d, a.h1, b.h0, c;",
        // a = 0x8000ff85 unsigned < b = 0x7fff0123 unsigned? no: 0.
        "vset.u32.u32.lt d, a, b;",
        // signed: a < b: 1.
        "vset.s32.s32.lt d, a, b;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let words = scalar_video(0x8000_ff85, 0x7fff_0123, 0x1234_5678, &lines);
    assert_eq!(
        words,
        [
            424,
            (-65535i32) as u32,
            0x1234_007a,
            0x9235_55fd,
            0x1234_5678 + 4655,
            9611,
            0,
            1,
        ]
    );
}
