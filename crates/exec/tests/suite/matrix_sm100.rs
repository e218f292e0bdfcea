//! The sm_100a forms of `ldmatrix` and `stmatrix` (PTX ISA 9.7.14.5.15-16): `.m16n16.trans`
//! with `.b8` and the `.b8x16` formats, `.m8n16.b8x16.{b6x16_p32,b4x16_p64}`, and
//! `stmatrix.m16n8.trans.b8`, run through the whole executor on one warp.
//!
//! The ISA's text gives the shapes and register counts but not its layout figures (Figures
//! 105-107), so the expected values come from NVIDIA's CUTLASS: the copy traits of CuTe
//! (`include/cute/atom/copy_traits_sm100.hpp`: `SM100_U8x8_LDSM_T`, `SM100_U8x16_LDSM_T`,
//! `SM100_SU{4,6}_DU8x16_x{1,2,4}_LDSM_N`, `SM100_U8x{4,8,16}_STSM_T`) map each thread's
//! register bits (destination) and each thread's 128-bit shared row (source) to one reference
//! bit; composing the two gives, for every register bit, the row and bit it comes from. The
//! layouts are written below as their `(shape, stride)` modes, evaluated here by the CuTe rule
//! (an index splits into coordinates, first mode fastest; the bit is the sum of coordinate
//! times stride). `SM100_U8x8_LDSM_T`/`U8x16` shuffle the bytes of the instruction's registers
//! before their destination layout applies (`copy_sm100.hpp`); the test applies that shuffle to
//! ptxsim's registers.
//!
//! The `.b8x16` formats unpack each row first: "16 unsigned 6-bit elements with 32 bits
//! padding" / "16 unsigned 4-bit elements with 64 bits padding" (ldmatrix.md), element `e` at
//! bit `width * e`, each 8-bit element with its value in the low bits (CUTLASS's sm_120
//! mainloops: "ld.matrix b4x16_p64 places FP4 data at the first four bits in each eight-bit
//! container"). The modules were accepted by `ptxas -arch sm_100a` (13.5).

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};

/// A CuTe layout mode list: `(size, stride)`, first mode fastest.
pub(super) type Modes = &'static [(usize, usize)];

/// The CuTe value of `index` under `modes`.
pub(super) fn evaluate(modes: Modes, mut index: usize) -> usize {
    let mut value = 0;
    for &(size, stride) in modes {
        value += (index % size) * stride;
        index /= size;
    }
    value
}

/// One CuTe copy traits' layouts: the thread and value modes of the shared-memory side (each
/// thread's 128-bit row) and of the register side (each thread's register bits).
struct Traits {
    /// The thread modes of the shared rows (values: 128 bits, stride 1).
    row_threads: Modes,
    /// The thread modes of the registers.
    register_threads: Modes,
    /// The value (bit) modes of the registers.
    register_bits: Modes,
}

/// For every reference bit, the (lane, bit) of the shared row that holds it (lowest lane first:
/// CuTe's stride-0 thread modes repeat rows the instruction does not read).
fn row_sources(traits: &Traits) -> std::collections::HashMap<usize, (usize, usize)> {
    let mut sources = std::collections::HashMap::new();
    for lane in 0..32 {
        for bit in 0..128 {
            let reference = evaluate(traits.row_threads, lane) + bit;
            sources.entry(reference).or_insert((lane, bit));
        }
    }
    sources
}

/// The shared row at lane `l`'s address: row `(5 l) mod 32` of the shared image (rows need not
/// be contiguous, ldmatrix.md).
fn row_of(lane: usize) -> usize {
    (5 * lane) % 32
}

/// The kernel: copies the 512-byte `input` image into shared memory `sm` (16 bytes a lane),
/// loads lane `t`'s four words of `input + 512` into `%r10..%r13`, sets `%r9` to the shared
/// address of row `row_of(t)`, then `body`, then writes `%r10..%r13` to `out + 16 t` and the
/// shared image to `out + 512`.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 input, .param .u64 out)
{{
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
.shared .align 16 .b8 sm[512];
mov.u32 %r1, %tid.x;
mov.u32 %r14, sm;
ld.param.u64 %rd1, [input];
cvta.to.global.u64 %rd1, %rd1;
ld.param.u64 %rd2, [out];
cvta.to.global.u64 %rd2, %rd2;
mul.wide.u32 %rd3, %r1, 16;
add.u64 %rd4, %rd1, %rd3;
shl.b32 %r2, %r1, 4;
add.u32 %r2, %r14, %r2;
ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd4];
st.shared.v4.u32 [%r2], {{%r10, %r11, %r12, %r13}};
ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd4+512];
bar.sync 0;
mul.lo.u32 %r9, %r1, 5;
and.b32 %r9, %r9, 31;
shl.b32 %r9, %r9, 4;
add.u32 %r9, %r14, %r9;
{body}
bar.sync 0;
add.u64 %rd5, %rd2, %rd3;
st.global.v4.u32 [%rd5], {{%r10, %r11, %r12, %r13}};
ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r2];
st.global.v4.u32 [%rd5+512], {{%r10, %r11, %r12, %r13}};
ret;
}}
"
    )
}

