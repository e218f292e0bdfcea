//! Reader for the golden tables in `tests/golden/` (written by `scripts/golden/gen_golden.cpp`
//! and `scripts/golden/alu.sh`, stored xz-compressed as `NAME.txt.xz`; [`read_golden`] is the one
//! place that opens them, here and in `crates/exec/tests`).
//!
//! A `gen_golden.cpp` table has `#` comment lines, a `#! from=<type> [random=1]` line, an optional `#! inputs=`
//! line (inputs regenerated instead of stored), a `#! columns=` line of
//! `to/rounding/flags/compare` specs, and rows `<input hex> [<random hex>] <hex blob>
//! <decimals>`: the float-typed outputs concatenated as fixed-width hex, then the integer-typed
//! outputs as decimals.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

use ptxsim_softfloat::{Flags, Rounding, Type, convert};

/// One column of a table: the conversion it checks.
#[derive(Clone, Debug)]
pub struct Column {
    pub spec: String,
    pub to: Type,
    pub rounding: Rounding,
    pub flags: Flags,
    /// Only NaN-ness is compared when the expected value is NaN.
    pub nan_any: bool,
}

/// A parsed table.
#[derive(Debug)]
pub struct Table {
    pub name: String,
    pub from: Type,
    pub random: bool,
    pub columns: Vec<Column>,
    /// `(input, random bits, outputs in column order)`.
    pub rows: Vec<(u64, u32, Vec<u64>)>,
}

pub fn parse_type(s: &str) -> Type {
    Type::ALL
        .into_iter()
        .find(|t| t.name() == s)
        .unwrap_or_else(|| panic!("unknown type {s}"))
}

pub fn parse_rounding(s: &str) -> Rounding {
    match s {
        "rn" => Rounding::Rn,
        "rna" => Rounding::Rna,
        "rz" => Rounding::Rz,
        "rm" => Rounding::Rm,
        "rp" => Rounding::Rp,
        "rs" => Rounding::Rs,
        "rni" => Rounding::Rni,
        "rzi" => Rounding::Rzi,
        "rmi" => Rounding::Rmi,
        "rpi" => Rounding::Rpi,
        other => panic!("unknown rounding {other}"),
    }
}

pub fn parse_flags(s: &str) -> Flags {
    let mut f = Flags::NONE;
    if s == "-" {
        return f;
    }
    for part in s.split(',') {
        match part {
            "ftz" => f.ftz = true,
            "sat" => f.sat = true,
            "relu" => f.relu = true,
            "satfinite" => f.satfinite = true,
            other => panic!("unknown flag {other}"),
        }
    }
    f
}

fn hex_digits(t: Type) -> usize {
    (t.bits() as usize).div_ceil(4)
}

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// The text of the golden table `name` (`tests/golden/NAME`, e.g. `f16.txt.xz`), decompressed.
/// Panics, naming the file, when it is missing, not valid xz (corrupt or truncated: the xz
/// check fails) or not UTF-8.
pub fn read_golden(name: &str) -> String {
    let path = golden_dir().join(name);
    let packed = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read golden table {}: {e} (regenerate with scripts/golden/generate.sh or \
             scripts/golden/alu.sh)",
            path.display()
        )
    });
    unpack(&path, &packed)
}

/// The text of the xz stream `packed` read from `path` (named in the panics).
pub fn unpack(path: &Path, packed: &[u8]) -> String {
    let mut text = Vec::new();
    lzma_rs::xz_decompress(&mut &packed[..], &mut text)
        .unwrap_or_else(|e| panic!("golden table {} is not valid xz: {e:?}", path.display()));
    String::from_utf8(text)
        .unwrap_or_else(|e| panic!("golden table {} is not UTF-8: {e}", path.display()))
}

