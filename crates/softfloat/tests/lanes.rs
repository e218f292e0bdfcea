//! The packed forms against the golden tables, lane by lane: every input of each 16-bit or
//! narrower source appears in both lanes (PTX ISA 9.7.9.21 Semantics: `d[15:8] =
//! convert(a[31:16]); d[7:0] = convert(a[15:0])` and the other packings).

mod common;

use common::{Table, is_nan, load};
use ptxsim_softfloat::pack::{
    cvt_f32x2_to_half2, cvt_f32x2_to_x2, cvt_half2_to_x2, cvt_x2_to_half2, lane_bits,
};
use ptxsim_softfloat::{Rounding, Type};

/// A fixed permutation of 0..n (n a power of two) pairing each input with another one.
fn partner(i: usize, n: usize) -> usize {
    (i.wrapping_mul(40503) + 12345) & (n - 1)
}

fn column(t: &Table, spec: &str) -> usize {
    t.columns
        .iter()
        .position(|c| c.spec == spec)
        .unwrap_or_else(|| panic!("{} has no column {spec}", t.name))
}

/// "When converting an `.f16x2`/`.bf16x2` input to `.e4m3x2`/`.e5m2x2` ... the value converted
/// from the upper 16 bits of input `a` is stored in the upper 8 bits of `d`"; likewise for
/// `.e2m3x2`/`.e3m2x2` (2 zero MSBs), `.e2m1x2` (4-bit lanes) and `.ue8m0x2` from `.bf16x2`,
/// every input in both lanes.
#[test]
fn half2_sources_pack_each_lane() {
    for (file, from) in [("f16.txt.xz", Type::F16), ("bf16.txt.xz", Type::Bf16)] {
        let t = load(file);
        let n = t.rows.len();
        for spec in [
            "e4m3/rn/satfinite/exact",
            "e5m2/rn/satfinite/exact",
            "e2m3/rn/satfinite/exact",
            "e3m2/rn/satfinite/exact",
            "e2m1/rn/satfinite/exact",
            "ue8m0/rz/satfinite/exact",
            "ue8m0/rp/-/exact",
        ] {
            // ue8m0 from f16x2 is not a PTX form (only `.ue8m0x2.bf16x2`).
            let Some(ci) = t.columns.iter().position(|c| c.spec == spec) else {
                assert!(
                    spec.starts_with("ue8m0") && from == Type::F16,
                    "{file} lacks {spec}"
                );
                continue;
            };
            let c = &t.columns[ci];
            let lane = lane_bits(c.to);
            let mut bad = 0;
            for i in 0..n {
                let j = partner(i, n);
                let a = ((t.rows[i].0 as u32) << 16) | t.rows[j].0 as u32;
                let want = (t.rows[i].2[ci] << lane) | t.rows[j].2[ci];
                let got = cvt_half2_to_x2(a, from, c.to, c.rounding, c.flags);
                if u64::from(got) != want {
                    bad += 1;
                }
            }
            assert_eq!(bad, 0, "{file} {spec}: {bad} packed mismatches");
        }
    }
}

/// "When converting from `.e4m3x2`/`.e5m2x2` to `.f16x2` ... the value converted from the upper
/// 8 bits of `a` is stored in the upper 16 bits of `d`"; also fp6 ("Each 8-bit input value with
/// 2 MSB bits 0"), `.e2m1x2` (4-bit lanes) and `.ue8m0x2` to `.bf16x2`.
#[test]
fn narrow_x2_to_half2_each_lane() {
    for (file, from, to) in [
        ("e4m3.txt.xz", Type::E4m3, Type::F16),
        ("e5m2.txt.xz", Type::E5m2, Type::F16),
        ("e2m3.txt.xz", Type::E2m3, Type::F16),
        ("e3m2.txt.xz", Type::E3m2, Type::F16),
        ("e2m1.txt.xz", Type::E2m1, Type::F16),
        ("ue8m0.txt.xz", Type::Ue8m0, Type::Bf16),
    ] {
        let t = load(file);
        let ci = column(&t, &format!("{}/rn/-/exact", to.name()));
        let n = t.rows.len();
        let lane = lane_bits(from);
        for i in 0..n {
            let j = partner(i, n);
            let a = ((t.rows[i].0 << lane) | t.rows[j].0) as u16;
            let want = (t.rows[i].2[ci] << 16) | t.rows[j].2[ci];
            let got = cvt_x2_to_half2(a, from, to, ptxsim_softfloat::Flags::NONE);
            assert_eq!(u64::from(got), want, "{file}: a={a:#x}");
        }
    }
}

/// "the value converted from input `a` is stored in the upper half of `d` and the value
/// converted from input `b` is stored in the lower half of `d`" (`.f16x2`, `.bf16x2`), and
/// `d[15:8] = convert(a); d[7:0] = convert(b)` for the fp8/fp6/ue8m0 x2 forms from f32.
#[test]
fn f32_pairs_pack_a_high_b_low() {
    let t = load("f32.txt.xz");
    let n = t.rows.len();
    for (spec, to) in [
        ("f16/rn/-/exact", Type::F16),
        ("f16/rz/-/exact", Type::F16),
        ("bf16/rn/-/exact", Type::Bf16),
        ("bf16/rz/-/exact", Type::Bf16),
    ] {
        let ci = column(&t, spec);
        let c = &t.columns[ci];
        for i in 0..n {
            let j = (i * 7 + 1) % n;
            let got = cvt_f32x2_to_half2(
                t.rows[i].0 as u32,
                t.rows[j].0 as u32,
                to,
                c.rounding,
                c.flags,
                0,
            );
            let want = (t.rows[i].2[ci] << 16) | t.rows[j].2[ci];
            assert_eq!(u64::from(got), want, "{spec} row {i}");
        }
    }
    for spec in [
        "e4m3/rn/satfinite/exact",
        "e5m2/rn/satfinite/exact",
        "e2m3/rn/satfinite/exact",
        "e3m2/rn/satfinite/exact",
        "e2m1/rn/satfinite/exact",
        "ue8m0/rz/satfinite/exact",
        "ue8m0/rp/satfinite/exact",
    ] {
        let ci = column(&t, spec);
        let c = &t.columns[ci];
        let lane = lane_bits(c.to);
        for i in 0..n {
            let j = (i * 7 + 1) % n;
            let got = cvt_f32x2_to_x2(
                t.rows[i].0 as u32,
                t.rows[j].0 as u32,
                c.to,
                c.rounding,
                c.flags,
            );
            let want = (t.rows[i].2[ci] << lane) | t.rows[j].2[ci];
            assert_eq!(u64::from(got), want, "{spec} row {i}");
        }
    }
    assert!(!is_nan(0, Type::F16));
    let _ = Rounding::Rn;
}
