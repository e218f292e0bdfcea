//! ptxsim against an sm_90 GPU. `tests/hardware/sm90.ptx` has one kernel for every `cvt` and
//! `cvt.pack` form that ptxas accepts for `.target sm_90` (ptxas's verdicts in
//! `tests/conformance/`); each thread converts one input of `tests/hardware/in-*.bin` (every
//! 8- and 16-bit value, every value of each f16x2/bf16x2 lane, 16,384 chosen 32- and 64-bit
//! values). `tests/hardware/sm90-gpu.bin.xz` is what an H100 wrote for the whole module
//! (`scripts/hardware/run-gpu.sh`; the run's report is `docs/hardware.md`). Here every kernel
//! runs through the same path as `ptxsim run` and must write the same bytes, NaN payloads
//! included.

use std::collections::HashMap;
use std::path::PathBuf;

use ptxsim_exec::{Argument, GridOptions, grid};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/hardware")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The decompressed contents of an `.xz` file of tests/hardware.
fn read_xz(name: &str) -> Vec<u8> {
    let packed = read(name);
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut out)
        .unwrap_or_else(|e| panic!("{name} does not decode: {e:?}"));
    out
}

struct Form {
    kernel: String,
    instruction: String,
    layout: String,
    count: usize,
    out_bytes: usize,
}

fn forms(table: &str) -> Vec<Form> {
    let text = String::from_utf8(read(table)).expect("forms.tsv is UTF-8");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "forms.tsv: {line}");
            Form {
                kernel: f[0].to_string(),
                instruction: f[1].to_string(),
                layout: f[2].to_string(),
                count: f[3].parse().expect("count"),
                out_bytes: f[4].parse().expect("out bytes"),
            }
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}

