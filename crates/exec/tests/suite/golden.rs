//! The golden tables of `tests/golden/` (NVIDIA-header-derived; see their headers) through the
//! executor: for every column that is a PTX instruction form, a kernel with that one `cvt` is
//! generated, lowered once, and run on every row of the table with the input preloaded
//! into a register. The expected bits are the table's, so the executor's operand plumbing (lane
//! placement, random-bit layouts, chopping and extension) is checked against the same reference
//! as `ptxsim-softfloat`.
//!
//! Columns that name no PTX form (per-element conversions PTX only offers with `.satfinite`,
//! `.rz`/`.rm`/`.rp` for fp6/fp4, `.rn` for ue8m0, f64 to fp8/fp6/fp4, fp8 to bf16, `.sat` where
//! the destination range is a superset) are rejected by `ptxsim-isa` when the kernel is lowered;
//! the test lists them and checks that exactly those are skipped.

use crate::common::{Column, Table, is_nan, load};
use ptxsim_exec::{Machine, Outcome, Program};
use ptxsim_softfloat::{Rounding, Type};

/// How a column's single value goes into a PTX instruction and comes back out.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// `cvt.rnd.T.F d, a`: the value is `a`, the result `d`.
    Scalar,
    /// `cvt.rnd.sat.X2.f32 d, a, b`: the value is `a`, the result the upper lane.
    F32Pair,
    /// `cvt.rnd.sat.X2.{f16x2,bf16x2} d, a`: the value is `a[31:16]`, the result the upper lane.
    HalfPair,
    /// `cvt.rn.{f16x2,bf16x2}.X2 d, a`: the value is the upper lane of `a`, the result `d[31:16]`.
    FromPair,
    /// `cvt.rs.{f16x2,bf16x2}.f32 d, a, b, rbits`: `a`'s random bits in `rbits[31:16]`.
    RsHalf2,
    /// `cvt.rs.X4.f32 d, {a, b, e, f}, rbits`: `a`'s random bits where the spec puts them.
    RsX4,
}

fn ptx_name(t: Type) -> &'static str {
    t.name()
}

fn pair_name(t: Type) -> String {
    format!("{}x2", t.name())
}

fn lane_bits(t: Type) -> u32 {
    match t {
        Type::E2m1 => 4,
        Type::F16 | Type::Bf16 => 16,
        _ => 8,
    }
}

fn rounding_name(r: Rounding) -> &'static str {
    r.name()
}

fn isa_type(t: Type) -> ptxsim_isa::Type {
    ptxsim_isa::Type::from_name(t.name()).unwrap_or(ptxsim_isa::Type::B32)
}

fn bit_register(bits: u32) -> &'static str {
    match bits {
        0..=8 => ".b8",
        9..=16 => ".b16",
        17..=32 => ".b32",
        _ => ".b64",
    }
}

fn flags_text(column: &Column) -> String {
    let mut text = String::new();
    for (on, name) in [
        (column.flags.ftz, ".ftz"),
        (column.flags.sat, ".sat"),
        (column.flags.relu, ".relu"),
        (column.flags.satfinite, ".satfinite"),
    ] {
        if on {
            text.push_str(name);
        }
    }
    text
}

/// The instruction (operands `%d`, `%a`, `%b`, `%e`, `%f`, `%r`) and its shape for a column.
fn plan(from: Type, column: &Column) -> (String, Shape) {
    let to = column.to;
    let r = rounding_name(column.rounding);
    let flags = flags_text(column);
    let small = matches!(
        to,
        Type::E4m3 | Type::E5m2 | Type::E2m3 | Type::E3m2 | Type::E2m1 | Type::Ue8m0
    );
    let small_from = matches!(
        from,
        Type::E4m3 | Type::E5m2 | Type::E2m3 | Type::E3m2 | Type::E2m1 | Type::Ue8m0
    );
    if column.rounding == Rounding::Rs {
        if matches!(to, Type::F16 | Type::Bf16) {
            let text = format!("cvt.rs{flags}.{}x2.f32 %d, %a, %b, %r", ptx_name(to));
            return (text, Shape::RsHalf2);
        }
        let text = format!(
            "cvt.rs{flags}.{}x4.f32 %d, {{%a, %b, %e, %f}}, %r",
            ptx_name(to)
        );
        return (text, Shape::RsX4);
    }
    if small_from {
        let text = format!("cvt.{r}{flags}.{}x2.{}", ptx_name(to), pair_name(from));
        return (format!("{text} %d, %a"), Shape::FromPair);
    }
    if small && from == Type::F32 {
        let text = format!("cvt.{r}{flags}.{}.f32 %d, %a, %b", pair_name(to));
        return (text, Shape::F32Pair);
    }
    if small && matches!(from, Type::F16 | Type::Bf16) {
        let text = format!(
            "cvt.{r}{flags}.{}.{}x2 %d, %a",
            pair_name(to),
            ptx_name(from)
        );
        return (text, Shape::HalfPair);
    }
    // A scalar conversion: write the rounding only where the conversion takes one (exact
    // conversions such as cvt.f32.f16 or int-to-int take none; the table's mode is moot).
    let (allowed, _) = ptxsim_isa::cvt::scalar_rounding(isa_type(to), isa_type(from));
    let rounding = ptxsim_isa::Rounding::from_name(r)
        .filter(|x| allowed.contains(x) || to == Type::Tf32)
        .map_or(String::new(), |x| x.to_string());
    let text = format!(
        "cvt{rounding}{flags}.{}.{} %d, %a",
        ptx_name(to),
        ptx_name(from)
    );
    (text, Shape::Scalar)
}

