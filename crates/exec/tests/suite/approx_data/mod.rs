//! Reader of `tests/hardware/approx/approx-raw.bin` and `approx-hashes.tsv` (formats:
//! `scripts/hardware/approx/README.md`), shared by `tests/approx.rs` and
//! `examples/approx_hashes.rs`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

/// The directory of the measurements (`$APPROX_DIR` if set, for a binary run elsewhere).
pub fn dir() -> PathBuf {
    match std::env::var_os("APPROX_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/hardware/approx"),
    }
}

/// One decoded section: the inputs (bit patterns; empty for `divpairs`/`specials`/text) and the
/// GPU's outputs.
#[derive(Debug, Clone)]
pub struct Section {
    pub name: String,
    pub form: String,
    pub inputs_spec: String,
    pub inputs: Vec<u64>,
    pub outputs: Vec<u64>,
}

#[derive(Debug)]
struct Row {
    name: String,
    form: String,
    elem_bytes: usize,
    encoding: String,
    count: usize,
    offset: usize,
    length: usize,
    raw_length: usize,
    inputs: String,
}

/// The raw file, decoded lazily section by section.
#[derive(Debug)]
pub struct Raw {
    rows: Vec<Row>,
    data: Vec<u8>,
    cache: HashMap<String, Vec<u64>>,
}

impl Raw {
    pub fn open() -> Raw {
        let bytes = std::fs::read(dir().join("approx-raw.bin")).expect("approx-raw.bin");
        let end = bytes
            .windows(5)
            .position(|w| w == b"\nend\n")
            .expect("end line")
            + 5;
        let head = std::str::from_utf8(&bytes[..end]).expect("utf-8 head");
        let mut lines = head.lines();
        assert_eq!(lines.next(), Some("PTXSIM-APPROX-RAW 1"));
        let mut rows = Vec::new();
        for line in lines {
            if line.starts_with('#') || line == "end" {
                continue;
            }
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 9, "{line}");
            rows.push(Row {
                name: c[0].into(),
                form: c[1].into(),
                elem_bytes: c[2].parse().unwrap(),
                encoding: c[3].into(),
                count: c[4].parse().unwrap(),
                offset: c[5].parse().unwrap(),
                length: c[6].parse().unwrap(),
                raw_length: c[7].parse().unwrap(),
                inputs: c[8].into(),
            });
        }
        Raw {
            rows,
            data: bytes[end..].to_vec(),
            cache: HashMap::new(),
        }
    }

    /// The section names, in file order.
    pub fn names(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.name.clone()).collect()
    }

    /// The names of the sections of one form.
    pub fn sections_of(&self, form: &str) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.form == form)
            .map(|r| r.name.clone())
            .collect()
    }

    fn outputs(&mut self, name: &str) -> Vec<u64> {
        if let Some(v) = self.cache.get(name) {
            return v.clone();
        }
        let row = self
            .rows
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let mut src = &self.data[row.offset..row.offset + row.length];
        let mut raw = Vec::with_capacity(row.raw_length);
        lzma_rs::xz_decompress(&mut src, &mut raw).expect("xz");
        assert_eq!(raw.len(), row.raw_length, "{name}");
        let w = row.elem_bytes;
        let mask = if w == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * w)) - 1
        };
        let elems: Vec<u64> = raw
            .chunks_exact(w)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..w].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        assert_eq!(elems.len(), row.count);
        let enc = row.encoding.clone();
        let out = if enc == "delta" {
            let mut acc = 0u64;
            elems
                .iter()
                .map(|d| {
                    acc = acc.wrapping_add(*d) & mask;
                    acc
                })
                .collect()
        } else if let Some(base) = enc.strip_prefix("xor:") {
            let base = self.outputs(base);
            elems.iter().zip(base).map(|(x, b)| x ^ b).collect()
        } else {
            elems
        };
        self.cache.insert(name.to_string(), out.clone());
        out
    }

    /// Section `name` decoded.
    pub fn section(&mut self, name: &str) -> Section {
        let outputs = self.outputs(name);
        let row = self.rows.iter().find(|r| r.name == name).unwrap();
        let mut inputs = Vec::new();
        if row.inputs.contains(':') && !row.inputs.starts_with("divpairs") {
            for part in row.inputs.split(',') {
                let v: Vec<u64> = part
                    .split(':')
                    .map(|x| u64::from_str_radix(x, 16).unwrap())
                    .collect();
                for k in 0..v[1] {
                    inputs.push(v[0].wrapping_add(k.wrapping_mul(v[2])));
                }
            }
            assert_eq!(inputs.len(), outputs.len(), "{name}");
        }
        Section {
            name: row.name.clone(),
            form: row.form.clone(),
            inputs_spec: row.inputs.clone(),
            inputs,
            outputs,
        }
    }

    /// The bytes of a text section.
    pub fn text(&mut self, name: &str) -> String {
        let v = self.outputs(name);
        String::from_utf8(v.iter().map(|b| *b as u8).collect()).unwrap()
    }
}

pub const G: u64 = 0x9E37_79B9_7F4A_7C15;
pub const SEED: u64 = 0x7074_7873_696D_3031;

/// SplitMix64's finaliser.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The hash of result `y` for input index `i`.
pub fn hash(i: u64, y: u64) -> u64 {
    mix64(y ^ i.wrapping_mul(G))
}

