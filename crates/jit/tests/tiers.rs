//! The compiled tier against the interpreter: every sample kernel of `tests/kernels/` (the
//! nvcc kernels of `ptx-samples/cuda/`, whose outputs `ptxsim-exec`'s `kernels.rs` checks
//! against host references) runs on both tiers with the same inputs; the output buffers, the
//! step counts, the failures and the inspected thread's registers must be identical.

use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions};

mod common;

use common::{Rng, Run, outcome, repo};

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
    outcome(&device, GridOptions::default(), &addresses)
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
        let block = case["block"].as_array().unwrap();
        let block = [0, 1, 2].map(|i| block[i].as_u64().unwrap() as u32);
        let kernel =
            ptxsim_jit::compile_shared(&program, block).unwrap_or_else(|e| panic!("{name}: {e}"));
        covered += kernel.stats().covered;
        instructions += kernel.stats().instructions;
        let mut interpreted = launch(&program, case, None);
        let mut compiled = launch(&program, case, Some(&kernel));
        // The old value an atomic returns depends on the order of the threads, which the
        // compiled tier changes; in a kernel `auto` compiles no instruction reads it
        // (`Program::atomics_commute`), so the inspected thread's copy of it is left out.
        for run in [&mut interpreted, &mut compiled] {
            if let Some((registers, _)) = &mut run.2 {
                for register in atomic_destinations(&program) {
                    if let Some(value) = registers.get_mut(register) {
                        *value = 0;
                    }
                }
            }
        }
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

/// The registers that `atom` instructions of `program` write their old values to.
fn atomic_destinations(program: &ptxsim_exec::Program) -> Vec<usize> {
    program
        .instructions
        .iter()
        .filter_map(|instruction| match instruction.kind {
            ptxsim_exec::ir::InstructionKind::Atom {
                destination: Some(destination),
                ..
            } => Some(destination.register.index()),
            _ => None,
        })
        .collect()
}

/// Runs `source`'s kernel on both tiers with one output buffer of `bytes` and `max_steps`, and
/// checks that everything observable is the same.
fn same_on_both_tiers(name: &str, source: &str, block: u32, bytes: usize, max_steps: u64) -> Run {
    let (interpreted, compiled) = both_tiers(name, source, block, bytes, max_steps);
    assert_eq!(interpreted, compiled, "{name}");
    interpreted
}

/// The runs of `source`'s kernel on 2 CTAs of `block` threads in the interpreter and with its
/// compiled code, with one output buffer of `bytes` and `max_steps`.
fn both_tiers(name: &str, source: &str, block: u32, bytes: usize, max_steps: u64) -> (Run, Run) {
    let program = ptxsim_exec::load(source, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let kernel = ptxsim_jit::compile_shared(&program, [block, 1, 1]).unwrap();
    assert!(kernel.stats().covered > 0, "{name}: nothing compiled");
    let run = |compiled| {
        run_grid(
            &program,
            ([2, 1, 1], [block, 1, 1], max_steps),
            vec![Argument::Buffer(vec![0; bytes])],
            compiled,
        )
    };
    (run(None), run(Some(&kernel)))
}

/// The run of `program` on a grid of `shape` (the grid, the CTA and the step limit) with
/// `arguments`, in the interpreter or with `compiled`.
fn run_grid(
    program: &ptxsim_exec::Program,
    (grid_shape, block, max_steps): ([u32; 3], [u32; 3], u64),
    arguments: Vec<Argument>,
    compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>,
) -> Run {
    let (mut device, addresses) =
        grid::prepare(program, grid_shape, block, max_steps, arguments).unwrap();
    if let Some(kernel) = compiled {
        device.set_compiled(kernel.clone());
    }
    outcome(&device, GridOptions::default(), &addresses)
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Compiles `program` for CTAs of `block` threads (every instruction must compile) and runs
/// `threads` threads of it (`out`, `input`) in the interpreter and with the compiled code.
fn elementwise_on_both_tiers(
    name: &str,
    program: &ptxsim_exec::Program,
    (threads, block, max_steps): (usize, u32, u64),
    out_bytes: usize,
    input: &[u8],
) -> (Run, Run) {
    let kernel = ptxsim_jit::compile_shared(program, [block, 1, 1]).unwrap();
    assert_eq!(
        kernel.stats().covered,
        kernel.stats().instructions,
        "{name}: every instruction compiled"
    );
    let run = |compiled| {
        run_grid(
            program,
            (
                [(threads as u32).div_ceil(block), 1, 1],
                [block, 1, 1],
                max_steps,
            ),
            vec![
                Argument::Buffer(vec![0; out_bytes]),
                Argument::Buffer(input.to_vec()),
            ],
            compiled,
        )
    };
    (run(None), run(Some(&kernel)))
}

/// Integer atomics whose old values nothing reads (`red`, and `atom` into a register no other
/// instruction names, as nvcc writes `atomicAdd(p, v)` with its result unused) give the same
/// memory in any order of the threads, so `auto` compiles such a kernel and its CTAs run on
/// several host threads; the sums are worked out here from the PTX's definitions (2 CTAs of 64
/// threads, thread t of CTA c contributing v = 64c + t): add of v + 1, max of v, xor of 7v + 1,
/// or of 1 << (v % 32), and a count in shared memory copied out per CTA.
#[test]
fn order_free_atomics_run_compiled_with_the_interpreters_results() {
    let body = "{\n .reg .b32 %r<16>;\n .reg .b64 %rd<4>;\n .reg .pred %p<2>;\n\
                .shared .align 4 .u32 count;\n\
                ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
                mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mad.lo.u32 %r3, %r2, 64, %r1;\n\
                setp.eq.u32 %p1, %r1, 0;\n @%p1 st.shared.u32 [count], 0;\n bar.sync 0;\n\
                add.u32 %r4, %r3, 1;\n red.global.add.u32 [%rd1], %r4;\n\
                atom.global.max.s32 %r5, [%rd1+4], %r3;\n\
                mad.lo.u32 %r6, %r3, 7, 1;\n red.global.xor.b32 [%rd1+8], %r6;\n\
                and.b32 %r7, %r3, 31;\n shl.b32 %r8, 1, %r7;\n atom.global.or.b32 %r9, [%rd1+12], %r8;\n\
                atom.shared.add.u32 %r10, [count], 1;\n bar.sync 0;\n\
                @%p1 ld.shared.u32 %r11, [count];\n mul.wide.u32 %rd2, %r2, 4;\n add.u64 %rd3, %rd1, %rd2;\n\
                @%p1 st.global.u32 [%rd3+16], %r11;\n ret;\n}\n";
    let source = format!("{HEADER}.visible .entry k(.param .u64 out)\n{body}");
    let program = ptxsim_exec::load(&source, None).unwrap();
    assert!(program.has_atomics && program.atomics_commute);
    assert_eq!(ptxsim_jit::keeps_interpreter(&program), None);
    let run = same_on_both_tiers("order-free atomics", &source, 64, 24, 1000);
    let words: Vec<u32> = run.3[0]
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let values = 0..128u32;
    assert_eq!(words[0], values.clone().map(|v| v + 1).sum::<u32>());
    assert_eq!(words[1], 127);
    assert_eq!(words[2], values.clone().fold(0, |x, v| x ^ (7 * v + 1)));
    assert_eq!(words[3], u32::MAX);
    assert_eq!(&words[4..6], &[64, 64]);
    // Reading an atomic's old value makes the order visible: the kernel stays interpreted.
    let reads = source.replace(
        "atom.global.max.s32 %r5, [%rd1+4], %r3;",
        "atom.global.max.s32 %r5, [%rd1+4], %r3;\n add.u32 %r12, %r5, 1;",
    );
    let program = ptxsim_exec::load(&reads, None).unwrap();
    assert!(program.has_atomics && !program.atomics_commute);
    assert!(ptxsim_jit::keeps_interpreter(&program).is_some());
}

/// `atom.cas.b128` (sm_90), which the compiled tier leaves to the interpreter: 128 threads add
/// 2^63 + 1 each to a 128-bit counter with a compare-and-swap loop, on both tiers alike, and the
/// counter ends at 128 (2^63 + 1) = 2^70 + 128, the carry crossing the 64-bit halves.
#[test]
fn atomics_of_128_bits_run_the_same_on_both_tiers() {
    let source = ".version 8.3\n.target sm_90\n.address_size 64\n\
                  .visible .entry k(.param .u64 out)\n{\n\
                  .reg .b64 %rd<8>;\n .reg .b128 %q<4>;\n .reg .pred %p<2>;\n\
                  ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
                  ld.global.v2.u64 {%rd2, %rd3}, [%rd1];\n\
                  LOOP:\n add.cc.u64 %rd4, %rd2, 0x8000000000000001;\n addc.u64 %rd5, %rd3, 0;\n\
                  mov.b128 %q1, {%rd2, %rd3};\n mov.b128 %q2, {%rd4, %rd5};\n\
                  atom.global.cas.b128 %q3, [%rd1], %q1, %q2;\n\
                  mov.b128 {%rd6, %rd7}, %q3;\n setp.ne.u64 %p1, %rd6, %rd2;\n\
                  setp.ne.or.u64 %p1, %rd7, %rd3, %p1;\n mov.b64 %rd2, %rd6;\n mov.b64 %rd3, %rd7;\n\
                  @%p1 bra LOOP;\n ret;\n}\n";
    let run = same_on_both_tiers("atom.cas.b128", source, 64, 16, 100_000);
    let counter = u128::from_le_bytes(run.3[0][..16].try_into().unwrap());
    assert_eq!(counter, (1 << 70) + 128);
}

/// The step limit is checked where a thread enters compiled code, for the longest way it may
/// go without a loop's own check (`translate::reaches`), and at loop heads: an `if`/`else`
/// joining before a loop, run on both tiers under every step limit from 1 to past the end.
/// Worked out from the PTX: an odd thread issues 25 instructions and stores `100 + 3 * tid`
/// (`0 ^ 0` + 100, then the loop from `r3` = 1 to 4, adding `tid` three times), an even one 29
/// and `(200 ^ 5) + 4 * tid`; under a lower limit the same thread runs out of fuel, with
/// the same registers and steps, as in the interpreter.
#[test]
fn step_limits_across_branches_and_loops_match_the_interpreter() {
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra EVEN;
    add.u32 %r2, %r2, 100;
    bra LOOP;
EVEN:
    add.u32 %r2, %r2, 200;
    xor.b32 %r2, %r2, 5;
LOOP:
    add.u32 %r2, %r2, %r1;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, 4;
    @%p2 bra LOOP;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}}"
    );
    let expected: Vec<u8> = (0..32u32)
        .flat_map(|tid| {
            let value = if tid % 2 == 1 {
                100 + 3 * tid
            } else {
                (200 ^ 5) + 4 * tid
            };
            value.to_le_bytes()
        })
        .collect();
    for max_steps in 1..=31 {
        if max_steps >= 29 {
            // Everything observable the same on both tiers, and the PTX's: two CTAs of 16
            // odd and 16 even threads.
            let run = same_on_both_tiers("limits", &source, 32, 128, max_steps);
            assert_eq!(run.0, 2 * 16 * (25 + 29), "limit {max_steps}: the steps");
            assert_eq!(
                run.3,
                std::slice::from_ref(&expected),
                "limit {max_steps}: the stores"
            );
            assert_eq!(run.1, "None", "limit {max_steps}");
        } else {
            // The same thread of the same CTA out of fuel. What the other threads did before
            // the CTA stopped may differ (docs/compiled-tier.md, "Testing": compiled, the odd
            // threads after thread 0 finish before the interpreter stops thread 0).
            let (interpreted, compiled) = both_tiers("limits", &source, 32, 128, max_steps);
            assert!(
                interpreted.1.contains("OutOfFuel"),
                "limit {max_steps}: {}",
                interpreted.1
            );
            assert_eq!(compiled.1, interpreted.1, "limit {max_steps}: the failure");
            assert_eq!(
                compiled.2, interpreted.2,
                "limit {max_steps}: the inspected thread"
            );
        }
    }
}

#[test]
fn faults_fuel_guards_and_generic_shared_addresses_match_the_interpreter() {
    // Thread 5 of each CTA stores past the buffer's end: the same fault, at the same thread and
    // instruction, with the same bytes written before it. In the interpreter the CTA's 32
    // threads issue the store in lockstep and the fault stops them all there; the compiled code
    // runs threads 0 to 4 through their store and `ret` before thread 5 (one after another,
    // docs/compiled-tier.md, "Testing"), so they have exited: one step more each, in both CTAs,
    // and the inspected thread (3) at 8 steps, not 7.
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
    let (run, compiled) = both_tiers("fault", &fault, 32, 128, 1000);
    assert!(run.1.contains("Trapped"), "the store faults: {}", run.1);
    assert_eq!(compiled.1, run.1, "fault: the failure");
    assert_eq!(compiled.3, run.3, "fault: the bytes written");
    assert_eq!(
        compiled.0,
        run.0 + 2 * 5,
        "fault: the rets of threads 0 to 4"
    );
    let registers = |r: &Run| r.2.as_ref().map(|(registers, _)| registers.clone());
    assert_eq!(
        registers(&compiled),
        registers(&run),
        "fault: thread 3's registers"
    );
    let steps = |r: &Run| r.2.as_ref().map(|&(_, steps)| steps);
    assert_eq!((steps(&run), steps(&compiled)), (Some(7), Some(8)));
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
    .reg .pred %p<3>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<9>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
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
    cvta.to.shared.u64 %rd8, %rd3;
    setp.eq.u64 %p2, %rd8, %rd2;
    selp.u32 %r8, 100, 0, %p2;
    add.u32 %r7, %r7, %r8;
    cvta.global.u64 %rd4, %rd1;
    setp.eq.u64 %p2, %rd4, %rd1;
    selp.u32 %r8, 1000, 0, %p2;
    add.u32 %r7, %r7, %r8;
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r7;
    ret;
}}"
    );
    let run = same_on_both_tiers("shared", &shared, 64, 256, 10_000);
    assert_eq!(run.1, "None", "the kernel exits");
    // Thread t read (63 - t)^2 (PTX: each thread stored tid^2 in tile[tid]), plus 1 from
    // thread 10 on; the second CTA overwrote the first's values with the same. Plus 100 and
    // 1000: `cvta.to.shared` takes a `cvta.shared` address back to the shared address
    // ("cvta.to ... converts a generic address to a state-space address", PTX ISA 9.7.9.22),
    // and `cvta.global` takes the global address (from `cvta.to.global`) back to itself: the
    // generic address of global memory is the global address in ptxsim's memory map.
    let out = &run.3[0];
    for t in 0..64u32 {
        let expected = (63 - t) * (63 - t) + u32::from(t >= 10) + 1100;
        let got = u32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
        assert_eq!(got, expected, "thread {t}");
    }
}

