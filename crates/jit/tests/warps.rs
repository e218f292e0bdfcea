//! The warp function (converged warps in lockstep, `crates/jit/src/warp.rs`) against the
//! interpreter and against host references: nvcc's shuffle reductions on random inputs (with
//! the sums worked out on the host), random kernels of `shfl.sync` (every mode, random lane
//! operands and clamp/segment values, the predicate result), `vote.sync`, `activemask` and
//! `redux.sync`, `bar.warp.sync` between divergent branches and loops, partial warps, a fault inside a
//! segment and the step limit inside lockstep code.

use std::sync::Arc;

use ptxsim_exec::grid::{self, Argument, GridOptions};
use ptxsim_jit::WarpStrategy;

mod common;

use common::{Rng, Run, outcome, repo};

/// Runs `program` on `grid` CTAs of `block` threads with `arguments` and the step limit
/// `max_steps`, inspecting `inspect` (CTA, thread), in the interpreter or with `compiled`.
fn run(
    program: &ptxsim_exec::Program,
    (grid_x, block, max_steps): (u32, u32, u64),
    arguments: &[Vec<u8>],
    inspect: (u32, u32),
    compiled: Option<&Arc<ptxsim_jit::Kernel>>,
) -> Run {
    let (mut device, addresses) = grid::prepare(
        program,
        [grid_x, 1, 1],
        [block, 1, 1],
        max_steps,
        arguments.iter().cloned().map(Argument::Buffer).collect(),
    )
    .unwrap();
    if let Some(kernel) = compiled {
        device.set_compiled(kernel.clone());
    }
    let options = GridOptions {
        inspect: ([inspect.0, 0, 0], [inspect.1, 0, 0]),
        ..GridOptions::default()
    };
    outcome(&device, options, &addresses)
}

/// The kernel compiled with the warp function (which it must get).
fn with_warps(name: &str, program: &ptxsim_exec::Program, block: u32) -> Arc<ptxsim_jit::Kernel> {
    let kernel = ptxsim_jit::compile_with(program, [block, 1, 1], WarpStrategy::Auto)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(kernel.stats().warp_function, "{name}: no warp function");
    Arc::new(kernel)
}

/// `__shfl_down_sync` over a warp as PTX ISA 9.7.9.6 defines it, in `f32` on the host: lane
/// `i` adds the value of lane `i + offset` where that is at most 31 (`c` = 0x1f), else its own
/// (out of range: "the thread will simply copy its own input a").
fn host_down_tree(warp: &[f32]) -> f32 {
    let mut values = warp.to_vec();
    for offset in [16, 8, 4, 2, 1] {
        let before = values.clone();
        for (lane, value) in values.iter_mut().enumerate() {
            let source = if lane + offset <= 31 {
                lane + offset
            } else {
                lane
            };
            *value += before[source];
        }
    }
    values[0]
}

/// `__shfl_xor_sync` max over a warp (`max.f32`, no NaN among the inputs): every lane ends
/// with the maximum.
fn host_xor_max(warp: &[f32]) -> f32 {
    warp.iter().copied().fold(f32::NEG_INFINITY, f32::max)
}

