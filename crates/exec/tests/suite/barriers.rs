//! The CTA's barriers (PTX ISA 9.7.13.1): named barriers with a thread count, `bar.arrive`
//! (producer/consumer), `bar.red`, and barriers that can never complete. Expected values are
//! worked out from the ISA text in the comments.

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};

fn kernel(body: &str) -> String {
    format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n\
         .shared .align 4 .b8 buf[512];\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n\
         mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [out];\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n{body}\nret;\n}}\n"
    )
}

/// Runs `body` on one CTA of `threads` threads; returns the `out` buffer (one word per thread)
/// or the first trap's message and line.
fn run(body: &str, threads: u32) -> Result<Vec<u32>, (String, u32)> {
    let source = kernel(body);
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [threads, 1, 1],
        10_000,
        vec![Argument::Buffer(vec![0; 4 * threads as usize])],
    )
    .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        return match failure.outcome {
            Ok(Outcome::Trapped { message, location }) => Err((message, location.line)),
            other => panic!("{other:?}"),
        };
    }
    Ok(words(&device, addresses[0]))
}

/// The words of the launch's buffer at `address`.
fn words(device: &ptxsim_exec::Device<'_>, address: Option<u64>) -> Vec<u32> {
    let bytes = device
        .global
        .buffer_at(address.expect("a buffer"))
        .expect("the buffer")
        .contents();
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("a word")))
        .collect()
}

