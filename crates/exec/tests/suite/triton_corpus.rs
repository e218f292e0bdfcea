//! A selection of the Triton corpus (`scripts/triton/corpus.py`: Triton 3.9.0 kernels written
//! for ptxsim from the public descriptions of the operations, compiled for sm_80, sm_90a,
//! sm_100a and sm_120a), each run on its inputs and compared with a host reference computed by
//! `scripts/triton/run_corpus.py` with numpy, ml_dtypes and mpmath — never with ptxsim's output.
//!
//! `tests/triton-corpus/<case>/case.json` gives the PTX (`ptx-samples/triton/corpus/`), the
//! launch (grid, block, dynamic shared memory, arguments: input files, zeroed buffers, scalars)
//! and the outputs. An output with `expected` must equal it byte for byte (a NaN may stand for
//! a NaN of the same format); one with `reference` (f64 values, for kernels with approximate
//! instructions) must lie within `atol + rtol |e| + ulps ulp(max(|a|, |e|))` of it, `ulp` being
//! the spacing of the output's format (docs/triton-corpus.md gives each figure's source).

use std::path::{Path, PathBuf};

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};

use super::kernels::{f16_to_f64, ulp};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Bytes per element, the smallest normal exponent and the mantissa bits of a float format;
/// `None` for the formats compared only bit for bit.
fn float_layout(elem: &str) -> Option<(usize, i32, i32)> {
    Some(match elem {
        "f16" => (2, -14, 10),
        "bf16" => (2, -126, 7),
        "f32" => (4, -126, 23),
        "f64" => (8, -1022, 52),
        _ => return None,
    })
}

/// An element's bits as f64 (f16, bf16, f32, f64).
fn decode(elem: &str, bits: u64) -> f64 {
    match elem {
        "f16" => f16_to_f64(bits as u16),
        "bf16" => f64::from(f32::from_bits((bits as u32) << 16)),
        "f32" => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// Whether an element's bits are a NaN of its format.
fn is_nan(elem: &str, bits: u64) -> bool {
    match elem {
        "e4m3" => bits & 0x7f == 0x7f,
        "e5m2" => bits & 0x7c == 0x7c && bits & 3 != 0,
        _ => float_layout(elem).is_some() && decode(elem, bits).is_nan(),
    }
}

fn element_bytes(elem: &str) -> usize {
    match elem {
        "e4m3" | "e5m2" | "s8" | "u8" => 1,
        "s16" | "u16" => 2,
        "s32" | "u32" => 4,
        "s64" | "u64" => 8,
        other => float_layout(other).map_or(1, |(bytes, _, _)| bytes),
    }
}

fn bits_of(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |acc, (i, b)| acc | u64::from(*b) << (8 * i))
}

/// The indices of the elements of `actual` that differ from `expected` beyond what the output
/// allows.
fn mismatches(actual: &[u8], output: &serde_json::Value, dir: &Path) -> Vec<usize> {
    let elem = output["elem"].as_str().unwrap();
    let size = element_bytes(elem);
    let read = |key: &str| std::fs::read(dir.join(output[key].as_str().unwrap())).unwrap();
    if output.get("expected").is_some() {
        let expected = read("expected");
        assert_eq!(expected.len(), actual.len(), "{elem} output size");
        return (0..actual.len() / size)
            .filter(|&k| {
                let (a, e) = (
                    bits_of(&actual[k * size..][..size]),
                    bits_of(&expected[k * size..][..size]),
                );
                a != e && !(is_nan(elem, a) && is_nan(elem, e))
            })
            .collect();
    }
    let (_, emin, mantissa) = float_layout(elem).expect("a float output");
    let reference: Vec<f64> = read("reference")
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(reference.len() * size, actual.len(), "{elem} output size");
    let number = |key: &str| output[key].as_f64().unwrap_or(0.0);
    let (ulps, atol, rtol) = (number("ulps"), number("atol"), number("rtol"));
    (0..reference.len())
        .filter(|&k| {
            let a = decode(elem, bits_of(&actual[k * size..][..size]));
            let e = reference[k];
            if a == e || (a.is_nan() && e.is_nan()) {
                return false;
            }
            if !a.is_finite() || !e.is_finite() {
                return true;
            }
            let ulp = ulp(a.abs().max(e.abs()), emin, mantissa);
            (a - e).abs() > atol + rtol * e.abs() + ulps * ulp
        })
        .collect()
}

/// Runs one case; the failures, as messages.
fn run_case(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let case: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
    let ptx = std::fs::read_to_string(repo().join(case["ptx"].as_str().unwrap())).unwrap();
    let module = match Module::load(&ptx, &Options::default()) {
        Ok(module) => module,
        Err(error) => return vec![format!("{name}: does not load: {error}")],
    };
    let dims = |key: &str| -> [u32; 3] {
        let v = case[key].as_array().unwrap();
        [0, 1, 2].map(|i| v[i].as_u64().unwrap() as u32)
    };
    let specs = case["args"].as_array().unwrap();
    let mut buffers: Vec<Vec<u8>> = specs
        .iter()
        .map(|spec| {
            if let Some(file) = spec.get("file") {
                std::fs::read(dir.join(file.as_str().unwrap())).unwrap()
            } else {
                vec![0; spec.get("zeros").and_then(|z| z.as_u64()).unwrap_or(0) as usize]
            }
        })
        .collect();
    let mut args: Vec<Arg> = Vec::new();
    for (spec, buffer) in specs.iter().zip(buffers.iter_mut()) {
        args.push(if let Some(v) = spec.get("s32") {
            Arg::U32(v.as_i64().unwrap() as u32)
        } else if let Some(v) = spec.get("f32") {
            Arg::F32(v.as_f64().unwrap() as f32)
        } else {
            Arg::Buffer(buffer)
        });
    }
    let options = LaunchOptions {
        dynamic_shared: case["shared"].as_u64().unwrap(),
        ..LaunchOptions::default()
    };
    let entry = case["entry"].as_str().unwrap();
    if let Err(error) = module.launch(entry, dims("grid"), dims("block"), &mut args, &options) {
        return vec![format!("{name}: {error}")];
    }
    drop(args);
    let mut failures = Vec::new();
    for output in case["outputs"].as_array().unwrap() {
        let index = output["arg"].as_u64().unwrap() as usize;
        let bad = mismatches(&buffers[index], output, dir);
        if !bad.is_empty() {
            failures.push(format!(
                "{name}: argument {index}: {} elements differ, the first at {:?}",
                bad.len(),
                &bad[..bad.len().min(8)]
            ));
        }
    }
    failures
}

#[test]
fn the_triton_corpus_selection_matches_its_host_references() {
    let root = repo().join("tests/triton-corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/triton-corpus")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("case.json").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let failures: Vec<String> = cases.iter().flat_map(|dir| run_case(dir)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
