//! `ldmatrix`, `stmatrix` and `movmatrix` (PTX ISA 9.7.14.5.15-17, `.m8n8` `.b16`) run through
//! the whole executor: one-warp kernels fill shared memory with each 16-bit element's own
//! index, run the instruction, and write the lanes' registers (or the shared rows) to a global
//! buffer. The expected values are computed here from the ISA's description of the fragment
//! layout ("A group of four threads loads an entire row of the matrix": lane `t` holds row
//! `t / 4`, elements `2 * (t % 4)` and `2 * (t % 4) + 1`; the row addresses of matrix `i`
//! come from lanes `8i..8i+7`; `.trans` loads the matrix column-major), never from ptxsim.
//!
//! The row addresses are a permutation of the rows (lane `l` gives row `5l mod 32`: "Consecutive
//! instances of row need not be stored contiguously in memory").
//!
//! Also: an instruction not all 32 lanes execute, a misaligned row address, one out of bounds
//! and a generic address outside shared memory each stop the run with a located error.

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};

/// Rows of 8 elements in the shared buffer (512 elements, 1024 bytes).
const SHARED_ROWS: usize = 64;

/// The shared row lane `lane` gives the address of.
fn row_of(lane: usize) -> usize {
    (lane * 5) % 32
}

/// The kernel: `sm` (64 rows of 8 `.b16`) holds element `e` at index `e`; `%r9` is the
/// 32-bit shared address of row `row_of(tid)`, `%rd4` its generic address, `%rd2` the global
/// output buffer and `%rd3` = `%rd2 + 16 * tid`; `%r10..%r13` are zero. Then `body`.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
.reg .pred %p<2>;
.shared .align 16 .b16 sm[{elements}];
mov.u32 %r1, %tid.x;
mov.u32 %r2, 0;
mov.u32 %r14, sm;
FILL:
shl.b32 %r3, %r1, 3;
add.u32 %r3, %r3, %r2;
shl.b32 %r4, %r3, 1;
add.u32 %r5, %r4, 1;
shl.b32 %r5, %r5, 16;
or.b32 %r6, %r4, %r5;
shl.b32 %r7, %r3, 2;
add.u32 %r8, %r14, %r7;
st.shared.u32 [%r8], %r6;
add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, 8;
@%p1 bra FILL;
bar.sync 0;
mul.lo.u32 %r9, %r1, 5;
and.b32 %r9, %r9, 31;
shl.b32 %r9, %r9, 4;
add.u32 %r9, %r14, %r9;
cvt.u64.u32 %rd4, %r9;
cvta.shared.u64 %rd4, %rd4;
ld.param.u64 %rd2, [out];
cvta.to.global.u64 %rd2, %rd2;
mul.wide.u32 %rd3, %r1, 16;
add.u64 %rd3, %rd2, %rd3;
mov.u32 %r10, 0;
mov.u32 %r11, 0;
mov.u32 %r12, 0;
mov.u32 %r13, 0;
{body}
ret;
}}
",
        elements = SHARED_ROWS * 8
    )
}

/// Runs `source` with `threads` threads and an output buffer of `out_bytes`; the buffer, or
/// the trap's message and line.
fn launch(source: &str, threads: u32, out_bytes: usize) -> Result<Vec<u8>, (String, u32)> {
    let program = ptxsim_exec::load(source, None).expect("the kernel checks and builds");
    let arguments = vec![Argument::Buffer(vec![0; out_bytes])];
    let (device, addresses) =
        grid::prepare(&program, [1, 1, 1], [threads, 1, 1], 100_000, arguments)
            .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        return match failure.outcome {
            Ok(Outcome::Trapped { message, location }) => Err((message, location.line)),
            other => panic!("{other:?}"),
        };
    }
    let address = addresses[0].expect("the output buffer has an address");
    Ok(device
        .global
        .buffer_at(address)
        .expect("the output buffer")
        .contents())
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn halves(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]))
        .collect()
}

/// Element `(row, column)` of matrix `i` as `ldmatrix` sees it: without `.trans` row `row` is
/// the memory row at lane `8i + row`'s address; with `.trans` the memory rows are the columns.
fn element(i: usize, row: usize, column: usize, trans: bool) -> u32 {
    let (memory_row, memory_column) = if trans { (column, row) } else { (row, column) };
    (8 * row_of(8 * i + memory_row) + memory_column) as u32
}