/// nvcc's shuffle reductions (`ptx-samples/nvcc/warp.sm_90.ptx`, the kernels of
/// `scripts/bench/warp-vs-native.sh`) in lockstep: the same outputs, steps and inspected
/// registers as the interpreter, on random inputs (some lanes past the element count), and
/// the sums and maxima the host works out.
#[test]
fn nvcc_shuffle_reductions_match_the_interpreter_and_the_host() {
    let source = std::fs::read_to_string(repo().join("ptx-samples/nvcc/warp.sm_90.ptx")).unwrap();
    let mut rng = Rng(0x5eed_0035);
    for entry in ["warp_sum_down", "warp_max_xor"] {
        let program = ptxsim_exec::load(&source, Some(entry)).unwrap();
        for (ctas, block, n) in [(4u32, 256u32, 1024usize), (3, 128, 300), (2, 96, 192)] {
            let kernel = with_warps(entry, &program, block);
            assert_eq!(
                kernel.stats().warp_instructions,
                5,
                "{entry}: five shuffles"
            );
            // nvcc sets `b`, `c` and the membermask with `mov`s of immediates: every
            // shuffle is generated inline.
            assert_eq!(
                kernel.stats().warp_shuffles_inline,
                5,
                "{entry}: five shuffles inline"
            );
            let values: Vec<f32> = (0..ctas as usize * block as usize)
                .map(|_| {
                    let magnitude = 1.0 + (rng.next() % 1000) as f32 / 1000.0;
                    let scale = 2f32.powi((rng.below(41) as i32) - 20);
                    if rng.next() & 1 == 0 {
                        magnitude * scale
                    } else {
                        -magnitude * scale
                    }
                })
                .collect();
            let input: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let slots = if entry == "warp_sum_down" {
                values.len() / 32
            } else {
                values.len()
            };
            let arguments = [input, vec![0; slots * 4], (n as u32).to_le_bytes().to_vec()];
            // The third parameter is a `.u32` by value: pass it as a scalar.
            let scalar = |arguments: &[Vec<u8>]| -> Vec<Argument> {
                vec![
                    Argument::Buffer(arguments[0].clone()),
                    Argument::Buffer(arguments[1].clone()),
                    Argument::Scalar {
                        ty: ptxsim_isa::Type::U32,
                        bits: n as u64,
                    },
                ]
            };
            let launch = |compiled: Option<&Arc<ptxsim_jit::Kernel>>| {
                let (mut device, addresses) = grid::prepare(
                    &program,
                    [ctas, 1, 1],
                    [block, 1, 1],
                    1_000_000,
                    scalar(&arguments),
                )
                .unwrap();
                if let Some(kernel) = compiled {
                    device.set_compiled(kernel.clone());
                }
                let result = grid::run_grid(&device, GridOptions::default(), None, None);
                let out = device
                    .global
                    .buffer_at(addresses[1].unwrap())
                    .unwrap()
                    .contents();
                let inspected = result.inspected.map(|i| (i.registers, i.steps));
                (
                    result.steps,
                    format!("{:?}", result.failure),
                    inspected,
                    out,
                )
            };
            let interpreted = launch(None);
            let compiled = launch(Some(&kernel));
            assert_eq!(interpreted, compiled, "{entry} {ctas}x{block}");
            // The host's: lanes at or past `n` contribute 0 (the sum) or -inf (the maximum).
            let out: Vec<f32> = compiled
                .3
                .chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            for (warp, chunk) in values.chunks(32).enumerate() {
                let first = warp * 32;
                let lanes: Vec<f32> = chunk
                    .iter()
                    .enumerate()
                    .map(|(lane, &v)| match (first + lane < n, entry) {
                        (true, _) => v,
                        (false, "warp_sum_down") => 0.0,
                        (false, _) => f32::NEG_INFINITY,
                    })
                    .collect();
                if entry == "warp_sum_down" {
                    if first < n {
                        assert_eq!(
                            out[warp].to_bits(),
                            host_down_tree(&lanes).to_bits(),
                            "{entry}: warp {warp}"
                        );
                    }
                } else {
                    for lane in 0..32 {
                        if first + lane < n {
                            assert_eq!(
                                out[first + lane].to_bits(),
                                host_xor_max(&lanes).to_bits(),
                                "{entry}: warp {warp} lane {lane}"
                            );
                        }
                    }
                }
            }
        }
    }
}

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Registers of each class a random warp kernel uses.
const REGISTERS: u64 = 6;
/// Output words per thread: every `%r`, `%f` and `%p` register at the end.
const SLOTS: u64 = REGISTERS * 3;

