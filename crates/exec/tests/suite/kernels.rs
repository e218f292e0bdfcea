//! Every nvcc sample kernel of `ptx-samples/`, run on the inputs of `tests/kernels/` and compared
//! byte for byte with the expected outputs there. The expected bytes come from NVIDIA's host
//! reference code (the `cuda_fp16/bf16/fp8/fp6/fp4.h` headers) or from the spec, computed
//! offline by `scripts/kernel-golden/gen.sh` (see `tests/kernels/README.md`); never from
//! ptxsim.
//!
//! Each case names every PTX file that contains its kernel (sm_80, sm_90, sm_100a and the debug
//! variants); all of them must give the expected bytes. Masked bytes (no independent
//! reference) are skipped; where `nan_any` is set, a NaN of the same format is accepted for a
//! NaN. Outputs of kernels with approximate instructions (`ex2.approx`, `tanh.approx`, ...) carry
//! a `tolerance`: an element within it counts as equal (`tests/kernels/README.md`, "Tolerances").
//!
//! The same runs are also compared with what an H200 gave for every sm_80/sm_90 file
//! (`tests/hardware/kernels-gpu.bin.xz`), bit for bit, except the differences listed in
//! `KNOWN_GPU_DIFFERENCES`.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One lane layout: bytes per lane, lanes per element, and whether a lane's bits are a NaN.
type Lanes = (usize, usize, fn(u64) -> bool);

