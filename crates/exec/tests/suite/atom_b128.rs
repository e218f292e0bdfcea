//! `atom.exch.b128` and `atom.cas.b128` (PTX ISA 9.7.13.5, sm_90, PTX ISA 8.3) in global and
//! shared memory, run through the whole executor. The expected values follow from the ISA's
//! semantics ("`exch(r, s) = s; cas(r,s,t) = (r == s) ? t : r`", `d` the original value) on
//! inputs the test chooses; the contention test counts: 128 threads each add one to a 128-bit
//! counter with a compare-and-swap loop, so the counter ends 128 higher (the carry crosses the
//! 64-bit halves). The modules were accepted by `ptxas -arch sm_90`.

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};

/// The kernel: `%rd1` the global buffer `buf` (32 slots of 16 bytes), `%rd2` the output
/// buffer, `%rd4` = this thread's slot of `buf`, `%rd5` its slot of the output, `%r1` the
/// thread index; then `body`.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_buf, .param .u64 p_out)
{{
.reg .b32 %r<8>;
.reg .b64 %rd<16>;
.reg .b128 %q<4>;
.reg .pred %p<4>;
.shared .align 16 .b8 sm[512];
ld.param.u64 %rd1, [p_buf];
cvta.to.global.u64 %rd1, %rd1;
ld.param.u64 %rd2, [p_out];
cvta.to.global.u64 %rd2, %rd2;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 16;
add.u64 %rd4, %rd1, %rd3;
add.u64 %rd5, %rd2, %rd3;
{body}
ret;
}}
"
    )
}

/// The initial 128-bit value of slot `i`.
fn initial(i: u128) -> u128 {
    (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
}

/// `b` as the kernels make it from the thread index `t`: low half `3t + 1`, high half `!t`.
fn b_of(t: u128) -> u128 {
    (3 * t + 1) | (u128::from(!(t as u64)) << 64)
}

/// Runs `body` on `ctas` CTAs of `threads`; the buffer `buf` (after) and the output, or the
/// trap's message and line.
fn run(
    body: &str,
    ctas: u32,
    threads: u32,
    buf: &[u128],
) -> Result<(Vec<u128>, Vec<u128>), (String, u32)> {
    let source = kernel(body);
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks and builds");
    let bytes: Vec<u8> = buf.iter().flat_map(|v| v.to_le_bytes()).collect();
    let arguments = vec![
        Argument::Buffer(bytes),
        Argument::Buffer(vec![0; 16 * buf.len()]),
    ];
    let (device, addresses) = grid::prepare(
        &program,
        [ctas, 1, 1],
        [threads, 1, 1],
        1_000_000,
        arguments,
    )
    .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        return match failure.outcome {
            Ok(Outcome::Trapped { message, location }) => Err((message, location.line)),
            other => panic!("{other:?}"),
        };
    }
    let read = |i: usize| -> Vec<u128> {
        device
            .global
            .buffer_at(addresses[i].expect("an address"))
            .expect("a buffer")
            .contents()
            .chunks(16)
            .map(|w| u128::from_le_bytes(w.try_into().expect("16 bytes")))
            .collect()
    };
    Ok((read(0), read(1)))
}

/// `%q1` = b of this thread (low `3t + 1`, high `!t`).
const MAKE_B: &str = "cvt.u64.u32 %rd6, %r1;
mul.lo.u64 %rd8, %rd6, 3;
add.u64 %rd8, %rd8, 1;
not.b64 %rd9, %rd6;
mov.b128 %q1, {%rd8, %rd9};";

#[test]
fn exch_swaps_in_b_and_returns_the_old_value() {
    let buf: Vec<u128> = (0..32).map(initial).collect();
    for (space, body) in [
        (
            "global",
            format!(
                "{MAKE_B}
atom.global.exch.b128 %q2, [%rd4], %q1;
mov.b128 {{%rd10, %rd11}}, %q2;
st.global.v2.u64 [%rd5], {{%rd10, %rd11}};"
            ),
        ),
        (
            // Generic addresses of shared memory; the slot copied in and back out.
            "shared",
            format!(
                "{MAKE_B}
mov.u64 %rd12, sm;
cvta.shared.u64 %rd12, %rd12;
add.u64 %rd12, %rd12, %rd3;
ld.global.v2.u64 {{%rd10, %rd11}}, [%rd4];
st.v2.u64 [%rd12], {{%rd10, %rd11}};
atom.exch.b128 %q2, [%rd12], %q1;
mov.b128 {{%rd10, %rd11}}, %q2;
st.global.v2.u64 [%rd5], {{%rd10, %rd11}};
ld.v2.u64 {{%rd10, %rd11}}, [%rd12];
st.global.v2.u64 [%rd4], {{%rd10, %rd11}};"
            ),
        ),
    ] {
        let (after, out) = run(&body, 1, 32, &buf).expect("runs");
        for t in 0..32 {
            assert_eq!(out[t], initial(t as u128), "{space}: d of thread {t}");
            assert_eq!(after[t], b_of(t as u128), "{space}: slot {t}");
        }
    }
}