/// Registers of each type a random kernel declares (besides the fixed ones of its prologue).
const REGISTERS: u64 = 6;
/// Words of the output buffer each thread owns.
const SLOTS: u64 = 8;
/// Words of the input buffer and of the shared array.
const WORDS: u64 = 256;
const SHARED_WORDS: u64 = 128;

/// f32 immediates: NaNs, infinities, signed zeros, subnormals, the extremes and ordinary values.
const FLOATS: [&str; 14] = [
    "0f7FC00000",
    "0fFFC00001",
    "0f7F800000",
    "0fFF800000",
    "0f80000000",
    "0f00000000",
    "0f00000001",
    "0f807FFFFF",
    "0f7F7FFFFF",
    "0f3F800000",
    "0fBFC00000",
    "0f4B800001",
    "0f00800000",
    "0f5F000000",
];

/// A random kernel: straight-line code, forward branches and bounded loops in phases separated
/// by barriers. Each thread writes only its own slots of `out` and its own word of the shared
/// array (before a barrier), so that the result does not depend on the order in which the
/// threads of a CTA run. `faults` allows out-of-bounds accesses.
struct Generator<'r> {
    rng: &'r mut Rng,
    lines: Vec<String>,
    labels: u64,
    loops: u64,
    faults: bool,
}

impl Generator<'_> {
    fn reg(&mut self, class: &str) -> String {
        format!("%{class}{}", self.rng.below(REGISTERS))
    }
    /// A source operand of `class`: a register, or sometimes an immediate.
    fn src(&mut self, class: &str) -> String {
        if !self.rng.chance(25) {
            return self.reg(class);
        }
        match class {
            "f" => self.rng.pick(&FLOATS).to_string(),
            "r" => self
                .rng
                .pick(&["0", "1", "31", "32", "0x80000000", "0xFFFFFFFF", "7"])
                .to_string(),
            "s" => self
                .rng
                .pick(&["0", "-1", "-2147483648", "2147483647", "5", "-33"])
                .to_string(),
            "rd" => self
                .rng
                .pick(&["0", "1", "0xFFFFFFFFFFFFFFFF", "0x100000000", "63", "64"])
                .to_string(),
            _ => self
                .rng
                .pick(&[
                    "0",
                    "-1",
                    "-9223372036854775808",
                    "9223372036854775807",
                    "3",
                ])
                .to_string(),
        }
    }
    fn guard(&mut self) -> String {
        match self.rng.below(6) {
            0 => format!("@%p{} ", self.rng.below(REGISTERS)),
            1 => format!("@!%p{} ", self.rng.below(REGISTERS)),
            _ => String::new(),
        }
    }
    fn emit(&mut self, line: String) {
        self.lines.push(format!("    {line}"));
    }

    /// One random computing instruction (no memory, no control flow).
    fn instruction(&mut self) {
        // (register class, type suffix, bits suffix) of the integer types.
        const INTS: [(&str, &str, &str); 4] = [
            ("r", "u32", "b32"),
            ("s", "s32", "b32"),
            ("rd", "u64", "b64"),
            ("sd", "s64", "b64"),
        ];
        const COMPARES_INT: [&str; 10] =
            ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
        const COMPARES_F32: [&str; 14] = [
            "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ];
        let g = self.guard();
        let &(c, ty, b) = self.rng.pick(&INTS);
        let line = match self.rng.below(17) {
            0 => {
                let op = self.rng.pick(&["add", "sub", "min", "max"]);
                format!(
                    "{op}.{ty} {}, {}, {}",
                    self.reg(c),
                    self.src(c),
                    self.src(c)
                )
            }
            1 => format!(
                "mul.lo.{ty} {}, {}, {}",
                self.reg(c),
                self.src(c),
                self.src(c)
            ),
            2 => {
                let (wide, d, a) = if self.rng.chance(50) {
                    ("u32", "rd", "r")
                } else {
                    ("s32", "sd", "s")
                };
                format!(
                    "mul.wide.{wide} {}, {}, {}",
                    self.reg(d),
                    self.src(a),
                    self.src(a)
                )
            }
            3 => format!(
                "mad.lo.{ty} {}, {}, {}, {}",
                self.reg(c),
                self.src(c),
                self.src(c),
                self.src(c)
            ),
            4 => {
                let op = self.rng.pick(&["shl", "shr"]);
                let suffix = if *op == "shl" { b } else { ty };
                format!(
                    "{op}.{suffix} {}, {}, {}",
                    self.reg(c),
                    self.src(c),
                    self.src("r")
                )
            }
            5 => {
                let op = self.rng.pick(&["and", "or", "xor"]);
                format!("{op}.{b} {}, {}, {}", self.reg(c), self.src(c), self.src(c))
            }
            6 | 7 => {
                let (t, class, cmp) = if self.rng.chance(40) {
                    ("f32", "f", *self.rng.pick(&COMPARES_F32))
                } else {
                    // `lo`, `ls`, `hi`, `hs` are for unsigned types only.
                    let n = if ty.starts_with('u') { 10 } else { 6 };
                    (ty, c, COMPARES_INT[self.rng.below(n) as usize])
                };
                let p = self.reg("p");
                let (a, bb) = (self.src(class), self.src(class));
                match self.rng.below(3) {
                    0 => format!("setp.{cmp}.{t} {p}, {a}, {bb}"),
                    _ => {
                        let combine = self.rng.pick(&["and", "or", "xor"]);
                        let neg = if self.rng.chance(30) { "!" } else { "" };
                        let q = self.reg("p");
                        format!("setp.{cmp}.{combine}.{t} {p}, {a}, {bb}, {neg}{q}")
                    }
                }
            }
            8 => {
                let (t, class) = if self.rng.chance(30) {
                    ("f32", "f")
                } else {
                    (ty, c)
                };
                format!(
                    "selp.{t} {}, {}, {}, {}",
                    self.reg(class),
                    self.src(class),
                    self.src(class),
                    self.reg("p")
                )
            }
            9..=11 => {
                let op = self.rng.pick(&["add", "sub", "mul", "fma"]);
                let rounding = self.rng.pick(&[".rn", ".rn", "", ".rz", ".ftz", ".rn.ftz"]);
                let rounding = if *op == "fma" && !rounding.starts_with(".r") {
                    ".rn"
                } else {
                    rounding
                };
                let third = if *op == "fma" {
                    format!(", {}", self.src("f"))
                } else {
                    String::new()
                };
                format!(
                    "{op}{rounding}.f32 {}, {}, {}{third}",
                    self.reg("f"),
                    self.src("f"),
                    self.src("f")
                )
            }
            12 => {
                let &(d, dt, _) = self.rng.pick(&INTS);
                format!("cvt.{dt}.{ty} {}, {}", self.reg(d), self.reg(c))
            }
            13 => {
                let rounding = self.rng.pick(&["rn", "rz", "rm", "rp"]);
                format!("cvt.{rounding}.f32.{ty} {}, {}", self.reg("f"), self.reg(c))
            }
            14 => {
                let rounding = self.rng.pick(&["rni", "rzi", "rmi", "rpi"]);
                let sat = if self.rng.chance(20) { ".sat" } else { "" };
                format!(
                    "cvt.{rounding}{sat}.{ty}.f32 {}, {}",
                    self.reg(c),
                    self.reg("f")
                )
            }
            15 => format!("mov.b32 {}, {}", self.reg("f"), self.src("r")),
            _ => format!("mov.b32 {}, {}", self.reg("r"), self.reg("f")),
        };
        self.emit(format!("{g}{line};"));
    }

    /// A load of the input buffer (or a store of this thread's slots of the output buffer),
    /// out of bounds only when faults are allowed, and then rarely.
    fn global_access(&mut self) {
        let g = self.guard();
        let wild = self.faults && self.rng.chance(4);
        if self.rng.chance(50) {
            let index = self.reg("r");
            let mask = if wild { 0xFFFF } else { WORDS - 1 };
            self.emit(format!("and.b32 %ti, {index}, {mask};"));
            self.emit("mul.wide.u32 %ta, %ti, 4;".into());
            self.emit("add.u64 %ta, %ta, %in;".into());
            let (class, t) = *self.rng.pick(&[("r", "u32"), ("s", "s32"), ("f", "f32")]);
            let line = format!("{g}ld.global.{t} {}, [%ta];", self.reg(class));
            self.emit(line);
        } else {
            let slot = if wild {
                SLOTS * 100_000
            } else {
                self.rng.below(SLOTS / 2) * 2
            };
            self.emit(format!("add.u64 %ta, %mine, {};", slot * 4));
            let (class, t) = *self.rng.pick(&[
                ("r", "u32"),
                ("s", "s32"),
                ("f", "f32"),
                ("rd", "u64"),
                ("sd", "s64"),
            ]);
            let line = format!("{g}st.global.{t} [%ta], {};", self.reg(class));
            self.emit(line);
        }
    }

    /// A load of the shared array (after the phase's barrier: no thread writes it then).
    fn shared_load(&mut self) {
        let g = self.guard();
        let index = self.reg("r");
        let mask = if self.faults && self.rng.chance(5) {
            0xFFF
        } else {
            SHARED_WORDS - 1
        };
        self.emit(format!("and.b32 %ti, {index}, {mask};"));
        self.emit("shl.b32 %ti, %ti, 2;".into());
        self.emit("add.u32 %ti, %ti, %sh;".into());
        let (class, t) = *self.rng.pick(&[("r", "u32"), ("s", "s32"), ("f", "f32")]);
        let line = format!("{g}ld.shared.{t} {}, [%ti];", self.reg(class));
        self.emit(line);
    }

    /// Random code: instructions, memory accesses, forward branches and bounded loops;
    /// warp-synchronous instructions only where all threads of a warp are converged
    /// (`depth` 0) and shared loads only where `reads`.
    fn block(&mut self, depth: u32, reads: bool, length: u64) {
        for _ in 0..length {
            match self.rng.below(20) {
                0 | 1 if depth < 2 => {
                    self.labels += 1;
                    let label = format!("$F{}", self.labels);
                    let neg = if self.rng.chance(50) { "!" } else { "" };
                    let p = self.reg("p");
                    self.emit(format!("@{neg}{p} bra {label};"));
                    let n = 1 + self.rng.below(6);
                    self.block(depth + 1, reads, n);
                    self.lines.push(format!("{label}:"));
                }
                2 if depth < 2 && self.loops < 3 => {
                    let counter = format!("%lc{}", self.loops);
                    self.loops += 1;
                    self.labels += 1;
                    let label = format!("$L{}", self.labels);
                    let line = format!("mov.u32 {counter}, {};", 1 + self.rng.below(5));
                    self.emit(line);
                    self.lines.push(format!("{label}:"));
                    let n = 1 + self.rng.below(6);
                    self.block(depth + 1, reads, n);
                    self.emit(format!("sub.u32 {counter}, {counter}, 1;"));
                    self.emit(format!("setp.ne.u32 %lp, {counter}, 0;"));
                    self.emit(format!("@%lp bra {label};"));
                    self.loops -= 1;
                }
                3 | 4 => self.global_access(),
                5 if reads => self.shared_load(),
                6 if depth == 0 && self.rng.chance(30) => {
                    let line = match self.rng.below(3) {
                        0 => format!(
                            "shfl.sync.bfly.b32 {}, {}, {}, 0x1f, 0xffffffff;",
                            self.reg("r"),
                            self.reg("r"),
                            1 << self.rng.below(5)
                        ),
                        1 => format!(
                            "vote.sync.ballot.b32 {}, {}, 0xffffffff;",
                            self.reg("r"),
                            self.reg("p")
                        ),
                        _ => format!(
                            "vote.sync.any.pred {}, {}, 0xffffffff;",
                            self.reg("p"),
                            self.reg("p")
                        ),
                    };
                    self.emit(line);
                }
                _ => self.instruction(),
            }
        }
    }
}

