//! The `alu::approx` models against the H200 measurements in `tests/hardware/approx/`
//! (`scripts/hardware/approx/README.md`) and the PTX ISA's error bounds.
//!
//! * The 16-bit forms are silicon tables: equal to the GPU on all 65,536 operands, and their
//!   x2 forms on one chunk of 2^24 packed operands (chunk hashes).
//! * Every other form: its results on the measured operands are within the ISA's bound of the
//!   exact function (computed here with the host's f64 functions; the GPU's own results are
//!   checked against the same bound, which checks the bound), the special values of the ISA
//!   text equal the GPU's, and the fraction of measured operands where the model gives the
//!   GPU's bits is at least the floor recorded in `docs/approx.md`.

#[path = "approx_data/mod.rs"]
mod approx_data;

use approx_data as data;
use ptxsim_exec::alu::approx::{self, Approx32, Fidelity};

#[test]
fn sixteen_bit_tables_are_the_gpu_results() {
    let mut raw = data::Raw::open();
    for form in [
        "ex2.approx.f16",
        "ex2.approx.ftz.bf16",
        "tanh.approx.f16",
        "tanh.approx.bf16",
    ] {
        assert_eq!(approx::fidelity(form), Some(Fidelity::BitExact));
        let s = raw.section(&format!("{form}.table"));
        assert_eq!(s.inputs, (0..65536).collect::<Vec<u64>>());
        let model = data::model(form).unwrap();
        for (x, y) in s.inputs.iter().zip(&s.outputs) {
            assert_eq!(model(*x), *y, "{form} {x:04x}");
        }
    }
}

#[test]
fn x2_forms_match_the_gpu_chunk_hashes() {
    let gpu = data::hashes();
    for form in [
        "ex2.approx.f16x2",
        "ex2.approx.ftz.bf16x2",
        "tanh.approx.f16x2",
        "tanh.approx.bf16x2",
    ] {
        assert_eq!(approx::fidelity(form), Some(Fidelity::BitExact));
        let want = &gpu[&(form.to_string(), "all-2^32".to_string())];
        for c in [0x3cu64] {
            let model = data::model(form).unwrap();
            let mut sum = 0u64;
            for i in c << 24..(c + 1) << 24 {
                sum = sum.wrapping_add(data::hash(i, model(i)));
            }
            assert_eq!(sum, want[c as usize], "{form} chunk {c}");
        }
    }
}

/// The exact function on the host (reference for the bound checks only).
fn exact(f: Approx32, x: f64) -> f64 {
    match f {
        Approx32::Ex2 => x.exp2(),
        Approx32::Lg2 => x.log2(),
        Approx32::Sin => x.sin(),
        Approx32::Cos => x.cos(),
        Approx32::Tanh => x.tanh(),
        Approx32::Rsqrt => 1.0 / x.sqrt(),
        Approx32::Rcp => 1.0 / x,
        Approx32::Sqrt => x.sqrt(),
    }
}

fn ulp32(y: f64) -> f64 {
    let e = (y.abs() as f32).to_bits() >> 23;
    f64::from(f32::from_bits(e.max(1) << 23)) * 2f64.powi(-23)
}

/// The PTX ISA's bound for `f` at operand `x` (None where the ISA states none): whether
/// `y` (a result) is within it.
fn within_bound(f: Approx32, x: f32, y: f32) -> Option<bool> {
    let xd = f64::from(x);
    if !x.is_finite() || x.is_subnormal() || (y.is_nan() && !exact(f, xd).is_nan()) {
        return None;
    }
    let e = exact(f, xd);
    if !e.is_finite() || (e != 0.0 && e.abs() < 2f64.powi(-126)) || e.abs() > f64::from(f32::MAX) {
        return None;
    }
    let err = (f64::from(y) - e).abs();
    Some(match f {
        // "Max relative error 2^-22 ..." (ex2: measured within 2 ulp of 2^a).
        Approx32::Ex2 => err <= 2.0 * ulp32(e),
        // "Max absolute error 2^-22.6 for mantissa": the GPU's results are further from
        // log2(a) than that near a = 0.5 (2^-19.4 for 0x3f000006), so the check is an
        // absolute 2^-19 plus one ulp of the result, which the GPU meets on every operand.
        Approx32::Lg2 => err <= 2f64.powi(-19) + ulp32(e),
        // "Max absolute error 2^-20.5 in the range -100π..+100π" (checked here on -π..π).
        Approx32::Sin | Approx32::Cos => {
            if xd.abs() > std::f64::consts::PI {
                return None;
            }
            err <= 2f64.powf(-20.5)
        }
        // "Max relative error 2^-11" (tanh).
        Approx32::Tanh => err <= e.abs() * 2f64.powi(-11),
        // "Max relative error 2^-22.9 over the entire range".
        Approx32::Rsqrt => err <= e.abs() * 2f64.powf(-22.9),
        // "The maximum ulp error is 1 across the full range of inputs".
        Approx32::Rcp => err <= ulp32(e),
        // "The maximum relative error over the entire positive finite floating-point range
        // is 2^-23": one ulp of the result.
        Approx32::Sqrt => err <= ulp32(e),
    })
}

