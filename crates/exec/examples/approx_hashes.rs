//! Chunk hashes of the `alu::approx` models in the format of
//! `tests/hardware/approx/approx-hashes.tsv` (`scripts/hardware/approx/README.md`), to diff
//! against the GPU's:
//!
//! ```text
//! cargo run --release -p ptxsim-exec --example approx_hashes -- FORM [VARIANT] [CHUNKS]
//! ```
//!
//! FORM is a PTX opcode of the measurements (`rcp.approx.ftz.f32`, `tanh.approx.f16x2`,
//! `rsqrt.approx.f64`, `div.full.f32`, ...) or `all`; VARIANT as in the file (default: every
//! variant of the form); CHUNKS a range `a..b` of chunks to compute (default all 256; the
//! others print as `-`). After the hash line, a `#` line says how many chunks match the GPU.
//! Parallel over chunks (rayon).

#[path = "../tests/suite/approx_data/mod.rs"]
mod data;

use rayon::prelude::*;

fn chunk_sum(form: &str, variant: &str, c: u64) -> u64 {
    let mut sum = 0u64;
    if variant == "divpairs-2^24" {
        for i in c << 16..(c + 1) << 16 {
            let (a, b) = data::div_pair(i);
            sum = sum.wrapping_add(data::hash(i, u64::from(data::eval_div(form, a, b))));
        }
        return sum;
    }
    let lo: u64 = match variant {
        "hi-2^32-lo-00000000" => 0,
        "hi-2^32-lo-2545f491" => 0x2545_f491,
        _ => u64::MAX,
    };
    let model = data::model(form).expect("a unary form");
    for i in c << 24..(c + 1) << 24 {
        let x = if lo == u64::MAX { i } else { (i << 32) | lo };
        sum = sum.wrapping_add(data::hash(i, model(x)));
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let form = args.first().map(String::as_str).unwrap_or("all");
    let variant = args.get(1).map(String::as_str).unwrap_or("");
    let (c0, c1) = match args.get(2).and_then(|r| r.split_once("..")) {
        Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
        None => (0u64, 256u64),
    };
    let gpu = data::hashes();
    let mut keys: Vec<&(String, String)> = gpu
        .keys()
        .filter(|(f, v)| (form == "all" || f == form) && (variant.is_empty() || v == variant))
        .collect();
    keys.sort();
    for (f, v) in keys {
        let sums: Vec<Option<u64>> = (0..256u64)
            .into_par_iter()
            .map(|c| (c0..c1).contains(&c).then(|| chunk_sum(f, v, c)))
            .collect();
        let want = &gpu[&(f.clone(), v.clone())];
        let computed = sums.iter().filter(|s| s.is_some()).count();
        let matching = sums
            .iter()
            .zip(want)
            .filter(|(s, w)| **s == Some(**w))
            .count();
        let cells: Vec<String> = sums
            .iter()
            .map(|s| s.map_or("-".to_string(), |s| format!("{s:016x}")))
            .collect();
        println!("{f}\t{v}\t{}", cells.join("\t"));
        println!("# {f} {v}: {matching} of {computed} chunks match the GPU");
    }
}