/// A random kernel of a few phases; see [`Generator`].
fn random_kernel(rng: &mut Rng, faults: bool) -> String {
    let mut g = Generator {
        rng,
        lines: Vec::new(),
        labels: 0,
        loops: 0,
        faults,
    };
    for class in ["r", "s", "rd", "sd", "f", "p"] {
        for i in 0..REGISTERS {
            let line = match class {
                "r" | "s" => format!(
                    "mad.lo.u32 %{class}{i}, %tx, {}, {};",
                    g.rng.next() as u32,
                    g.rng.next() as u32
                ),
                "rd" | "sd" => format!(
                    "mad.wide.u32 %{class}{i}, %tx, {}, {};",
                    g.rng.next() as u32,
                    g.rng.next()
                ),
                "f" => format!("cvt.rn.f32.u32 %f{i}, %r{i};"),
                _ => format!("setp.lt.u32 %p{i}, %r{i}, {};", g.rng.next() as u32),
            };
            g.emit(line);
        }
    }
    let phases = 1 + g.rng.below(3);
    for _ in 0..phases {
        let n = 4 + g.rng.below(12);
        g.block(0, false, n);
        let line = format!("{}st.shared.u32 [%own], {};", g.guard(), g.reg("r"));
        g.emit(line);
        g.emit("bar.sync 0;".into());
        let n = 4 + g.rng.below(12);
        g.block(0, true, n);
        g.emit("bar.sync 0;".into());
    }
    // Every register ends in the output slots, so that each result is observed.
    for (i, class) in ["r", "s", "f"].into_iter().enumerate() {
        let t = if class == "f" { "f32" } else { "u32" };
        let line = format!(
            "st.global.{t} [%mine+{}], %{class}{};",
            4 * (i as u64 * 2 + 1),
            g.rng.below(REGISTERS)
        );
        g.emit(line);
    }
    let line = format!("st.global.u64 [%mine+24], %rd{};", g.rng.below(REGISTERS));
    g.emit(line);
    let line = format!("selp.u32 %ti, 1, 0, %p{};", g.rng.below(REGISTERS));
    g.emit(line);
    g.emit("st.global.u32 [%mine+16], %ti;".into());
    let body = g.lines.join("\n");
    format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{
    .shared .align 8 .b32 tile[{SHARED_WORDS}];
    .reg .pred %p<{REGISTERS}>;
    .reg .pred %lp;
    .reg .u32 %r<{REGISTERS}>;
    .reg .s32 %s<{REGISTERS}>;
    .reg .u64 %rd<{REGISTERS}>;
    .reg .s64 %sd<{REGISTERS}>;
    .reg .f32 %f<{REGISTERS}>;
    .reg .u32 %lc<3>;
    .reg .u32 %tx, %nt, %ca, %gid, %ti, %sh, %own;
    .reg .u64 %in, %out, %mine, %ta;
    ld.param.u64 %in, [in];
    ld.param.u64 %out, [out];
    mov.u32 %tx, %tid.x;
    mov.u32 %nt, %ntid.x;
    mov.u32 %ca, %ctaid.x;
    mad.lo.u32 %gid, %ca, %nt, %tx;
    mul.wide.u32 %mine, %gid, {};
    add.u64 %mine, %mine, %out;
    mov.u32 %sh, tile;
    shl.b32 %own, %tx, 2;
    add.u32 %own, %own, %sh;
{body}
    ret;
}}",
        SLOTS * 4
    )
}

/// Runs a random kernel on both tiers with random inputs over a random grid; `None` when the
/// kernel does not load.
fn random_run(rng: &mut Rng, source: &str) -> Option<(Run, Run, (usize, usize))> {
    let program = ptxsim_exec::load(source, None).ok()?;
    let ctas = 1 + rng.below(3) as u32;
    let block = 32 * (1 + rng.below(4) as u32);
    let kernel =
        ptxsim_jit::compile_shared(&program, [block, 1, 1]).expect("a loaded kernel compiles");
    let input: Vec<u8> = (0..WORDS * 4).map(|_| rng.next() as u8).collect();
    let output = vec![0u8; (u64::from(ctas * block) * SLOTS * 4) as usize];
    let inspect = (
        [rng.below(u64::from(ctas)) as u32, 0, 0],
        [rng.below(u64::from(block)) as u32, 0, 0],
    );
    let run = |compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>| -> Run {
        let (mut device, addresses) = grid::prepare(
            &program,
            [ctas, 1, 1],
            [block, 1, 1],
            100_000,
            vec![
                Argument::Buffer(input.clone()),
                Argument::Buffer(output.clone()),
            ],
        )
        .unwrap();
        if let Some(kernel) = compiled {
            device.set_compiled(kernel.clone());
        }
        let options = GridOptions {
            inspect,
            ..GridOptions::default()
        };
        outcome(&device, options, &addresses)
    };
    let covered = (kernel.stats().covered, kernel.stats().instructions);
    Some((run(None), run(Some(&kernel)), covered))
}

/// The instruction and the kind of a failure (its location and its message's first clause).
fn failure_site(failure: &str) -> (Option<&str>, Option<&str>) {
    let location = failure.find("location: ").map(|at| &failure[at..]);
    let kind = failure.find("message: \"").map(|at| {
        let message = &failure[at + 10..];
        &message[..message.find(':').unwrap_or(message.len())]
    });
    (location, kind)
}

/// Random kernels (see [`random_kernel`]) on both tiers. A run that ends without a failure must
/// be identical on both tiers: steps, inspected registers and buffers. A run that ends with a
/// failure must end with a failure of the same kind at the same instruction
/// ([`failure_site`]); when several threads fail there, at different times, the compiled tier
/// may report another one of them than the interpreter (it runs the threads of a CTA one after
/// another: a later loop iteration of thread 0 before the first of thread 1). What the other
/// threads did before the CTA stopped may differ today: in the compiled tier, the threads of a
/// CTA run one after another between two instructions the interpreter issues, so threads after
/// the faulting one can run past the faulting instruction (more steps, more stores) where the
/// interpreter's lockstep warps stop at it. Those runs are counted and printed, not compared.
/// `PTXSIM_RANDOM_KERNELS=N` runs the seeds 1 to N instead of 1 to [`KERNELS`] (a longer
/// campaign by hand).
#[test]
fn random_kernels_run_the_same_on_both_tiers() {
    let (mut compared, mut unloaded, mut faulted, mut ahead, mut mismatched) =
        (0, 0, 0, 0, Vec::new());
    let mut other_thread = 0;
    let (mut covered, mut instructions) = (0, 0);
    let kernels = std::env::var("PTXSIM_RANDOM_KERNELS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(KERNELS);
    for seed in 1..=kernels {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x1000_0000_01b3));
        let source = random_kernel(&mut rng, seed % 4 == 0);
        let Some((interpreted, compiled, stats)) = random_run(&mut rng, &source) else {
            if unloaded == 0 {
                let e = ptxsim_exec::load(&source, None).err();
                eprintln!("seed {seed} does not load: {e:?}\n{source}");
            }
            unloaded += 1;
            continue;
        };
        assert!(stats.0 > 0, "seed {seed}: nothing compiled");
        covered += stats.0;
        instructions += stats.1;
        let same = if interpreted.1 == "None" {
            interpreted == compiled
        } else {
            faulted += 1;
            ahead += u32::from(interpreted != compiled);
            other_thread += u32::from(interpreted.1 != compiled.1);
            failure_site(&interpreted.1) == failure_site(&compiled.1)
        };
        if !same {
            if mismatched.is_empty() {
                eprintln!(
                    "seed {seed} differs:\n{source}\ninterpreted: {:?}\ncompiled: {:?}",
                    (&interpreted.0, &interpreted.1, &interpreted.2),
                    (&compiled.0, &compiled.1, &compiled.2)
                );
            }
            mismatched.push(seed);
        }
        compared += 1;
    }
    eprintln!(
        "{compared} random kernels compared ({faulted} stopped by a failure, {ahead} of them with \
         other threads run ahead in the compiled tier, {other_thread} with another thread's \
         failure reported); {unloaded} did not load; {covered} of {instructions} instructions \
         compiled"
    );
    assert!(
        mismatched.is_empty(),
        "seeds whose tiers differ: {mismatched:?}"
    );
    assert!(
        unloaded * 50 <= kernels,
        "{unloaded} of {kernels} kernels did not load"
    );
    assert!(
        compared > 0 && faulted > 0,
        "{compared} compared, {faulted} faulted"
    );
}

/// Random kernels per test run.
const KERNELS: u64 = 300;

/// `auto` compiles a kernel in API launches once its launches come to `AUTO_WORK` (threads
/// times instructions); `compiled` from the first launch; `interp` gives no compiler.
#[test]
fn auto_compiles_kernels_worth_it() {
    use ptxsim_jit::{AUTO_WORK, Engine, JitCompiler};
    let auto = JitCompiler::for_engine(Engine::Auto).expect("auto compiles");
    assert!(!auto.worth_compiling(AUTO_WORK - 1));
    assert!(auto.worth_compiling(AUTO_WORK));
    let compiled = JitCompiler::for_engine(Engine::Compiled).expect("compiled compiles");
    assert!(compiled.worth_compiling(0));
    assert!(JitCompiler::for_engine(Engine::Interp).is_none());
}

/// CTA shapes no launch can have (no thread; 2^96 threads; more than 1024) are errors, not
/// panics (the kernel then runs in the interpreter; compiling is also guarded against panics).
#[test]
fn absurd_cta_shapes_are_errors() {
    let program = ptxsim_exec::load(
        &std::fs::read_to_string(repo().join("ptx-samples/nvcc/fp8_convert.sm_90.ptx")).unwrap(),
        Some("f32_to_e4m3"),
    )
    .expect("the sample loads");
    for block in [[0, 0, 0], [u32::MAX, u32::MAX, u32::MAX], [1 << 20, 1, 1]] {
        let Err(error) = ptxsim_jit::compile(&program, block) else {
            panic!("code for an impossible CTA of {block:?}");
        };
        assert!(error.to_string().contains("cannot be launched"), "{error}");
    }
}

/// The `cvt` forms the compiled tier calls an element conversion for directly
/// (`ptxsim_exec::cvt::elementwise`): `(instruction, source width, destination width,
/// sources)`, each run on both tiers over special values of its source type (NaN, infinity,
/// -0, subnormals, the destination's overflow and rounding boundaries) and values of
/// `tests/kernels/common/`, with its sources loaded and with one of them a constant (which
/// the translation converts while compiling).
const CONVERSIONS: &[(&str, u32, u32, usize)] = &[
    ("cvt.rn.f16.f32", 32, 16, 1),
    ("cvt.rz.f16.f32", 32, 16, 1),
    ("cvt.rm.ftz.f16.f32", 32, 16, 1),
    ("cvt.rp.sat.f16.f32", 32, 16, 1),
    ("cvt.rn.relu.f16.f32", 32, 16, 1),
    ("cvt.rn.bf16.f32", 32, 16, 1),
    ("cvt.rz.relu.bf16.f32", 32, 16, 1),
    ("cvt.rna.satfinite.tf32.f32", 32, 32, 1),
    ("cvt.f32.f16", 16, 32, 1),
    ("cvt.f32.bf16", 16, 32, 1),
    ("cvt.rn.f32.f64", 64, 32, 1),
    ("cvt.rz.ftz.sat.f32.f64", 64, 32, 1),
    ("cvt.rm.f16.f64", 64, 16, 1),
    ("cvt.f64.f32", 32, 64, 1),
    ("cvt.ftz.f64.f32", 32, 64, 1),
    ("cvt.rni.s32.f32", 32, 32, 1),
    ("cvt.rzi.ftz.sat.u32.f32", 32, 32, 1),
    ("cvt.rmi.s64.f64", 64, 64, 1),
    ("cvt.rpi.u64.f32", 32, 64, 1),
    ("cvt.rzi.s16.f16", 16, 16, 1),
    ("cvt.rn.f32.s32", 32, 32, 1),
    ("cvt.rz.f32.u32", 32, 32, 1),
    ("cvt.rp.f64.s64", 64, 64, 1),
    ("cvt.rm.f32.u64", 64, 32, 1),
    ("cvt.rn.f16.s16", 16, 16, 1),
    ("cvt.rni.f32.f32", 32, 32, 1),
    ("cvt.rzi.ftz.f32.f32", 32, 32, 1),
    ("cvt.ftz.sat.f32.f32", 32, 32, 1),
    ("cvt.rpi.f64.f64", 64, 64, 1),
    ("cvt.sat.s8.s32", 32, 16, 1),
    ("cvt.sat.u16.s64", 64, 16, 1),
    ("cvt.sat.s32.u32", 32, 32, 1),
    ("cvt.rn.satfinite.e4m3x2.f32", 32, 16, 2),
    ("cvt.rn.satfinite.relu.e5m2x2.f32", 32, 16, 2),
    ("cvt.rn.satfinite.e2m1x2.f32", 32, 8, 2),
    ("cvt.rn.satfinite.e2m3x2.f32", 32, 16, 2),
    ("cvt.rn.satfinite.relu.e3m2x2.f32", 32, 16, 2),
    ("cvt.rz.satfinite.ue8m0x2.f32", 32, 16, 2),
    ("cvt.rp.satfinite.ue8m0x2.f32", 32, 16, 2),
    ("cvt.rn.f16x2.f32", 32, 32, 2),
    ("cvt.rz.relu.f16x2.f32", 32, 32, 2),
    ("cvt.rn.bf16x2.f32", 32, 32, 2),
    ("cvt.rz.relu.bf16x2.f32", 32, 32, 2),
];