pub fn load(name: &str) -> Table {
    let text = read_golden(name);
    let mut from = None;
    let mut random = false;
    // `#! inputs=xorshift64-f64:SEED:COUNT`: inputs are regenerated, rows hold outputs only.
    let mut generated: Option<Vec<u64>> = None;
    let mut next_generated = 0usize;
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("#! from=") {
            let mut it = rest.split_whitespace();
            from = Some(parse_type(it.next().unwrap_or_default()));
            random = it.any(|w| w == "random=1");
            continue;
        }
        if let Some(rest) = line.strip_prefix("#! inputs=") {
            generated = Some(generated_inputs(rest));
            continue;
        }
        if let Some(rest) = line.strip_prefix("#! columns=") {
            for spec in rest.split_whitespace() {
                let p: Vec<&str> = spec.split('/').collect();
                assert_eq!(p.len(), 4, "bad column spec {spec}");
                columns.push(Column {
                    spec: spec.to_string(),
                    to: parse_type(p[0]),
                    rounding: parse_rounding(p[1]),
                    flags: parse_flags(p[2]),
                    nan_any: p[3] == "nan-any",
                });
            }
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut tok = line.split_whitespace();
        let input = if let Some(g) = &generated {
            next_generated += 1;
            g[next_generated - 1]
        } else {
            u64::from_str_radix(tok.next().unwrap_or_default(), 16).expect("input")
        };
        let r = if random {
            u32::from_str_radix(tok.next().unwrap_or_default(), 16).expect("random")
        } else {
            0
        };
        let mut outs = vec![0u64; columns.len()];
        let has_hex = columns.iter().any(|c| c.to.integer().is_none());
        if has_hex {
            let blob = tok.next().expect("hex blob");
            let mut pos = 0;
            for (i, c) in columns.iter().enumerate() {
                if c.to.integer().is_some() {
                    continue;
                }
                let w = hex_digits(c.to);
                outs[i] = u64::from_str_radix(&blob[pos..pos + w], 16).expect("hex field");
                pos += w;
            }
            assert_eq!(pos, blob.len(), "hex blob width in {name}");
        }
        for (i, c) in columns.iter().enumerate() {
            if let Some((w, _)) = c.to.integer() {
                let d: i128 = tok.next().expect("decimal").parse().expect("decimal value");
                let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                outs[i] = (d as u64) & mask;
            }
        }
        rows.push((input, r, outs));
    }
    Table {
        name: name.to_string(),
        from: from.expect("#! from= line"),
        random,
        columns,
        rows,
    }
}

/// The inputs of a `#! inputs=xorshift64-f64:SEED:COUNT` table, as `gen_golden.cpp` makes
/// them: xorshift64 (13, 7, 17) from SEED; odd-numbered values get their exponent field set to
/// `1023 - 160 + (field % 301)`.
fn generated_inputs(spec: &str) -> Vec<u64> {
    let p: Vec<&str> = spec.split(':').collect();
    assert!(
        p.len() == 3 && p[0] == "xorshift64-f64",
        "unknown input generator {spec}"
    );
    let mut x = u64::from_str_radix(p[1], 16).expect("seed");
    let n: usize = p[2].parse().expect("count");
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i & 1 == 1 {
                (x & 0x800f_ffff_ffff_ffff) | ((1023 - 160 + (x >> 52) % 301) << 52)
            } else {
                x
            }
        })
        .collect()
}

/// Whether `bits` is a NaN of type `t` (only for the float types).
pub fn is_nan(bits: u64, t: Type) -> bool {
    match t {
        Type::F64 => bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000,
        Type::F32 | Type::Tf32 => bits & 0x7fff_ffff > 0x7f80_0000,
        Type::F16 => bits & 0x7fff > 0x7c00,
        Type::Bf16 => bits & 0x7fff > 0x7f80,
        Type::E4m3 => bits & 0x7f == 0x7f,
        Type::E5m2 => bits & 0x7f > 0x7c,
        Type::Ue8m0 => bits == 0xff,
        _ => false,
    }
}

/// Checks every row and column of a table against [`convert`]; returns a report of mismatches
/// per column (empty when all agree).
pub fn check_table(name: &str) -> Vec<String> {
    let t = load(name);
    assert!(!t.rows.is_empty(), "{name} has no rows");
    let mut report = Vec::new();
    for (ci, c) in t.columns.iter().enumerate() {
        let mut bad = 0usize;
        let mut first = Vec::new();
        for (input, r, outs) in &t.rows {
            let want = outs[ci];
            let random = if t.random { Some(*r) } else { None };
            let got = convert(*input, t.from, c.to, c.rounding, c.flags, random).bits;
            let ok = if c.nan_any && is_nan(want, c.to) {
                is_nan(got, c.to)
            } else {
                got == want
            };
            if !ok {
                bad += 1;
                if first.len() < 5 {
                    first.push(format!(
                        "in={input:#x} r={r:#x} want={want:#x} got={got:#x}"
                    ));
                }
            }
        }
        if bad > 0 {
            report.push(format!(
                "{name} {} (from {}): {bad}/{} mismatches, e.g. {}",
                c.spec,
                t.from.name(),
                t.rows.len(),
                first.join("; ")
            ));
        }
    }
    report
}

pub fn assert_table(name: &str) {
    let report = check_table(name);
    assert!(report.is_empty(), "\n{}", report.join("\n"));
}