/// The f32 forms, all computed from the silicon tables of the multi-function unit
/// (`alu::approx::mufu`): every function with and without `.ftz` (`tanh` has no `.ftz` form).
fn unit_forms() -> Vec<String> {
    Approx32::ALL
        .into_iter()
        .flat_map(|f| {
            let ftz = (f != Approx32::Tanh).then(|| format!("{}.approx.ftz.f32", f.name()));
            std::iter::once(format!("{}.approx.f32", f.name())).chain(ftz)
        })
        .collect()
}

#[test]
fn unit_tables_have_their_lengths() {
    use approx::mufu;
    for t in [
        &mufu::EX2,
        &mufu::RCP,
        &mufu::RSQ,
        &mufu::SQRT,
        &mufu::LG2,
        &mufu::RCP64H,
        &mufu::RSQ64H,
        &mufu::SIN_Q0,
        &mufu::COS_Q0,
    ] {
        assert_eq!(t.results().len(), t.len);
    }
    let tanh = mufu::tanh_table();
    let n: u32 = tanh.ks.iter().map(|k| 1 << (23 - k)).sum();
    assert!(n > 0 && tanh.results.len() == n as usize);
}

/// Every measured operand of every raw section (the ends of each binade, a sparse sweep, the
/// key binades densely and every 7th pattern; about 5.4 million operands a form) gives the
/// GPU's bits, and so does one whole chunk of 2^24 operands (chunk hashes; the example
/// `approx_hashes` checks all 256 chunks, see docs/approx.md).
#[test]
fn unit_forms_are_the_gpu_results() {
    let mut raw = data::Raw::open();
    let gpu = data::hashes();
    for form in unit_forms() {
        let form = form.as_str();
        assert_eq!(approx::fidelity(form), Some(Fidelity::BitExact), "{form}");
        let mut n = 0usize;
        for name in raw.sections_of(form) {
            let s = raw.section(&name);
            let model = data::model(form).unwrap();
            for (x, y) in s.inputs.iter().zip(&s.outputs) {
                assert_eq!(model(*x), *y, "{form} {x:08x}");
                n += 1;
            }
        }
        assert!(n > 5_000_000, "{form}: {n} operands");
    }
    for (form, c) in [
        // [-2, -0.5); [0, 2^-124) (the subnormal scaling); sin of [2, 8) (every quadrant);
        // tanh of [0.5, 2).
        ("ex2.approx.f32", 0xbfu64),
        ("lg2.approx.f32", 0x00),
        ("rcp.approx.ftz.f32", 0x00),
        ("sin.approx.f32", 0x40),
        ("tanh.approx.f32", 0x3f),
    ] {
        let want = &gpu[&(form.to_string(), "all-2^32".to_string())];
        let model = data::model(form).unwrap();
        let mut sum = 0u64;
        for i in c << 24..(c + 1) << 24 {
            sum = sum.wrapping_add(data::hash(i, model(i)));
        }
        assert_eq!(sum, want[c as usize], "{form} chunk {c}");
    }
}

/// The GPU's own results meet the ISA's error bounds (as `within_bound` states them) on the
/// measured operands of the `.common` sections, so the bounds quoted in the model's
/// documentation describe the hardware; the model gives the GPU's bits there too.
#[test]
fn the_gpu_meets_the_isa_bounds() {
    let mut raw = data::Raw::open();
    for form in unit_forms() {
        let form = form.as_str();
        let f = Approx32::ALL
            .into_iter()
            .find(|f| form.starts_with(f.name()))
            .unwrap();
        let ftz = form.contains(".ftz");
        let mut n = 0usize;
        for name in raw
            .sections_of(form)
            .into_iter()
            .filter(|n| n.ends_with(".common"))
        {
            let s = raw.section(&name);
            for (x, y) in s.inputs.iter().zip(&s.outputs) {
                let (x, gpu) = (*x as u32, *y as u32);
                let xf = f32::from_bits(x);
                if let Some(ok) = within_bound(f, xf, f32::from_bits(gpu)) {
                    assert!(
                        ok,
                        "{form}: the GPU's {gpu:08x} for {x:08x} is outside the bound"
                    );
                    n += 1;
                }
                assert_eq!(approx::approx_f32(f, x, ftz), gpu, "{form} {x:08x}");
            }
        }
        assert!(n > 10_000, "{form}: {n} operands checked against the bound");
    }
}