/// A random kernel of warp-synchronous instructions: `shfl.sync` of every mode with random
/// immediate or per-lane `b` (out of range ones too) and `c` (clamps and segment masks, some
/// from registers), `b`, `c` and the membermask from registers that `mov`s of immediates set
/// (generated inline where they are known constants, the helper's where a guarded `mov` may
/// have changed them), with and without the predicate result; `vote.sync` of every mode with
/// negated predicates; integer `redux.sync`; `activemask`; `bar.warp.sync`; integer and `f32` arithmetic, guards,
/// divergent forward branches and loops of per-lane length between them.
fn random_warp_kernel(rng: &mut Rng) -> String {
    let mut lines = Vec::new();
    let mut labels = 0;
    let r = |rng: &mut Rng| format!("%r{}", rng.below(REGISTERS));
    let p = |rng: &mut Rng| format!("%p{}", rng.below(REGISTERS));
    let f = |rng: &mut Rng| format!("%f{}", rng.below(REGISTERS));
    let count = 8 + rng.below(24);
    for _ in 0..count {
        let line = match rng.below(15) {
            0..=3 => {
                let mode = ["up", "down", "bfly", "idx"][rng.below(4) as usize];
                let b = match rng.below(4) {
                    // Per-lane `b`, any value (its low five bits count).
                    0 => r(rng),
                    // A register `mov`s of immediates set (the same in every lane unless a
                    // guarded one changed it in some).
                    1 => "%kb".to_string(),
                    _ => rng.below(40).to_string(),
                };
                let c = match rng.below(6) {
                    5 => "%kc".to_string(),
                    0 => "0x1f".to_string(),
                    1 => "0".to_string(),
                    2 => {
                        let segment = [0u64, 0x10, 0x18, 0x1c, 0x1e, 0x1f][rng.below(6) as usize];
                        format!("{}", segment << 8 | rng.below(32))
                    }
                    3 => "%cm".to_string(),
                    _ => rng.below(1 << 16).to_string(),
                };
                let predicate = if rng.below(2) == 0 {
                    format!("|{}", p(rng))
                } else {
                    String::new()
                };
                let mask = ["%full", "%km", "0xffffffff", "0xffffffff"][rng.below(4) as usize];
                let d = r(rng);
                let a = r(rng);
                format!("shfl.sync.{mode}.b32 {d}{predicate}, {a}, {b}, {c}, {mask};")
            }
            4 => {
                let mode = ["all", "any", "uni"][rng.below(3) as usize];
                let negate = if rng.below(2) == 0 { "!" } else { "" };
                let (d, a) = (p(rng), p(rng));
                format!("vote.sync.{mode}.pred {d}, {negate}{a}, 0xffffffff;")
            }
            5 => {
                let negate = if rng.below(2) == 0 { "!" } else { "" };
                let (d, a) = (r(rng), p(rng));
                format!("vote.sync.ballot.b32 {d}, {negate}{a}, 0xffffffff;")
            }
            6 if rng.below(2) == 0 => format!("activemask.b32 {};", r(rng)),
            6 => {
                let form = [
                    "add.u32", "add.s32", "min.u32", "min.s32", "max.u32", "max.s32", "and.b32",
                    "or.b32", "xor.b32",
                ][rng.below(9) as usize];
                format!("redux.sync.{form} {}, {}, 0xffffffff;", r(rng), r(rng))
            }
            7 => "bar.warp.sync 0xffffffff;".to_string(),
            8 => {
                let op = ["add.u32", "xor.b32", "mul.lo.u32", "sub.u32", "shr.u32"]
                    [rng.below(5) as usize];
                let guard = if rng.below(4) == 0 {
                    format!("@{} ", p(rng))
                } else {
                    String::new()
                };
                format!("{guard}{op} {}, {}, {};", r(rng), r(rng), r(rng))
            }
            9 => format!("setp.lt.u32 {}, {}, {};", p(rng), r(rng), r(rng)),
            10 => {
                let (d, a, b) = (f(rng), f(rng), f(rng));
                let x = r(rng);
                format!("mov.b32 {d}, {x};\n    add.f32 {d}, {d}, {a};\n    sub.f32 {b}, {b}, {d};")
            }
            11 => {
                // A divergent forward branch (taken in the lanes whose predicate holds).
                labels += 1;
                let guard = p(rng);
                let (d, a) = (r(rng), r(rng));
                format!(
                    "@{guard} bra SKIP{labels};\n    add.u32 {d}, {d}, {a};\n    xor.b32 {a}, {a}, {d};\nSKIP{labels}:"
                )
            }
            12 => {
                // A loop of 1 to 4 iterations per lane, then the warp together again.
                labels += 1;
                let (d, a) = (r(rng), r(rng));
                format!(
                    "and.b32 %lc, {a}, 3;\n    add.u32 %lc, %lc, 1;\nLOOP{labels}:\n    add.u32 {d}, {d}, %lc;\n    sub.u32 %lc, %lc, 1;\n    setp.ne.u32 %lp, %lc, 0;\n    @%lp bra LOOP{labels};"
                )
            }
            13 => {
                // The shuffles' `b`, `c` and membermask registers set anew, in every lane or
                // under a guard (then the warp function calls the shuffle's helper).
                let guard = if rng.below(3) == 0 {
                    format!("@{} ", p(rng))
                } else {
                    String::new()
                };
                match rng.below(3) {
                    0 => format!("{guard}mov.u32 %kb, {};", rng.below(40)),
                    1 => format!(
                        "{guard}mov.u32 %kc, {};",
                        [0x1f, 0, 0x181f, 0x1c03][rng.below(4) as usize]
                    ),
                    _ => format!("{guard}mov.u32 %km, -1;"),
                }
            }
            _ => format!("selp.u32 {}, {}, {}, {};", r(rng), r(rng), r(rng), p(rng)),
        };
        lines.push(line);
    }
    // At least one shuffle, so that the kernel gets the warp function.
    lines.push("shfl.sync.bfly.b32 %r0|%p0, %r1, 1, 0x1f, 0xffffffff;".into());
    let mut stores = Vec::new();
    for i in 0..REGISTERS {
        stores.push(format!("st.global.u32 [%mine+{}], %r{i};", 4 * i));
        stores.push(format!(
            "st.global.f32 [%mine+{}], %f{i};",
            4 * (REGISTERS + i)
        ));
        stores.push(format!("selp.u32 %ti, 1, 0, %p{i};"));
        stores.push(format!(
            "st.global.u32 [%mine+{}], %ti;",
            4 * (2 * REGISTERS + i)
        ));
    }
    let mut loads = Vec::new();
    for i in 0..REGISTERS {
        loads.push(format!("ld.global.u32 %r{i}, [%from+{}];", 4 * i));
        loads.push(format!("cvt.rn.f32.u32 %f{i}, %r{i};"));
        loads.push(format!("setp.lt.u32 %p{i}, %r{i}, 0x80000000;"));
    }
    format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{
    .reg .pred %p<{REGISTERS}>;
    .reg .pred %lp;
    .reg .u32 %r<{REGISTERS}>;
    .reg .f32 %f<{REGISTERS}>;
    .reg .u32 %tx, %nt, %ca, %gid, %ti, %lc, %cm, %full, %kb, %kc, %km;
    .reg .u64 %in, %out, %mine, %from;
    ld.param.u64 %in, [in];
    ld.param.u64 %out, [out];
    mov.u32 %tx, %tid.x;
    mov.u32 %nt, %ntid.x;
    mov.u32 %ca, %ctaid.x;
    mad.lo.u32 %gid, %ca, %nt, %tx;
    mul.wide.u32 %mine, %gid, {};
    add.u64 %from, %mine, %in;
    add.u64 %mine, %mine, %out;
    mov.u32 %full, -1;
    mov.u32 %kb, 1;
    mov.u32 %kc, 0x1f;
    mov.u32 %km, -1;
{}
    and.b32 %cm, %r0, 0x1f1f;
{}
{}
    ret;
}}",
        SLOTS * 4,
        loads.join("\n    "),
        lines.join("\n    "),
        stores.join("\n    ")
    )
}