/// Special values of each source width (raw bits): NaNs, infinities, zeros, subnormals, the
/// largest finite values and the overflow and rounding boundaries of the narrower formats and
/// of the integers.
fn special_values(width: u32) -> Vec<u64> {
    match width {
        16 => vec![
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0xfbff, 0x7c00,
            0xfc00, 0x7c01, 0x7e00, 0xfe00, 0x7f80, 0xff80, 0x7fc0, 0x0080, 0x007f, 0x7f7f, 0x7fff,
            0x8000, 0xffff, 0x5bf0, 0x5bf8,
        ],
        32 => vec![
            0x0000_0000,
            0x8000_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffc0_0001,
            0x43e0_0000,
            0x43e8_0000,
            0x43f0_0000,
            0xc3f0_0000,
            0x4760_0000,
            0x4770_0000,
            0x477f_e000,
            0x3b00_0000,
            0x3a80_0000,
            0x3a80_0001,
            0x3f00_0000,
            0x3fc0_0000,
            0x4020_0000,
            0x40c0_0000,
            0x40e0_0000,
            0x4f00_0000,
            0xcf00_0000,
            0x4f80_0000,
            0x5f00_0000,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x0100_0001,
            0x3380_0000,
            0x387f_c000,
            0x3880_0000,
            0x33ff_ffff,
        ],
        _ => vec![
            0,
            1 << 63,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0x47ef_ffff_e000_0000,
            0x47ef_ffff_f000_0000,
            0x3690_0000_0000_0000,
            0x36a0_0000_0000_0001,
            0x43e0_0000_0000_0000,
            0xc3e0_0000_0000_0000,
            0x41e0_0000_0000_0000,
            0x40ef_ffe0_0000_0000,
            0x7fff_ffff_ffff_ffff,
            0x8000_0000_0000_0000,
            0x0020_0000_0000_0001,
            0xffff_ffff_ffff_ffff,
            0x0000_0000_0100_0001,
        ],
    }
}

/// `count + 1` values of `width` bits, 8 bytes each: [`special_values`], then values of
/// `tests/kernels/common/` (f32.bin for 16 and 32 bits, taken apart for 16; f64.bin for 64).
fn conversion_inputs(width: u32, count: usize) -> Vec<u8> {
    let mut values = special_values(width);
    let common = read(if width == 64 {
        "tests/kernels/common/f64.bin"
    } else {
        "tests/kernels/common/f32.bin"
    });
    let bytes = (width / 8) as usize;
    values.extend(common.chunks_exact(bytes).map(|chunk| {
        chunk
            .iter()
            .rev()
            .fold(0u64, |value, &byte| (value << 8) | u64::from(byte))
    }));
    values.resize(count + 1, 0);
    values
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

/// A kernel in which thread `i` converts input `i` (and `i + 1`, for two sources) with
/// `instruction` (`from`-bit sources, a `to`-bit result) and stores the result at 8 bytes per
/// thread; with `constant` `Some((k, value))`, source `k` (1 or 2) is `value` moved in first.
fn conversion_kernel(
    instruction: &str,
    (from, to, sources): (u32, u32, usize),
    constant: Option<(usize, u64)>,
) -> String {
    let register = |width: u32, n: u32| match width {
        8 => format!("%b{n}"),
        16 => format!("%h{n}"),
        32 => format!("%r{n}"),
        _ => format!("%rd{n}"),
    };
    let [a, b, d] = [11, 12, 13].map(|n| register(from, n));
    let d = if from == to { d } else { register(to, 13) };
    let mut body =
        format!("ld.global.b{from} {a}, [%rd4];\n    ld.global.b{from} {b}, [%rd4+8];\n");
    if let Some((k, value)) = constant {
        let target = if k == 1 { &a } else { &b };
        body += &format!("    mov.b{from} {target}, {value};\n");
    }
    let operands = if sources == 2 {
        format!("{a}, {b}")
    } else {
        a.clone()
    };
    body += &format!("    {instruction} {d}, {operands};\n    st.global.b{to} [%rd5], {d};\n");
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u64 in) {{\n\
         .reg .b8 %b<16>;\n.reg .b16 %h<16>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [in];\n\
         mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mov.u32 %r3, %tid.x;\n\
         mad.lo.u32 %r1, %r1, %r2, %r3;\n    mul.wide.u32 %rd3, %r1, 8;\n\
         add.u64 %rd4, %rd2, %rd3;\n    add.u64 %rd5, %rd1, %rd3;\n    {body}    ret;\n}}\n"
    )
}

/// Runs the conversion kernel `source` ([`conversion_kernel`]) over `threads` threads (CTAs of
/// 256) with `input` on both tiers and requires the same outputs, steps and registers.
fn conversion_on_both_tiers(name: &str, source: &str, threads: usize, input: &[u8]) {
    let program = ptxsim_exec::load(source, None).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let (interpreted, compiled) =
        elementwise_on_both_tiers(name, &program, (threads, 256, 100_000), threads * 8, input);
    assert_eq!(interpreted.1, "None", "{name}: ran without a failure");
    assert_eq!(interpreted.0, compiled.0, "{name}: step counts");
    assert_eq!(interpreted.1, compiled.1, "{name}: failures");
    assert_eq!(interpreted.2, compiled.2, "{name}: the inspected thread");
    if interpreted.3 != compiled.3 {
        let (a, b) = (&interpreted.3[0], &compiled.3[0]);
        let at = (0..a.len()).find(|&i| a[i] != b[i]).unwrap_or(0) / 8;
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes[8 * at..8 * at + 8].try_into().unwrap());
        let value = u64::from_le_bytes(input[8 * at..8 * at + 8].try_into().unwrap());
        panic!(
            "{name}: thread {at} (source {value:#x}): the interpreter gives {:#x}, the \
             compiled tier {:#x}",
            word(a),
            word(b)
        );
    }
}

/// Every form of [`CONVERSIONS`] gives the same results on both tiers: thread `i` converts
/// input `i` (and `i + 1`, for two sources), or a constant and input `i`.
#[test]
fn direct_conversions_match_the_interpreter() {
    const THREADS: usize = 1024;
    let mut kernels = 0;
    for (index, &(instruction, from, to, sources)) in CONVERSIONS.iter().enumerate() {
        let specials = special_values(from);
        // Loaded sources; then each source in turn a constant (a special value).
        for constant in 0..=sources {
            let value = specials[(index + constant) % specials.len()];
            let source = conversion_kernel(
                instruction,
                (from, to, sources),
                (constant > 0).then_some((constant, value)),
            );
            let name = format!("{instruction} (constant source {constant})");
            conversion_on_both_tiers(&name, &source, THREADS, &conversion_inputs(from, THREADS));
            kernels += 1;
        }
    }
    assert_eq!(kernels, 97);
}

/// The `cvt` forms the compiled tier generates inline (`crates/jit/src/translate/convert.rs`):
/// `(instruction, source width, destination width, sources)`.
const INLINE_CONVERSIONS: &[(&str, u32, u32, usize)] = &[
    ("cvt.rn.f32.s32", 32, 32, 1),
    ("cvt.rn.f32.u32", 32, 32, 1),
    ("cvt.rn.f32.s64", 64, 32, 1),
    ("cvt.rn.f32.u64", 64, 32, 1),
    ("cvt.rn.f64.s64", 64, 64, 1),
    ("cvt.rn.f64.u64", 64, 64, 1),
    ("cvt.rz.f64.s32", 32, 64, 1),
    ("cvt.rm.f64.u32", 32, 64, 1),
    ("cvt.rp.f32.s16", 16, 32, 1),
    ("cvt.rn.f32.u16", 16, 32, 1),
    ("cvt.rni.s32.f32", 32, 32, 1),
    ("cvt.rzi.s32.f32", 32, 32, 1),
    ("cvt.rmi.s32.f32", 32, 32, 1),
    ("cvt.rpi.u32.f32", 32, 32, 1),
    ("cvt.rzi.ftz.s32.f32", 32, 32, 1),
    ("cvt.rzi.sat.u32.f32", 32, 32, 1),
    ("cvt.rmi.ftz.s64.f32", 32, 64, 1),
    ("cvt.rpi.ftz.u64.f32", 32, 64, 1),
    ("cvt.rni.s64.f64", 64, 64, 1),
    ("cvt.rzi.u64.f64", 64, 64, 1),
    ("cvt.rzi.s32.f64", 64, 32, 1),
    ("cvt.rni.u32.f64", 64, 32, 1),
    ("cvt.rzi.s16.f32", 32, 16, 1),
    ("cvt.rmi.u16.f32", 32, 16, 1),
    ("cvt.rni.u16.f64", 64, 16, 1),
    ("cvt.rpi.s16.f64", 64, 16, 1),
    ("cvt.rzi.s8.f32", 32, 16, 1),
    ("cvt.rni.u8.f64", 64, 16, 1),
    ("cvt.rni.f32.f32", 32, 32, 1),
    ("cvt.rzi.f32.f32", 32, 32, 1),
    ("cvt.rmi.f32.f32", 32, 32, 1),
    ("cvt.rpi.ftz.f32.f32", 32, 32, 1),
    ("cvt.rmi.ftz.f32.f32", 32, 32, 1),
    ("cvt.rni.f64.f64", 64, 64, 1),
    ("cvt.rzi.f64.f64", 64, 64, 1),
    ("cvt.rmi.f64.f64", 64, 64, 1),
    ("cvt.rpi.f64.f64", 64, 64, 1),
    ("cvt.f64.f32", 32, 64, 1),
    ("cvt.ftz.f64.f32", 32, 64, 1),
    ("cvt.rn.f32.f64", 64, 32, 1),
    ("cvt.rn.ftz.f32.f64", 64, 32, 1),
    ("cvt.rn.f16.f32", 32, 16, 1),
    ("cvt.rn.ftz.f16.f32", 32, 16, 1),
    ("cvt.rn.relu.f16.f32", 32, 16, 1),
    ("cvt.rn.satfinite.f16.f32", 32, 16, 1),
    ("cvt.rn.relu.satfinite.f16.f32", 32, 16, 1),
    ("cvt.rn.bf16.f32", 32, 16, 1),
    ("cvt.rn.ftz.bf16.f32", 32, 16, 1),
    ("cvt.rn.relu.bf16.f32", 32, 16, 1),
    ("cvt.rn.satfinite.bf16.f32", 32, 16, 1),
    ("cvt.rn.f16x2.f32", 32, 32, 2),
    ("cvt.rn.relu.satfinite.f16x2.f32", 32, 32, 2),
    ("cvt.rn.bf16x2.f32", 32, 32, 2),
    ("cvt.f32.f16", 16, 32, 1),
    ("cvt.ftz.f32.f16", 16, 32, 1),
    ("cvt.f32.bf16", 16, 32, 1),
];