/// Runs every kernel of `dir/module` (listed in `dir/forms.tsv`, inputs `dir/in-LAYOUT.bin`)
/// through ptxsim and compares its output with the GPU's (`dir/gpu`, xz): at least `min_forms`
/// forms and `min_elements` elements.
fn compare_with_gpu(dir: &str, module: &str, gpu: &str, min_forms: usize, min_elements: usize) {
    let file = |name: &str| {
        if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        }
    };
    let source = String::from_utf8(read(&file(module))).expect("the module is UTF-8");
    let (checked, diagnostics) = ptxsim_check::compile(&source, &Default::default());
    let Some(checked) = checked else {
        panic!("{dir}: the module does not check: {diagnostics:?}");
    };
    let forms = forms(&file("forms.tsv"));
    // A generator that lost forms fails.
    assert!(forms.len() >= min_forms, "only {} forms", forms.len());
    let gpu = read_xz(&file(gpu));
    let expected_len: usize = forms.iter().map(|f| f.count * f.out_bytes).sum();
    assert_eq!(
        gpu.len(),
        expected_len,
        "GPU outputs do not match forms.tsv"
    );

    let mut inputs: HashMap<String, Vec<u8>> = HashMap::new();
    let mut failures = Vec::new();
    let mut offset = 0;
    let mut elements = 0;
    for form in &forms {
        let want = &gpu[offset..offset + form.count * form.out_bytes];
        offset += want.len();
        let input = inputs
            .entry(form.layout.clone())
            .or_insert_with(|| {
                // The scalar and packed sets read the ops set's inputs.
                let own = file(&format!("in-{}.bin", form.layout));
                if path(&own).exists() {
                    read(&own)
                } else {
                    read(&format!("ops/in-{}.bin", form.layout))
                }
            })
            .clone();
        let in_bytes = input.len() / form.count;
        let program = checked
            .program(Some(&form.kernel))
            .unwrap_or_else(|e| panic!("{}: {e:?}", form.instruction));
        let blocks = u32::try_from(form.count / 256).expect("grid size");
        let arguments = vec![
            Argument::Buffer(input.clone()),
            Argument::Buffer(vec![0; want.len()]),
        ];
        let (device, addresses) =
            grid::prepare(&program, [blocks, 1, 1], [256, 1, 1], 100, arguments)
                .unwrap_or_else(|e| panic!("{}: {e}", form.instruction));
        let run = grid::run_grid(&device, GridOptions::default(), None, None);
        if let Some(failure) = &run.failure {
            failures.push(format!("`{}`: {failure:?}", form.instruction));
            continue;
        }
        let address = addresses[1].expect("the output buffer has an address");
        let got = device
            .global
            .buffer_at(address)
            .expect("the output buffer")
            .contents();
        let ob = form.out_bytes;
        let bad: Vec<usize> = (0..form.count)
            .filter(|&i| got[i * ob..(i + 1) * ob] != want[i * ob..(i + 1) * ob])
            .collect();
        elements += form.count;
        if !bad.is_empty() {
            let shown: Vec<String> = bad
                .iter()
                .take(3)
                .map(|&i| {
                    format!(
                        "in {} gpu {} ptxsim {}",
                        hex(&input[i * in_bytes..(i + 1) * in_bytes]),
                        hex(&want[i * ob..(i + 1) * ob]),
                        hex(&got[i * ob..(i + 1) * ob])
                    )
                })
                .collect();
            failures.push(format!(
                "`{}`: {} of {} differ; {}",
                form.instruction,
                bad.len(),
                form.count,
                shown.join("; ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} forms differ from the GPU:\n{}",
        failures.len(),
        forms.len(),
        failures.join("\n")
    );
    assert!(
        elements >= min_elements,
        "compared only {elements} elements"
    );
}

#[test]
fn every_sm90_conversion_form_matches_the_gpu() {
    // Every sm_90 cvt/cvt.pack form of the conformance data.
    compare_with_gpu("", "sm90.ptx", "sm90-gpu.bin.xz", 560, 17_000_001);
}

/// The integer and floating-point arithmetic ptxsim executes (scripts/hardware/ops_gen.py: shf,
/// slct, mul24, mad24, sad, bfe, bfi, prmt, lop3, mul/mad .hi/.wide, div/rem, min/max, shifts,
/// popc, clz, brev, abs, neg, .sat and .relu forms; add, sub, mul, fma, div, sqrt, rcp in every
/// rounding with .ftz/.sat, min/max .NaN, abs, neg on f64, f32, f16, f16x2, bf16, bf16x2; setp
/// with every comparison of every type, selp; atom/red on a location per thread, global and
/// shared), 8,192
/// inputs each with the corner cases of every format, against the outputs of an H200
/// (`tests/hardware/ops/ops-gpu.bin.xz`, scripts/hardware/run-ops.sh).
#[test]
fn every_arithmetic_form_matches_the_gpu() {
    compare_with_gpu("ops", "ops.ptx", "ops-gpu.bin.xz", 494, 494 * 8192);
}

/// The rest of the scalar ISA (scripts/hardware/ops_gen.py --set scalar): the carry chain
/// (`add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}` on
/// `.u32 .s32 .u64 .s64`, the result and the carry flag each), `bfind{.shiftamt}`, `fns`,
/// `bmsk`, `szext`, `dp4a`, `dp2a`, `copysign`, `testp`, `set` (integer, float and half
/// forms), 8,192 inputs each, against an H200 (`tests/hardware/scalar/scalar-gpu.bin.xz`,
/// scripts/hardware/run-ops.sh OUT tests/hardware/scalar).
#[test]
fn every_scalar_extra_form_matches_the_gpu() {
    compare_with_gpu("scalar", "scalar.ptx", "scalar-gpu.bin.xz", 142, 142 * 8192);
}

/// `.u16x2`/`.s16x2` add/min/max (`.relu`), `min`/`max` `.xorsign.abs` (`.NaN`, `.ftz`) on
/// f32, f16, f16x2, bf16, bf16x2 (scripts/hardware/ops_gen.py --set packed),
/// against an H200 (`tests/hardware/packed/packed-gpu.bin.xz`).
#[test]
fn every_packed_form_matches_the_gpu() {
    compare_with_gpu("packed", "packed.ptx", "packed-gpu.bin.xz", 30, 30 * 8192);
}

/// The warp and atomic probes of `scripts/hardware/warp` (shfl with partial membermasks, exited
/// source lanes and the `c` operand; vote, activemask and elect in divergent code; `__syncwarp`
/// patterns; match and redux with partial masks; the per-lane order of atomics on one address
/// within a warp, integer and float) against an H200 (`tests/hardware/warp/warp-gpu.bin.xz`,
/// scripts/hardware/warp/run.sh). Atomics from several warps or CTAs to one address are
/// applied in an order that varies between runs on the GPU itself (`warp-log.txt` of the run):
/// those buffers are left out (`atom_grid`), and in `block_reduce` the float total of the
/// CTAs' atomic adds (word 1 of its second buffer).
#[test]
fn the_warp_probes_match_the_gpu() {
    let plan = String::from_utf8(read("warp/plan.tsv")).expect("UTF-8");
    let gpu = read_xz("warp/warp-gpu.bin.xz");
    let source = String::from_utf8(read("warp/probe.ptx")).expect("UTF-8");
    let (checked, diagnostics) = ptxsim_check::compile(&source, &Default::default());
    let checked = checked.unwrap_or_else(|| panic!("probe.ptx does not check: {diagnostics:?}"));
    let dims = |text: &str| -> [u32; 3] {
        let mut d = [1u32; 3];
        for (slot, part) in d.iter_mut().zip(text.split(',')) {
            *slot = part.parse().expect("a dimension");
        }
        d
    };
    let mut offset = 0;
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in plan
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let [_, entry, grid_dims, block, args, saved] = fields[..] else {
            panic!("bad plan line {line}");
        };
        let arguments: Vec<Argument> = args
            .split(' ')
            .map(|a| match a.split_once(':') {
                Some(("poison", n)) => Argument::Buffer(vec![0xa5; n.parse().expect("a size")]),
                Some(("zeros", n)) => Argument::Buffer(vec![0; n.parse().expect("a size")]),
                _ => panic!("unexpected argument {a}"),
            })
            .collect();
        let program = checked.program(Some(entry)).expect("the kernel builds");
        let (device, addresses) =
            grid::prepare(&program, dims(grid_dims), dims(block), 1_000_000, arguments)
                .expect("a valid launch");
        let run = grid::run_grid(&device, GridOptions::default(), None, None);
        assert!(run.failure.is_none(), "{entry}: {:?}", run.failure);
        for index in saved.split(' ') {
            let index: usize = index.parse().expect("an index");
            let ours = device
                .global
                .buffer_at(addresses[index].expect("a buffer"))
                .expect("the buffer")
                .contents();
            let theirs = &gpu[offset..offset + ours.len()];
            offset += ours.len();
            if entry == "atom_grid" {
                continue;
            }
            for (word, (a, b)) in ours.chunks(4).zip(theirs.chunks(4)).enumerate() {
                if entry == "block_reduce" && index == 1 && word == 1 {
                    continue;
                }
                compared += 1;
                if a != b {
                    failures.push(format!(
                        "{entry} arg {index} word {word}: GPU {b:02x?}, ptxsim {a:02x?}"
                    ));
                }
            }
        }
    }
    assert_eq!(offset, gpu.len(), "the GPU file has the plan's buffers");
    assert!(compared > 4000, "only {compared} words compared");
    assert!(
        failures.is_empty(),
        "{} words differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
