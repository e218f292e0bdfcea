//! The executor's API at its boundaries: load errors, fuel, outcomes, register preloads and the
//! value printers.

use ptxsim_exec::{BuildError, LoadError, Machine, Outcome, grid, report};
use ptxsim_isa::Type;

fn kernel(body: &str) -> String {
    format!(
        ".version 9.1\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
    )
}

fn diagnostics(source: &str) -> Vec<(String, String)> {
    match ptxsim_exec::load(source, None) {
        Err(LoadError::Diagnostics(list)) => list
            .into_iter()
            .map(|d| (d.code.to_string(), d.message))
            .collect(),
        other => panic!("expected diagnostics, got {other:?}"),
    }
}

/// Runs a prepared launch on one host thread: the first failure, and the registers of the
/// thread `inspect` names (CTA, thread).
fn run_on_one_host_thread(
    device: &ptxsim_exec::Device<'_>,
    inspect: ([u32; 3], [u32; 3]),
) -> (Option<grid::Failure>, Option<Vec<u128>>) {
    let mut run = grid::run_grid(
        device,
        grid::GridOptions {
            host_threads: 1,
            inspect,
            ..grid::GridOptions::default()
        },
        None,
        None,
    );
    (run.failure.take(), run.inspected.map(|i| i.registers))
}

#[test]
fn invalid_forms_are_diagnostics_before_running() {
    // cvt.md: "Rounding modifier is mandatory ... All int-to-float conversions". The checker
    // reports it (E03xx) when the module is loaded.
    let source = kernel(".reg .f32 %f; .reg .s32 %i; cvt.f32.s32 %f, %i;");
    let found = diagnostics(&source);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("rounding modifier is mandatory"));
    // cvt.md: "When converting to .e2m1x2 data formats, the destination operand d has .b8 type".
    let found = diagnostics(&kernel(
        ".reg .b16 %h; .reg .f32 %f; cvt.rn.satfinite.e2m1x2.f32 %h, %f, %f;",
    ));
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn a_guard_must_be_a_predicate() {
    // ptxas 13.5 on this kernel: "Predicate expression expected".
    let found = diagnostics(&kernel(".reg .b32 %r; @%r mov.b32 %r, 1;"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "E0108");
    assert!(found[0].1.contains("`%r` is not a predicate register"));
}

#[test]
fn entry_selection_errors() {
    let two =
        ".version 9.1\n.target sm_90\n.address_size 64\n.entry a() { ret; }\n.entry b() { ret; }\n";
    assert_eq!(
        ptxsim_exec::load(two, None),
        Err(LoadError::Build(BuildError::SeveralEntries(vec![
            "a".to_string(),
            "b".to_string()
        ])))
    );
    assert!(matches!(
        ptxsim_exec::load(two, Some("c")),
        Err(LoadError::Build(BuildError::EntryNotFound { .. }))
    ));
    let none = ".version 9.1\n.target sm_90\n.address_size 64\n.func f() { ret; }\n";
    assert_eq!(
        ptxsim_exec::load(none, None),
        Err(LoadError::Build(BuildError::NoEntry))
    );
}

#[test]
fn zero_fuel_runs_nothing_and_finished_machines_stay_finished() {
    let program = ptxsim_exec::load(&kernel(".reg .b32 %r; mov.b32 %r, 1; ret;"), None).unwrap();
    let mut machine = Machine::new(&program, 0);
    assert_eq!(machine.step(), Ok(Outcome::OutOfFuel));
    assert_eq!(machine.steps(), 0);
    assert_eq!(machine.registers(), &[0]);
    let mut machine = Machine::new(&program, 10);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.step(), Ok(Outcome::Exited));
    assert_eq!(machine.steps(), 2);
}

#[test]
fn falling_off_the_end_exits() {
    let program = ptxsim_exec::load(&kernel(".reg .b32 %r; mov.b32 %r, 1;"), None).unwrap();
    let mut machine = Machine::new(&program, 10);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers(), &[1]);
}