/// The special values the PTX ISA lists (PTX ISA, each instruction's "Notes"), as bit patterns.
#[test]
fn isa_special_values() {
    const PINF: u32 = 0x7f80_0000;
    const NINF: u32 = 0xff80_0000;
    const NAN: u32 = 0x7fff_ffff;
    let cases: &[(Approx32, u32, u32)] = &[
        // ex2: "-Inf -> +0.0", "-0.0 -> +1.0", "+0.0 -> +1.0", "+Inf -> +Inf", "NaN -> NaN".
        (Approx32::Ex2, NINF, 0),
        (Approx32::Ex2, 0x8000_0000, 0x3f80_0000),
        (Approx32::Ex2, 0, 0x3f80_0000),
        (Approx32::Ex2, PINF, PINF),
        (Approx32::Ex2, 0x7fc0_0000, NAN),
        // lg2: "-Inf -> NaN", "-0.0 -> -Inf", "+0.0 -> -Inf", "+Inf -> +Inf", "NaN -> NaN".
        (Approx32::Lg2, NINF, NAN),
        (Approx32::Lg2, 0x8000_0000, NINF),
        (Approx32::Lg2, 0, NINF),
        (Approx32::Lg2, PINF, PINF),
        (Approx32::Lg2, 0xbf80_0000, NAN),
        // sin/cos: "-Inf -> NaN", "±0.0 -> ±0.0" (sin) / "+1.0" (cos), "+Inf -> NaN".
        (Approx32::Sin, NINF, NAN),
        (Approx32::Sin, 0x8000_0000, 0x8000_0000),
        (Approx32::Sin, PINF, NAN),
        (Approx32::Cos, NINF, NAN),
        (Approx32::Cos, 0x8000_0000, 0x3f80_0000),
        (Approx32::Cos, PINF, NAN),
        // tanh: "-Inf -> -1.0", "+Inf -> +1.0", "±0.0 -> ±0.0".
        (Approx32::Tanh, NINF, 0xbf80_0000),
        (Approx32::Tanh, PINF, 0x3f80_0000),
        (Approx32::Tanh, 0x8000_0000, 0x8000_0000),
        // rsqrt: "-Inf -> NaN", "-0.0 -> -Inf", "+0.0 -> +Inf", "+Inf -> +0.0", negative: NaN.
        (Approx32::Rsqrt, NINF, NAN),
        (Approx32::Rsqrt, 0x8000_0000, NINF),
        (Approx32::Rsqrt, 0, PINF),
        (Approx32::Rsqrt, PINF, 0),
        (Approx32::Rsqrt, 0xbf80_0000, NAN),
        // rcp: "-Inf -> -0.0", "-0.0 -> -Inf", "+0.0 -> +Inf", "+Inf -> +0.0".
        (Approx32::Rcp, NINF, 0x8000_0000),
        (Approx32::Rcp, 0x8000_0000, NINF),
        (Approx32::Rcp, 0, PINF),
        (Approx32::Rcp, PINF, 0),
        // sqrt: "-Inf -> NaN", "-0.0 -> -0.0", "+0.0 -> +0.0", "+Inf -> +Inf", negative: NaN.
        (Approx32::Sqrt, NINF, NAN),
        (Approx32::Sqrt, 0x8000_0000, 0x8000_0000),
        (Approx32::Sqrt, 0, 0),
        (Approx32::Sqrt, PINF, PINF),
        (Approx32::Sqrt, 0xbf80_0000, NAN),
    ];
    for &(f, a, want) in cases {
        for ftz in [false, true] {
            assert_eq!(
                approx::approx_f32(f, a, ftz),
                want,
                "{} {a:08x} ftz {ftz}",
                f.name()
            );
        }
    }
    // .ftz: "subnormal inputs and results are flushed to sign-preserving zero".
    assert_eq!(
        approx::approx_f32(Approx32::Sqrt, 0x8000_0001, true),
        0x8000_0000
    );
    assert_eq!(approx::approx_f32(Approx32::Rcp, 0x7f7f_ffff, true), 0);
    assert_eq!(approx::approx_f32(Approx32::Lg2, 0x0000_0001, true), NINF);
}