/// Random warp kernels (see [`random_warp_kernel`]) on both tiers with random inputs, over 1-3
/// CTAs of whole warps or a partial last warp (which the work-item function and the
/// interpreter run): steps, inspected registers and buffers identical.
#[test]
fn random_warp_kernels_run_the_same_on_both_tiers() {
    let kernels = std::env::var("PTXSIM_RANDOM_WARP_KERNELS")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(150u64);
    let mut differ = Vec::new();
    for seed in 1..=kernels {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x1000_0000_01b3));
        let source = random_warp_kernel(&mut rng);
        let program = ptxsim_exec::load(&source, None)
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{source}"));
        let ctas = 1 + rng.below(3) as u32;
        let block = [32u32, 64, 96, 128, 48, 80][rng.below(6) as usize];
        let kernel = with_warps(&format!("seed {seed}"), &program, block);
        let threads = (ctas * block) as usize;
        let input: Vec<u8> = (0..threads * SLOTS as usize * 4)
            .map(|_| rng.next() as u8)
            .collect();
        let arguments = [input, vec![0; threads * SLOTS as usize * 4]];
        let inspect = (
            rng.below(u64::from(ctas)) as u32,
            rng.below(u64::from(block)) as u32,
        );
        let shape = (ctas, block, 100_000);
        let interpreted = run(&program, shape, &arguments, inspect, None);
        let compiled = run(&program, shape, &arguments, inspect, Some(&kernel));
        assert_eq!(interpreted.1, "None", "seed {seed}: the interpreter failed");
        if interpreted != compiled {
            if differ.is_empty() {
                eprintln!(
                    "seed {seed} differs:\n{source}\ninterpreted: {:?}\ncompiled: {:?}",
                    (&interpreted.0, &interpreted.1, &interpreted.2),
                    (&compiled.0, &compiled.1, &compiled.2)
                );
            }
            differ.push(seed);
        }
    }
    assert!(differ.is_empty(), "seeds whose tiers differ: {differ:?}");
}

