//! `clusterlaunchcontrol` (PTX ISA 9.7.13.17): `try_cancel` completes on its mbarrier with a
//! 16-byte response (in every CTA of the cluster with `.multicast::cluster::all`), and
//! `query_cancel` reads it. Both kernels are clean under ptxas 13.5 `-arch sm_100a`.

use ptxsim_exec::api::Arg;

use crate::launch::{STEPS, launch, u32s};

/// A persistent kernel in the pattern of the ISA's example: each CTA handles its own ctaid,
/// then asks to cancel a cluster that has not started and, while one is canceled, handles the
/// first CTA of it too. Work `i` writes `i + 1` to `out[i]` and counts itself in `count[i]`.
const PERSISTENT: &str = r#".version 8.6
.target sm_100a
.address_size 64

// A persistent kernel in the ISA's pattern (9.7.13.17's example): each CTA handles its own
// ctaid, then asks to cancel a cluster that has not started and, while one is canceled,
// handles its first CTA's work too. Work i writes i + 1 to out[i] and counts itself in count[i].
.visible .entry persist(.param .u64 out, .param .u64 count)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    .reg .b128 %q<2>;
    .shared .align 16 .b8 resp[16];
    .shared .align 8 .b64 mbar;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [count];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    setp.eq.u32 %p3, %r2, 0;
    @%p3 mbarrier.init.shared::cta.b64 [mbar], 1;
    bar.sync 0;
    mov.u32 %r9, 0;
$WORK:
    @!%p3 bra $SKIP;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u32 %r3, %r1, 1;
    st.global.u32 [%rd4], %r3;
    add.u64 %rd5, %rd2, %rd3;
    red.global.add.u32 [%rd5], 1;
    mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %rd6, [mbar], 16;
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [mbar];
$WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], %r9;
    @!%p1 bra $WAIT;
    xor.b32 %r9, %r9, 1;
    ld.shared.b128 %q1, [resp];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
    @!%p2 bra $DONE;
    clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, %r4, %r5, _}, %q1;
    bra $WORK;
$SKIP:
$DONE:
    ret;
}
"#;

/// The ISA example's multicast: each CTA of a 2-CTA cluster expects 16 bytes on its own
/// mbarrier, rank 0 asks with `.multicast::cluster::all`, and each CTA waits for its response
/// and writes 1 (not canceled) or 3 (canceled).
const MULTICAST: &str = r#".version 8.6
.target sm_100a
.address_size 64

// The ISA's multicast pattern: every CTA of a 2-CTA cluster expects 16 bytes on its own
// mbarrier; rank 0 asks with .multicast::cluster::all; each CTA waits for its response.
.visible .entry multicast(.param .u64 out) .reqnctapercluster 2, 1, 1
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .b128 %q<2>;
    .shared .align 16 .b8 resp[16];
    .shared .align 8 .b64 mbar;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %cluster_ctarank;
    mbarrier.init.shared::cta.b64 [mbar], 1;
    mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %rd2, [mbar], 16;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [mbar];
$WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], 0;
    @!%p2 bra $WAIT;
    ld.shared.b128 %q1, [resp];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
    selp.u32 %r3, 3, 1, %p3;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r3;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    ret;
}
"#;

#[test]
fn a_persistent_kernel_does_every_piece_of_work_once() {
    // "On success, the opaque response contains the ctaid of the first CTA of the canceled
    // cluster; no other successful response ... will contain that id": whether or not a
    // request succeeds, every ctaid's work is done exactly once (by its own CTA, or by the one
    // that canceled it). ptxsim's requests fail (docs/clusters.md), so each CTA does its own.
    for ctas in [1u32, 6, 40] {
        let mut out = vec![0u8; ctas as usize * 4];
        let mut count = vec![0u8; ctas as usize * 4];
        let buffers = &mut [Arg::Buffer(&mut out), Arg::Buffer(&mut count)];
        launch(PERSISTENT, "persist", (ctas, 32), buffers, STEPS).expect("it runs");
        assert_eq!(u32s(&out), (1..=ctas).collect::<Vec<_>>(), "{ctas} CTAs");
        assert_eq!(u32s(&count), vec![1; ctas as usize], "{ctas} CTAs");
    }
}

#[test]
fn a_multicast_request_completes_every_ctas_mbarrier() {
    // ".multicast::cluster::all ... The completion of the writes to addr of a particular CTA is
    // signaled via a complete-tx operation to the mbarrier object on the shared memory of that
    // CTA": rank 1's mbarrier (expecting 16 bytes) completes although only rank 0 asked.
    let mut out = vec![0u8; 16];
    launch(
        MULTICAST,
        "multicast",
        (4, 1),
        &mut [Arg::Buffer(&mut out)],
        STEPS,
    )
    .expect("it runs");
    assert_eq!(u32s(&out), [1, 1, 1, 1]);
    // Without `.multicast::cluster::all` the response goes to rank 0 only, and rank 1 waits
    // for its mbarrier until the step limit.
    let single = MULTICAST.replace(".multicast::cluster::all", "");
    let error = launch(
        &single,
        "multicast",
        (2, 1),
        &mut [Arg::Buffer(&mut out)],
        10_000,
    )
    .expect_err("rank 1 never gets a response");
    assert!(error.to_string().contains("step limit"), "{error}");
}

#[test]
fn a_response_outside_shared_memory_traps_at_its_line() {
    // Without `.shared::cta` the addresses are generic: "The result is undefined if any of
    // address operands do not fall within the address window of .shared::cta" (a trap here).
    let source = ".version 8.6\n.target sm_100a\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n\
        .shared .align 8 .b64 mbar;\n\
        ld.param.u64 %rd1, [out];\nmov.u64 %rd2, mbar;\ncvta.shared.u64 %rd2, %rd2;\n\
        clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2];\n\
        ret;\n}\n";
    let mut out = vec![0u8; 16];
    let error = launch(source, "k", (1, 1), &mut [Arg::Buffer(&mut out)], STEPS)
        .expect_err("the response address is global memory");
    let text = error.to_string();
    assert!(text.contains("not in the .shared::cta window"), "{text}");
    assert!(text.contains("11:1: trap"), "{text}");
}