/// The lane layout of an element format.
fn lanes(format: &str) -> Option<Lanes> {
    // (lane bytes, lanes, is_nan)
    let f16 = |b: u64| (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
    let bf16 = |b: u64| (b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0;
    let f32 = |b: u64| (b & 0x7f80_0000) == 0x7f80_0000 && (b & 0x007f_ffff) != 0;
    let f64 = |b: u64| (b >> 52) & 0x7ff == 0x7ff && (b & ((1 << 52) - 1)) != 0;
    let e4m3 = |b: u64| b & 0x7f == 0x7f;
    let e5m2 = |b: u64| (b & 0x7c) == 0x7c && (b & 0x03) != 0;
    let ue8m0 = |b: u64| b == 0xff;
    let never = |_: u64| false;
    Some(match format {
        "f16" => (2, 1, f16),
        "bf16" => (2, 1, bf16),
        "f32" => (4, 1, f32),
        "f64" => (8, 1, f64),
        "e4m3" => (1, 1, e4m3),
        "e5m2" => (1, 1, e5m2),
        "e4m3x2" => (1, 2, e4m3),
        "e5m2x2" => (1, 2, e5m2),
        "ue8m0" => (1, 1, ue8m0),
        "ue8m0x2" => (1, 2, ue8m0),
        "e2m3" | "e3m2" | "e2m1" | "e2m1x2" | "e2m3x2" | "e3m2x2" | "u8" => (1, 1, never),
        "u16" | "s16" => (2, 1, never),
        "u32" | "s32" => (4, 1, never),
        "u64" | "s64" => (8, 1, never),
        _ => return None,
    })
}

/// Positions where `actual` and `expected` differ and the difference is not allowed.
fn mismatches(
    actual: &[u8],
    expected: &[u8],
    mask: Option<&[u8]>,
    elem: &str,
    nan_any: bool,
) -> Vec<usize> {
    let compared =
        |k: usize| mask.is_none_or(|m| m.get(k / 8).is_some_and(|b| b >> (k % 8) & 1 == 1));
    let mut bad: Vec<usize> = (0..expected.len())
        .filter(|&k| compared(k) && actual.get(k) != expected.get(k))
        .collect();
    if bad.is_empty() || !nan_any {
        return bad;
    }
    // Lay the output out as records of the listed formats and forgive NaN-for-NaN lanes.
    let formats: Option<Vec<_>> = elem.split(',').map(|f| lanes(f.trim())).collect();
    let Some(formats) = formats else {
        return bad;
    };
    let stride: usize = formats.iter().map(|(bytes, count, _)| bytes * count).sum();
    let lane_of = |k: usize| {
        let mut offset = k % stride;
        for (bytes, count, is_nan) in &formats {
            if offset < bytes * count {
                let start = k - offset % bytes;
                return Some((start, *bytes, *is_nan));
            }
            offset -= bytes * count;
        }
        None
    };
    let value = |data: &[u8], start: usize, bytes: usize| {
        data.get(start..start + bytes).map(|s| {
            s.iter()
                .enumerate()
                .fold(0u64, |acc, (i, b)| acc | (u64::from(*b) << (8 * i)))
        })
    };
    bad.retain(|&k| {
        let Some((start, bytes, is_nan)) = lane_of(k) else {
            return true;
        };
        match (value(actual, start, bytes), value(expected, start, bytes)) {
            (Some(a), Some(e)) => !(is_nan(a) && is_nan(e)),
            _ => true,
        }
    });
    bad
}

/// An output's `tolerance`: element `k` of `format` passes when
/// `|actual - expected| <= bound[k] + ulp * ulp_of(max(|actual|, |expected|))`.
struct Tolerance {
    format: String,
    ulp: f64,
    bound: Vec<f64>,
}

impl Tolerance {
    fn of(output: &serde_json::Value) -> Option<Tolerance> {
        let tolerance = output.get("tolerance")?;
        let bound = read(tolerance["bound"].as_str().unwrap())
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Some(Tolerance {
            format: tolerance["type"].as_str().unwrap().to_string(),
            ulp: tolerance["ulp"].as_f64().unwrap_or(0.0),
            bound,
        })
    }

    /// Bytes per element, the smallest normal exponent and the explicit mantissa bits.
    fn layout(&self) -> (usize, i32, i32) {
        match self.format.as_str() {
            "f16" => (2, -14, 10),
            "bf16" => (2, -126, 7),
            "f32" => (4, -126, 23),
            "f64" => (8, -1022, 52),
            other => panic!("tolerance type `{other}`"),
        }
    }

    fn decode(&self, bytes: &[u8]) -> f64 {
        let bits = bytes
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, b)| acc | (u64::from(*b) << (8 * i)));
        match self.format.as_str() {
            "f16" => f16_to_f64(bits as u16),
            "bf16" => f64::from(f32::from_bits((bits as u32) << 16)),
            "f32" => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }
    }

    /// Whether the element starting at byte `start` is within the tolerance.
    fn accepts(&self, actual: &[u8], expected: &[u8], start: usize, nan_any: bool) -> bool {
        let (size, emin, mantissa) = self.layout();
        let (Some(a), Some(e)) = (
            actual.get(start..start + size),
            expected.get(start..start + size),
        ) else {
            return false;
        };
        let (a, e) = (self.decode(a), self.decode(e));
        if a.is_nan() || e.is_nan() {
            return nan_any && a.is_nan() && e.is_nan();
        }
        if a.is_infinite() || e.is_infinite() {
            return a == e;
        }
        let ulp = ulp(a.abs().max(e.abs()), emin, mantissa);
        let limit = self.bound.get(start / size).copied().unwrap_or(0.0);
        (a - e).abs() <= limit + self.ulp * ulp
    }
}

/// The spacing of a float format at `magnitude` (`2^(e - mantissa)` for
/// `2^e <= magnitude < 2^(e+1)`, the subnormal spacing below the smallest normal `2^emin`).
pub(super) fn ulp(magnitude: f64, emin: i32, mantissa: i32) -> f64 {
    let exponent = if magnitude == 0.0 {
        emin
    } else {
        (magnitude.log2().floor() as i32).max(emin)
    };
    2f64.powi(exponent - mantissa)
}

/// An IEEE half-precision pattern as f64.
pub(super) fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let fraction = f64::from(h & 0x3ff);
    sign * match exponent {
        0 => fraction * 2f64.powi(-24),
        31 if fraction == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + fraction / 1024.0) * 2f64.powi(exponent - 15),
    }
}