/// What lane `t` holds in its register of matrix `i`: "each thread ... loads fragments of a
/// row": row `t / 4`, elements `2 * (t % 4)` (low half) and the next (high half).
fn expected_fragment(t: usize, i: usize, trans: bool) -> u32 {
    let (row, column) = (t / 4, 2 * (t % 4));
    element(i, row, column, trans) | (element(i, row, column + 1, trans) << 16)
}

const STORE_REGISTERS: &str = "st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};";

#[test]
fn ldmatrix_gives_each_lane_its_fragment() {
    for (count, registers) in [
        (1, "{%r10}"),
        (2, "{%r10, %r11}"),
        (4, "{%r10, %r11, %r12, %r13}"),
    ] {
        for trans in [false, true] {
            for (space, address) in [(".shared", "%r9"), ("", "%rd4"), (".shared::cta", "%r9")] {
                let instruction = format!(
                    "ldmatrix.sync.aligned.m8n8.x{count}{}{space}.b16 {registers}, [{address}];",
                    if trans { ".trans" } else { "" }
                );
                let source = kernel(&format!("{instruction}\n{STORE_REGISTERS}"));
                let out = words(&launch(&source, 32, 32 * 16).expect("runs"));
                for t in 0..32 {
                    for i in 0..4 {
                        let want = if i < count {
                            expected_fragment(t, i, trans)
                        } else {
                            0
                        };
                        assert_eq!(out[4 * t + i], want, "{instruction}: lane {t}, matrix {i}");
                    }
                }
            }
        }
    }
}

#[test]
fn stmatrix_writes_each_lanes_fragment_to_its_row() {
    // Lane t's register for matrix i holds the numbers 2(32i + t) and 2(32i + t) + 1; the rows
    // are written over the numbered buffer, which is then copied out (32 bytes a lane).
    for trans in [false, true] {
        let instruction = format!(
            "stmatrix.sync.aligned.m8n8.x4{}.shared.b16 [%r9], {{%r10, %r11, %r12, %r13}};",
            if trans { ".trans" } else { "" }
        );
        let body = format!(
            "shl.b32 %r15, %r1, 1;
add.u32 %r16, %r15, 1;
shl.b32 %r16, %r16, 16;
or.b32 %r10, %r15, %r16;
add.u32 %r11, %r10, 0x00400040;
add.u32 %r12, %r10, 0x00800080;
add.u32 %r13, %r10, 0x00c000c0;
{instruction}
bar.sync 0;
shl.b32 %r17, %r1, 5;
add.u32 %r17, %r14, %r17;
ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r17];
mul.wide.u32 %rd5, %r1, 32;
add.u64 %rd5, %rd2, %rd5;
st.global.v4.u32 [%rd5], {{%r10, %r11, %r12, %r13}};
ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r17+16];
st.global.v4.u32 [%rd5+16], {{%r10, %r11, %r12, %r13}};"
        );
        let out = halves(&launch(&kernel(&body), 32, SHARED_ROWS * 16).expect("runs"));
        let mut want: Vec<u16> = (0..SHARED_ROWS as u16 * 8).collect();
        for i in 0..4 {
            for r in 0..8 {
                for c in 0..8 {
                    // Element (r, c) of matrix i is in lane 4r + c/2, half c % 2; with .trans
                    // memory row r column c is element (c, r).
                    let (row, column) = if trans { (c, r) } else { (r, c) };
                    let lane = 4 * row + column / 2;
                    want[8 * row_of(8 * i + r) + c] = (2 * (32 * i + lane) + column % 2) as u16;
                }
            }
        }
        assert_eq!(out, want, "{instruction}");
    }
}

#[test]
fn stmatrix_stores_what_ldmatrix_loaded() {
    // ldmatrix from the permuted rows, stmatrix (same .trans) to rows 32 + l in order: row
    // 32 + l must equal row row_of(l).
    for trans in [false, true] {
        let t = if trans { ".trans" } else { "" };
        let body = format!(
            "ldmatrix.sync.aligned.m8n8.x4{t}.shared.b16 {{%r10, %r11, %r12, %r13}}, [%r9];
shl.b32 %r15, %r1, 4;
add.u32 %r15, %r15, 512;
add.u32 %r15, %r14, %r15;
stmatrix.sync.aligned.m8n8.x4{t}.shared.b16 [%r15], {{%r10, %r11, %r12, %r13}};
bar.sync 0;
ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r15];
{STORE_REGISTERS}"
        );
        let out = halves(&launch(&kernel(&body), 32, 32 * 16).expect("runs"));
        for l in 0..32 {
            let want: Vec<u16> = (0..8).map(|c| (8 * row_of(l) + c) as u16).collect();
            assert_eq!(&out[8 * l..8 * l + 8], want.as_slice(), "{t}: row {l}");
        }
    }
}