/// A fixed byte pattern with every bit varying.
fn input() -> Vec<u8> {
    (0..1024u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b1) >> 13) as u8 ^ (i as u8).rotate_left(3))
        .collect()
}

/// Runs `body` in [`kernel`] over [`input`]: the lanes' four registers (512 bytes) and the
/// shared image after it (512 bytes).
fn run(body: &str) -> (Vec<u32>, Vec<u8>) {
    let source = kernel(body);
    let program = ptxsim_exec::load(&source, None).expect("the kernel checks and builds");
    let arguments = vec![Argument::Buffer(input()), Argument::Buffer(vec![0; 1024])];
    let (device, addresses) =
        grid::prepare(&program, [1, 1, 1], [32, 1, 1], 100_000, arguments).expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    if let Some(failure) = run.failure {
        match failure.outcome {
            Ok(Outcome::Trapped { message, location }) => {
                panic!("{body}: trapped at line {}: {message}", location.line)
            }
            other => panic!("{body}: {other:?}"),
        }
    }
    let out = device
        .global
        .buffer_at(addresses[1].expect("an address"))
        .expect("the output buffer")
        .contents();
    let words = out[..512]
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    (words, out[512..].to_vec())
}

/// The row lane `lane` addresses, as 128 bits, unpacked for a `.b8x16` format of `width` bits.
fn row_bits(lane: usize, width: Option<u32>) -> u128 {
    let image = input();
    let at = 16 * row_of(lane);
    let bits = u128::from_le_bytes(image[at..at + 16].try_into().expect("16 bytes"));
    match width {
        None => bits,
        Some(width) => (0..16).fold(0, |row, e| {
            let value = (bits >> (width as usize * e)) & ((1 << width) - 1);
            row | (value << (8 * e))
        }),
    }
}

/// What CuTe's layouts say lane `t`'s registers hold after an `ldmatrix` of `registers` words.
fn ldmatrix_reference(traits: &Traits, registers: usize, width: Option<u32>) -> Vec<[u32; 4]> {
    let sources = row_sources(traits);
    (0..32)
        .map(|t| {
            let mut words = [0u32; 4];
            for (r, word) in words.iter_mut().enumerate().take(registers) {
                for b in 0..32 {
                    let reference = evaluate(traits.register_threads, t)
                        + evaluate(traits.register_bits, 32 * r + b);
                    let (lane, bit) = sources[&reference];
                    *word |= (((row_bits(lane, width) >> bit) & 1) as u32) << b;
                }
            }
            words
        })
        .collect()
}

/// `SM100_U8x8_LDSM_T`'s (and `U8x16`'s, pairwise) byte shuffle after the instruction: from
/// registers `a`, `b` it makes `{a.x, a.y, b.x, b.y}` and `{a.z, a.w, b.z, b.w}`.
fn shuffle(a: u32, b: u32) -> (u32, u32) {
    let (a, b) = (a.to_le_bytes(), b.to_le_bytes());
    (
        u32::from_le_bytes([a[0], a[1], b[0], b[1]]),
        u32::from_le_bytes([a[2], a[3], b[2], b[3]]),
    )
}

// The layouts of `include/cute/atom/copy_traits_sm100.hpp`, mode by mode.
const U8X8_LDSM_T: Traits = Traits {
    row_threads: &[(2, 128), (2, 1024), (4, 256), (2, 0)],
    register_threads: &[(4, 256), (8, 8)],
    register_bits: &[(8, 1), (2, 128), (2, 64), (2, 1024)],
};
const U8X16_LDSM_T: Traits = Traits {
    row_threads: &[(2, 128), (2, 1024), (4, 256), (2, 2048)],
    register_threads: &[(4, 256), (8, 8)],
    register_bits: &[(8, 1), (2, 128), (2, 64), (4, 1024)],
};
const DU8X16_X1_LDSM_N: Traits = Traits {
    row_threads: &[(8, 128), (4, 0)],
    register_threads: &[(32, 32)],
    register_bits: &[(32, 1)],
};
const DU8X16_X2_LDSM_N: Traits = Traits {
    row_threads: &[(16, 128), (2, 0)],
    register_threads: &[(32, 32)],
    register_bits: &[(32, 1), (2, 1024)],
};
const DU8X16_X4_LDSM_N: Traits = Traits {
    row_threads: &[(32, 128)],
    register_threads: &[(32, 32)],
    register_bits: &[(32, 1), (4, 1024)],
};
const U8X4_STSM_T: Traits = Traits {
    row_threads: &[(8, 128), (4, 0)],
    register_threads: &[(4, 256), (8, 8)],
    register_bits: &[(8, 1), (2, 128), (2, 64)],
};
const U8X8_STSM_T: Traits = Traits {
    row_threads: &[(16, 128), (2, 0)],
    register_threads: &[(4, 256), (8, 8)],
    register_bits: &[(8, 1), (2, 128), (2, 64), (2, 1024)],
};
const U8X16_STSM_T: Traits = Traits {
    row_threads: &[(32, 128)],
    register_threads: &[(4, 256), (8, 8)],
    register_bits: &[(8, 1), (2, 128), (2, 64), (4, 1024)],
};