/// Edge values of integer sources of `width` bits (raw bits): the rounding boundaries of
/// `.f32` and `.f64` (ties between two floats, just above and below them) and the ends of
/// the ranges.
fn integer_edges(width: u32) -> Vec<u64> {
    let mut edges = vec![0, 1, mask(width), mask(width) >> 1, (mask(width) >> 1) + 1];
    for top in [24, 25, 26, 31, 32, 53, 54, 62, 63, 64] {
        if top > width {
            continue;
        }
        let base = if top == 64 { 0 } else { 1u64 << (top - 1) };
        for tail in [
            1, 2, 3, 0x7f, 0x80, 0x81, 0x3ff, 0x400, 0x401, 0x7ff, 0x800, 0x801,
        ] {
            edges.push((base | tail) & mask(width));
            edges.push(mask(width).wrapping_sub(tail) & mask(width));
            edges.push((!base).wrapping_add(tail) & mask(width));
        }
    }
    edges
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

/// `count + 1` inputs of `width` bits, 8 bytes each, for the inline conversions: every value
/// of 16 bits (with `count` 65536), else [`special_values`], [`integer_edges`], and random
/// values from `rng`: a third any bits, a third floats of exponents near 1 (where rounding to
/// an integer or a narrower format decides), a third such floats with their low bits a tie.
fn inline_conversion_inputs(width: u32, count: usize, rng: &mut Rng) -> Vec<u8> {
    let mut values: Vec<u64> = if width == 16 {
        (0..=0xffff).collect()
    } else {
        let mut values = special_values(width);
        values.extend(integer_edges(width));
        values
    };
    let (mantissa, bias) = if width == 64 { (52, 1023) } else { (23, 127) };
    while values.len() <= count {
        let bits = rng.next() & mask(width);
        let value = match rng.below(3) {
            0 => bits,
            kind => {
                // Exponents from 2^-40 to 2^70: integers, halves, `.f16`'s and `.f32`'s
                // subnormal and overflow ranges.
                let exponent = (bias - 40 + rng.below(111)) << mantissa;
                let sign = (rng.below(2)) << (width - 1);
                let mut fraction = bits & mask(mantissa);
                if kind == 2 {
                    // A tie at a random bit: one followed by zeros.
                    let at = rng.below(u64::from(mantissa));
                    fraction = (fraction & !mask(at as u32 + 1)) | (1 << at);
                }
                sign | exponent | fraction
            }
        };
        values.push(value & mask(width));
    }
    values.truncate(count + 1);
    values
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

/// Every form of [`INLINE_CONVERSIONS`] gives the interpreter's results (softfloat's) on the
/// compiled tier: every 16-bit source, and for wider ones special values, integer edges and
/// 16,384 random values (see [`inline_conversion_inputs`]), loaded and (for one source) a
/// constant.
#[test]
fn inline_conversions_match_the_interpreter() {
    let mut rng = Rng(0x5eed_c0de_0000_0035);
    for &(instruction, from, to, sources) in INLINE_CONVERSIONS {
        let threads = if from == 16 { 65536 } else { 16384 };
        let input = inline_conversion_inputs(from, threads, &mut rng);
        let source = conversion_kernel(instruction, (from, to, sources), None);
        conversion_on_both_tiers(instruction, &source, threads, &input);
    }
}

/// The FP8 conversion kernels of `ptx-samples/nvcc/fp8_convert.sm_90.ptx` on the compiled
/// tier give the outputs of NVIDIA's host conversions (`tests/kernels/`, from `cuda_fp8.h`'s
/// `__nv_cvt_float_to_fp8`), any NaN for a NaN as the manifest allows.
#[test]
fn compiled_fp8_conversions_match_nvidias_host_conversions() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read("tests/kernels/manifest.json")).expect("manifest parses");
    let source = String::from_utf8(read("ptx-samples/nvcc/fp8_convert.sm_90.ptx")).unwrap();
    let is_nan = |element: &str, byte: u8| match element {
        "e4m3" => byte & 0x7f == 0x7f,
        _ => byte & 0x7c == 0x7c && byte & 0x03 != 0,
    };
    for name in ["f32_to_e4m3", "f32_to_fp8_variants"] {
        let case = manifest["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|case| case["name"] == name)
            .expect("the case is in the manifest");
        let program = ptxsim_exec::load(&source, Some(name)).expect("the sample loads");
        let kernel = ptxsim_jit::compile_shared(&program, [256, 1, 1]).unwrap();
        let run = launch(&program, case, Some(&kernel));
        let output = &case["outputs"][0];
        let expected = read(output["expected"].as_str().unwrap());
        let elements: Vec<&str> = output["elem"].as_str().unwrap().split(',').collect();
        let got = &run.3[output["arg"].as_u64().unwrap() as usize];
        assert_eq!(got.len(), expected.len(), "{name}");
        for (at, (&got, &want)) in got.iter().zip(&expected).enumerate() {
            let element = elements[at % elements.len()];
            assert!(
                got == want || (is_nan(element, got) && is_nan(element, want)),
                "{name}: byte {at}: {got:#04x}, NVIDIA's host conversion gives {want:#04x}"
            );
        }
    }
}

/// Loads from constant addresses of the kernel's parameters (scalars of each width and a
/// vector from an array parameter) and of `.const` variables, which the compiled code reads
/// without a bounds check: the values the PTX passes and declares, on both tiers.
#[test]
fn parameters_and_constants_at_constant_addresses() {
    let source = format!(
        "{HEADER}.const .align 8 .b8 table[24] = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, \
         15, 16, 17, 18, 19, 20, 21, 22, 23, 24}};
.visible .entry k(.param .u64 out, .param .u8 a, .param .u16 b, .param .u32 c,
    .param .align 8 .b8 pair[8]) {{
    .reg .b16 %h<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 32;
    add.u64 %rd1, %rd1, %rd2;
    ld.param.u8 %h1, [a];
    ld.param.u16 %h2, [b];
    ld.param.u32 %r2, [c];
    ld.param.v2.u32 {{%r3, %r4}}, [pair];
    ld.const.u64 %rd3, [table+8];
    ld.const.u16 %h3, [table+2];
    ld.const.v2.u32 {{%r5, %r6}}, [table+16];
    st.global.u8 [%rd1], %h1;
    st.global.u16 [%rd1+2], %h2;
    st.global.u32 [%rd1+4], %r2;
    st.global.v2.u32 [%rd1+8], {{%r3, %r4}};
    st.global.u64 [%rd1+16], %rd3;
    st.global.u16 [%rd1+24], %h3;
    st.global.u32 [%rd1+28], %r6;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&source, None).unwrap();
    let kernel = ptxsim_jit::compile_shared(&program, [64, 1, 1]).unwrap();
    assert_eq!(kernel.stats().covered, kernel.stats().instructions);
    let run = |compiled| {
        run_grid(
            &program,
            ([2, 1, 1], [64, 1, 1], 100_000),
            vec![
                Argument::Buffer(vec![0; 64 * 32]),
                Argument::Scalar {
                    ty: ptxsim_isa::Type::U8,
                    bits: 0xa5,
                },
                Argument::Scalar {
                    ty: ptxsim_isa::Type::U16,
                    bits: 0xbeef,
                },
                Argument::Scalar {
                    ty: ptxsim_isa::Type::U32,
                    bits: 0xdead_f00d,
                },
                Argument::Bytes(vec![0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]),
            ],
            compiled,
        )
    };
    let (interpreted, compiled) = (run(None), run(Some(&kernel)));
    assert_eq!(interpreted, compiled);
    // Per thread: a, b, c, the pair's two words, table[8..16], table[2..4], table[20..24]
    // (little-endian, as the `.const` initialiser lists the bytes).
    let mut row = vec![0xa5, 0, 0xef, 0xbe, 0x0d, 0xf0, 0xad, 0xde];
    row.extend([0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]);
    row.extend(9..=16u8);
    row.extend([3, 4, 0, 0, 21, 22, 23, 24]);
    assert_eq!(compiled.3[0], row.repeat(64));
}

/// `.f64` `add`/`sub`/`mul`/`div.rn`/`fma.rn`/`abs`/`neg`, generated inline, over every triple of 14
/// special values on both tiers; and the values against the host's IEEE double arithmetic
/// (round to nearest even, as `.rn` is defined, PTX ISA 9.7.3), with the GPU's NaN rules
/// (a NaN operand comes back quieted with its sign and payload, `fma` looking at `b`, `c`, `a`
/// in turn; a NaN made from numbers is 0xfff8000000000000: measured on an sm_90 GPU,
/// docs/divergences.md).
#[test]
fn f64_arithmetic_matches_the_interpreter_and_ieee() {
    const VALUES: [u64; 14] = [
        0x0000_0000_0000_0000, // +0
        0x8000_0000_0000_0000, // -0
        0x3ff0_0000_0000_0000, // 1
        0xc004_0000_0000_0000, // -2.5
        0x3fd5_5555_5555_5555, // 1/3
        0x7ff0_0000_0000_0000, // +inf
        0xfff0_0000_0000_0000, // -inf
        0x7ff8_0000_0000_1234, // quiet NaN with a payload
        0xfff4_0000_0000_0042, // signalling negative NaN with a payload
        0x0000_0000_0000_0001, // the smallest subnormal
        0x7fef_ffff_ffff_ffff, // the largest finite
        0x0010_0000_0000_0000, // the smallest normal
        0x41d2_6580_b487_0000, // 1234567890.125
        0xbfb9_9999_9999_999a, // -0.1
    ];
    let n = VALUES.len();
    let threads = n * n * n;
    let mut input = Vec::with_capacity(threads * 24);
    for i in 0..threads {
        for value in [VALUES[i / (n * n)], VALUES[(i / n) % n], VALUES[i % n]] {
            input.extend(value.to_le_bytes());
        }
    }
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n.reg .f64 %fd<12>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [in];\n\
         mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n\
         mad.lo.u32 %r1, %r1, %r2, %r3;\nsetp.ge.u32 %p1, %r1, {threads};\n@%p1 ret;\n\
         mul.wide.u32 %rd3, %r1, 24;\nadd.u64 %rd4, %rd2, %rd3;\nmul.wide.u32 %rd5, %r1, 56;\nadd.u64 %rd6, %rd1, %rd5;\n\
         ld.global.f64 %fd1, [%rd4];\nld.global.f64 %fd2, [%rd4+8];\nld.global.f64 %fd3, [%rd4+16];\n\
         add.f64 %fd4, %fd1, %fd2;\nsub.f64 %fd5, %fd1, %fd2;\nmul.f64 %fd6, %fd1, %fd2;\n\
         div.rn.f64 %fd7, %fd1, %fd2;\nfma.rn.f64 %fd8, %fd1, %fd2, %fd3;\n\
         st.global.f64 [%rd6], %fd4;\nst.global.f64 [%rd6+8], %fd5;\nst.global.f64 [%rd6+16], %fd6;\n\
         st.global.f64 [%rd6+24], %fd7;\nst.global.f64 [%rd6+32], %fd8;\n\
         abs.f64 %fd9, %fd1;\nneg.f64 %fd10, %fd1;\n\
         st.global.f64 [%rd6+40], %fd9;\nst.global.f64 [%rd6+48], %fd10;\nret;\n}}\n"
    );
    let program = ptxsim_exec::load(&source, None).unwrap();
    const BLOCK: u32 = 128;
    let (interpreted, compiled) = elementwise_on_both_tiers(
        "f64",
        &program,
        (threads, BLOCK, 1000),
        threads * 56,
        &input,
    );
    assert_eq!(interpreted.1, "None");
    assert_eq!(interpreted, compiled);
    let is_nan = |x: u64| x & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && x << 12 != 0;
    let expect = |operands: &[u64], r: f64| -> u64 {
        match operands.iter().find(|&&x| is_nan(x)) {
            Some(&nan) => nan | 1 << 51,
            None if r.is_nan() => 0xfff8_0000_0000_0000,
            None => r.to_bits(),
        }
    };
    for (i, got) in compiled.3[0].chunks(56).take(threads).enumerate() {
        let [a, b, c] = [VALUES[i / (n * n)], VALUES[(i / n) % n], VALUES[i % n]];
        let [x, y, z] = [a, b, c].map(f64::from_bits);
        let want = [
            expect(&[a, b], x + y),
            expect(&[a, b], x - y),
            expect(&[a, b], x * y),
            expect(&[a, b], x / y),
            expect(&[b, c, a], x.mul_add(y, z)),
            expect(&[a], x.abs()),
            expect(&[a], -x),
        ];
        let got: Vec<u64> = got
            .chunks(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "a={a:#x} b={b:#x} c={c:#x}");
    }
}

/// Threads of a CTA that read-modify-write the same global element without a barrier (a race,
/// PolyBench/ACC's `mvt`: a 32x2 CTA, two warps, whose rows both add to `x[tid.x]`, four times) give
/// what lockstep execution gives in the interpreter: in each step both rows load the same
/// value and store it plus one, so every element ends at 4, as on a GPU whose two warps
/// interleave (PTX ISA 9.0, 3.1 "A Set of SIMT Multiprocessors": a CTA's warps run
/// concurrently). The compiled tier, which runs the warps one after another, would give 8: `auto` declines
/// such a kernel. With the element depending on `%tid.y` too, or a CTA of one row, it does not.
#[test]
fn global_updates_shared_by_threads_stay_in_the_interpreter() {
    let kernel = |index: &str| {
        format!(
            "{HEADER}.visible .entry k(.param .u64 x)\n{{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             .reg .pred %p<2>;\nld.param.u64 %rd1, [x];\n{index}mul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nmov.u32 %r2, 0;\nLOOP:\nld.global.u32 %r3, [%rd3];\n\
             add.u32 %r3, %r3, 1;\nst.global.u32 [%rd3], %r3;\nadd.u32 %r2, %r2, 1;\n\
             setp.lt.u32 %p1, %r2, 4;\n@%p1 bra LOOP;\nret;\n}}\n"
        )
    };
    let shared = ptxsim_exec::load(&kernel("mov.u32 %r1, %tid.x;\n"), None).unwrap();
    let own = ptxsim_exec::load(
        &kernel("mov.u32 %r4, %tid.x;\nmov.u32 %r5, %tid.y;\nmad.lo.u32 %r1, %r5, 32, %r4;\n"),
        None,
    )
    .unwrap();
    let auto = ptxsim_jit::JitCompiler::for_engine(ptxsim_jit::Engine::Auto).unwrap();
    assert!(
        auto.compile(&shared, [32, 2, 1]).is_none(),
        "auto declines the race"
    );
    assert!(
        auto.compile(&shared, [32, 1, 1]).is_some(),
        "one row: no race"
    );
    assert!(
        auto.compile(&own, [32, 2, 1]).is_some(),
        "an element per thread: no race"
    );
    let compiled = ptxsim_jit::compile_shared(&shared, [32, 2, 1]).unwrap();
    assert!(compiled.auto_declines(&shared).is_some());
    let run = |kernel: Option<&std::sync::Arc<ptxsim_jit::Kernel>>| {
        run_grid(
            &shared,
            ([1, 1, 1], [32, 2, 1], 1000),
            vec![Argument::Buffer(vec![0; 128])],
            kernel,
        )
    };
    let lockstep: Vec<u8> = [4u32; 32].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(run(None).3[0], lockstep, "the interpreter, in lockstep");
    let sequential: Vec<u8> = [8u32; 32].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(
        run(Some(&compiled)).3[0],
        sequential,
        "compiled: one row after the other"
    );
}

/// A kernel whose threads hand values through shared memory with only compiled instructions
/// between the store and the load (warp-synchronous code written without `__syncwarp`, as
/// HeCBench's romberg is) is compiled with the load left to the interpreter: compiled code
/// runs a CTA's threads one after another, so thread 0 would read thread 1's slot before
/// thread 1 wrote it; with the load interpreted every thread stores first, as in lockstep, and
/// thread 0 reads 1 (the value thread 1 stores), on both tiers. With a barrier between them
/// the load is compiled.
#[test]
fn shared_exchanges_without_a_barrier_load_in_the_interpreter() {
    let kernel = |between: &str| {
        format!(
            "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             .reg .pred %p<2>;\n.shared .align 4 .u32 smem[64];\n\
             ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\n\
             mov.u32 %r3, smem;\nadd.u32 %r4, %r3, %r2;\nst.shared.u32 [%r4], %r1;\n{between}\
             setp.ne.u32 %p1, %r1, 0;\n@%p1 bra DONE;\nld.shared.u32 %r5, [smem+4];\n\
             st.global.u32 [%rd1], %r5;\nDONE:\nret;\n}}\n"
        )
    };
    let auto = ptxsim_jit::JitCompiler::for_engine(ptxsim_jit::Engine::Auto).unwrap();
    let forced = ptxsim_jit::JitCompiler::for_engine(ptxsim_jit::Engine::Compiled).unwrap();
    let exchange = ptxsim_exec::load(&kernel(""), None).unwrap();
    assert!(auto.compile(&exchange, [32, 1, 1]).is_some());
    assert!(forced.compile(&exchange, [32, 1, 1]).is_some());
    let compiled = ptxsim_jit::compile_shared(&exchange, [32, 1, 1]).unwrap();
    assert_eq!(compiled.auto_declines(&exchange), None);
    assert_eq!(
        compiled.stats().covered,
        compiled.stats().instructions - 1,
        "all but the load compiled"
    );
    let run = same_on_both_tiers("exchange", &kernel(""), 32, 4, 1000);
    assert_eq!(
        run.3[0],
        1u32.to_le_bytes(),
        "thread 0 reads thread 1's store"
    );
    for barrier in ["bar.sync 0;\n", "bar.warp.sync -1;\n"] {
        let synchronized = ptxsim_exec::load(&kernel(barrier), None).unwrap();
        assert!(
            auto.compile(&synchronized, [32, 1, 1]).is_some(),
            "{barrier}"
        );
        let compiled = ptxsim_jit::compile_shared(&synchronized, [32, 1, 1]).unwrap();
        assert_eq!(
            compiled.stats().covered,
            compiled.stats().instructions - 1,
            "{barrier}: all but the barrier compiled"
        );
    }
}