/// The first lines of the kernels [`fault_and_limits`] runs: `%a` is the thread's input word
/// (`%gid` its index in the grid), `%o` the output buffer.
const FAULT_PROLOGUE: &str = "    ld.param.u64 %a, [in];
    ld.param.u64 %o, [out];
    mov.u32 %tx, %tid.x;
    mov.u32 %r7, %ctaid.x;
    mov.u32 %n, %ntid.x;
    mad.lo.u32 %gid, %r7, %n, %tx;
    mul.wide.u32 %far, %gid, 4;
    add.u64 %a, %a, %far;";

/// Runs `source` (2 CTAs of 64 threads over `arguments`; its offset `0x40000000` makes one
/// thread's load fault), inspecting thread 45 of CTA 1, on both tiers: the interpreter's
/// failure names `faulting` and the compiled tier's is the same. Then, the offset 0 (no
/// fault), every step limit of `limits` gives identical runs. Returns the two runs with the
/// fault, and the program and kernel without it.
fn fault_and_limits(
    name: &str,
    source: &str,
    arguments: &[Vec<u8>],
    faulting: &str,
    limits: &[u64],
) -> ([Run; 2], ptxsim_exec::Program, Arc<ptxsim_jit::Kernel>) {
    let program = ptxsim_exec::load(source, None).unwrap();
    let kernel = with_warps(&format!("{name} fault"), &program, 64);
    let shape = (2, 64, 100_000);
    let interpreted = run(&program, shape, arguments, (1, 45), None);
    let compiled = run(&program, shape, arguments, (1, 45), Some(&kernel));
    assert!(
        interpreted.1.contains(faulting),
        "{name}: the interpreter's failure is {faulting}: {}",
        interpreted.1
    );
    assert_eq!(interpreted.1, compiled.1, "{name}: the same failure");
    // Without the faulting thread (the address in range): the step limits stop the same
    // threads at the same counts.
    let fine = source.replace("0x40000000", "0");
    let program = ptxsim_exec::load(&fine, None).unwrap();
    let kernel = with_warps(&format!("{name} fuel"), &program, 64);
    for &max_steps in limits {
        let shape = (2, 64, max_steps);
        let interpreted = run(&program, shape, arguments, (1, 45), None);
        let compiled = run(&program, shape, arguments, (1, 45), Some(&kernel));
        assert_eq!(interpreted, compiled, "{name}: max_steps {max_steps}");
    }
    ([interpreted, compiled], program, kernel)
}

