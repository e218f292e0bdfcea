//! The compiled tier against the interpreter: every sample kernel of `tests/kernels/` (the
//! nvcc kernels of `ptx-samples/cuda/`, whose outputs `ptxsim-exec`'s `kernels.rs` checks
//! against host references) runs on both tiers with the same inputs; the output buffers, the
//! step counts, the failures and the inspected thread's registers must be identical.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

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

/// What a run left: steps, failure, the inspected thread, and every buffer.
type Run = (u64, String, Option<(Vec<u128>, u64)>, Vec<Vec<u8>>);

fn launch(
    program: &ptxsim_exec::Program,
    case: &serde_json::Value,
    compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>,
) -> Run {
    let dims = |key: &str| -> [u32; 3] {
        let v = case[key].as_array().unwrap();
        [0, 1, 2].map(|i| v[i].as_u64().unwrap() as u32)
    };
    let (mut device, addresses) = grid::prepare(
        program,
        dims("grid"),
        dims("block"),
        100_000,
        arguments(case),
    )
    .unwrap();
    device
        .set_dynamic_shared(case["dynamic_shared"].as_u64().unwrap_or(0))
        .unwrap();
    if let Some(kernel) = compiled {
        device.set_compiled(kernel.clone());
    }
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    let buffers = addresses
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
    let inspected = run
        .inspected
        .as_ref()
        .map(|i| (i.registers.clone(), i.steps));
    (run.steps, format!("{:?}", run.failure), inspected, buffers)
}

#[test]
fn every_sample_kernel_runs_the_same_on_both_tiers() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read("tests/kernels/manifest.json")).expect("manifest parses");
    let (mut compared, mut covered, mut instructions, mut kept) = (0, 0, 0, Vec::new());
    for case in manifest["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap();
        let entry = case["entry"].as_str().unwrap();
        let ptx = case["ptx"][0].as_str().unwrap();
        let source = String::from_utf8(read(ptx)).unwrap();
        let program = ptxsim_exec::load(&source, Some(entry)).expect("the sample loads");
        if let Some(reason) = ptxsim_jit::keeps_interpreter(&program) {
            kept.push(format!("{name} ({reason})"));
            continue;
        }
        let kernel = ptxsim_jit::compile_shared(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        covered += kernel.stats().covered;
        instructions += kernel.stats().instructions;
        let interpreted = launch(&program, case, None);
        let compiled = launch(&program, case, Some(&kernel));
        assert_eq!(interpreted.0, compiled.0, "{name}: step counts");
        assert_eq!(interpreted.1, compiled.1, "{name}: failures");
        assert_eq!(interpreted.2, compiled.2, "{name}: the inspected thread");
        assert!(interpreted.3 == compiled.3, "{name}: output buffers differ");
        assert!(interpreted.0 > 0, "{name}: nothing ran");
        compared += 1;
    }
    eprintln!(
        "{compared} kernels compared; {covered} of {instructions} instructions compiled; \
         kept in the interpreter: {kept:?}"
    );
    assert!(compared >= 45, "{compared} kernels compared");
}

/// Runs `source`'s kernel on both tiers with one output buffer of `bytes` and `max_steps`, and
/// checks that everything observable is the same.
fn same_on_both_tiers(name: &str, source: &str, block: u32, bytes: usize, max_steps: u64) -> Run {
    let program = ptxsim_exec::load(source, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let kernel = ptxsim_jit::compile_shared(&program).unwrap();
    assert!(kernel.stats().covered > 0, "{name}: nothing compiled");
    let run = |compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>| -> Run {
        let (mut device, addresses) = grid::prepare(
            &program,
            [2, 1, 1],
            [block, 1, 1],
            max_steps,
            vec![Argument::Buffer(vec![0; bytes])],
        )
        .unwrap();
        if let Some(kernel) = compiled {
            device.set_compiled(kernel.clone());
        }
        let run = grid::run_grid(&device, GridOptions::default(), None, None);
        let buffers = addresses
            .iter()
            .flatten()
            .map(|&a| {
                device
                    .global
                    .buffer_at(a)
                    .map(|b| b.contents())
                    .unwrap_or_default()
            })
            .collect();
        let inspected = run
            .inspected
            .as_ref()
            .map(|i| (i.registers.clone(), i.steps));
        (run.steps, format!("{:?}", run.failure), inspected, buffers)
    };
    let interpreted = run(None);
    let compiled = run(Some(&kernel));
    assert_eq!(interpreted, compiled, "{name}");
    interpreted
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

#[test]
fn faults_fuel_guards_and_generic_shared_addresses_match_the_interpreter() {
    // Thread 5 of each CTA stores past the buffer's end: the same fault, at the same thread and
    // instruction, with the same bytes written before it.
    let fault = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 add.u32 %r1, %r1, 1000;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}}"
    );
    let run = same_on_both_tiers("fault", &fault, 32, 128, 1000);
    assert!(run.1.contains("Trapped"), "the store faults: {}", run.1);
    // A loop that never ends stops at the step limit, at the same step.
    let spin = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .b32 %r<3>;
    mov.u32 %r1, 0;
$L:
    add.u32 %r1, %r1, 3;
    xor.b32 %r2, %r1, 7;
    bra $L;
}}"
    );
    let run = same_on_both_tiers("spin", &spin, 4, 8, 1001);
    assert!(
        run.1.contains("OutOfFuel"),
        "the loop runs out of fuel: {}",
        run.1
    );
    // Shared memory through its generic address (the helper's path) and `.shared` (the
    // inline path), across a barrier, with guarded and negated-guard instructions.
    let shared = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .shared .align 4 .b32 tile[64];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    mul.lo.u32 %r5, %r1, %r1;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    mov.u64 %rd2, tile;
    cvta.shared.u64 %rd3, %rd2;
    sub.u32 %r6, 63, %r1;
    shl.b32 %r6, %r6, 2;
    cvt.u64.u32 %rd4, %r6;
    add.u64 %rd5, %rd3, %rd4;
    ld.u32 %r7, [%rd5];
    setp.lt.u32 %p1, %r1, 10;
    @!%p1 add.u32 %r7, %r7, 1;
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r7;
    ret;
}}"
    );
    let run = same_on_both_tiers("shared", &shared, 64, 256, 10_000);
    assert_eq!(run.1, "None", "the kernel exits");
    // Thread t read (63 - t)^2 (PTX: each thread stored tid^2 in tile[tid]), plus 1 from
    // thread 10 on; the second CTA overwrote the first's values with the same.
    let out = &run.3[0];
    for t in 0..64u32 {
        let expected = (63 - t) * (63 - t) + u32::from(t >= 10);
        let got = u32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
        assert_eq!(got, expected, "thread {t}");
    }
}