fn kernel(from: Type, column: &Column, instruction: &str, shape: Shape) -> String {
    let d = match shape {
        Shape::Scalar => bit_register(column.to.bits().max(8)),
        Shape::F32Pair | Shape::HalfPair => bit_register(2 * lane_bits(column.to)),
        Shape::FromPair | Shape::RsHalf2 => ".b32",
        Shape::RsX4 => bit_register(4 * lane_bits(column.to)),
    };
    let a = match shape {
        Shape::Scalar => bit_register(from.bits().max(8)),
        Shape::F32Pair | Shape::RsHalf2 | Shape::RsX4 | Shape::HalfPair => ".b32",
        Shape::FromPair => bit_register(2 * lane_bits(from)),
    };
    format!(
        ".version 9.1\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg {d} %d;\n.reg {a} %a;\n.reg .b32 %b, %e, %f, %r;\n{instruction};\nret;\n}}\n"
    )
}

fn run_one(program: &Program, shape: Shape, column: &Column, input: u64, random: u32) -> u64 {
    let mut machine = Machine::new(program, 16);
    let id = |name: &str| program.register(name).expect("register exists");
    let to = column.to;
    let lane = lane_bits(to);
    let a = match shape {
        Shape::HalfPair => u128::from(input) << 16,
        Shape::FromPair => u128::from(input) << lane_bits_from(program),
        Shape::Scalar | Shape::F32Pair | Shape::RsHalf2 | Shape::RsX4 => u128::from(input),
    };
    machine.set_register(id("%a"), a);
    let rbits: u32 = match (shape, to) {
        (Shape::RsHalf2, Type::F16) => (random & 0x1fff) << 16,
        (Shape::RsHalf2, _) => (random & 0xffff) << 16,
        (Shape::RsX4, Type::E2m1) => (random & 0xff) << 24,
        (Shape::RsX4, _) => (random & 0xffff) << 16,
        _ => 0,
    };
    machine.set_register(id("%r"), u128::from(rbits));
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    let d = machine.registers()[id("%d").index()] as u64;
    match shape {
        Shape::Scalar => d & mask(to.bits()),
        Shape::F32Pair | Shape::HalfPair => (d >> lane) & mask(lane),
        Shape::FromPair | Shape::RsHalf2 => (d >> 16) & 0xffff,
        Shape::RsX4 => (d >> (3 * lane)) & mask(lane),
    }
}