#[test]
fn movmatrix_transposes_the_fragment() {
    // Lane t holds elements 2t and 2t + 1: row t/4, columns 2(t%4) and 2(t%4)+1 of the matrix
    // A[r][c] = 8r + c. After the transpose lane t holds D[t/4][2(t%4) + j] = A[2(t%4) + j][t/4].
    let body = "shl.b32 %r15, %r1, 1;
add.u32 %r16, %r15, 1;
shl.b32 %r16, %r16, 16;
or.b32 %r15, %r15, %r16;
movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r15;
st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};";
    let out = words(&launch(&kernel(body), 32, 32 * 16).expect("runs"));
    for t in 0..32 {
        let a = |r: usize, c: usize| (8 * r + c) as u32;
        let want = a(2 * (t % 4), t / 4) | (a(2 * (t % 4) + 1, t / 4) << 16);
        assert_eq!(out[4 * t], want, "lane {t}");
    }
}

/// The line of the last instruction of `body` in [`kernel`]'s source.
fn line_of(source: &str, instruction: &str) -> u32 {
    source
        .lines()
        .position(|line| line.starts_with(instruction))
        .expect("the instruction is in the kernel") as u32
        + 1
}

#[test]
fn half_a_warp_traps_at_the_instruction() {
    let instruction = "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r9];";
    let source = kernel(&format!(
        "setp.ge.u32 %p1, %r1, 16;\n@%p1 ret;\n{instruction}\n{STORE_REGISTERS}"
    ));
    let (message, line) = launch(&source, 32, 32 * 16).expect_err("a trap");
    assert!(message.contains("needs all 32 lanes"), "{message}");
    assert_eq!(line, line_of(&source, instruction));
    for instruction in [
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r9], {%r10};",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r9;",
    ] {
        let source = kernel(&format!(
            "setp.ge.u32 %p1, %r1, 8;\n@%p1 ret;\n{instruction}"
        ));
        let (message, line) = launch(&source, 32, 32 * 16).expect_err("a trap");
        assert!(message.contains("needs all 32 lanes"), "{message}");
        assert_eq!(line, line_of(&source, instruction));
    }
}

#[test]
fn bad_row_addresses_trap_at_the_instruction() {
    let cases = [
        // Lane 3's row address 8 bytes off: "The matrix addresses must be naturally aligned".
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 8;",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r9];",
            "misaligned",
        ),
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 8;",
            "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r9], {%r10, %r11, %r12, %r13};",
            "misaligned",
        ),
        // Lane 3's row past the end of shared memory.
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 4096;",
            "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r9];",
            "out-of-bounds",
        ),
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 4096;",
            "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r9], {%r10, %r11};",
            "out-of-bounds",
        ),
        // A generic address in global memory (undefined in the ISA).
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 mov.u64 %rd4, %rd3;",
            "ldmatrix.sync.aligned.m8n8.x1.b16 {%r10}, [%rd4];",
            "not in shared memory",
        ),
    ];
    for (setup, instruction, what) in cases {
        let source = kernel(&format!("{setup}\n{instruction}"));
        let Err((message, line)) = launch(&source, 32, 32 * 16) else {
            panic!("{instruction} ran: {source}");
        };
        assert!(
            message.contains(what) && message.contains("lane 3"),
            "{instruction}: {message}"
        );
        assert_eq!(line, line_of(&source, instruction), "{instruction}");
    }
}

#[test]
fn lanes_past_the_matrices_give_no_address() {
    // With .x1 only lanes 0..7 give row addresses: a misaligned address in lane 8 is not read.
    let instruction = "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r9];";
    let source = kernel(&format!(
        "setp.ge.u32 %p1, %r1, 8;\n@%p1 add.u32 %r9, %r9, 8;\n{instruction}\n{STORE_REGISTERS}"
    ));
    let out = words(&launch(&source, 32, 32 * 16).expect("runs"));
    for t in 0..32 {
        assert_eq!(out[4 * t], expected_fragment(t, 0, false), "lane {t}");
    }
}

