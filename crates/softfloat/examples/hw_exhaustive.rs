//! The softfloat side of `scripts/hardware/exhaustive.sh` (offline, not CI): for every form of
//! `scripts/hardware/exhaustive-forms.tsv`, converts all 2^32 f32 inputs and prints, per chunk
//! of 2^24 inputs, the wrapping sum of `mix64(y ^ (x * 0x9E3779B97F4A7C15))` — the hash the GPU
//! program of `scripts/hardware/exhaustive.py` prints for the same form.
//!
//! Usage: `hw_exhaustive FORMS_TSV [CHUNKS]` (CHUNKS: how many of the 256 chunks to compute, for
//! a quick run; the others print `-`).

use std::sync::atomic::{AtomicUsize, Ordering};

use ptxsim_softfloat::{Flags, Rounding, Type, convert};

struct Form {
    name: String,
    bits: u32,
    to: Type,
    rounding: Rounding,
    flags: Flags,
    pair: bool,
}

fn parse_type(name: &str) -> Type {
    match name {
        "f16" => Type::F16,
        "bf16" => Type::Bf16,
        "tf32" => Type::Tf32,
        "f32" => Type::F32,
        "f64" => Type::F64,
        "e4m3" => Type::E4m3,
        "e5m2" => Type::E5m2,
        "s16" => Type::S16,
        "u16" => Type::U16,
        "s32" => Type::S32,
        "u32" => Type::U32,
        "s64" => Type::S64,
        "u64" => Type::U64,
        other => panic!("unknown type {other}"),
    }
}

fn parse_rounding(name: &str) -> Rounding {
    match name {
        "rn" => Rounding::Rn,
        "rna" => Rounding::Rna,
        "rz" => Rounding::Rz,
        "rm" => Rounding::Rm,
        "rp" => Rounding::Rp,
        "rni" => Rounding::Rni,
        "rzi" => Rounding::Rzi,
        "rmi" => Rounding::Rmi,
        "rpi" => Rounding::Rpi,
        other => panic!("unknown rounding {other}"),
    }
}

fn forms(path: &str) -> Vec<Form> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "bad line: {line}");
            let has = |flag: &str| f[4].split(',').any(|x| x == flag);
            Form {
                name: f[0].split(' ').next().unwrap_or("").to_string(),
                bits: f[1].parse().expect("bits"),
                to: parse_type(f[2]),
                rounding: parse_rounding(f[3]),
                flags: Flags {
                    ftz: has("ftz"),
                    sat: has("sat"),
                    relu: has("relu"),
                    satfinite: has("satfinite"),
                },
                pair: f[5] == "pair",
            }
        })
        .collect()
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn chunk_sum(form: &Form, chunk: u64) -> u64 {
    let lane = if form.pair { form.bits / 2 } else { form.bits };
    let mask = if lane >= 64 {
        u64::MAX
    } else {
        (1u64 << lane) - 1
    };
    let mut acc = 0u64;
    for i in (chunk << 24)..((chunk + 1) << 24) {
        let y = convert(i, Type::F32, form.to, form.rounding, form.flags, None).bits & mask;
        let y = if form.pair { (y << lane) | y } else { y };
        acc = acc.wrapping_add(mix64(y ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    }
    acc
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: hw_exhaustive FORMS_TSV [CHUNKS]");
        std::process::exit(2);
    };
    let chunks: usize = args
        .get(2)
        .map_or(256, |c| c.parse().expect("CHUNKS"))
        .min(256);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    for form in forms(path) {
        let next = AtomicUsize::new(0);
        let mut sums = vec![None; 256];
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks {
                                break done;
                            }
                            done.push((c, chunk_sum(&form, c as u64)));
                        }
                    })
                })
                .collect();
            for handle in handles {
                for (c, sum) in handle.join().expect("worker") {
                    sums[c] = Some(sum);
                }
            }
        });
        let cells: Vec<String> = sums
            .iter()
            .map(|s| s.map_or("-".to_string(), |v| format!("{v:016x}")))
            .collect();
        println!("{}\t{}", form.name, cells.join("\t"));
    }
}
