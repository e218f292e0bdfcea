//! The memory budget (`crates/exec/src/budget.rs`): a launch whose simulated memory does not fit
//! in the limit is refused before anything is allocated, with a message that says what takes
//! the memory. The reproducers of issue 23 (three `.global .b8 g[4000000000]`, which took
//! 6.3 GB and aborted under a 4 GB cap; a `.param .b8 a[1000000000]` call argument, 1 GB per
//! thread) are refused under the default limit; the other cases use small limits.

use ptxsim_exec::api::{Error, LaunchOptions, Module, Options};
use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{DEFAULT_MEMORY_LIMIT, Footprint, LaunchError, Program};

/// The program of the only kernel of `body` (a module for sm_90).
fn program(body: &str) -> Program {
    let source = format!(".version 8.7\n.target sm_90\n.address_size 64\n{body}\n");
    ptxsim_exec::load(&source, None).expect("the module checks and builds")
}

/// The memory error of launching `program` with `block` threads per CTA under `limit`.
fn refused(program: &Program, block: u32, limit: u64) -> String {
    match grid::prepare_within(program, [1, 1, 1], [block, 1, 1], 100, Vec::new(), limit) {
        Err(LaunchError::Memory(message)) => message,
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("the launch was accepted under a limit of {limit} bytes"),
    }
}

#[test]
fn three_global_arrays_of_four_gigabytes_are_refused_before_allocation() {
    let program = program(
        ".global .b8 g[4000000000];\n.global .b8 g2[4000000000];\n.global .b8 g3[4000000000];\n\
         .entry k() { ret; }",
    );
    // Building the program allocated nothing for them: no initializer, no bytes.
    assert!(program.globals.iter().all(|global| global.bytes.is_empty()));
    assert_eq!(
        program.globals.iter().map(|g| g.size).sum::<u64>(),
        12_000_000_000
    );
    let message = refused(&program, 1, DEFAULT_MEMORY_LIMIT);
    assert!(
        message.starts_with("the launch needs 12000000128 bytes of simulated memory"),
        "{message}"
    );
    assert!(message.contains("global 12000000000"), "{message}");
}

#[test]
fn a_call_argument_of_a_gigabyte_per_thread_is_refused() {
    let program = program(
        ".func f(.param .b8 a[1000000000]) { ret; }\n\
         .entry k() { .param .b8 x[1000000000]; call f, (x); ret; }",
    );
    // 4 threads of 2 x 10^9 bytes (the argument and the parameter) each.
    let message = refused(&program, 4, DEFAULT_MEMORY_LIMIT);
    assert!(
        message.contains("4 thread(s) of 2000000128 bytes"),
        "{message}"
    );
}

#[test]
fn each_memory_counts_against_the_limit() {
    // Global: 2,000 bytes do not fit in 2,000 (with one thread's 128), but in 4,096.
    let global = program(".global .b8 g[2000];\n.entry k() { ret; }");
    refused(&global, 1, 2_000);
    assert!(grid::prepare_within(&global, [1, 1, 1], [1, 1, 1], 100, Vec::new(), 4_096).is_ok());
    // Registers: 1,000 32-bit registers are 8,000 bytes a thread (one 64-bit word each).
    let registers = program(".entry k() { .reg .b32 %r<1000>; mov.b32 %r1, 1; ret; }");
    let message = refused(&registers, 32, 32 * 8_000);
    assert!(message.contains("32 thread(s) of 8128 bytes"), "{message}");
    // Local memory, per thread.
    let local =
        program(".entry k() { .local .b8 l[100000]; .reg .b64 %rd1; mov.u64 %rd1, l; ret; }");
    refused(&local, 10, 1_000_000);
    assert!(grid::prepare_within(&local, [1, 1, 1], [9, 1, 1], 100, Vec::new(), 1_000_000).is_ok());
    // Shared memory, static (per CTA) and dynamic (set after the launch is prepared).
    let shared = program(
        ".extern .shared .align 16 .b8 dyn[];\n\
         .entry k() { .shared .b8 sh[40000]; .reg .b64 %rd1; mov.u64 %rd1, sh; \
         mov.u64 %rd1, dyn; ret; }",
    );
    refused(&shared, 1, 40_000);
    let (mut device, _) =
        grid::prepare_within(&shared, [1, 1, 1], [1, 1, 1], 100, Vec::new(), 100_000)
            .expect("40,000 bytes of shared memory fit in 100,000");
    let error = device
        .set_dynamic_shared(80_000)
        .expect_err("120,000 bytes of shared memory do not fit in 100,000");
    assert!(error.contains("shared 120"), "{error}");
    assert!(device.set_dynamic_shared(50_000).is_ok());
}