/// `tests/mma-kernels/mma_gemm.cu`'s `ldmatrix_mma_bf16` as nvcc 13.5 built it (sm_80, sm_90, sm_100a): a bf16
/// GEMM whose mma fragments come from `ldmatrix` (`.x4` for A, `.x2.trans` for B). The inputs
/// are small integers, so every product and sum is exact in `f32` and the host computes the
/// product with integers.
#[test]
fn an_nvcc_gemm_tile_fed_by_ldmatrix_matches_the_host() {
    const M: usize = 32;
    const N: usize = 16;
    const K: usize = 32;
    let a: Vec<i32> = (0..M * K).map(|i| (i * 7 % 9) as i32 - 4).collect();
    let b: Vec<i32> = (0..K * N).map(|i| (i * 5 % 7) as i32 - 3).collect();
    // bf16 is the high half of the f32 (exact for these integers).
    let bf16 = |values: &[i32]| -> Vec<u8> {
        values
            .iter()
            .flat_map(|&v| (((v as f32).to_bits() >> 16) as u16).to_le_bytes())
            .collect()
    };
    let mut want = Vec::new();
    for i in 0..M {
        for j in 0..N {
            let sum: i32 = (0..K).map(|k| a[i * K + k] * b[k * N + j]).sum();
            want.extend_from_slice(&(sum as f32).to_le_bytes());
        }
    }
    for arch in ["sm_80", "sm_90", "sm_100a"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../tests/mma-kernels/mma_gemm.{arch}.ptx"));
        let source = std::fs::read_to_string(&path).expect("the sample exists");
        let program = ptxsim_exec::load(&source, Some("ldmatrix_mma_bf16")).expect("builds");
        let scalar = |v: usize| Argument::Scalar {
            ty: ptxsim_isa::Type::S32,
            bits: v as u64,
        };
        let arguments = vec![
            Argument::Buffer(bf16(&a)),
            Argument::Buffer(bf16(&b)),
            Argument::Buffer(vec![0; M * N * 4]),
            scalar(M),
            scalar(N),
            scalar(K),
        ];
        let (device, addresses) = grid::prepare(
            &program,
            [(N / 8) as u32, (M / 16) as u32, 1],
            [32, 1, 1],
            1_000_000,
            arguments,
        )
        .expect("valid launch");
        let run = grid::run_grid(&device, GridOptions::default(), None, None);
        assert!(run.failure.is_none(), "{arch}: {:?}", run.failure);
        let address = addresses[2].expect("the output buffer has an address");
        let got = device
            .global
            .buffer_at(address)
            .expect("the output buffer")
            .contents();
        assert_eq!(got, want, "{arch}");
    }
}

/// Plain `ld.shared`/`st.shared` run for all lanes at once while every lane's access is aligned
/// and in bounds; one bad lane (misaligned, past the end) traps at the instruction with that
/// thread, and the values of the good case are the
/// kernel's fill (`u32` index `k` of `sm` holds the halves `2k`, `2k + 1`).
#[test]
fn scalar_shared_accesses_read_the_fill_and_trap_at_the_bad_lane() {
    let load = "ld.shared.u32 %r10, [%r9];";
    let store = "st.shared.u32 [%r9], %r1;\nbar.sync 0;\nld.shared.u32 %r11, [%r9];";
    let good = kernel(&format!("{load}\n{store}\n{STORE_REGISTERS}"));
    let out = words(&launch(&good, 32, 32 * 16).expect("runs"));
    for lane in 0..32 {
        let k = (row_of(lane) * 8 / 2) as u32;
        let first = (2 * k) | (2 * k + 1) << 16;
        assert_eq!(out[lane * 4], first, "lane {lane} loaded");
        // row_of is a permutation of 0..32 for lanes 0..32: each row was written by one lane.
        assert_eq!(out[lane * 4 + 1], lane as u32, "lane {lane} stored");
    }
    for (setup, what) in [
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 2;",
            "misaligned",
        ),
        (
            "setp.eq.u32 %p1, %r1, 3;\n@%p1 add.u32 %r9, %r9, 4096;",
            "out-of-bounds",
        ),
    ] {
        for instruction in [load, "st.shared.u32 [%r9], %r1;"] {
            let source = kernel(&format!("{setup}\n{instruction}"));
            let Err((message, line)) = launch(&source, 32, 32 * 16) else {
                panic!("{instruction} ran: {source}");
            };
            assert!(
                message.contains(what) && message.contains("thread (3,0,0)"),
                "{instruction}: {message}"
            );
            assert_eq!(line, line_of(&source, instruction), "{instruction}");
        }
    }
}