/// A kernel whose warps diverge at a data-dependent branch inside a shuffle tree and loop a
/// per-lane number of times, then shuffle again: the warp function hands each warp back at
/// the divergent branch (each lane at its way), the work-item function and the interpreter
/// run the divergent part, and the warp function takes the warp on again where it is
/// together. The outputs are worked out from the PTX on the host, and the interpreter's must
/// be the same.
#[test]
fn divergent_branches_hand_the_warp_back() {
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{
    .reg .pred %p<3>;
    .reg .u32 %r<8>, %tx, %gid, %n;
    .reg .u64 %a, %o;
    ld.param.u64 %a, [in];
    ld.param.u64 %o, [out];
    mov.u32 %tx, %tid.x;
    mov.u32 %r7, %ctaid.x;
    mov.u32 %n, %ntid.x;
    mad.lo.u32 %gid, %r7, %n, %tx;
    mul.wide.u32 %a, %gid, 4;
    ld.param.u64 %o, [in];
    add.u64 %a, %a, %o;
    ld.global.u32 %r1, [%a];
    shfl.sync.down.b32 %r2, %r1, 1, 0x1f, 0xffffffff;
    add.u32 %r1, %r1, %r2;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra EVEN;
    mul.lo.u32 %r1, %r1, 3;
    add.u32 %r1, %r1, 1;
EVEN:
    and.b32 %r4, %r1, 7;
LOOP:
    add.u32 %r1, %r1, %r4;
    sub.u32 %r4, %r4, 1;
    setp.ne.u32 %p2, %r4, 0xffffffff;
    @%p2 bra LOOP;
    shfl.sync.bfly.b32 %r5, %r1, 16, 0x1f, 0xffffffff;
    xor.b32 %r1, %r1, %r5;
    vote.sync.ballot.b32 %r6, %p1, 0xffffffff;
    ld.param.u64 %o, [out];
    mul.wide.u32 %a, %gid, 8;
    add.u64 %a, %a, %o;
    st.global.v2.u32 [%a], {{%r1, %r6}};
    ret;
}}"
    );
    let program = ptxsim_exec::load(&source, None).unwrap();
    let mut rng = Rng(35);
    for block in [64u32, 96] {
        let kernel = with_warps("divergent", &program, block);
        let ctas = 2;
        let threads = (ctas * block) as usize;
        let input: Vec<u32> = (0..threads).map(|_| rng.next() as u32).collect();
        let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let arguments = [bytes, vec![0; threads * 8]];
        let interpreted = run(&program, (ctas, block, 100_000), &arguments, (1, 33), None);
        let compiled = run(
            &program,
            (ctas, block, 100_000),
            &arguments,
            (1, 33),
            Some(&kernel),
        );
        assert_eq!(interpreted, compiled, "block {block}");
        // The host's, step by step as the PTX says.
        let mut expected = vec![0u32; threads * 2];
        for (index, warp) in input.chunks(32).enumerate() {
            let first = index * 32;
            let after: Vec<u32> = (0..32)
                .map(|lane| {
                    // `.down` by 1 with `c` = 0x1f: `j = lane + 1`, in range while `j <= 31`.
                    let j = lane + 1;
                    let down = if j <= 31 { warp[j] } else { warp[lane] };
                    let mut r1 = warp[lane].wrapping_add(down);
                    if r1 & 1 != 0 {
                        r1 = r1.wrapping_mul(3).wrapping_add(1);
                    }
                    let mut r4 = r1 & 7;
                    loop {
                        r1 = r1.wrapping_add(r4);
                        r4 = r4.wrapping_sub(1);
                        if r4 == u32::MAX {
                            break;
                        }
                    }
                    r1
                })
                .collect();
            let even: u32 = (0..32)
                .filter(|&lane| {
                    // `.down` by 1 with `c` = 0x1f: `j = lane + 1`, in range while `j <= 31`.
                    let j = lane + 1;
                    let down = if j <= 31 { warp[j] } else { warp[lane] };
                    warp[lane].wrapping_add(down) & 1 == 0
                })
                .fold(0, |ballot, lane| ballot | 1 << lane);
            for lane in 0..32 {
                expected[2 * (first + lane)] = after[lane] ^ after[lane ^ 16];
                expected[2 * (first + lane) + 1] = even;
            }
        }
        let out: Vec<u32> = compiled.3[1]
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(out, expected, "block {block}: the PTX's values");
    }
}

/// A load in lockstep code that faults for one thread (lane 13 of the second warp of the
/// second CTA): the same failure, at the same thread and instruction, as the interpreter's,
/// and a step limit that falls inside lockstep code stops the same thread at the same count.
#[test]
fn faults_and_the_step_limit_in_lockstep_code_match_the_interpreter() {
    let source = format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{
    .reg .pred %p<2>;
    .reg .u32 %r<8>, %tx, %gid, %n;
    .reg .u64 %a, %o, %far;
{FAULT_PROLOGUE}
    ld.global.u32 %r1, [%a];
    shfl.sync.idx.b32 %r2, %r1, 3, 0x1f, 0xffffffff;
    setp.eq.u32 %p1, %gid, 109;
    selp.u32 %r3, 0x40000000, 0, %p1;
    cvt.u64.u32 %far, %r3;
    add.u64 %far, %far, %a;
    add.u32 %r2, %r2, %gid;
    ld.global.u32 %r4, [%far];
    add.u32 %r4, %r4, %r2;
    shfl.sync.up.b32 %r5, %r4, 2, 0, 0xffffffff;
    mul.wide.u32 %far, %gid, 4;
    add.u64 %o, %o, %far;
    st.global.u32 [%o], %r5;
    ret;
}}"
    );
    let mut rng = Rng(7);
    let input: Vec<u8> = (0..128 * 4).map(|_| rng.next() as u8).collect();
    let arguments = [input, vec![0; 128 * 4]];
    fault_and_limits(
        "",
        &source,
        &arguments,
        "cta: [1, 0, 0], thread: [45, 0, 0]",
        &[1, 5, 12, 13, 14, 17, 19, 22, 30],
    );
}