/// Removes from `bad` the bytes of elements within `tolerance`.
fn forgive_within_tolerance(
    bad: &mut Vec<usize>,
    actual: &[u8],
    expected: &[u8],
    tolerance: &Tolerance,
    nan_any: bool,
) {
    let (size, _, _) = tolerance.layout();
    bad.retain(|&k| !tolerance.accepts(actual, expected, k - k % size, nan_any));
}

/// The launch arguments of a manifest case, with its buffer files read.
fn arguments(case: &serde_json::Value) -> Vec<Argument> {
    case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(
            |a| match ArgumentSpec::parse(a.as_str().unwrap()).unwrap() {
                ArgumentSpec::Scalar { ty, bits } => Argument::Scalar { ty, bits },
                ArgumentSpec::File(path) => Argument::Buffer(read(path.to_str().unwrap())),
                ArgumentSpec::Zeros(n) => Argument::Buffer(vec![0; n as usize]),
            },
        )
        .collect()
}

/// The outputs of the sample kernels on an H200 (`tests/hardware/kernels-gpu.bin.xz`, written
/// by `scripts/hardware/run-scalar-warp-kernels.sh` from the plan of `scripts/hardware/kernels.py`:
/// every PTX file of `.target` sm_90 or lower, in manifest order, each case's outputs in order),
/// as one byte string consumed in that order.
fn gpu_outputs() -> Vec<u8> {
    let packed = read("tests/hardware/kernels-gpu.bin.xz");
    let mut bytes = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut bytes).expect("the GPU outputs unpack");
    bytes
}

/// Whether a sample file runs on an sm_90 GPU (its `.target` is sm_90 or lower).
fn runs_on_sm90(source: &str) -> bool {
    source
        .lines()
        .find_map(|line| line.trim().strip_prefix(".target sm_"))
        .and_then(|rest| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u32>()
                .ok()
        })
        .is_some_and(|sm| sm <= 90)
}

/// Where ptxsim is known to differ from the GPU on a sample kernel, and by at most how many
/// bytes of an output (an improvement passes; a regression fails):
/// * `half2_mul_add`: ptxas contracts `mul.f16x2` + `add.f16x2` into one `HFMA2`, ptxsim runs
///   the PTX as written (docs/divergences.md);
/// * the kernels with approximate instructions (`ex2`, `lg2`, `rcp`, `rsqrt`, `sqrt`, `sin`,
///   `cos`, `tanh` `.approx.f32`, `div.approx`/`div.full`: the f16 GELU, softmax, RMSNorm, the
///   Triton softmax, layer norm and tl.math kernels) match byte for byte since those forms run
///   on the silicon tables of the multi-function unit (docs/approx.md).
const KNOWN_GPU_DIFFERENCES: &[(&str, usize, usize)] =
    &[("half2_mul_add", 2, 10_139), ("half2_mul_add", 3, 11_817)];