/// Runs `program` on `ctas` CTAs of `threads` threads, one after another on one host thread
/// (so each CTA reuses the machine of the one before), with one zeroed output buffer of
/// `bytes_per_thread` per thread, in the interpreter and with `kernel`; thread `tid` of the
/// last CTA is inspected.
fn ctas_in_turn_on_both_tiers(
    program: &ptxsim_exec::Program,
    kernel: &std::sync::Arc<ptxsim_jit::Kernel>,
    (ctas, threads, bytes_per_thread): (u32, u32, u32),
    tid: [u32; 3],
) -> (Run, Run) {
    let options = GridOptions {
        host_threads: 1,
        inspect: ([ctas - 1, 0, 0], tid),
        ..GridOptions::default()
    };
    let run = |compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>| {
        let (mut device, addresses) = grid::prepare(
            program,
            [ctas, 1, 1],
            [threads, 1, 1],
            1000,
            vec![Argument::Buffer(vec![
                0;
                (bytes_per_thread * ctas * threads)
                    as usize
            ])],
        )
        .unwrap();
        if let Some(kernel) = compiled {
            device.set_compiled(kernel.clone());
        }
        outcome(&device, options, &addresses)
    };
    (run(None), run(Some(kernel)))
}

/// A CTA that reuses the register file of the CTA before it zeroes only the registers a thread
/// may read before writing them: a register written on one path only and read after the paths
/// join must still read 0 where the thread did not write it, whatever the thread of the same
/// index wrote in the CTA before (the paths here alternate between CTAs); and the inspected
/// thread's registers are all reported as the run left them, 0 where it wrote nothing. Four
/// CTAs run one after another on one host thread, so each reuses the last one's registers.
#[test]
fn registers_read_before_written_start_at_zero_in_every_cta() {
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r7, %ntid.x;
    mad.lo.u32 %r3, %r2, %r7, %r1;
    add.u32 %r4, %r1, %r2;
    and.b32 %r4, %r4, 1;
    setp.eq.u32 %p1, %r4, 0;
    @!%p1 mul.lo.u32 %r0, %r3, 3;
    @%p1 bra JOIN;
    add.u32 %r5, %r3, 100;
JOIN:
    add.u32 %r6, %r5, 7;
    mul.wide.u32 %rd2, %r3, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&source, None).expect("the kernel loads");
    let (ctas, threads) = (4u32, 32u32);
    let kernel = ptxsim_jit::compile_shared(&program, [threads, 1, 1]).unwrap();
    // Thread 1 of CTA 3 takes the branch: it writes neither %r0 nor %r5, which thread 1 of
    // CTA 2 wrote.
    let (interpreted, compiled) =
        ctas_in_turn_on_both_tiers(&program, &kernel, (ctas, threads, 4), [1, 0, 0]);
    // The PTX: a thread whose `tid + ctaid` is odd writes %r5 = g + 100 (g its index in the
    // grid), every thread stores %r5 + 7, and %r5 reads 0 where it was not written.
    let expected: Vec<u8> = (0..ctas * threads)
        .flat_map(|g| {
            let (c, t) = (g / threads, g % threads);
            let r5 = if (t + c) % 2 == 1 { g + 100 } else { 0 };
            (r5 + 7).to_le_bytes()
        })
        .collect();
    assert_eq!(interpreted.3[0], expected, "the interpreter's output");
    assert_eq!(compiled.3[0], expected, "the compiled tier's output");
    assert_eq!(compiled, interpreted);
    let index = |name: &str| {
        program
            .registers
            .iter()
            .position(|r| r.name == name)
            .unwrap()
    };
    let (registers, _) = compiled.2.expect("thread 1 of CTA 3 ran");
    assert_eq!(registers[index("%r0")], 0, "%r0 was not written");
    assert_eq!(registers[index("%r5")], 0, "%r5 was not written");
    assert_eq!(
        registers[index("%r3")],
        3 * 32 + 1,
        "%r3 is the thread's index"
    );
    assert_eq!(registers[index("%r6")], 7, "%r6 = %r5 + 7");
}

/// A CTA whose first instruction the compiled tier leaves to the interpreter (`match.sync`),
/// in CTAs that reuse the machine of the CTA before them: the first call of compiled code for
/// a new or reset CTA takes every thread without looking at each
/// (docs/compiled-tier.md, "Measured"), and must not when the code does not cover the first
/// instruction. `match.any` reads %r1 before any write, so it matches across the whole warp
/// only if every CTA starts with %r1 zeroed, although the CTA before wrote each thread's index
/// there; the threads then run compiled code to their end, and the steps, outputs and the
/// inspected thread's registers are the interpreter's.
#[test]
fn a_ctas_first_instruction_in_the_interpreter_sees_fresh_registers() {
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    match.any.sync.b32 %r2, %r1, -1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.u32 %r5, %r3, %r4, %r1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r5, 8;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    st.global.u32 [%rd3+4], %r5;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&source, None).expect("the kernel loads");
    let (ctas, threads) = (4u32, 64u32);
    let kernel = ptxsim_jit::compile_shared(&program, [threads, 1, 1]).unwrap();
    assert_eq!(
        kernel.stats().covered,
        kernel.stats().instructions - 1,
        "all but `match.sync` compiled"
    );
    let (interpreted, compiled) =
        ctas_in_turn_on_both_tiers(&program, &kernel, (ctas, threads, 8), [5, 0, 0]);
    let expected: Vec<u8> = (0..ctas * threads)
        .flat_map(|g| [u32::MAX.to_le_bytes(), g.to_le_bytes()].concat())
        .collect();
    assert_eq!(interpreted.3[0], expected, "the interpreter's output");
    assert_eq!(compiled.3[0], expected, "the compiled tier's output");
    assert_eq!(compiled, interpreted);
    assert_eq!(
        compiled.0,
        u64::from(ctas * threads) * 11,
        "11 steps a thread"
    );
}

/// The spin kernel of the `auto` tests: one thread sums 0 .. 2^21 - 1 (4 instructions an
/// iteration: twice `AUTO_WORK` issued, but 1 thread x 10 instructions by the static count)
/// and stores the sum.
const SPIN: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry spin(.param .u64 out) {\n\
    .reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n\
    mov.u32 %r1, 0;\nmov.u32 %r2, 0;\n\
    LOOP:\nadd.u32 %r2, %r2, %r1;\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 2097152;\n\
    @%p1 bra LOOP;\n\
    ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r2;\nret;\n}\n";

/// Runs kernel `entry` of `source` once over a zeroed buffer of `bytes` (its only parameter)
/// with `engine`: the buffer after the launch, the instructions issued, and whether the
/// launch left the kernel compiled.
fn launch_once(
    source: &str,
    entry: &str,
    (grid, block): ([u32; 3], [u32; 3]),
    bytes: usize,
    engine: ptxsim_jit::Engine,
) -> (Vec<u8>, u64, Option<bool>) {
    use ptxsim_exec::api::{LaunchOptions, Module, Options};
    use ptxsim_exec::memory::DeviceMemory;
    let module = Module::load(source, &Options::default()).expect("the kernel checks");
    let options = LaunchOptions {
        compiler: ptxsim_jit::JitCompiler::for_engine(engine),
        max_steps: 1 << 24,
        ..LaunchOptions::default()
    };
    let mut memory = DeviceMemory::allocations();
    let buffer = memory.allocate("out", bytes as u64).expect("the buffer");
    let params = buffer.to_le_bytes();
    let report = module
        .launch_in(entry, grid, block, &params, &mut [&mut memory], &options)
        .expect("the launch runs");
    let mut out = vec![0u8; bytes];
    memory.read(buffer, &mut out).expect("readable");
    (out, report.steps, module.compiled_state(entry, block))
}

/// `auto` compiles a kernel in the middle of a launch once the instructions the launch issued
/// make it worth compiling: the spin kernel, launched once, ends compiled, with the sum and
/// the instruction count of the interpreter.
#[test]
fn auto_compiles_a_long_launch_while_it_runs() {
    use ptxsim_jit::Engine;
    let shape = ([1, 1, 1], [1, 1, 1]);
    let (interpreted, steps, state) = launch_once(SPIN, "spin", shape, 4, Engine::Interp);
    assert_eq!(state, None, "the interpreter compiles nothing");
    // The sum of 0 .. 2^21 - 1 modulo 2^32: 2^21 (2^21 - 1) / 2.
    let want = ((1u64 << 21) * ((1 << 21) - 1) / 2) as u32;
    assert_eq!(
        u32::from_le_bytes(interpreted[..4].try_into().unwrap()),
        want
    );
    // 2 movs, 4 per iteration, then ld, st, ret.
    assert_eq!(steps, 2 + 4 * (1 << 21) + 3);
    let (auto, auto_steps, auto_state) = launch_once(SPIN, "spin", shape, 4, Engine::Auto);
    assert_eq!(auto_state, Some(true), "compiled during its first launch");
    assert_eq!((auto, auto_steps), (interpreted, steps));
}

/// A grid of CTAs too small for `auto` to compile at its start (64 CTAs of 32 threads, each
/// thread looping 2^12 times: 2^25 instructions in all, 2,048 threads x 13 instructions by the
/// static count) compiles once its first CTAs have issued enough; the later CTAs run the
/// compiled code, and every thread's sum is the interpreter's.
#[test]
fn auto_compiles_between_the_ctas_of_a_launch() {
    use ptxsim_jit::Engine;
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry sums(.param .u64 out) {\n\
        .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n\
        mov.u32 %r3, %ctaid.x;\nmov.u32 %r4, %tid.x;\nmad.lo.u32 %r5, %r3, 32, %r4;\n\
        mov.u32 %r1, 0;\nmov.u32 %r2, %r5;\n\
        LOOP:\nadd.u32 %r2, %r2, %r1;\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 4096;\n\
        @%p1 bra LOOP;\n\
        ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r5, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r2;\nret;\n}\n";
    let shape = ([64, 1, 1], [32, 1, 1]);
    let bytes = 64 * 32 * 4;
    let (interpreted, steps, _) = launch_once(source, "sums", shape, bytes, Engine::Interp);
    for (i, word) in interpreted.chunks(4).enumerate() {
        // Thread i starts from i and adds 0 .. 4095.
        let want = i as u32 + 4096 * 4095 / 2;
        assert_eq!(
            u32::from_le_bytes(word.try_into().unwrap()),
            want,
            "thread {i}"
        );
    }
    let (auto, auto_steps, state) = launch_once(source, "sums", shape, bytes, Engine::Auto);
    assert_eq!(state, Some(true), "compiled during the launch");
    assert_eq!((auto, auto_steps), (interpreted, steps));
}

/// Registers stay in the generated code's variables while a thread runs compiled code, and the
/// register file gets them where the thread leaves (docs/compiled-tier.md, "How it works"):
/// values carried around a loop, a register written before an instruction the interpreter
/// issues (`shfl`, `bar.sync`) and read after it, by the interpreter or by compiled code that
/// loads it again, in a CTA whose registers are shown (CTA 0, the inspected thread's) and in one
/// whose are not (CTA 1: only the registers the program still reads are stored). The outputs
/// are worked out here from the PTX's definitions.
#[test]
fn registers_kept_in_variables_reach_the_interpreter() {
    let kernel = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r10, %ctaid.x;
    mov.u32 %r11, %tid.x;
    mad.lo.u32 %r1, %r10, 1000, %r11;
    mov.u32 %r2, 1;
    mov.u32 %r3, 0;
$L:
    shl.b32 %r2, %r2, 1;
    add.u32 %r2, %r2, %r1;
    and.b32 %r2, %r2, 65535;
    xor.b32 %r9, %r2, %r3;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 12;
    @%p1 bra $L;
    mul.lo.u32 %r4, %r1, 3;
    shfl.sync.bfly.b32 %r5, %r2, 1, 31, -1;
    add.u32 %r6, %r5, %r4;
    bar.sync 0;
    add.u32 %r6, %r6, %r3;
    setp.ne.u32 %p2, %r9, 0;
    selp.u32 %r7, 5, 9, %p2;
    add.u32 %r6, %r6, %r7;
    mad.lo.u32 %r8, %r10, 64, %r11;
    mul.wide.u32 %rd2, %r8, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&kernel, None).unwrap();
    let compiled = ptxsim_jit::compile(&program, [64, 1, 1]).unwrap();
    assert!(!compiled.stats().registers_stored_at_once);
    let run = same_on_both_tiers("registers", &kernel, 64, 2 * 64 * 4, 100_000);
    assert_eq!(run.1, "None", "the kernel exits");
    let loop_value = |id: u32| {
        let (mut r2, mut r9) = (1u32, 0u32);
        for r3 in 0..12 {
            r2 = ((r2 << 1).wrapping_add(id)) & 0xffff;
            r9 = r2 ^ r3;
        }
        (r2, r9)
    };
    for cta in 0..2u32 {
        for t in 0..64u32 {
            let id = cta * 1000 + t;
            let (_, r9) = loop_value(id);
            // `shfl.sync.bfly` with b = 1 reads lane t ^ 1 (PTX ISA 9.7.9.6, "j = lane ^ b").
            let (other, _) = loop_value(cta * 1000 + (t ^ 1));
            let expected = other + id * 3 + 12 + if r9 != 0 { 5 } else { 9 };
            let at = 4 * (cta * 64 + t) as usize;
            let got = u32::from_le_bytes(run.3[0][at..at + 4].try_into().unwrap());
            assert_eq!(got, expected, "CTA {cta} thread {t}");
        }
    }
    // The inspected thread (thread 0 of CTA 0) with every register it wrote, the loop's last
    // `%r9` (read nowhere after the loop) among them.
    let value = inspected_register(&kernel, &run);
    let (r2, r9) = loop_value(0);
    assert_eq!(value("%r2"), u128::from(r2));
    assert_eq!(value("%r9"), u128::from(r9));
    assert_eq!(value("%r3"), 12);
}