/// A divergent `if` without `else` between two shuffles (`@p bra SKIP` over a load, an
/// addition and a store): the warp function runs the segment up to `SKIP` for the lanes whose
/// guard is false and goes on with the whole warp at `SKIP`. With `@p` and `@!p`: a fault of
/// thread 13 of CTA 0 (one of the lanes that run the segment; CTA 1's registers are shown, so
/// it runs without the warp function) at the load is the interpreter's failure, and without it step limits inside the masked segment
/// and around it stop the same threads at the same counts, with the same outputs and inspected
/// registers; the outputs are the ones worked out on the host.
#[test]
fn a_masked_segment_after_a_divergent_branch_matches_the_interpreter() {
    for (guard, test) in [("@%p1", "setp.eq.u32"), ("@!%p1", "setp.ne.u32")] {
        let source = format!(
            "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out) {{
    .reg .pred %p<2>;
    .reg .u32 %r<8>, %tx, %gid, %n, %odd;
    .reg .u64 %a, %o, %far;
{FAULT_PROLOGUE}
    mul.wide.u32 %far, %gid, 4;
    add.u64 %o, %o, %far;
    ld.global.u32 %r1, [%a];
    shfl.sync.down.b32 %r2, %r1, 1, 0x1f, 0xffffffff;
    and.b32 %odd, %tx, 1;
    {test} %p1, %odd, 0;
    {guard} bra SKIP;
    setp.eq.u32 %p0, %gid, 13;
    selp.u32 %r3, 0x40000000, 0, %p0;
    cvt.u64.u32 %far, %r3;
    add.u64 %far, %far, %a;
    ld.global.u32 %r4, [%far];
    add.u32 %r2, %r2, %r4;
    st.global.u32 [%o], %r2;
SKIP:
    shfl.sync.up.b32 %r5, %r2, 2, 0, 0xffffffff;
    add.u32 %r5, %r5, %odd;
    st.global.u32 [%o], %r5;
    ret;
}}"
        );
        let mut rng = Rng(11);
        let input: Vec<u8> = (0..128 * 4).map(|_| rng.next() as u8).collect();
        let arguments = [input, vec![0; 128 * 4]];
        // (Not 23-25: the odd lanes then run out after the second shuffle, where the shown
        // CTA's threads, run one after another, let the even lanes run on to their store.)
        let (faulted, program, kernel) = fault_and_limits(
            guard,
            &source,
            &arguments,
            "cta: [0, 0, 0], thread: [13, 0, 0]",
            &[1, 14, 15, 16, 17, 18, 20, 21, 22, 26, 27, 100],
        );
        // The lanes after the faulting one stopped before any store: at the segment's start
        // (the odd ones) or at `SKIP` (the even ones, whose next store follows the shuffle the
        // odd ones never reach).
        for (tier, run) in [("interpreter", &faulted[0]), ("compiled", &faulted[1])] {
            assert!(
                run.3[1][13 * 4..32 * 4].iter().all(|&b| b == 0),
                "{guard}: {tier}: lanes 13-31 of CTA 0 stored nothing"
            );
        }
        // The outputs worked out on the host: odd lanes store their own sum first, then every
        // lane the shuffled value (`up` by 2, lanes 0-1 keep theirs) plus its parity.
        let full = run(
            &program,
            (2, 64, 100_000),
            &arguments,
            (1, 45),
            Some(&kernel),
        );
        assert_eq!(full.1, "None");
        let words: Vec<u32> = arguments[0]
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let mut expected = vec![0u32; 128];
        for warp in words.chunks(32).enumerate() {
            let (w, values) = warp;
            let down: Vec<u32> = (0..32)
                .map(|l| values[if l + 1 < 32 { l + 1 } else { l }])
                .collect();
            let after: Vec<u32> = (0..32)
                .map(|l| {
                    if l % 2 == 1 {
                        down[l].wrapping_add(values[l])
                    } else {
                        down[l]
                    }
                })
                .collect();
            for l in 0..32 {
                let source = if l >= 2 { after[l - 2] } else { after[l] };
                expected[w * 32 + l] = source.wrapping_add(l as u32 % 2);
            }
        }
        let out: Vec<u32> = full
            .3
            .last()
            .unwrap()
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(out, expected, "{guard}: the outputs");
    }
}