const REGISTERS: [&str; 4] = ["{%r10}", "{%r10, %r11}", "", "{%r10, %r11, %r12, %r13}"];

#[test]
fn ldmatrix_m16n16_trans_matches_cutlass() {
    for (count, traits) in [(1, &U8X8_LDSM_T), (2, &U8X16_LDSM_T)] {
        for (format, width) in [
            (".b8", None),
            (".b8x16.b6x16_p32", Some(6)),
            (".b8x16.b4x16_p64", Some(4)),
        ] {
            let registers = 2 * count;
            let instruction = format!(
                "ldmatrix.sync.aligned.m16n16.x{count}.trans.shared{format} {}, [%r9];",
                REGISTERS[registers - 1]
            );
            let (words, _) = run(&instruction);
            let want = ldmatrix_reference(traits, registers, width);
            for t in 0..32 {
                let got = &words[4 * t..4 * t + 4];
                for pair in 0..count {
                    let shuffled = shuffle(got[2 * pair], got[2 * pair + 1]);
                    assert_eq!(
                        shuffled,
                        (want[t][2 * pair], want[t][2 * pair + 1]),
                        "{instruction}: lane {t}, matrix {pair}"
                    );
                }
            }
        }
    }
}

#[test]
fn ldmatrix_m8n16_unpacks_as_cutlass() {
    for (count, traits) in [
        (1, &DU8X16_X1_LDSM_N),
        (2, &DU8X16_X2_LDSM_N),
        (4, &DU8X16_X4_LDSM_N),
    ] {
        for (format, width) in [(".b6x16_p32", 6), (".b4x16_p64", 4)] {
            let instruction = format!(
                "ldmatrix.sync.aligned.m8n16.x{count}.b8x16{format} {}, [%r9];",
                REGISTERS[count - 1]
            );
            // A generic address into shared memory.
            let (words, _) = run(&format!(
                "cvt.u64.u32 %rd6, %r9;\ncvta.shared.u64 %rd6, %rd6;\n{}",
                instruction.replace("[%r9]", "[%rd6]")
            ));
            let want = ldmatrix_reference(traits, count, Some(width));
            for t in 0..32 {
                assert_eq!(
                    &words[4 * t..4 * t + count],
                    &want[t][..count],
                    "{instruction}: lane {t}"
                );
            }
        }
    }
}

#[test]
fn stmatrix_m16n8_trans_matches_cutlass() {
    for (count, traits) in [(1, &U8X4_STSM_T), (2, &U8X8_STSM_T), (4, &U8X16_STSM_T)] {
        let instruction = format!(
            "stmatrix.sync.aligned.m16n8.x{count}.trans.shared::cta.b8 [%r9], {};",
            REGISTERS[count - 1]
        );
        let (_, shared) = run(&instruction);
        // The shared image, each stored bit replaced by the register bit CuTe maps onto it.
        let image = input();
        let mut want = image[..512].to_vec();
        let targets = row_sources(traits);
        for t in 0..32 {
            let at = 512 + 16 * t;
            let register = |r: usize| {
                u32::from_le_bytes(image[at + 4 * r..at + 4 * r + 4].try_into().unwrap())
            };
            for r in 0..count {
                for b in 0..32 {
                    let reference = evaluate(traits.register_threads, t)
                        + evaluate(traits.register_bits, 32 * r + b);
                    let (lane, bit) = targets[&reference];
                    let byte = 16 * row_of(lane) + bit / 8;
                    let value = ((register(r) >> b) & 1) as u8;
                    want[byte] = (want[byte] & !(1 << (bit % 8))) | (value << (bit % 8));
                }
            }
        }
        assert_eq!(shared, want, "{instruction}");
    }
}

#[test]
fn the_16_row_shapes_without_trans_do_not_check() {
    // "for 16x16 matrices, .trans is mandatory", "for 16x8 matrices, .trans is mandatory";
    // ptxas 13.5: "Modifier '.trans' require for instruction ldmatrix with shape '.m16n16'".
    for instruction in [
        "ldmatrix.sync.aligned.m16n16.x1.shared.b8 {%r10, %r11}, [%r9];",
        "stmatrix.sync.aligned.m16n8.x1.shared.b8 [%r9], {%r10};",
    ] {
        let source = kernel(instruction);
        let start = source
            .find(instruction)
            .expect("the instruction is in the kernel") as u32;
        let end = start + instruction.len() as u32;
        let Err(ptxsim_exec::LoadError::Diagnostics(diagnostics)) =
            ptxsim_exec::load(&source, None)
        else {
            panic!("{instruction}: ptxas rejects it, ptxsim must too");
        };
        assert!(
            diagnostics
                .iter()
                .any(|d| d.message.contains("trans") && (start..end).contains(&d.span.start)),
            "{instruction}: {diagnostics:?}"
        );
    }
}
