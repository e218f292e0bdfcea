//! `st.async`, `red.async` (PTX ISA 9.7.9.12, 9.7.13.7), `st.bulk` (9.7.9.13) and 256-bit `st`
//! with sinks (9.7.9.11): stores and reductions into another CTA's shared memory that complete
//! on its mbarrier, their release forms on global memory, the zeroing of shared memory, and
//! stores that skip elements. The kernels (`async_stores/*.ptx`) are clean under ptxas 13.5
//! (`-arch sm_90a`; `bulk.ptx` sm_100a); every expected value below is computed from the ISA's
//! definitions, not from a run.

use ptxsim_exec::api::Arg;

use crate::launch::{STEPS, launch, u32s};

const EXCHANGE: &str = include_str!("async_stores/exchange.ptx");
const REDUCE: &str = include_str!("async_stores/reduce.ptx");
const BULK: &str = include_str!("async_stores/bulk.ptx");

#[test]
fn st_async_stores_into_the_peer_cta_and_completes_its_mbarrier() {
    // Thread t of rank r stores v = (r + 1) * 1000 + t into its peer's `one[t]` and the pair
    // {v + 100000, -v} into its peer's `pair[2t..]`, each completing on the peer's mbarrier,
    // which expects 32 * 4 + 32 * 8 = 384 bytes ("completeCount argument equal to the amount
    // of data stored in bytes"). Each CTA waits for its phase, then copies what its peer
    // stored: out[r * 96 + t] and out[r * 96 + 32 + 2t ..].
    let mut out = vec![0u8; 2 * 96 * 4];
    launch(
        EXCHANGE,
        "exchange",
        (2, 32),
        &mut [Arg::Buffer(&mut out)],
        STEPS,
    )
    .expect("it runs");
    let out = u32s(&out);
    for rank in 0..2u32 {
        let peer = rank ^ 1;
        let base = (rank * 96) as usize;
        for t in 0..32u32 {
            let v = (peer + 1) * 1000 + t;
            assert_eq!(out[base + t as usize], v, "rank {rank} one[{t}]");
            assert_eq!(
                out[base + 32 + 2 * t as usize],
                v + 100_000,
                "rank {rank} pair"
            );
            assert_eq!(
                out[base + 33 + 2 * t as usize],
                (v as i32).wrapping_neg() as u32,
                "rank {rank} pair"
            );
        }
    }
}

#[test]
fn red_async_reduces_into_the_peer_cta() {
    // The 32 threads of the peer p reduce into counters initialized to {0, 5, 0, 0}:
    // add: sum of (t + 1 + p) = 528 + 32 p; max.s32 of (t - 16) and 5 = 15; inc with bound 20,
    // 32 times ("(old >= b) ? 0 : old + 1"): 0..20, back to 0, then 11 more = 11; xor of
    // 1 << t = 0xffffffff.
    let mut out = vec![0u8; 2 * 16];
    launch(
        REDUCE,
        "reduce",
        (2, 32),
        &mut [Arg::Buffer(&mut out)],
        STEPS,
    )
    .expect("it runs");
    let out = u32s(&out);
    for rank in 0..2u32 {
        let peer = rank ^ 1;
        let row = &out[rank as usize * 4..rank as usize * 4 + 4];
        assert_eq!(row, [528 + 32 * peer, 15, 11, u32::MAX], "rank {rank}");
    }
}

#[test]
fn st_bulk_zeroes_shared_memory_and_the_release_forms_write_global_memory() {
    // buf's 32 words are all ones; st.bulk zeroes bytes 32..96 (words 8..24). Each thread
    // copies its word out with st.async.release.gpu.global and adds t + 1 to sum with
    // red.async.release.gpu.global: 528.
    let mut out = vec![0u8; 128];
    let mut sum = vec![0u8; 4];
    launch(
        BULK,
        "bulk",
        (1, 32),
        &mut [Arg::Buffer(&mut out), Arg::Buffer(&mut sum)],
        STEPS,
    )
    .expect("it runs");
    let expected: Vec<u32> = (0..32)
        .map(|w| if (8..24).contains(&w) { 0 } else { u32::MAX })
        .collect();
    assert_eq!(u32s(&out), expected);
    assert_eq!(u32s(&sum), [528]);
}

#[test]
fn undefined_uses_trap_at_their_line() {
    // "The shared memory addresses of destination operand a and the mbarrier object mbar
    // belong to the same CTA": here [a] is the peer's and [mbar] this CTA's own.
    let own_barrier = EXCHANGE.replace(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r9], %r10, [%r5];",
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r9], %r10, [%r4];",
    );
    assert_ne!(own_barrier, EXCHANGE);
    let mut out = vec![0u8; 2 * 96 * 4];
    let error = launch(
        &own_barrier,
        "exchange",
        (2, 32),
        &mut [Arg::Buffer(&mut out)],
        STEPS,
    )
    .expect_err("the operands are in different CTAs");
    let text = error.to_string();
    assert!(
        text.contains("not in the shared memory of the same CTA"),
        "{text}"
    );
    // "size must be a multiple of 8. If the value is not a multiple of 8, then the behavior is
    // undefined."
    let odd = BULK.replace("[%rd2], 64, 0;", "[%rd2], %rd3, 0;").replace(
        "    cvt.u64.u32 %rd2, %r5;",
        "    cvt.u64.u32 %rd2, %r5;\n    mov.u64 %rd3, 12;",
    );
    assert_ne!(odd, BULK);
    let (mut out, mut sum) = (vec![0u8; 128], vec![0u8; 4]);
    let error = launch(
        &odd,
        "bulk",
        (1, 32),
        &mut [Arg::Buffer(&mut out), Arg::Buffer(&mut sum)],
        STEPS,
    )
    .expect_err("12 is not a multiple of 8");
    assert!(
        error.to_string().contains("must be multiples of 8"),
        "{error}"
    );
}

#[test]
fn a_256_bit_store_skips_its_sinks() {
    // PTX ISA 9.0, st: "sink symbol '_' can be used in vector expression b ... which indicates
    // that no data is being written at the corresponding destination address": elements 1, 3
    // and 6 keep the host's 0xaa bytes; `.v4.b64` with sinks at 0 and 3 likewise.
    let source = ".version 8.8\n.target sm_100a\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<9>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
        mov.u32 %r1, 1;\nmov.u32 %r3, 3;\nmov.u32 %r5, 5;\nmov.u32 %r6, 6;\nmov.u32 %r8, 8;\n\
        st.global.v8.b32 [%rd1], {%r1, _, %r3, _, %r5, %r6, _, %r8};\n\
        mov.u64 %rd2, 0x1111111122222222;\n\
        st.global.v4.b64 [%rd1+32], {_, %rd2, %rd2, _};\nret;\n}\n";
    let mut out = vec![0xaau8; 64];
    launch(source, "k", (1, 1), &mut [Arg::Buffer(&mut out)], STEPS).expect("it runs");
    let keep = 0xaaaa_aaaa;
    assert_eq!(
        u32s(&out[..32]),
        [1, keep, 3, keep, 5, 6, keep, 8],
        "the .v8.b32 store"
    );
    let words: Vec<u64> = out[32..]
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let keep = 0xaaaa_aaaa_aaaa_aaaa;
    assert_eq!(
        words,
        [keep, 0x1111_1111_2222_2222, 0x1111_1111_2222_2222, keep],
        "the .v4.b64 store"
    );
}