/// The value of the inspected thread's register `name` after `run` of `kernel`.
fn inspected_register(kernel: &str, run: &Run) -> impl Fn(&str) -> u128 {
    let (registers, _) = run.2.clone().expect("the inspected thread");
    let program = ptxsim_exec::load(kernel, None).unwrap();
    move |name: &str| {
        let index = program.registers.iter().position(|r| r.name == name);
        registers[index.unwrap_or_else(|| panic!("{name}"))]
    }
}

/// A fault in the middle of a compiled run leaves the registers the interpreter leaves at the
/// faulting instruction: thread 0 of CTA 0 (the inspected thread, the first the compiled code
/// runs) loops, writing registers the loop carries, then stores past the buffer's end.
#[test]
fn a_fault_in_a_run_leaves_the_interpreters_registers() {
    let kernel = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
$L:
    mad.lo.u32 %r2, %r3, %r1, %r2;
    add.u32 %r2, %r2, 7;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 10;
    @%p1 bra $L;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 add.u64 %rd1, %rd1, 4096;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    xor.b32 %r4, %r2, %r3;
    st.global.u32 [%rd4], %r4;
    add.u32 %r5, %r4, 1;
    st.global.u32 [%rd4], %r5;
    ret;
}}"
    );
    let (run, compiled) = both_tiers("fault in a run", &kernel, 32, 128, 100_000);
    assert!(run.1.contains("Trapped"), "the store faults: {}", run.1);
    assert_eq!(compiled.1, run.1, "the failure");
    assert_eq!(
        compiled.2, run.2,
        "the inspected thread's registers and steps"
    );
    // Thread 0 at the first store: %r2 = 10 * 7 (its `mad` adds 0), %r3 = 10, %r4 their xor,
    // and %r5 never written.
    let value = inspected_register(&kernel, &run);
    assert_eq!(
        (value("%r2"), value("%r3"), value("%r4"), value("%r5")),
        (70, 10, 70 ^ 10, 0)
    );
    // 4 before the loop, 5 per iteration, 5 after it, and the store that faults (issued).
    assert_eq!(
        run.2.as_ref().map(|&(_, steps)| steps),
        Some(4 + 50 + 5 + 1)
    );
}

/// A kernel whose ways out would store too many registers (32 registers written, then stored
/// one by one, each store a way out at which all 32 are still read) stores every write at once
/// instead (`Stats::registers_stored_at_once`), with the interpreter's results; the loop kernel
/// of `registers_kept_in_variables_reach_the_interpreter` keeps its registers in variables.
#[test]
fn kernels_whose_exits_would_store_too_much_store_every_write_at_once() {
    let mut body = String::new();
    for r in 1..=32 {
        body += &format!("    mad.lo.u32 %r{r}, %r0, {r}, {r};\n");
    }
    for r in 1..=32 {
        body += &format!("    st.global.u32 [%rd3+{}], %r{r};\n", 4 * (r - 1));
    }
    for r in 1..=32 {
        body += &format!("    add.u32 %r33, %r33, %r{r};\n");
    }
    let kernel = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .b32 %r<34>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, %tid.x;
    mov.u32 %r33, 0;
    mul.wide.u32 %rd2, %r0, 132;
    add.u64 %rd3, %rd1, %rd2;
{body}    st.global.u32 [%rd3+128], %r33;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&kernel, None).unwrap();
    let compiled = ptxsim_jit::compile(&program, [32, 1, 1]).unwrap();
    assert!(compiled.stats().registers_stored_at_once);
    let run = same_on_both_tiers("many stores", &kernel, 32, 32 * 132, 100_000);
    assert_eq!(run.1, "None", "the kernel exits");
    // Thread t stores t * r + r for r = 1..32, then their sum (both CTAs write the same).
    for t in 0..32u32 {
        let word = |i: u32| {
            let at = (t * 132 + 4 * i) as usize;
            u32::from_le_bytes(run.3[0][at..at + 4].try_into().unwrap())
        };
        let values: Vec<u32> = (1..=32).map(|r| t * r + r).collect();
        for (i, &value) in values.iter().enumerate() {
            assert_eq!(word(i as u32), value, "thread {t} register {}", i + 1);
        }
        assert_eq!(word(32), values.iter().sum::<u32>(), "thread {t}: the sum");
    }
}

/// The code for the CTA whose registers are shown is built when such a CTA first runs: not
/// at all in launches that show none (`show_registers` off, as the driver library launches),
/// then in the first launch that shows one, whose inspected thread has the interpreter's
/// registers. The outputs are worked out from the PTX (thread `t` of CTA `c` stores
/// `(64c + t)^2 + 7`).
#[test]
fn the_shown_ctas_code_is_built_when_a_shown_cta_comes() {
    let kernel = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    mad.lo.u32 %r3, %r1, 64, %r2;
    mul.lo.u32 %r4, %r3, %r3;
    add.u32 %r5, %r4, 7;
    mul.wide.u32 %rd2, %r3, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&kernel, None).unwrap();
    let kernel = ptxsim_jit::compile_shared(&program, [64, 1, 1]).unwrap();
    assert!(!kernel.stats().registers_stored_at_once);
    assert!(
        !kernel.shown_code_built(),
        "nothing built before a shown CTA"
    );
    let compile_time = kernel.stats().compile_time;
    let run = |compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>, show_registers| {
        let (mut device, addresses) = grid::prepare(
            &program,
            [4, 1, 1],
            [64, 1, 1],
            1_000,
            vec![Argument::Buffer(vec![0; 4 * 256])],
        )
        .unwrap();
        if let Some(kernel) = compiled {
            device.set_compiled(kernel.clone());
        }
        let options = GridOptions {
            inspect: ([2, 0, 0], [5, 0, 0]),
            show_registers,
            ..GridOptions::default()
        };
        outcome(&device, options, &addresses)
    };
    let expected: Vec<u8> = (0..256u32)
        .flat_map(|i| (i * i + 7).to_le_bytes())
        .collect();
    let unseen = run(Some(&kernel), false);
    assert_eq!(unseen.3[0], expected);
    assert_eq!(unseen.2, Some((Vec::new(), 10)), "ten steps, no registers");
    assert!(!kernel.shown_code_built(), "no CTA was shown");
    let shown = run(Some(&kernel), true);
    assert!(kernel.shown_code_built(), "built for CTA 2");
    assert!(
        kernel.stats().compile_time > compile_time,
        "its time counted"
    );
    assert_eq!(shown.3[0], expected);
    let interpreted = run(None, true);
    assert_eq!(shown, interpreted);
    // Thread 5 of CTA 2: %r1 = 2, %r2 = 5, %r3 = 133, %r4 = 133^2, %r5 = 133^2 + 7.
    let registers = &shown.2.as_ref().unwrap().0;
    let value = |name: &str| {
        let index = program
            .registers
            .iter()
            .position(|r| r.name == name)
            .unwrap();
        registers[index]
    };
    assert_eq!(
        [value("%r1"), value("%r2"), value("%r3"), value("%r5")],
        [2, 5, 133, 133 * 133 + 7]
    );
}

/// `%clock`, `%clock_hi`, `%clock64` and `%globaltimer` compile: they count the instructions
/// the thread issued before the one that reads them (docs/executor.md, "Time"), so a thread
/// spinning on `clock64()` until `200 + tid` have passed (cuda-samples' `clock_block`) runs
/// compiled, with the interpreter's values: the first instruction reads 0, and the loop ends
/// at the first read at least `200 + tid` after the start.
#[test]
fn clock_reads_compile_with_the_interpreters_counts() {
    let kernel = format!(
        "{HEADER}.visible .entry k(.param .u64 out) {{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    mov.u64 %rd1, %clock64;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd4, %rd3, 200;
$L:
    mov.u64 %rd5, %clock64;
    sub.u64 %rd6, %rd5, %rd1;
    setp.lt.u64 %p1, %rd6, %rd4;
    @%p1 bra $L;
    mov.u32 %r2, %clock;
    mov.u32 %r3, %clock_hi;
    mov.u64 %rd7, %globaltimer;
    mov.u32 %r4, %globaltimer_lo;
    mul.wide.u32 %rd8, %r1, 40;
    add.u64 %rd9, %rd2, %rd8;
    st.global.u64 [%rd9], %rd1;
    st.global.u64 [%rd9+8], %rd6;
    st.global.u32 [%rd9+16], %r2;
    st.global.u32 [%rd9+20], %r3;
    st.global.u64 [%rd9+24], %rd7;
    st.global.u32 [%rd9+32], %r4;
    ret;
}}"
    );
    let program = ptxsim_exec::load(&kernel, None).unwrap();
    let compiled = ptxsim_jit::compile(&program, [32, 1, 1]).unwrap();
    assert_eq!(
        compiled.stats().covered,
        program.instructions.len(),
        "every instruction compiles"
    );
    let run = same_on_both_tiers("clock", &kernel, 32, 2 * 32 * 40, 100_000);
    let out = &run.3[0];
    for tid in 0..32 {
        let word = |at: usize| u64::from_le_bytes(out[tid * 40 + at..][..8].try_into().unwrap());
        let half = |at: usize| u32::from_le_bytes(out[tid * 40 + at..][..4].try_into().unwrap());
        assert_eq!(
            word(0),
            0,
            "thread {tid}: nothing issued before the first instruction"
        );
        let elapsed = word(8);
        let bound = 200 + tid as u64;
        // The loop reads the clock every 4 instructions.
        assert!(
            (bound..bound + 4).contains(&elapsed),
            "thread {tid}: {elapsed}"
        );
        // `%clock` is read 2 instructions after the last `%clock64` read.
        assert_eq!(u64::from(half(16)), elapsed + 4, "thread {tid}: %clock");
        assert_eq!(half(20), 0, "thread {tid}: %clock_hi");
        assert_eq!(word(24), elapsed + 6, "thread {tid}: %globaltimer");
        assert_eq!(
            u64::from(half(32)),
            elapsed + 7,
            "thread {tid}: %globaltimer_lo"
        );
    }
}

/// The atomic operations the compiled tier makes (through the interpreter's update of one
/// lane, `alu::atom`): operation text and operand width in bits.
const ATOMICS: [(&str, u32); 20] = [
    ("add.u32", 32),
    ("min.s32", 32),
    ("max.s32", 32),
    ("min.u32", 32),
    ("max.u32", 32),
    ("inc.u32", 32),
    ("dec.u32", 32),
    ("and.b32", 32),
    ("or.b32", 32),
    ("xor.b32", 32),
    ("exch.b32", 32),
    ("cas.b32", 32),
    ("add.f32", 32),
    ("add.u64", 64),
    ("min.s64", 64),
    ("max.u64", 64),
    ("and.b64", 64),
    ("exch.b64", 64),
    ("cas.b64", 64),
    ("add.f64", 64),
];