#[test]
fn every_sample_kernel_matches_the_reference_outputs() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read("tests/kernels/manifest.json")).expect("manifest parses");
    let cases = manifest["cases"].as_array().expect("cases");
    assert!(cases.len() >= 52, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    let gpu = gpu_outputs();
    let mut gpu_offset = 0;
    let mut gpu_compared = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let entry = case["entry"].as_str().unwrap();
        let dims = |key: &str| -> [u32; 3] {
            let v = case[key].as_array().unwrap();
            [0, 1, 2].map(|i| v[i].as_u64().unwrap() as u32)
        };
        let arguments = arguments(case);
        for ptx in case["ptx"].as_array().unwrap() {
            let ptx = ptx.as_str().unwrap();
            runs += 1;
            let source = String::from_utf8(read(ptx)).unwrap();
            let on_gpu = runs_on_sm90(&source);
            let program = match ptxsim_exec::load(&source, Some(entry)) {
                Ok(program) => program,
                Err(error) => {
                    failures.push(format!("{name} {ptx}: does not load: {error:?}"));
                    continue;
                }
            };
            let (mut device, addresses) = grid::prepare(
                &program,
                dims("grid"),
                dims("block"),
                100_000,
                arguments.clone(),
            )
            .unwrap_or_else(|e| panic!("{name} {ptx}: {e}"));
            device
                .set_dynamic_shared(dynamic_shared(case))
                .unwrap_or_else(|e| panic!("{name} {ptx}: {e}"));
            let run = grid::run_grid(&device, GridOptions::default(), None, None);
            if let Some(failure) = &run.failure {
                failures.push(format!("{name} {ptx}: {failure:?}"));
                continue;
            }
            for output in case["outputs"].as_array().unwrap() {
                let index = output["arg"].as_u64().unwrap() as usize;
                let address = addresses[index].unwrap();
                let actual = device.global.buffer_at(address).unwrap().contents();
                if on_gpu {
                    // Bit for bit against the H200, except the known differences.
                    let theirs = gpu
                        .get(gpu_offset..gpu_offset + actual.len())
                        .unwrap_or(&[]);
                    gpu_offset += actual.len();
                    gpu_compared += actual.len();
                    let differing = actual.iter().zip(theirs).filter(|(a, b)| a != b).count()
                        + actual.len().saturating_sub(theirs.len());
                    let allowed = KNOWN_GPU_DIFFERENCES
                        .iter()
                        .find(|(case, arg, _)| *case == name && *arg == index)
                        .map_or(0, |&(_, _, bytes)| bytes);
                    if differing > allowed {
                        failures.push(format!(
                            "{name} {ptx} arg {index}: {differing} bytes differ from the GPU \
                             (known: {allowed})"
                        ));
                    }
                }
                let expected = read(output["expected"].as_str().unwrap());
                let mask = output["mask"].as_str().map(read);
                let nan_any = output["nan_any"].as_bool().unwrap_or(false);
                let mut bad = mismatches(
                    &actual,
                    &expected,
                    mask.as_deref(),
                    output["elem"].as_str().unwrap_or(""),
                    nan_any,
                );
                if let Some(tolerance) = Tolerance::of(output) {
                    forgive_within_tolerance(&mut bad, &actual, &expected, &tolerance, nan_any);
                }
                if let Some(&first) = bad.first() {
                    let window = |data: &[u8]| {
                        let start = first - first % 16;
                        data.get(start..(start + 16).min(data.len()))
                            .map(|s| format!("{s:02x?}"))
                            .unwrap_or_default()
                    };
                    failures.push(format!(
                        "{name} {ptx} arg {index}: {} of {} bytes differ; first at byte {first}: \
                         actual {} expected {}",
                        bad.len(),
                        expected.len(),
                        window(&actual),
                        window(&expected)
                    ));
                }
            }
        }
    }
    assert_eq!(
        gpu_offset,
        gpu.len(),
        "the GPU outputs cover every sm_80/sm_90 launch"
    );
    assert!(
        gpu_compared > 20_000_000,
        "{gpu_compared} bytes compared with the GPU"
    );
    assert!(
        failures.is_empty(),
        "{} of {runs} kernel runs fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The two ways a CTA runs give the same results: in lockstep by columns with deferred counters
/// (a launch without a trace) and one thread at a time with every step recorded (a traced
/// launch, also what the debugger does). For each sample kernel (its first PTX file), the first
/// CTA of its launch: the output buffers, the step count and the first thread's registers.
#[test]
fn lockstep_and_traced_runs_agree_on_every_sample_kernel() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read("tests/kernels/manifest.json")).expect("manifest parses");
    let mut compared = 0;
    for case in manifest["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap();
        let entry = case["entry"].as_str().unwrap();
        let block = {
            let v = case["block"].as_array().unwrap();
            [0, 1, 2].map(|i| v[i].as_u64().unwrap() as u32)
        };
        let arguments = arguments(case);
        let ptx = case["ptx"][0].as_str().unwrap();
        let source = String::from_utf8(read(ptx)).unwrap();
        let program = ptxsim_exec::load(&source, Some(entry)).expect("the sample loads");
        let launch = |traced: bool| {
            let (mut device, addresses) =
                grid::prepare(&program, [1, 1, 1], block, 100_000, arguments.clone())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            device
                .set_dynamic_shared(dynamic_shared(case))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut lines = 0usize;
            let mut sink = |_: &str| lines += 1;
            let trace: Option<&mut dyn FnMut(&str)> = if traced { Some(&mut sink) } else { None };
            let run = grid::run_grid(&device, GridOptions::default(), trace, None);
            let buffers: Vec<Vec<u8>> = addresses
                .iter()
                .flatten()
                .map(|&address| {
                    device
                        .global
                        .buffer_at(address)
                        .map(|b| b.contents())
                        .unwrap_or_default()
                })
                .collect();
            let registers = run
                .inspected
                .as_ref()
                .map(|i| (i.registers.clone(), i.steps));
            (run.steps, format!("{:?}", run.failure), registers, buffers)
        };
        let lockstep = launch(false);
        let traced = launch(true);
        assert_eq!(lockstep.0, traced.0, "{name}: step counts");
        assert_eq!(lockstep.1, traced.1, "{name}: failures");
        assert_eq!(
            lockstep.2, traced.2,
            "{name}: the first thread's registers and steps"
        );
        assert_eq!(lockstep.3, traced.3, "{name}: output buffers");
        assert!(lockstep.0 > 0, "{name}: nothing ran");
        compared += 1;
    }
    assert!(compared >= 52, "{compared} kernels compared");
}