#[test]
fn the_reserved_shared_memory_is_after_the_kernels_own() {
    // PTX ISA, "Special Registers: %reserved_smem_offset_begin, ..._end, ..._cap,
    // ..._<2>": the region "reserved for the NVIDIA system software use": its start, end,
    // total size and offsets in it; 1 KiB per CTA on sm_80 and later
    // (`cudaDevAttrReservedSharedMemoryPerBlock`). `%aggr_smem_size` counts it,
    // `%total_smem_size` does not. Cooperative groups (sm_80+, `nvcc -G` keeps the call) put
    // up to 288 bytes of scratch at `%reserved_smem_offset_1`: the last of them can be stored
    // to through a generic address; a byte past the region faults. `%pm0` reads 0 (its
    // behaviour "is currently undefined").
    let source = ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
                  .reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b8 buf[100];\n\
                  mov.u32 %r1, %reserved_smem_offset_begin;\n\
                  mov.u32 %r2, %reserved_smem_offset_end;\n\
                  mov.u32 %r3, %reserved_smem_offset_cap;\n\
                  mov.u32 %r4, %reserved_smem_offset_0;\n\
                  mov.u32 %r5, %reserved_smem_offset_1;\n\
                  mov.u32 %r6, %aggr_smem_size;\nmov.u32 %r7, %total_smem_size;\n\
                  mov.u32 %r8, %pm0;\nmov.u64 %rd3, %current_graph_exec;\n\
                  cvt.u64.u32 %rd1, %r5;\ncvta.shared.u64 %rd2, %rd1;\n\
                  st.u32 [%rd2+284], %r3;\nld.shared.u32 %r9, [%r5+284];\n\
                  LAST\nret;\n}\n";
    let run = |past_the_end: bool| {
        let last = if past_the_end {
            "ld.shared.u8 %r10, [%r2];"
        } else {
            "ld.shared.u8 %r10, [%r2+-1];"
        };
        let program = ptxsim_exec::load(&source.replace("LAST", last), None).unwrap();
        let (device, _) =
            grid::prepare(&program, [1, 1, 1], [1, 1, 1], 100, Vec::new()).expect("launch");
        run_on_one_host_thread(&device, ([0, 0, 0], [0, 0, 0]))
    };
    let (failure, registers) = run(false);
    assert_eq!(failure, None);
    let r = registers.expect("the thread ran");
    let (begin, end, cap, first, second) = (r[1], r[2], r[3], r[4], r[5]);
    assert_eq!(cap, 1024);
    assert_eq!(end - begin, cap);
    assert!(
        begin >= 100,
        "the region starts after the kernel's 100 bytes: {begin}"
    );
    assert!((begin..end).contains(&first) && second + 288 <= end && second >= first);
    assert_eq!(
        r[6],
        r[7] + (begin - r[7]) + cap,
        "aggr = total + alignment + reserved"
    );
    assert_eq!(r[7], 100);
    assert_eq!((r[8], r[9]), (0, 1024));
    let (failure, _) = run(true);
    match failure.map(|f| f.outcome) {
        Some(Ok(Outcome::Trapped { message, .. })) => {
            assert!(message.contains("out-of-bounds"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn preloads_are_masked_to_the_register_width() {
    let program = ptxsim_exec::load(
        &kernel(".reg .b16 %h; .reg .b32 %r; cvt.u32.u16 %r, %h; ret;"),
        None,
    )
    .unwrap();
    let mut machine = Machine::new(&program, 10);
    let h = program.register("%h").unwrap();
    machine.set_register(h, 0x1_2345);
    assert_eq!(machine.registers()[h.index()], 0x2345);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers()[1], 0x2345);
}

#[test]
fn values_print_in_hex_padded_to_width_and_decoded_by_type() {
    assert_eq!(report::hex(1, Type::Pred), "0x1");
    assert_eq!(report::hex(0xab, Type::B8), "0xab");
    assert_eq!(report::hex(0xab, Type::B16), "0x00ab");
    assert_eq!(report::hex(1, Type::B128), format!("0x{}1", "0".repeat(31)));
    assert_eq!(report::decode(0xffff_ff80, Type::S32), "-128");
    assert_eq!(report::decode(0xffff_ff80, Type::U32), "4294967168");
    assert_eq!(report::decode(0x3c00, Type::F16), "1.0");
    assert_eq!(report::decode(0x7c00, Type::F16), "inf");
    assert_eq!(report::decode(0x3c00_c000, Type::F16x2), "(1.0, -2.0)");
    assert_eq!(report::decode(0x3fb9_9999_9999_999a, Type::F64), "0.1");
    // e4m3x2 0x7e3c: lanes 448.0 (upper) and 1.5 (lower).
    let lanes = report::lanes(0x7e3c, Type::E4m3x2);
    let values: Vec<&str> = lanes.iter().map(|l| l.value.as_str()).collect();
    assert_eq!(values, ["448.0", "1.5"]);
    assert_eq!((lanes[0].high, lanes[0].low), (15, 8));
}

#[test]
fn json_strings_are_escaped() {
    assert_eq!(
        report::json_string("a\"b\\c\n\u{1}"),
        "\"a\\\"b\\\\c\\n\\u0001\""
    );
}

#[test]
fn a_32_bit_shared_address_wraps_at_32_bits() {
    // nvcc for sm_100a addresses shared memory as `[%r6+4092]` with `%r6` = buffer - 32·tid:
    // the sum is a 32-bit address and wraps at 2^32 (not at 2^64). ptxas 13.5 accepts this
    // kernel. `buf` is at shared address 0, so `%r2` = 0 - 32 = 0xffffffe0 and
    // `[%r2+4092]` is 4060 (mod 2^32).
    let source = ".version 9.0\n.target sm_90\n.address_size 64\n\
                  .shared .align 4 .b8 buf[4096];\n.visible .entry k()\n{\n\
                  .reg .b32 %r<5>;\nmov.u32 %r1, buf;\nsub.u32 %r2, %r1, 32;\nmov.u32 %r4, 7;\n\
                  st.shared.u32 [%r2+4092], %r4;\nld.shared.u32 %r3, [buf+4060];\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers()[3], 7);
}

#[test]
fn dynamic_shared_memory_follows_the_static_variables() {
    // `.extern .shared` arrays without a size live in the launch's dynamic shared memory,
    // after the static `.shared` variables; `%dynamic_smem_size` is its size; an access past
    // it faults.
    let source = ".version 9.0\n.target sm_90\n.address_size 64\n\
                  .shared .align 4 .b32 counter;\n\
                  .extern .shared .align 16 .b8 smem[];\n.visible .entry k()\n{\n\
                  .reg .b32 %r<6>;\nmov.u32 %r1, smem;\nmov.u32 %r2, counter;\n\
                  mov.u32 %r3, %dynamic_smem_size;\nst.shared.u32 [smem+60], %r3;\n\
                  ld.shared.u32 %r4, [%r1+60];\nld.shared.u32 %r5, [smem+64];\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    assert_eq!(program.dynamic_shared, Some(16));
    let run = |bytes: u64| {
        let (mut device, _) =
            grid::prepare(&program, [1, 1, 1], [1, 1, 1], 100, Vec::new()).expect("launch");
        device.set_dynamic_shared(bytes).expect("within the limit");
        run_on_one_host_thread(&device, ([0, 0, 0], [0, 0, 0]))
    };
    // 64 bytes: the load at smem+64 is past the end.
    let (failure, _) = run(64);
    match failure.map(|f| f.outcome) {
        Some(Ok(Outcome::Trapped { message, .. })) => {
            assert!(message.contains("out-of-bounds"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let (failure, registers) = run(68);
    assert_eq!(failure, None);
    let registers = registers.expect("the thread ran");
    // `counter` at 0, `smem` at 16 (aligned to 16 after the 4 static bytes).
    assert_eq!(registers[1..5], [16, 0, 68, 68]);
    let (mut device, _) =
        grid::prepare(&program, [1, 1, 1], [1, 1, 1], 100, Vec::new()).expect("launch");
    assert!(device.set_dynamic_shared(227 * 1024 + 1).is_err());
}

#[test]
fn cp_async_copies_and_zero_fills() {
    // PTX ISA 9.7.9.25.3.1: cp-size bytes land in `[dst]`; with src-size 8 of 16, the last
    // 8 bytes are zeros; with ignore-src true, all 16 are. `src` holds the bytes 1..=16 (little
    // endian: the words 0x04030201, 0x08070605, ...).
    let source = ".version 9.0\n.target sm_80\n.address_size 64\n\
                  .global .align 16 .b8 src[16] = {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16};\n\
                  .shared .align 16 .b8 dst[48];\n.visible .entry k()\n{\n\
                  .reg .b32 %r<13>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n\
                  mov.u64 %rd1, src;\nmov.u32 %r1, dst;\nsetp.eq.u32 %p1, %r1, %r1;\n\
                  mov.u32 %r2, 0xffffffff;\nst.shared.u32 [dst+16], %r2;\nst.shared.u32 [dst+44], %r2;\n\
                  cp.async.ca.shared.global [%r1], [%rd1], 16;\n\
                  cp.async.cg.shared.global [%r1+16], [%rd1], 16, 8;\n\
                  cp.async.ca.shared.global [%r1+32], [%rd1], 16, %p1;\n\
                  cp.async.commit_group;\ncp.async.wait_group 0;\ncp.async.wait_all;\n\
                  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [dst];\n\
                  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [dst+16];\n\
                  ld.shared.u32 %r11, [dst+32];\nld.shared.u32 %r12, [dst+44];\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    let r = machine.registers();
    assert_eq!(
        r[3..7],
        [0x0403_0201, 0x0807_0605, 0x0c0b_0a09, 0x100f_0e0d]
    );
    assert_eq!(r[7..11], [0x0403_0201, 0x0807_0605, 0, 0]);
    assert_eq!(r[11..13], [0, 0]);
}

#[test]
fn vector_atomics_update_each_element() {
    // PTX ISA 9.7.13.5, sm_90: each element is its own atomic operation on consecutive
    // elements; `d` gets the old ones. `.add.f32`: 1+10, 2+20, 3+30, 4+40. `.min.f16` (min.f16's
    // rule: a NaN operand gives the other one): min(1, 2) = 1, min(2, 1) = 1, min(-1, 1) = -1,
    // min(NaN, 1) = 1.
    let source = ".version 9.0\n.target sm_90\n.address_size 64\n\
                  .global .align 16 .f32 g[4] = {1.0, 2.0, 3.0, 4.0};\n\
                  .global .align 8 .b16 h[4] = {0x3c00, 0x4000, 0xbc00, 0x7e00};\n\
                  .visible .entry k()\n{\n.reg .f32 %f<12>;\n.reg .b16 %h<12>;\n.reg .b64 %rd<3>;\n\
                  mov.u64 %rd1, g;\nmov.u64 %rd2, h;\n\
                  mov.f32 %f4, 0f41200000;\nmov.f32 %f5, 0f41a00000;\n\
                  mov.f32 %f6, 0f41f00000;\nmov.f32 %f7, 0f42200000;\n\
                  atom.global.v4.f32.add {%f0, %f1, %f2, %f3}, [%rd1], {%f4, %f5, %f6, %f7};\n\
                  ld.global.v4.f32 {%f8, %f9, %f10, %f11}, [%rd1];\n\
                  mov.b16 %h4, 0x4000;\nmov.b16 %h5, 0x3c00;\n\
                  atom.global.v4.min.noftz.f16 {%h0, %h1, %h2, %h3}, [%rd2], {%h4, %h5, %h5, %h5};\n\
                  ld.global.v4.b16 {%h8, %h9, %h10, %h11}, [%rd2];\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    let r = machine.registers();
    let f = |x: f32| u128::from(x.to_bits());
    assert_eq!(r[0..4], [f(1.0), f(2.0), f(3.0), f(4.0)]);
    assert_eq!(r[8..12], [f(11.0), f(22.0), f(33.0), f(44.0)]);
    // %h0.. follow the twelve %f registers.
    assert_eq!(r[12..16], [0x3c00, 0x4000, 0xbc00, 0x7e00]);
    assert_eq!(r[20..24], [0x3c00, 0x3c00, 0xbc00, 0x3c00]);
}

#[test]
fn cache_hinted_atomics_run_as_plain_ones() {
    // PTX ISA 9.7.13.5 (atom) and 9.7.13.6 (red): `.L2::cache_hint` with a 64-bit cache policy
    // (from `createpolicy`) is "a performance hint only": the operation is the one without it.
    // `g` starts at {5, 7}: atom.add 3 returns 5 and leaves 8, red.add 2 leaves 9; atom.exch
    // returns the 8.
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
                  .global .align 8 .u32 g[2] = {5, 7};\n\
                  .visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n\
                  mov.u64 %rd1, g;\n\
                  createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;\n\
                  atom.global.add.L2::cache_hint.u32 %r0, [%rd1], 3, %rd2;\n\
                  red.global.add.L2::cache_hint.u32 [%rd1+4], 2, %rd2;\n\
                  atom.global.exch.L2::cache_hint.b32 %r1, [%rd1], 11, %rd2;\n\
                  ld.global.v2.u32 {%r2, %r3}, [%rd1];\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers()[0..4], [5, 8, 11, 9]);
}

#[test]
fn a_long_list_of_kernels_is_cut_in_messages() {
    let mut source = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
    for index in 0..1000 {
        source.push_str(&format!(".entry k{index}() {{ ret; }}\n"));
    }
    let error = ptxsim_exec::load(&source, None).unwrap_err().to_string();
    assert!(error.contains("k0, k1, "), "{error}");
    assert!(error.ends_with("k19 and 980 more"), "{error}");
    let error = ptxsim_exec::load(&source, Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(error.ends_with("k19 and 980 more"), "{error}");
}

/// A compiler that compiles nothing and counts how often it is asked, worth compiling from a
/// work of 1,000 (threads times instructions).
#[derive(Debug, Default)]
struct CountingCompiler {
    asked: std::sync::atomic::AtomicUsize,
}

impl ptxsim_exec::compiled::Compiler for CountingCompiler {
    fn compile(
        &self,
        _: &ptxsim_exec::Program,
        _: ptxsim_exec::Dim3,
    ) -> Option<std::sync::Arc<dyn ptxsim_exec::compiled::CompiledKernel>> {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        None
    }

    fn worth_compiling(&self, work: u64) -> bool {
        work >= 1000
    }
}

/// A module asks its compiler for a kernel's code on the launch whose work, added to that of
/// the kernel's earlier launches of the same CTA shape, makes it worth compiling, and keeps
/// the answer: a kernel of 4 instructions launched on 64 threads (work 256 each time, and the
/// 256 instructions each interpreted launch issued) is compiled on its third launch (work
/// 512, 1,024, then 1,280), once; another CTA shape counts on its own.
#[test]
fn kernels_are_compiled_once_their_launches_are_worth_it() {
    let source = kernel(
        ".reg .u32 %r<2>;\nmov.u32 %r1, %tid.x;\nadd.u32 %r1, %r1, 1;\nadd.u32 %r1, %r1, 2;\nret;",
    );
    let module = ptxsim_exec::api::Module::load(&source, &ptxsim_exec::api::Options::default())
        .expect("the module checks");
    let compiler = std::sync::Arc::new(CountingCompiler::default());
    let options = ptxsim_exec::api::LaunchOptions {
        compiler: Some(compiler.clone()),
        ..ptxsim_exec::api::LaunchOptions::default()
    };
    let entry = module.kernels().next().expect("one kernel").to_string();
    let asked = || compiler.asked.load(std::sync::atomic::Ordering::Relaxed);
    let mut counts = Vec::new();
    for _ in 0..6 {
        module
            .launch(&entry, [2, 1, 1], [32, 1, 1], &mut [], &options)
            .expect("the launch runs");
        counts.push(asked());
    }
    assert_eq!(counts, [0, 0, 1, 1, 1, 1]);
    // A CTA shape of its own: 4 CTAs of 64 threads are 1,024 at once.
    module
        .launch(&entry, [4, 1, 1], [64, 1, 1], &mut [], &options)
        .expect("the launch runs");
    assert_eq!(asked(), 2);
}

#[test]
fn alloca_takes_stack_that_stackrestore_and_ret_give_back() {
    // PTX ISA 9.7.17: `alloca` "allocates memory on the stack frame of the current function
    // and updates the stack pointer"; "the stack grows down, the updated stack pointer
    // contains a lower address"; the pointer is aligned to max(immAlign, 8); `stacksave`
    // reads the stack pointer, `stackrestore` sets it; the memory "is automatically
    // deallocated when the function exits". Checked by ptxas 13.5 (sm_90).
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .func (.reg .b64 p) inner()\n{\n.reg .b64 %q;\nalloca.u64 %q, 100, 64;\n\
        mov.b64 p, %q;\nret;\n}\n\
        .visible .entry k()\n{\n.reg .b64 %rd<12>;\n.reg .b32 %r<4>;\n\
        stacksave.u64 %rd1;\nalloca.u64 %rd2, 24, 16;\nalloca.u64 %rd3, 5;\n\
        mov.u32 %r1, 0x01020304;\nst.local.u32 [%rd2+20], %r1;\nst.local.u8 [%rd3+4], 9;\n\
        ld.local.u32 %r2, [%rd2+20];\nld.local.u8 %r3, [%rd3+4];\nstacksave.u64 %rd4;\n\
        call (%rd5), inner, ();\nstacksave.u64 %rd6;\nstackrestore.u64 %rd1;\n\
        stacksave.u64 %rd7;\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    assert_eq!(program.stack_bytes, 1024);
    let mut machine = Machine::new(&program, 100);
    assert_eq!(machine.run().unwrap(), Outcome::Exited);
    let registers = machine.registers();
    let reg = |name: &str| {
        let index = program
            .registers
            .iter()
            .position(|r| r.name == name)
            .expect(name);
        registers[index] as u64
    };
    let top = program.local_bytes;
    let (saved, a, b, after, inner, back, restored) = (
        reg("%rd1"),
        reg("%rd2"),
        reg("%rd3"),
        reg("%rd4"),
        reg("%rd5"),
        reg("%rd6"),
        reg("%rd7"),
    );
    assert_eq!(saved, top);
    assert!(a <= top - 24 && a % 16 == 0 && top - a < 24 + 16, "{a}");
    assert!(b <= a - 5 && b % 8 == 0 && a - b < 5 + 8, "{b}");
    assert_eq!(after, b);
    assert!(inner <= b - 100 && inner % 64 == 0, "{inner}");
    assert_eq!(back, b, "ret frees the callee's allocation");
    assert_eq!(restored, top);
    assert_eq!((reg("%r2"), reg("%r3")), (0x01020304, 9));

    // More than the stack holds: a located trap.
    let source = source.replace("alloca.u64 %rd3, 5;", "alloca.u64 %rd3, 4096;");
    let program = ptxsim_exec::load(&source, None).unwrap();
    let mut machine = Machine::new(&program, 100);
    match machine.run() {
        Ok(Outcome::Trapped { message, location }) => {
            assert!(message.contains("stack overflow"), "{message}");
            assert_eq!(location.line, 17);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn brx_idx_goes_to_the_label_its_index_picks() {
    // PTX ISA 9.7.12.4: `brx.idx index, tlist` continues "from the chosen label", `tlist[index]`
    // of a `.branchtargets` list; an index past the list is undefined (ptxsim traps). Each of
    // the 4 threads picks `(tid + 1) % 4` of a list that names labels before and after it; a
    // guarded `brx.idx` whose guard fails falls through. Checked by ptxas 13.5 (sm_90).
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u32 extra)\n{\n.reg .b32 %r<6>;\n.reg .pred %p<2>;\n\
        mov.u32 %r1, %tid.x;\nmov.u32 %r3, 0;\nld.param.u32 %r5, [extra];\nbra.uni START;\n\
        BACK:\nmov.u32 %r3, 200;\nbra.uni DONE;\n\
        START:\nadd.u32 %r2, %r1, 1;\nand.b32 %r2, %r2, 3;\nadd.u32 %r2, %r2, %r5;\n\
        ts: .branchtargets BACK, L1, L2, DONE;\n\
        setp.eq.u32 %p1, %r1, 9;\n@%p1 brx.idx %r2, ts;\nbrx.idx.uni %r2, ts;\n\
        L1:\nmov.u32 %r3, 201;\nbra.uni DONE;\nL2:\nmov.u32 %r3, 202;\nDONE:\nret;\n}\n";
    let program = ptxsim_exec::load(source, None).unwrap();
    let r3 = program
        .registers
        .iter()
        .position(|r| r.name == "%r3")
        .unwrap();
    let run = |extra: u32| {
        let extra = grid::Argument::Scalar {
            ty: Type::U32,
            bits: u64::from(extra),
        };
        let (device, _) =
            grid::prepare(&program, [1, 1, 1], [4, 1, 1], 100, vec![extra]).expect("launch");
        let mut finals = Vec::new();
        let mut failure = None;
        for thread in 0..4 {
            let (failed, registers) = run_on_one_host_thread(&device, ([0, 0, 0], [thread, 0, 0]));
            failure = failure.or(failed);
            finals.push(registers.map(|r| r[r3]));
        }
        (failure, finals)
    };
    // tid 0 -> L1 (201), 1 -> L2 (202), 2 -> DONE (0), 3 -> BACK (200).
    let (failure, finals) = run(0);
    assert_eq!(failure, None);
    assert_eq!(finals, [Some(201), Some(202), Some(0), Some(200)]);
    // Indices 4..7: past the list of 4.
    match run(4).0.map(|f| f.outcome) {
        Some(Ok(Outcome::Trapped { message, location })) => {
            assert!(message.contains("outside its list of 4"), "{message}");
            assert_eq!(location.line, 22);
        }
        other => panic!("{other:?}"),
    }
}

/// `LaunchOptions::commuting_atomics_in_parallel` (the driver library's setting): a kernel
/// whose atomics commute (integer `red.add`, nvcc's `atom.add` into an unread register, `.max`,
/// `.or`) runs its 512 CTAs on two host threads, and the memory it leaves is what the PTX
/// defines whatever the order: worked out here per thread (v = 64 x CTA + thread).
#[test]
fn commuting_atomics_give_their_sums_on_several_host_threads() {
    use ptxsim_exec::api::{LaunchOptions, Module, Options};
    use ptxsim_exec::memory::DeviceMemory;
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<12>;\n.reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n\
        mad.lo.u32 %r3, %r2, 64, %r1;\nadd.u32 %r4, %r3, 1;\n\
        red.global.add.u32 [%rd1], %r4;\natom.global.add.u32 %r5, [%rd1+4], 1;\n\
        atom.global.max.u32 %r6, [%rd1+8], %r3;\nand.b32 %r7, %r3, 31;\nshl.b32 %r8, 1, %r7;\n\
        red.global.or.b32 [%rd1+12], %r8;\nret;\n}";
    let module = Module::load(source, &Options::default()).expect("the module checks");
    let program = module.program("k").unwrap();
    assert!(program.has_atomics && program.atomics_commute);
    let mut memory = DeviceMemory::allocations();
    let buffer = memory.allocate("out", 16).unwrap();
    let options = LaunchOptions {
        host_threads: 2,
        commuting_atomics_in_parallel: true,
        ..LaunchOptions::default()
    };
    let report = module
        .launch_in(
            "k",
            [512, 1, 1],
            [64, 1, 1],
            &buffer.to_le_bytes(),
            &mut [&mut memory],
            &options,
        )
        .expect("the launch runs");
    assert_eq!(report.ctas, 512);
    let mut out = [0u8; 16];
    memory.read(buffer, &mut out).unwrap();
    let word = |i: usize| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
    let threads = 512 * 64u32;
    assert_eq!(word(0), (1..=threads).fold(0u32, u32::wrapping_add));
    assert_eq!(word(1), threads);
    assert_eq!(word(2), threads - 1);
    assert_eq!(word(3), u32::MAX);
}

/// A failed launch names the source line the faulting instruction's `.loc` gives (PTX ISA 9.0,
/// 11.6.2 ".loc", 11.6.1 ".file"; what `nvcc -lineinfo` writes); an instruction of a function
/// without `.loc` has none.
#[test]
fn a_trap_names_the_source_line_of_its_loc() {
    use ptxsim_exec::api::{Error, LaunchOptions, Module, Options};
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u32 n)\n{\n.reg .b32 %r<3>;\n.reg .pred %p;\n\
        .loc 1 10 3\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
        .loc 1 12 5\nsetp.eq.u32 %p, %r2, %r1;\n@%p trap;\nret;\n}\n\
        .visible .entry plain()\n{\ntrap;\n}\n\
        .file 1 \"/home/user/app.cu\"\n";
    let module = Module::load(text, &Options::default()).expect("checks");
    let error = module
        .launch(
            "k",
            [1, 1, 1],
            [4, 1, 1],
            &mut [ptxsim_exec::api::Arg::U32(2)],
            &LaunchOptions::default(),
        )
        .expect_err("thread 2 traps");
    let Error::Run {
        location, message, ..
    } = &error
    else {
        unreachable!("a run error, not {error:?}");
    };
    let trap_line = text.lines().position(|l| l == "@%p trap;").unwrap() + 1;
    assert_eq!(location.line as usize, trap_line);
    assert!(message.starts_with("/home/user/app.cu:12: "), "{message}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("{trap_line}:1: /home/user/app.cu:12: ")),
        "{error}"
    );
    let error = module
        .launch(
            "plain",
            [1, 1, 1],
            [1, 1, 1],
            &mut [],
            &LaunchOptions::default(),
        )
        .expect_err("it traps");
    let Error::Run { message, .. } = &error else {
        unreachable!("a run error, not {error:?}");
    };
    assert!(!message.contains("app.cu"), "{message}");
}