#[test]
fn producers_arrive_and_consumers_wait() {
    // Warps 0-1 produce: each thread writes tid + 100 to buf[tid] and signals barrier 1 with
    // `bar.arrive 1, 128` ("does not cause executing thread to wait"); warps 2-3 consume: they
    // `bar.sync 1, 128` (the barrier completes when 128 threads, four warps, have arrived) and
    // then read the word of thread tid - 64. So consumer tid writes (tid - 64) + 100 = tid + 36.
    let body = "setp.lt.u32 %p1, %r1, 64;\n@!%p1 bra CONSUME;\n\
                add.u32 %r2, %r1, 100;\nshl.b32 %r3, %r1, 2;\nmov.u32 %r4, buf;\n\
                add.u32 %r4, %r4, %r3;\nst.shared.u32 [%r4], %r2;\nbar.arrive 1, 128;\n\
                st.global.u32 [%rd3], %r2;\nret;\n\
                CONSUME:\nbar.sync 1, 128;\nsub.u32 %r5, %r1, 64;\nshl.b32 %r3, %r5, 2;\n\
                mov.u32 %r4, buf;\nadd.u32 %r4, %r4, %r3;\nld.shared.u32 %r6, [%r4];\n\
                st.global.u32 [%rd3], %r6;";
    let out = run(body, 128).expect("runs");
    let expected: Vec<u32> = (0..128)
        .map(|t| if t < 64 { t + 100 } else { t + 36 })
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn a_named_barrier_completes_while_another_warp_spins() {
    // Warp 0 alone takes part in `bar.sync 1, 32` ("b ... indicates the number of threads
    // participating in the barrier": its 32 threads complete it), then stores 5 to a shared
    // flag that warp 1 spins on. Warp 0 arrives first (its code comes first); the barrier must
    // complete then, though warp 1 can still run (it spins): otherwise warp 1 spins alone to
    // the step limit.
    let out = run(
        "setp.eq.u32 %p1, %r1, 0;\n@%p1 st.shared.u32 [buf], 0;\nbar.sync 0;\n\
         shr.u32 %r2, %r1, 5;\nsetp.ne.u32 %p1, %r2, 0;\n@%p1 bra SPIN;\n\
         bar.sync 1, 32;\nmov.u32 %r4, 5;\nst.volatile.shared.u32 [buf], %r4;\n\
         add.u32 %r5, %r1, 100;\nst.global.u32 [%rd3], %r5;\nbra END;\n\
         SPIN:\nld.volatile.shared.u32 %r3, [buf];\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra SPIN;\n\
         st.global.u32 [%rd3], %r3;\nEND:",
        64,
    )
    .expect("no trap");
    let expected: Vec<u32> = (0..64).map(|t| if t < 32 { t + 100 } else { 5 }).collect();
    assert_eq!(out, expected);
}

#[test]
fn a_bar_arrive_that_completes_the_barrier_releases_the_waiters_at_once() {
    // Warp 1 waits at `bar.sync 1, 64` first (its code comes first); warp 0's `bar.arrive 1,
    // 64` completes the barrier ("bar.arrive does not cause any waiting by the executing
    // threads", 64 threads participate) and warp 0 then spins until warp 1, released, stores
    // 9 to a shared flag. Warp 0 is the only warp that can run while it spins.
    let out = run(
        "setp.eq.u32 %p1, %r1, 0;\n@%p1 st.shared.u32 [buf], 0;\nbar.sync 0;\n\
         shr.u32 %r2, %r1, 5;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra ARRIVER;\n\
         bar.sync 1, 64;\nmov.u32 %r4, 9;\nst.volatile.shared.u32 [buf], %r4;\n\
         add.u32 %r5, %r1, 100;\nst.global.u32 [%rd3], %r5;\nbra END;\n\
         ARRIVER:\nbar.arrive 1, 64;\n\
         SPIN:\nld.volatile.shared.u32 %r3, [buf];\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra SPIN;\n\
         st.global.u32 [%rd3], %r3;\nEND:",
        64,
    )
    .expect("no trap");
    let expected: Vec<u32> = (0..64).map(|t| if t < 32 { 9 } else { t + 100 }).collect();
    assert_eq!(out, expected);
}

#[test]
fn bar_red_reduces_the_predicates_of_the_cta() {
    // 64 threads. popc of (tid % 3 == 0): tids 0, 3, ..., 63, that is 22 threads; `.and` of
    // (tid < 64): all true, 1; `.or` of (tid == 5): one true, 1; `.and` of !(tid == 5): 0.
    // out[tid] = popc + 100·and + 1000·or + 10000·and(!c).
    let body = "rem.u32 %r2, %r1, 3;\nsetp.eq.u32 %p1, %r2, 0;\n\
                bar.red.popc.u32 %r3, 0, %p1;\n\
                setp.lt.u32 %p1, %r1, 64;\nbar.red.and.pred %p2, 1, %p1;\n\
                selp.u32 %r4, 100, 0, %p2;\nsetp.eq.u32 %p1, %r1, 5;\n\
                bar.red.or.pred %p3, 2, 64, %p1;\nselp.u32 %r5, 1000, 0, %p3;\n\
                bar.red.and.pred %p3, 3, !%p1;\nselp.u32 %r6, 10000, 0, %p3;\n\
                add.u32 %r7, %r3, %r4;\nadd.u32 %r7, %r7, %r5;\nadd.u32 %r7, %r7, %r6;\n\
                st.global.u32 [%rd3], %r7;";
    let out = run(body, 64).expect("runs");
    assert_eq!(out, vec![22 + 100 + 1000; 64]);
}

#[test]
fn exited_warps_do_not_hold_up_a_whole_cta_barrier() {
    // Warp 1 exits; `bar.sync 0` waits for "all non-exited threads": warp 0 goes on.
    let body = "setp.ge.u32 %p1, %r1, 32;\n@%p1 ret;\nbar.sync 0;\nst.global.u32 [%rd3], %r1;";
    let out = run(body, 64).expect("runs");
    let expected: Vec<u32> = (0..64).map(|t| if t < 32 { t } else { 0 }).collect();
    assert_eq!(out, expected);
}

#[test]
fn a_barrier_that_can_never_complete_traps_at_its_line() {
    // 32 threads wait for 64 at barrier 1.
    let (message, line) = run("bar.sync 1, 64;", 32).expect_err("a trap");
    assert!(
        message.contains("barrier 1 waits for 64 threads, 32 arrived"),
        "{message}"
    );
    assert_eq!(line, 14);
}

#[test]
fn barrier_numbers_and_counts_outside_the_isa_trap() {
    // "value 0 through 15"; "the value must be a multiple of the warp size".
    let (message, _) = run("mov.u32 %r2, 16;\nbar.sync %r2;", 32).expect_err("a trap");
    assert!(
        message.contains("barrier number 16 is out of range"),
        "{message}"
    );
    let (message, _) = run("mov.u32 %r2, 48;\nbar.sync 0, %r2;", 64).expect_err("a trap");
    assert!(
        message.contains("multiple of the warp size, not 48"),
        "{message}"
    );
}

/// The mbarrier at `buf` (PTX ISA 9.7.13.15): thread 0 initialises it for all 64 threads
/// ("the expected and pending arrival counts to count"), every thread arrives once and spins
/// on `test_wait` with the state it got; each arrival takes one off the pending count, so the
/// `pending_count`s of the 64 states are 63, 62, ..., 0 in some order, and the phase completes
/// when the last one arrives ("the current phase completes when the pending count reaches
/// zero"): every thread leaves the loop, and then the phase of parity 0 is complete.
#[test]
fn mbarrier_arrivals_complete_a_phase() {
    let body = ".reg .b64 %s;\nmov.u32 %r2, buf;\nsetp.ne.u32 %p1, %r1, 0;\n\
                @%p1 bra ARRIVE;\nmbarrier.init.shared.b64 [%r2], 64;\nARRIVE:\nbar.sync 0;\n\
                mbarrier.arrive.shared.b64 %s, [%r2];\nmbarrier.pending_count.b64 %r3, %s;\n\
                SPIN:\nmbarrier.test_wait.shared.b64 %p2, [%r2], %s;\n@!%p2 bra SPIN;\n\
                mbarrier.try_wait.parity.shared.b64 %p3, [%r2], 0;\n\
                selp.u32 %r4, 1000, 0, %p3;\nadd.u32 %r3, %r3, %r4;\n\
                st.global.u32 [%rd3], %r3;";
    let mut words = run(body, 64).expect("no trap");
    words.sort_unstable();
    let expected: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
    assert_eq!(words, expected);
}

/// `mbarrier.arrive.expect_tx` adds a transaction count the phase waits for besides the
/// arrivals; `complete_tx` takes it off, which completes the phase (9.7.13.15: "the current
/// phase is complete when ... pending arrivals and tx-count reach zero"). A `.noinc`
/// `cp.async.mbarrier.arrive` is an arrival of its own.
#[test]
fn mbarrier_transaction_counts_and_cp_async_arrivals() {
    let body = ".reg .b64 %s;\nmov.u32 %r2, buf;\n\
                mbarrier.init.shared.b64 [%r2], 1;\n\
                mbarrier.arrive.expect_tx.shared.b64 %s, [%r2], 16;\n\
                mbarrier.test_wait.shared.b64 %p1, [%r2], %s;\n\
                mbarrier.complete_tx.shared.b64 [%r2], 16;\n\
                mbarrier.test_wait.shared.b64 %p2, [%r2], %s;\n\
                mbarrier.init.shared.b64 [%r2+8], 1;\n\
                cp.async.mbarrier.arrive.noinc.shared.b64 [%r2+8];\n\
                mbarrier.test_wait.parity.shared.b64 %p3, [%r2+8], 0;\n\
                selp.u32 %r3, 1, 0, %p1;\nselp.u32 %r4, 2, 0, %p2;\nselp.u32 %r5, 4, 0, %p3;\n\
                or.b32 %r3, %r3, %r4;\nor.b32 %r3, %r3, %r5;\nst.global.u32 [%rd3], %r3;";
    assert_eq!(run(body, 1).expect("no trap"), [2 | 4]);
}

/// An arrival beyond the pending count is undefined in the ISA: a trap with the location.
#[test]
fn mbarrier_over_arrival_traps() {
    let body = ".reg .b64 %s;\nmov.u32 %r2, buf;\nmbarrier.init.shared.b64 [%r2], 1;\n\
                mbarrier.arrive.shared.b64 %s, [%r2];\n\
                mbarrier.arrive.noComplete.shared.b64 %s, [%r2], 2;";
    let (message, line) = run(body, 1).expect_err("a trap");
    assert!(message.contains("more arrivals"), "{message}");
    assert_eq!(line, 18, "the second arrive");
}

/// Lane 0 of each warp takes a spin lock in global memory (`atom.cas` 0 -> 1 until it returns
/// 0), increments a counter with a plain load and store, writes what it counted to its word
/// and frees the lock (`atom.exch` 0). Returns the words of lanes 0, 32, ..., the counter and
/// the lock.
fn spin_lock(warps: u32) -> (Vec<u32>, u32, u32) {
    let threads = 32 * warps;
    let (lock, counter) = (4 * threads, 4 * threads + 4);
    let source = format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n\
         mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [out];\n\
         and.b32 %r2, %r1, 31;\nsetp.ne.u32 %p1, %r2, 0;\n@%p1 bra DONE;\n\
         LOCK:\natom.global.cas.b32 %r3, [%rd1+{lock}], 0, 1;\n\
         setp.ne.u32 %p2, %r3, 0;\n@%p2 bra LOCK;\n\
         ld.volatile.global.u32 %r4, [%rd1+{counter}];\nadd.u32 %r4, %r4, 1;\n\
         st.volatile.global.u32 [%rd1+{counter}], %r4;\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;\n\
         membar.gl;\natom.global.exch.b32 %r5, [%rd1+{lock}], 0;\n\
         DONE:\nret;\n}}\n"
    );
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [threads, 1, 1],
        1_000_000,
        vec![Argument::Buffer(vec![0; 4 * threads as usize + 8])],
    )
    .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(
        run.failure.is_none(),
        "{:?}",
        run.failure.map(|f| f.outcome)
    );
    let words = words(&device, addresses[0]);
    let firsts = (0..warps as usize).map(|warp| words[32 * warp]).collect();
    (firsts, words[threads as usize + 1], words[threads as usize])
}