#[test]
fn the_library_api_takes_the_limit_in_its_launch_options() {
    let source = ".version 8.7\n.target sm_90\n.address_size 64\n\
                  .global .b8 g[1000000];\n.entry k() { ret; }";
    let module = Module::load(source, &Options::default()).expect("the module checks");
    let options = LaunchOptions {
        memory_limit: 500_000,
        ..LaunchOptions::default()
    };
    assert!(matches!(
        module.launch("k", [1, 1, 1], [1, 1, 1], &mut [], &options),
        Err(Error::Launch(LaunchError::Memory(_)))
    ));
    assert!(
        module
            .launch(
                "k",
                [1, 1, 1],
                [1, 1, 1],
                &mut [],
                &LaunchOptions::default()
            )
            .is_ok()
    );
}

/// The grid runner runs no more CTAs at once than the limit holds, and the results do not
/// change: a launch of 64 CTAs of 10,000 bytes of local memory under a limit that holds two
/// of them gives every CTA's store.
#[test]
fn concurrent_ctas_are_bounded_by_the_limit() {
    let program = program(
        ".entry k(.param .u64 out) {\n\
         .local .b8 l[10000];\n\
         .reg .b64 %rd<4>; .reg .b32 %r<2>;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %ctaid.x;\n\
         st.local.u32 [l+9996], %r1;\n\
         ld.local.u32 %r1, [l+9996];\n\
         mul.wide.u32 %rd2, %r1, 4;\n\
         add.u64 %rd3, %rd1, %rd2;\n\
         st.global.u32 [%rd3], %r1;\n\
         ret; }",
    );
    let footprint = Footprint::new(&program, [1, 1, 1], 256, 0);
    let limit = footprint.fixed() + 2 * footprint.per_cta() + 1;
    assert_eq!(footprint.concurrent_ctas(limit), 2);
    assert_eq!(footprint.concurrent_ctas(footprint.fixed()), 1);
    let (device, addresses) = grid::prepare_within(
        &program,
        [64, 1, 1],
        [1, 1, 1],
        100,
        vec![ptxsim_exec::Argument::Buffer(vec![0; 256])],
        limit,
    )
    .expect("one CTA fits");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let buffer = device
        .global
        .buffer_at(addresses[0].expect("a buffer"))
        .expect("the buffer");
    let words: Vec<u32> = buffer
        .contents()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, (0..64).collect::<Vec<u32>>());
}

/// A lone thread ([`ptxsim_exec::Machine`], as `ptxsim eval` and the library's examples run
/// programs) keeps to the default limit too: the program's memories are not allocated, and
/// the first step says why.
#[test]
fn a_machine_refuses_a_program_over_the_default_limit() {
    let program = program(".global .b8 g[9223372036854775807];\n.entry k() { ret; }");
    let mut machine = ptxsim_exec::Machine::new(&program, 100);
    match machine.step() {
        Err(ptxsim_exec::ExecError::Memory(message)) => {
            assert!(message.contains("more than the memory limit"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(machine.program().entry, "k");
    let small = self::program(".entry k() { .reg .b32 %r1; mov.b32 %r1, 7; ret; }");
    let mut machine = ptxsim_exec::Machine::new(&small, 100);
    assert_eq!(machine.run(), Ok(ptxsim_exec::Outcome::Exited));
    assert_eq!(machine.registers(), vec![7]);
}

/// A traced CTA holds a bounded number of steps to group them by thread (issue 23: per-CTA
/// trace memory between barriers). Two threads that loop 100,000 times without a barrier
/// (about 400,000 steps each, more than `MAX_GROUPED_RECORDS` together): the streamed trace
/// passes thread 0's steps on before thread 0 ends, so its lines switch between the threads
/// more than the once a fully grouped trace would; every step still comes exactly once and in
/// step order per thread.
#[test]
fn a_traced_cta_holds_a_bounded_number_of_steps() {
    let program = program(
        ".entry k() {\n .reg .u32 %r<2>;\n .reg .pred %p;\n mov.u32 %r1, 0;\n\
         L: add.u32 %r1, %r1, 1;\n setp.lt.u32 %p, %r1, 100000;\n @%p bra L;\n ret;\n}",
    );
    let (device, _) =
        grid::prepare(&program, [1, 1, 1], [2, 1, 1], 1_000_000, Vec::new()).expect("valid launch");
    let mut switches = 0;
    let mut last_thread = None;
    let mut next_step = [0u64; 2];
    let mut sink = |line: ptxsim_trace::Line| {
        if let ptxsim_trace::Line::Step(step) = line {
            let thread = step.thread as usize;
            assert_eq!(
                step.step, next_step[thread],
                "thread {thread}'s steps in order"
            );
            next_step[thread] += 1;
            if last_thread.is_some_and(|t| t != thread) {
                switches += 1;
            }
            last_thread = Some(thread);
        }
    };
    let run =
        ptxsim_exec::streamed::run_grid_streamed(&device, GridOptions::default(), &mut sink, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    // 1 mov + 100,000 x 3 + ret = 300,002 steps a thread.
    assert_eq!(next_step, [300_002, 300_002]);
    let per_group = ptxsim_exec::step::MAX_GROUPED_RECORDS as u64 / 2;
    // Cut every `per_group` steps a thread: thread 0's block, thread 1's, and so on.
    assert_eq!(switches, 2 * 300_002u64.div_ceil(per_group) - 1);
}