/// A kernel where each thread applies every operation of [`ATOMICS`] to words of its own (in
/// global memory, and in shared memory copied out after a barrier), each word first set to
/// the thread's input `a`, with operands `b` and `c` from the input; the old value each
/// returns is stored beside its word. Every thread also adds `a` into a shared and a global
/// counter (order-free). `fault`: thread 5's first atomic lands past the output's end.
fn atomics_kernel(threads: u32, fault: bool) -> String {
    let ops = ATOMICS.len() as u32;
    let mut body = String::new();
    for (k, (op, bits)) in ATOMICS.iter().enumerate() {
        let (r, st) = if *bits == 32 {
            ("%r", "b32")
        } else {
            ("%rd", "b64")
        };
        let c = if op.starts_with("cas") {
            format!(", {r}c")
        } else {
            String::new()
        };
        let slot = 16 * k;
        // The first atomic's address register is moved past the output for the fault.
        let base = if k == 0 { "%rd14" } else { "%rd10" };
        body.push_str(&format!(
            "st.global.{st} [%rd10+{slot}], {r}a;\n\
             atom.global.{op} {r}o, [{base}+{slot}], {r}b{c};\n\
             st.global.{st} [%rd10+{}], {r}o;\n",
            slot + 8
        ));
        body.push_str(&format!(
            "st.shared.{st} [%rd11+{slot}], {r}a;\n\
             atom.shared.{op} {r}o, [%rd11+{slot}], {r}b{c};\n\
             st.shared.{st} [%rd11+{}], {r}o;\n",
            slot + 8
        ));
    }
    let fault = if fault {
        "setp.eq.u32 %p1, %r1, 5;\n @%p1 add.u64 %rd14, %rd10, 1048576;\n"
    } else {
        ""
    };
    let shared_bytes = threads * ops * 16;
    format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         .reg .pred %p<3>;\n .reg .b32 %r<8>;\n .reg .b32 %ra, %rb, %rc, %ro;\n\
         .reg .b64 %rd<16>;\n .reg .b64 %rda, %rdb, %rdc, %rdo;\n\
         .shared .align 8 .b8 words[{shared_bytes}];\n .shared .align 8 .u64 count;\n\
         ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
         ld.param.u64 %rd2, [in];\n cvta.to.global.u64 %rd2, %rd2;\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mad.lo.u32 %r3, %r2, {threads}, %r1;\n\
         setp.eq.u32 %p2, %r1, 0;\n @%p2 st.shared.u64 [count], 0;\n bar.sync 0;\n\
         mul.wide.u32 %rd3, %r3, 24;\n add.u64 %rd3, %rd2, %rd3;\n\
         ld.global.u32 %ra, [%rd3];\n ld.global.u32 %rb, [%rd3+4];\n ld.global.u32 %rc, [%rd3+8];\n\
         ld.global.u64 %rda, [%rd3];\n ld.global.u64 %rdb, [%rd3+8];\n ld.global.u64 %rdc, [%rd3+16];\n\
         mul.wide.u32 %rd4, %r3, {row};\n add.u64 %rd10, %rd1, %rd4;\n add.u64 %rd10, %rd10, 16;\n\
         mul.wide.u32 %rd5, %r1, {row};\n mov.u64 %rd6, words;\n add.u64 %rd11, %rd6, %rd5;\n\
         mov.u64 %rd14, %rd10;\n {fault}{body}\
         red.shared.add.u64 [count], %rda;\n red.global.add.u64 [%rd1], %rda;\n\
         bar.sync 0;\n\
         mul.wide.u32 %rd7, %r1, {row};\n add.u64 %rd12, %rd6, %rd7;\n\
         mul.wide.u32 %rd8, %r3, {row};\n add.u64 %rd13, %rd1, %rd8;\n\
         add.u64 %rd13, %rd13, {shared_out};\n\
         mov.u32 %r4, 0;\n\
         COPY:\n ld.shared.u64 %rd14, [%rd12];\n st.global.u64 [%rd13], %rd14;\n\
         add.u64 %rd12, %rd12, 8;\n add.u64 %rd13, %rd13, 8;\n add.u32 %r4, %r4, 1;\n\
         setp.lt.u32 %p1, %r4, {words};\n @%p1 bra COPY;\n\
         @%p2 ld.shared.u64 %rd15, [count];\n mul.wide.u32 %rd9, %r2, 8;\n add.u64 %rd9, %rd1, %rd9;\n\
         @%p2 st.global.u64 [%rd9+8], %rd15;\n ret;\n}}\n",
        row = ops * 16,
        words = ops * 2,
        shared_out = 16 + 2 * threads * ops * 16,
    )
}

/// Random operands for [`atomics_kernel`]: 24 bytes per thread, with special `f32` and `f64`
/// values (NaN, infinity, -0, subnormals) and the integer edges mixed in.
fn atomic_inputs(rng: &mut Rng, threads: usize) -> Vec<u8> {
    let specials: [u64; 10] = [
        0,
        u64::MAX,
        0x7fc0_0000,
        0xff80_0000,
        0x8000_0000,
        0x0000_0001,
        0x7ff8_0000_0000_0001,
        0x8000_0000_0000_0000,
        0x000f_ffff_ffff_ffff,
        0x7fff_ffff,
    ];
    (0..threads * 3)
        .flat_map(|_| {
            let value = if rng.chance(25) {
                *rng.pick(&specials)
            } else {
                rng.next() >> rng.below(60)
            };
            value.to_le_bytes()
        })
        .collect()
}

/// The runs of [`atomics_kernel`]'s `program` (for 64 threads) on 2 CTAs of 64 threads in the
/// interpreter and with `kernel`, on `input` and an output of `out_bytes`.
fn atomics_on_both_tiers(
    program: &ptxsim_exec::Program,
    kernel: &std::sync::Arc<ptxsim_jit::Kernel>,
    input: &[u8],
    out_bytes: usize,
) -> (Run, Run) {
    let run = |compiled| {
        run_grid(
            program,
            ([2, 1, 1], [64, 1, 1], 100_000),
            vec![
                Argument::Buffer(vec![0; out_bytes]),
                Argument::Buffer(input.to_vec()),
            ],
            compiled,
        )
    };
    (run(None), run(Some(kernel)))
}

/// `atom` and `red` run compiled (`ptxsim_jit_atom`, the interpreter's update of one lane):
/// every operation of [`ATOMICS`] in global and shared memory on random operands (each thread
/// on words of its own, so that the old values do not depend on the order of the threads), and
/// order-free additions into shared and global counters, on 2 CTAs of 64 threads: identical
/// memory, step counts and registers on both tiers for 5 seeds; and with one thread's atomic
/// past the output's end, the same fault at the same thread and instruction.
#[test]
fn atomics_run_compiled_with_the_interpreters_results() {
    let threads = 64u32;
    let source = atomics_kernel(threads, false);
    let program = ptxsim_exec::load(&source, None).unwrap_or_else(|e| panic!("{e:?}"));
    let kernel = ptxsim_jit::compile_shared(&program, [threads, 1, 1]).unwrap();
    let atomics = program
        .instructions
        .iter()
        .filter(|i| matches!(i.kind, ptxsim_exec::ir::InstructionKind::Atom { .. }))
        .count();
    assert_eq!(atomics, 2 * ATOMICS.len() + 2);
    assert_eq!(
        kernel.stats().covered,
        kernel.stats().instructions - 2,
        "every instruction but the two barriers compiled"
    );
    let out_bytes = 16 + 3 * 2 * threads as usize * ATOMICS.len() * 16;
    for seed in 1..=5u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let input = atomic_inputs(&mut rng, 2 * threads as usize);
        let (interpreted, compiled) = atomics_on_both_tiers(&program, &kernel, &input, out_bytes);
        assert_eq!(interpreted.1, "None", "seed {seed}: the interpreter's run");
        assert_eq!(interpreted, compiled, "seed {seed}");
    }
    let faulting = atomics_kernel(threads, true);
    let program = ptxsim_exec::load(&faulting, None).unwrap();
    let kernel = ptxsim_jit::compile_shared(&program, [threads, 1, 1]).unwrap();
    let mut rng = Rng(7);
    let input = atomic_inputs(&mut rng, 2 * threads as usize);
    let (interpreted, compiled) = atomics_on_both_tiers(&program, &kernel, &input, out_bytes);
    assert!(
        interpreted.1.contains("atom.global.add.u32"),
        "the interpreter's fault: {}",
        interpreted.1
    );
    assert_eq!(interpreted.1, compiled.1, "the same fault");
}

/// The texture kernel of [`texture_reads_run_compiled_with_the_interpreters_results`]: per
/// thread, `tex.2d` and `tld4` through the handle `tex` (or, for thread 5 with `fault`, a
/// handle no object has) at its two coordinates, `txq` of the texture's width and filter
/// mode, and `suld`/`suq` of the surface `surf` at integer coordinates made from the same
/// floats; every result stored.
fn texture_kernel(fault: bool) -> String {
    let fault = if fault {
        "setp.eq.u32 %p1, %r1, 5;\n @%p1 mov.u64 %rd1, 48879;\n"
    } else {
        ""
    };
    format!(
        "{HEADER}.visible .entry k(.param .u64 tex, .param .u64 surf, .param .u64 coords, .param .u64 out)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<16>;\n .reg .f32 %f<16>;\n .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [tex];\n ld.param.u64 %rd2, [surf];\n\
         ld.param.u64 %rd3, [coords];\n cvta.to.global.u64 %rd3, %rd3;\n\
         ld.param.u64 %rd4, [out];\n cvta.to.global.u64 %rd4, %rd4;\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.u32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 8;\n add.u64 %rd5, %rd3, %rd5;\n\
         ld.global.f32 %f1, [%rd5];\n ld.global.f32 %f2, [%rd5+4];\n\
         mul.wide.u32 %rd6, %r4, 64;\n add.u64 %rd6, %rd4, %rd6;\n\
         {fault}\
         tex.2d.v4.f32.f32 {{%f3, %f4, %f5, %f6}}, [%rd1, {{%f1, %f2}}];\n\
         st.global.v4.f32 [%rd6], {{%f3, %f4, %f5, %f6}};\n\
         tld4.r.2d.v4.f32.f32 {{%f7, %f8, %f9, %f10}}, [%rd1, {{%f1, %f2}}];\n\
         st.global.v4.f32 [%rd6+16], {{%f7, %f8, %f9, %f10}};\n\
         txq.width.b32 %r5, [%rd1];\n txq.filter_mode.b32 %r6, [%rd1];\n\
         st.global.v2.u32 [%rd6+32], {{%r5, %r6}};\n\
         mul.f32 %f11, %f1, 0f41000000;\n cvt.rzi.s32.f32 %r7, %f11;\n shl.b32 %r7, %r7, 2;\n\
         mul.f32 %f12, %f2, 0f40800000;\n cvt.rzi.s32.f32 %r8, %f12;\n\
         suld.b.2d.b32.clamp {{%r9}}, [%rd2, {{%r7, %r8}}];\n suq.width.b32 %r10, [%rd2];\n\
         st.global.v2.u32 [%rd6+40], {{%r9, %r10}};\n ret;\n}}\n"
    )
}

/// Texture and surface reads run compiled (`ptxsim_jit_texture`, the interpreter's function
/// for one lane): a 13x7 `f32` texture with linear filtering, wrap addressing and normalized
/// coordinates read with `tex.2d` and `tld4` at random coordinates (in and out of range, some
/// NaN), `txq`, and a 13x7 `u32` surface read with `suld.b ... .clamp` and `suq`, on 2 CTAs
/// of 32 threads for 3 seeds: identical outputs, steps and registers on both tiers; and a
/// thread with a handle no object has traps at the same thread and instruction in both.
#[test]
fn texture_reads_run_compiled_with_the_interpreters_results() {
    use ptxsim_exec::texture::{
        AddressMode, ChannelType, CudaArray, FilterMode, Format, ReadMode, Resource, Texture,
        TextureObject, TextureTable,
    };
    const TEX: u64 = 0x51;
    const SURF: u64 = 0x52;
    let threads = 32u32;
    let mut rng = Rng(0x5eed_7e47);
    let array = |ty: ChannelType, rng: &mut Rng| {
        let array =
            CudaArray::new(Format { channels: 1, ty }, [13, 7, 0], false, false).expect("array");
        array.write(|data| {
            for word in data.chunks_mut(4) {
                let value = match ty {
                    ChannelType::F32 => (rng.below(2001) as f32 - 1000.0) / 8.0,
                    _ => f32::from_bits(rng.next() as u32),
                };
                word.copy_from_slice(&value.to_le_bytes());
            }
        });
        std::sync::Arc::new(array)
    };
    let mut table = TextureTable::new();
    table.insert(
        TEX,
        TextureObject::Texture(Texture {
            resource: Resource::Array(array(ChannelType::F32, &mut rng)),
            address_modes: [AddressMode::Wrap; 3],
            filter: FilterMode::Linear,
            read_mode: ReadMode::ElementType,
            normalized_coordinates: true,
            border_color: [0.0; 4],
        }),
    );
    table.insert(
        SURF,
        TextureObject::Surface(array(ChannelType::U32, &mut rng)),
    );
    let table = std::sync::Arc::new(table);
    for (seed, fault) in [(1u64, false), (2, false), (3, false), (4, true)] {
        let source = texture_kernel(fault);
        let program = ptxsim_exec::load(&source, None).unwrap_or_else(|e| panic!("{e:?}"));
        let kernel = ptxsim_jit::compile_shared(&program, [threads, 1, 1]).unwrap();
        assert_eq!(
            kernel.stats().covered,
            kernel.stats().instructions,
            "every instruction compiled"
        );
        let mut rng = Rng(seed * 0x2545_f491);
        let coords: Vec<u8> = (0..2 * threads as usize * 2)
            .flat_map(|_| {
                let value = if rng.chance(5) {
                    f32::NAN
                } else {
                    (rng.below(4001) as f32 - 1000.0) / 1000.0
                };
                value.to_le_bytes()
            })
            .collect();
        let run = |compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>| {
            let (mut device, addresses) = grid::prepare(
                &program,
                [2, 1, 1],
                [threads, 1, 1],
                100_000,
                vec![
                    Argument::Scalar {
                        ty: ptxsim_isa::Type::U64,
                        bits: TEX,
                    },
                    Argument::Scalar {
                        ty: ptxsim_isa::Type::U64,
                        bits: SURF,
                    },
                    Argument::Buffer(coords.clone()),
                    Argument::Buffer(vec![0; 2 * threads as usize * 64]),
                ],
            )
            .unwrap();
            device.set_textures(table.clone());
            if let Some(kernel) = compiled {
                device.set_compiled(kernel.clone());
            }
            outcome(&device, GridOptions::default(), &addresses)
        };
        let (interpreted, compiled) = (run(None), run(Some(&kernel)));
        if fault {
            assert!(
                interpreted.1.contains("no texture or surface object"),
                "the interpreter's trap: {}",
                interpreted.1
            );
            assert_eq!(interpreted.1, compiled.1, "the same trap");
        } else {
            assert_eq!(interpreted.1, "None", "seed {seed}: the interpreter's run");
            assert_eq!(interpreted, compiled, "seed {seed}");
        }
    }
}