#[test]
fn a_warp_spinning_on_a_lock_lets_the_holder_free_it() {
    // The warps take the lock one after another (atom.cas: "compare and swap", an atomic
    // read-modify-write, so one warp's cas finds 0 at a time), so each counts one more than
    // the last: in some order the warps count 1, 2, ..., and the counter ends at the number of
    // warps, the lock free. In lockstep at the lowest program counter, the warps that failed
    // loop back to the cas before the holder's release and would spin to the step limit (a
    // GPU schedules its warps independently: HeCBench's btree takes such locks).
    for warps in [2, 8] {
        let (mut counted, counter, lock) = spin_lock(warps);
        counted.sort_unstable();
        assert_eq!(counted, (1..=warps).collect::<Vec<_>>(), "{warps} warps");
        assert_eq!((counter, lock), (warps, 0), "{warps} warps");
    }
}

#[test]
fn two_lanes_of_a_warp_hand_values_over_while_each_spins_in_turn() {
    // Lane 0 produces `n` values (i * i + 1), each into a box word it marks full, waiting
    // while the box is full; lane 31 waits while it is empty, copies the value to its slot
    // and marks the box empty. Each lane spins while the other works, alternately: the CUDA
    // C++ Programming Guide's "Independent Thread Scheduling" lets "threads ... wait for data
    // produced by other threads" of their warp. In lockstep at the lowest program counter the
    // consumer, once the producer was set aside for spinning, spun alone to the step limit.
    let n = 12u32;
    let (boxed, full) = (4 * n, 4 * n + 4);
    let source = format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n\
         mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [out];\n\
         setp.eq.u32 %p1, %r1, 0;\n@%p1 bra PRODUCER;\n\
         setp.eq.u32 %p1, %r1, 31;\n@%p1 bra CONSUMER;\nbra DONE;\n\
         PRODUCER:\nmov.u32 %r2, 0;\n\
         P_WAIT:\nld.volatile.global.u32 %r3, [%rd1+{full}];\n\
         setp.ne.u32 %p2, %r3, 0;\n@%p2 bra P_WAIT;\n\
         mul.lo.u32 %r4, %r2, %r2;\nadd.u32 %r4, %r4, 1;\n\
         st.volatile.global.u32 [%rd1+{boxed}], %r4;\nmembar.gl;\n\
         st.volatile.global.u32 [%rd1+{full}], 1;\n\
         add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p3, %r2, {n};\n@%p3 bra P_WAIT;\nbra DONE;\n\
         CONSUMER:\nmov.u32 %r2, 0;\n\
         C_WAIT:\nld.volatile.global.u32 %r3, [%rd1+{full}];\n\
         setp.eq.u32 %p2, %r3, 0;\n@%p2 bra C_WAIT;\n\
         ld.volatile.global.u32 %r4, [%rd1+{boxed}];\n\
         mul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r4;\n\
         membar.gl;\nst.volatile.global.u32 [%rd1+{full}], 0;\n\
         add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p3, %r2, {n};\n@%p3 bra C_WAIT;\n\
         DONE:\nret;\n}}\n"
    );
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [32, 1, 1],
        1_000_000,
        vec![Argument::Buffer(vec![0; 4 * n as usize + 8])],
    )
    .expect("a valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(
        run.failure.is_none(),
        "{:?}",
        run.failure.map(|f| f.outcome)
    );
    let words = words(&device, addresses[0]);
    let expected: Vec<u32> = (0..n).map(|i| i * i + 1).collect();
    assert_eq!(words[..n as usize], expected[..]);
    assert_eq!(words[n as usize + 1], 0, "the box ends empty");
}