#[test]
fn f64_forms() {
    let mut raw = data::Raw::open();
    // (form, relative bound, agreement floor)
    for (form, bound, floor) in [
        ("rcp.approx.ftz.f64", 2f64.powi(-20), 1.0),
        ("rsqrt.approx.f64", 2f64.powi(-20), 1.0),
        ("rsqrt.approx.ftz.f64", 2f64.powi(-20), 1.0),
    ] {
        assert_eq!(approx::fidelity(form), Some(Fidelity::BitExact));
        let (mut n, mut equal) = (0usize, 0usize);
        for name in raw
            .sections_of(form)
            .into_iter()
            .filter(|n| n.ends_with(".common"))
        {
            let s = raw.section(&name);
            for (x, y) in s.inputs.iter().zip(&s.outputs) {
                let model = data::eval(form, *x).unwrap();
                n += 1;
                equal += usize::from(model == *y);
                let xf = f64::from_bits(*x);
                let exact = if form.starts_with("rcp") {
                    1.0 / xf
                } else {
                    1.0 / xf.sqrt()
                };
                let normal = |v: f64| v.is_normal();
                if normal(xf) && normal(exact) && normal(f64::from_bits(*y)) {
                    for (who, v) in [("gpu", *y), ("model", model)] {
                        let err = (f64::from_bits(v) - exact).abs() / exact.abs();
                        assert!(err <= bound, "{form} {who} {x:016x}: {v:016x}");
                    }
                }
            }
        }
        let rate = equal as f64 / n as f64;
        assert!(
            rate >= floor,
            "{form}: {equal} of {n} equal ({rate}), floor {floor}"
        );
    }
    // The refined form reads the low word: one chunk of high words [1, 2)..[2^1, 2^2) with a
    // nonzero low word, against the GPU's chunk hash.
    let gpu = data::hashes();
    let form = "rsqrt.approx.f64";
    let want = &gpu[&(form.to_string(), "hi-2^32-lo-2545f491".to_string())];
    let c = 0x3fu64;
    let model = data::model(form).unwrap();
    let mut sum = 0u64;
    for i in c << 24..(c + 1) << 24 {
        sum = sum.wrapping_add(data::hash(i, model((i << 32) | 0x2545_f491)));
    }
    assert_eq!(sum, want[c as usize], "{form} chunk {c}");
}

#[test]
fn div_forms() {
    let mut raw = data::Raw::open();
    for (form, floor) in [
        ("div.approx.f32", 1.0),
        ("div.approx.ftz.f32", 1.0),
        ("div.full.f32", 1.0),
        ("div.full.ftz.f32", 1.0),
    ] {
        assert_eq!(approx::fidelity(form), Some(Fidelity::BitExact));
        let (mut n, mut equal) = (0usize, 0usize);
        for name in raw.sections_of(form) {
            let s = raw.section(&name);
            for ((a, b), y) in data::div_inputs(&s.inputs_spec, s.outputs.len())
                .iter()
                .zip(&s.outputs)
            {
                let gpu = *y as u32;
                let model = data::eval_div(form, *a, *b);
                n += 1;
                equal += usize::from(model == gpu);
                let (af, bf) = (f32::from_bits(*a), f32::from_bits(*b));
                let exact = f64::from(af) / f64::from(bf);
                // "the maximum ulp error is 2" (div.approx: for |b| in [2^-126, 2^126]; div.full:
                // across the full range), for normal operands and quotients.
                let range = form.starts_with("div.full")
                    || (2f32.powi(-126)..=2f32.powi(126)).contains(&bf.abs());
                if af.is_normal()
                    && bf.is_normal()
                    && range
                    && exact.abs() >= 2f64.powi(-126)
                    && exact.abs() < f64::from(f32::MAX)
                {
                    for (who, v) in [("gpu", gpu), ("model", model)] {
                        let err = (f64::from(f32::from_bits(v)) - exact).abs();
                        assert!(
                            err <= 2.0 * ulp32(exact),
                            "{form} {who} {a:08x}/{b:08x}: {v:08x}"
                        );
                    }
                }
                if f32::from_bits(gpu).is_nan() {
                    assert_eq!(model, gpu, "{form} {a:08x}/{b:08x}");
                }
            }
        }
        let rate = equal as f64 / n as f64;
        assert!(
            rate >= floor,
            "{form}: {equal} of {n} equal ({rate}), floor {floor}"
        );
    }
}

#[test]
fn no_panics_on_edge_operands() {
    let edges32 = [
        0u32,
        1,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7f80_0001,
        u32::MAX,
    ];
    for a in edges32 {
        for s in [0, 0x8000_0000] {
            for f in Approx32::ALL {
                approx::approx_f32(f, a | s, false);
                approx::approx_f32(f, a | s, true);
            }
            for b in edges32 {
                approx::div_approx_f32(a | s, b, false);
                approx::div_full_f32(a | s, b, true);
            }
        }
    }
    for a in [
        0u64,
        1,
        0x000f_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        u64::MAX,
        1 << 63,
    ] {
        approx::rcp_approx_ftz_f64(a);
        approx::rsqrt_approx_f64(a, false);
        approx::rsqrt_approx_f64(a, true);
    }
    assert_eq!(approx::fidelity("add.f32"), None);
}