/// The README's `div_pair(k)`.
pub fn div_pair(k: u64) -> (u32, u32) {
    let z = mix64(SEED.wrapping_add((k + 1).wrapping_mul(G)));
    let z2 = mix64(z);
    let lo = z as u32;
    let hi = (z >> 32) as u32;
    match k & 3 {
        0 => (lo, hi),
        1 => (
            (lo & 0x807f_ffff) | ((112 + (z2 & 31) as u32) << 23),
            (hi & 0x807f_ffff) | ((112 + ((z2 >> 8) & 31) as u32) << 23),
        ),
        2 => {
            const E: [u32; 6] = [0, 1, 2, 252, 253, 254];
            (
                (lo & 0x807f_ffff) | ((64 + ((z2 >> 8) & 127) as u32) << 23),
                (hi & 0x807f_ffff) | (E[(z2 % 6) as usize] << 23),
            )
        }
        _ => (
            (lo & 0x807f_ffff) | ((112 + (z2 & 31) as u32) << 23),
            (hi & 0x8000_0000) | ((112 + ((z2 >> 8) & 31) as u32) << 23) | (hi & 0x007f_0000),
        ),
    }
}

/// The 35 `SPECIALS` of `approx.py`.
pub const SPECIALS: [u32; 35] = [
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00400000, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x80800000, 0x01000000, 0x1F800000, 0x33800000, 0x3EAAAAAB, 0x3F000000, 0x3F800000, 0xBF800000,
    0x3FC00000, 0x40000000, 0x40400000, 0xC0400000, 0x40490FDB, 0x4B000000, 0x5F000000, 0x7E7FFFFF,
    0x7E800000, 0x7E800001, 0x7F000000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
    0xFFC00000, 0x7F800001, 0x7FFFFFFF,
];

/// The operand pairs of a div section (`divpairs:...` or `specials`).
pub fn div_inputs(spec: &str, count: usize) -> Vec<(u32, u32)> {
    if spec == "specials" {
        (0..count)
            .map(|i| (SPECIALS[i / 35], SPECIALS[i % 35]))
            .collect()
    } else {
        let parts: Vec<&str> = spec.split(':').collect();
        assert_eq!(parts[0], "divpairs");
        let start = u64::from_str_radix(parts[1], 16).unwrap();
        (0..count as u64).map(|k| div_pair(start + k)).collect()
    }
}

/// `approx-hashes.tsv`: (form, variant) -> 256 chunk sums.
pub fn hashes() -> HashMap<(String, String), Vec<u64>> {
    let text = std::fs::read_to_string(dir().join("approx-hashes.tsv")).expect("hashes");
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let c: Vec<&str> = line.split('\t').collect();
        let sums = c[2..]
            .iter()
            .map(|h| u64::from_str_radix(h, 16).unwrap())
            .collect();
        out.insert((c[0].to_string(), c[1].to_string()), sums);
    }
    out
}

use ptxsim_exec::alu::approx::{self, Approx32};

/// A unary form's model (named by its PTX opcode) as a function of the operand, resolved once;
/// `None` for a name that is not a unary form. x2 forms take the packed operand.
pub type Model = Box<dyn Fn(u64) -> u64 + Send + Sync>;

/// The model of the unary form `form`.
pub fn model(form: &str) -> Option<Model> {
    let parts: Vec<&str> = form.split('.').collect();
    let ftz = parts.contains(&"ftz");
    let ty = *parts.last()?;
    let half: Option<fn(u16) -> u16> = match (parts[0], ty) {
        ("ex2", "f16" | "f16x2") => Some(approx::ex2_approx_f16),
        ("ex2", "bf16" | "bf16x2") => Some(approx::ex2_approx_ftz_bf16),
        ("tanh", "f16" | "f16x2") => Some(approx::tanh_approx_f16),
        ("tanh", "bf16" | "bf16x2") => Some(approx::tanh_approx_bf16),
        _ => None,
    };
    if let Some(f) = half {
        return Some(if ty.ends_with("x2") {
            Box::new(move |x| u64::from(approx::per_lane(f, x as u32)))
        } else {
            Box::new(move |x| u64::from(f(x as u16)))
        });
    }
    match (parts[0], ty) {
        ("rcp", "f64") => return Some(Box::new(approx::rcp_approx_ftz_f64)),
        ("rsqrt", "f64") => return Some(Box::new(move |x| approx::rsqrt_approx_f64(x, ftz))),
        _ => {}
    }
    if ty != "f32" {
        return None;
    }
    let f = Approx32::ALL.into_iter().find(|f| f.name() == parts[0])?;
    Some(Box::new(move |x| {
        u64::from(approx::approx_f32(f, x as u32, ftz))
    }))
}

/// The model of a unary form on operand `x` (see [`model`]).
pub fn eval(form: &str, x: u64) -> Option<u64> {
    model(form).map(|m| m(x))
}

/// The model of a div form on (a, b).
pub fn eval_div(form: &str, a: u32, b: u32) -> u32 {
    let ftz = form.contains(".ftz");
    if form.starts_with("div.approx") {
        approx::div_approx_f32(a, b, ftz)
    } else {
        approx::div_full_f32(a, b, ftz)
    }
}

/// Distance in ulps between two results of the same width (bit patterns ordered as integers
/// by value; NaNs compare by pattern).
pub fn ulp_diff(a: u64, b: u64, bits: u32) -> u64 {
    let key = |v: u64| -> i128 {
        let s = 1u64 << (bits - 1);
        if v & s != 0 {
            -((v & (s - 1)) as i128)
        } else {
            v as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}