/// The case's dynamic shared memory in bytes (`dynamic_shared`, 0 when absent).
fn dynamic_shared(case: &serde_json::Value) -> u64 {
    case["dynamic_shared"].as_u64().unwrap_or(0)
}

/// The tolerance comparison: the bound plus `ulp` units of the larger magnitude; NaN only for
/// NaN (with `nan_any`); infinities only for themselves.
#[test]
fn tolerances_accept_only_elements_within_the_bound() {
    let f16 = Tolerance {
        format: "f16".to_string(),
        ulp: 1.0,
        bound: vec![0.0, 0.25],
    };
    let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    // 1.0 vs the next f16 (1 ulp) passes without a bound; 2 ulps does not.
    assert!(f16.accepts(&bytes(&[0x3c01]), &bytes(&[0x3c00]), 0, false));
    assert!(!f16.accepts(&bytes(&[0x3c02]), &bytes(&[0x3c00]), 0, false));
    // element 1 has bound 0.25: 1.25 (0x3d00) vs 1.0 passes, 1.5 (0x3e00) does not
    assert!(f16.accepts(&bytes(&[0, 0x3d00]), &bytes(&[0, 0x3c00]), 2, false));
    assert!(!f16.accepts(&bytes(&[0, 0x3e00]), &bytes(&[0, 0x3c00]), 2, false));
    // subnormals: the ulp is 2^-24
    assert!(f16.accepts(&bytes(&[0x0001]), &bytes(&[0x0000]), 0, false));
    assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(f16_to_f64(0xc000), -2.0);
    // NaN for NaN only with nan_any; inf only for the same inf
    assert!(f16.accepts(&bytes(&[0x7e01]), &bytes(&[0x7fff]), 0, true));
    assert!(!f16.accepts(&bytes(&[0x7e01]), &bytes(&[0x7fff]), 0, false));
    assert!(!f16.accepts(&bytes(&[0x7bff]), &bytes(&[0x7c00]), 0, true));
    let mut bad = vec![0, 1, 2, 3];
    forgive_within_tolerance(
        &mut bad,
        &bytes(&[0x3c01, 0x3e00]),
        &bytes(&[0x3c00, 0x3c00]),
        &f16,
        false,
    );
    assert_eq!(bad, vec![2, 3]);
}