#[test]
fn cas_swaps_only_where_the_comparand_matches() {
    // Even threads compare with the slot's value, odd ones with it with bit 100 flipped; the
    // swap value is b.
    let buf: Vec<u128> = (0..32).map(initial).collect();
    for (space, atom, tail) in [
        ("global", "atom.global.cas.b128 %q3, [%rd4], %q2, %q1;", ""),
        (
            // The shared slot goes back to `buf`.
            "shared",
            "atom.shared::cta.cas.b128 %q3, [%r3], %q2, %q1;",
            "ld.shared.v2.u64 {%rd10, %rd11}, [%r3];\nst.global.v2.u64 [%rd4], {%rd10, %rd11};",
        ),
    ] {
        let body = format!(
            "{MAKE_B}
mov.u32 %r2, sm;
shl.b32 %r3, %r1, 4;
add.u32 %r3, %r2, %r3;
ld.global.v2.u64 {{%rd10, %rd11}}, [%rd4];
st.shared.v2.u64 [%r3], {{%rd10, %rd11}};
and.b32 %r4, %r1, 1;
cvt.u64.u32 %rd12, %r4;
shl.b64 %rd12, %rd12, 36;
xor.b64 %rd13, %rd11, %rd12;
mov.b128 %q2, {{%rd10, %rd13}};
{atom}
mov.b128 {{%rd10, %rd11}}, %q3;
st.global.v2.u64 [%rd5], {{%rd10, %rd11}};
{tail}"
        );
        let (after, out) = run(&body, 1, 32, &buf).expect("runs");
        for t in 0..32u128 {
            let i = t as usize;
            assert_eq!(out[i], initial(t), "{space}: d of thread {t}");
            let want = if t % 2 == 0 { b_of(t) } else { initial(t) };
            assert_eq!(after[i], want, "{space}: slot {t}");
        }
    }
}

#[test]
fn a_cas_loop_counts_every_thread_across_the_halves() {
    let start = (1u128 << 64) - 50 + (7u128 << 64);
    let mut buf = vec![0u128; 32];
    buf[0] = start;
    let body = "ld.global.v2.u64 {%rd6, %rd7}, [%rd1];
LOOP:
add.cc.u64 %rd8, %rd6, 1;
addc.u64 %rd9, %rd7, 0;
mov.b128 %q1, {%rd6, %rd7};
mov.b128 %q2, {%rd8, %rd9};
atom.global.cas.b128 %q3, [%rd1], %q1, %q2;
mov.b128 {%rd10, %rd11}, %q3;
setp.ne.u64 %p1, %rd10, %rd6;
setp.ne.or.u64 %p1, %rd11, %rd7, %p1;
mov.b64 %rd6, %rd10;
mov.b64 %rd7, %rd11;
@%p1 bra LOOP;";
    let (after, _) = run(body, 2, 64, &buf).expect("runs");
    assert_eq!(after[0], start + 128);
}

#[test]
fn a_misaligned_128_bit_atomic_traps_at_its_line() {
    let body = format!(
        "{MAKE_B}
add.u64 %rd12, %rd4, 8;
atom.global.exch.b128 %q2, [%rd12], %q1;"
    );
    let source = kernel(&body);
    let line = source
        .lines()
        .position(|l| l.starts_with("atom.global.exch.b128"))
        .expect("the instruction")
        + 1;
    let buf: Vec<u128> = (0..32).map(initial).collect();
    let (message, at) = run(&body, 1, 32, &buf).expect_err("a misaligned atom traps");
    assert_eq!(at as usize, line, "{message}");
}