/// The lane width of the packed source of a `FromPair` kernel, from `%a`'s register width.
fn lane_bits_from(program: &Program) -> u32 {
    let a = program.register("%a").expect("%a");
    program.registers[a.index()].bits() / 2
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Runs every row of every PTX-expressible column of a table; returns (checked columns, skipped
/// column specs, mismatch reports).
fn check(name: &str) -> (usize, Vec<String>, Vec<String>) {
    let table: Table = load(name);
    let mut checked = 0;
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for (index, column) in table.columns.iter().enumerate() {
        let (instruction, shape) = plan(table.from, column);
        let source = kernel(table.from, column, &instruction, shape);
        let program = match ptxsim_exec::load(&source, None) {
            Ok(program) => program,
            Err(_) => {
                skipped.push(column.spec.clone());
                continue;
            }
        };
        checked += 1;
        let mut bad = 0;
        let mut first = None;
        for (input, random, outputs) in &table.rows {
            let want = outputs[index];
            let got = run_one(&program, shape, column, *input, *random);
            let ok = if column.nan_any && is_nan(want, column.to) {
                is_nan(got, column.to)
            } else {
                got == want
            };
            if !ok {
                bad += 1;
                first.get_or_insert(format!(
                    "in={input:#x} r={random:#x} want={want:#x} got={got:#x}"
                ));
            }
        }
        if bad > 0 {
            failures.push(format!(
                "{name} `{instruction}` ({}): {bad} mismatches, e.g. {}",
                column.spec,
                first.unwrap_or_default()
            ));
        }
    }
    (checked, skipped, failures)
}

fn assert_golden(name: &str, expected_skips: &[&str]) {
    let (checked, skipped, failures) = check(name);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(checked > 0, "{name}: no column is a PTX form");
    assert_eq!(
        skipped, expected_skips,
        "{name}: columns without a PTX form"
    );
}

const FP6_FP4_DIRECTED: [&str; 9] = [
    "e2m3/rz/satfinite/exact",
    "e3m2/rz/satfinite/exact",
    "e2m1/rz/satfinite/exact",
    "e2m3/rm/satfinite/exact",
    "e3m2/rm/satfinite/exact",
    "e2m1/rm/satfinite/exact",
    "e2m3/rp/satfinite/exact",
    "e3m2/rp/satfinite/exact",
    "e2m1/rp/satfinite/exact",
];

fn with_directed(prefix: &[&'static str], suffix: &[&'static str]) -> Vec<&'static str> {
    let mut all = prefix.to_vec();
    all.extend(FP6_FP4_DIRECTED);
    all.extend(suffix);
    all
}

/// `cvt.f32.f16`, `cvt.rn.satfinite.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}.f16x2`.
#[test]
fn golden_f16_through_the_executor() {
    assert_golden(
        "f16.txt.xz",
        &with_directed(&["e4m3/rn/-/exact", "e5m2/rn/-/exact"], &[]),
    );
}

/// `cvt.rzi.{s8,...,u64}.f16`.
#[test]
fn golden_f16_to_int_through_the_executor() {
    assert_golden("f16_to_int.txt.xz", &[]);
}

/// `cvt.f32.bf16`, `.bf16x2` to fp8/fp6/fp4, `cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2`.
#[test]
fn golden_bf16_through_the_executor() {
    assert_golden(
        "bf16.txt.xz",
        &with_directed(
            &["e4m3/rn/-/exact", "e5m2/rn/-/exact"],
            &["ue8m0/rn/satfinite/exact", "ue8m0/rn/-/exact"],
        ),
    );
}

/// `cvt.rzi.{s8,...,u64}.bf16`.
#[test]
fn golden_bf16_to_int_through_the_executor() {
    assert_golden("bf16_to_int.txt.xz", &[]);
}

/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}`; PTX has no fp8/fp6/fp4 to bf16
/// or f32.
#[test]
fn golden_small_formats_through_the_executor() {
    for name in [
        "e4m3.txt.xz",
        "e5m2.txt.xz",
        "e2m3.txt.xz",
        "e3m2.txt.xz",
        "e2m1.txt.xz",
    ] {
        assert_golden(name, &["bf16/rn/-/exact", "f32/rn/-/exact"]);
    }
}

/// `cvt.rn.bf16x2.ue8m0x2`.
#[test]
fn golden_ue8m0_through_the_executor() {
    // PTX converts ue8m0 only to bf16 (`cvt.rn.bf16x2.ue8m0x2`).
    assert_golden("ue8m0.txt.xz", &["f32/rn/-/nan-any"]);
}

/// f32 sources: f16/bf16 in four modes, fp8/fp6/fp4 pairs, ue8m0 pairs.
#[test]
fn golden_f32_through_the_executor() {
    assert_golden(
        "f32.txt.xz",
        &with_directed(&["e4m3/rn/-/exact", "e5m2/rn/-/exact"], &[]),
    );
}

/// 105,000 random f32 inputs (a sample).
#[test]
fn golden_f32_random_through_the_executor() {
    assert_golden("f32_random.txt.xz", &[]);
}

/// Integral rounding, `cvt.f64.f32`, tf32, float-to-integer, `.relu`/`.satfinite`/`.ftz`/`.sat`.
#[test]
fn golden_f32_fpu_through_the_executor() {
    assert_golden("f32_fpu.txt.xz", &[]);
}

/// `.rs` with the random bits placed in `rbits` as the spec lays them out per form.
#[test]
fn golden_f32_rs_through_the_executor() {
    assert_golden("f32_rs.txt.xz", &[]);
}

/// f64 sources.
#[test]
fn golden_f64_through_the_executor() {
    let mut skips = vec![
        "e4m3/rn/satfinite/nan-any",
        "e5m2/rn/satfinite/nan-any",
        "e4m3/rn/-/nan-any",
        "e5m2/rn/-/nan-any",
        "e2m3/rn/satfinite/exact",
        "e3m2/rn/satfinite/exact",
        "e2m1/rn/satfinite/exact",
    ];
    skips.extend(FP6_FP4_DIRECTED);
    assert_golden("f64.txt.xz", &skips);
}

/// Integer sources to floats and integers (`.sat` only where the range can shrink).
#[test]
fn golden_integers_through_the_executor() {
    assert_golden("s16.txt.xz", &[]);
    assert_golden("u16.txt.xz", &[]);
    assert_golden("s32.txt.xz", &["s32/rn/sat/exact", "s64/rn/sat/exact"]);
    assert_golden(
        "u32.txt.xz",
        &["u32/rn/sat/exact", "s64/rn/sat/exact", "u64/rn/sat/exact"],
    );
    assert_golden("s64.txt.xz", &["s64/rn/sat/exact"]);
    assert_golden("u64.txt.xz", &["u64/rn/sat/exact"]);
}
