//! Sparse `tcgen05.mma.sp` (PTX ISA 9.7.16.10.8) against host references written from the
//! ISA's description of the sparse A, never from ptxsim's output: a dense 128 x K tile of small
//! integers with two zeros in each chunk of four (one in each two for `.kind::tf32`), stored
//! as its nonzero half with one metadata nibble per chunk, multiplied by a dense B; every sum
//! exact, so any correct arithmetic gives the same bits. One inexact case follows MMA-Sim's
//! Blackwell fused step by hand. The kernel (`tcgen05_kernels/sparse.ptx`) is clean under
//! ptxas 13 (`-arch sm_100a`).
//!
//! Where the metadata lies in tensor memory is in the ISA's figures only (Figures 262-267);
//! the tests place it as CUTLASS's `tmem_e_frg` does for M = 128 (its layouts written out
//! below as CuTe's coordinate-to-address maps), the sparsity selector of `.kind::f16` and
//! `.kind::tf32` picking the column as JAX's Mosaic GPU uses it.

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};

/// `mma_sp(image, out, meta, idesc, a_desc, b_desc)`: the kernel's comment.
const SPARSE: &str = include_str!("tcgen05_kernels/sparse.ptx");

const IMAGE: usize = 24576;
const B_BASE: usize = 16384;
const M: usize = 128;
const N: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Input {
    F16,
    Bf16,
    Tf32,
    S8,
    E4m3,
}

impl Input {
    fn kind(self) -> &'static str {
        match self {
            Input::F16 | Input::Bf16 => "kind::f16",
            Input::Tf32 => "kind::tf32",
            Input::S8 => "kind::i8",
            Input::E4m3 => "kind::f8f6f4",
        }
    }

    fn bytes(self) -> usize {
        match self {
            Input::F16 | Input::Bf16 => 2,
            Input::Tf32 => 4,
            Input::S8 | Input::E4m3 => 1,
        }
    }

    /// K of the sparse instruction (Table 39: twice the dense K; 64 bytes of a row of B).
    fn depth(self) -> usize {
        64 / self.bytes()
    }

    /// Elements to a chunk: "1:2" for `.kind::tf32`, "2:4" for the others (9.7.16.10.8).
    fn chunk(self) -> usize {
        if self == Input::Tf32 { 2 } else { 4 }
    }

    /// The instruction descriptor (Table 42): bits 0-1 the sparsity selector, bit 2 sparse,
    /// dtype bits 4-5 (F32 = 1, S32 = 2), atype 7-9 and btype 10-12, N >> 3 at 17, M >> 4 at
    /// 24.
    fn idesc(self, selector: u32) -> u32 {
        let (d, ab) = match self {
            Input::F16 | Input::E4m3 => (1, 0),
            Input::Bf16 => (1, 1),
            Input::Tf32 => (1, 2),
            Input::S8 => (2, 1),
        };
        selector
            | 1 << 2
            | d << 4
            | ab << 7
            | ab << 10
            | ((N as u32) >> 3) << 17
            | ((M as u32) >> 4) << 24
    }

    /// The encoding of a small integer: binary16, bfloat16, f32 bits, two's complement, E4M3.
    fn encode(self, v: i32) -> u32 {
        let float = |bias: u32, mantissa_bits: u32, sign_bit: u32| {
            if v == 0 {
                return 0;
            }
            let magnitude = v.unsigned_abs();
            let exponent = 31 - magnitude.leading_zeros();
            let mantissa = (magnitude << (mantissa_bits - exponent)) & ((1 << mantissa_bits) - 1);
            u32::from(v < 0) << sign_bit | (exponent + bias) << mantissa_bits | mantissa
        };
        match self {
            Input::F16 => float(15, 10, 15),
            Input::Bf16 => (v as f32).to_bits() >> 16,
            Input::Tf32 => (v as f32).to_bits(),
            Input::S8 => u32::from(v as i8 as u8),
            Input::E4m3 => float(7, 3, 7),
        }
    }

    /// The tensor-memory (lane, bit) of the metadata of element `k` of row `m` (bits counted
    /// along the lane from the metadata's column), as CUTLASS's `tmem_e_frg` lays out M = 128:
    /// 16-bit types the atom `((8,2,8),(16,2)):((1,2048,16),(128,8))` of one bit per element,
    /// tf32 `((8,2,8),(8,2)):((1,1024,16),(128,8))` of two bits per element, 8-bit types
    /// `(128,64):(1,128)` of one bit per element; an address `v` is lane `v % 128`, element
    /// `v / 128` along the lane.
    fn metadata_bit(self, m: usize, k: usize) -> (usize, usize) {
        let (m0, m1, m2) = (m % 8, (m / 8) % 2, m / 16);
        match self {
            Input::F16 | Input::Bf16 => {
                let v = m0 + 2048 * m1 + 16 * m2 + 128 * (k % 16) + 8 * (k / 16);
                (v % 128, v / 128)
            }
            Input::Tf32 => {
                let v = m0 + 1024 * m1 + 16 * m2 + 128 * (k % 8) + 8 * (k / 8);
                (v % 128, 2 * (v / 128))
            }
            Input::S8 | Input::E4m3 => (m, k),
        }
    }
}

/// The ISA's meaningful metadata of a chunk of four, "two 2-bit indices ... the position of
/// the two non-zero elements in the four-wide chunk" (9.7.16.10.8.2), the first stored
/// element's index in the low two bits.
const PAIRS: [u32; 7] = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110];

/// A sparse A: the dense tile, the stored half (row by row, in storage order) and each
/// chunk's metadata nibble.
struct SparseA {
    dense: Vec<Vec<i32>>,
    stored: Vec<Vec<u32>>,
    nibbles: Vec<Vec<u32>>,
}

/// A sparse tile whose kept elements are `value(m, k)`, the pattern of chunk `c` of row `m`
/// chosen by `(3m + 5c)`.
fn sparse_a(input: Input, value: &dyn Fn(usize, usize) -> (i32, u32)) -> SparseA {
    let depth = input.depth();
    let mut a = SparseA {
        dense: vec![vec![0; depth]; M],
        stored: vec![Vec::new(); M],
        nibbles: vec![Vec::new(); M],
    };
    for m in 0..M {
        for c in 0..depth / input.chunk() {
            let start = c * input.chunk();
            let (nibble, positions) = if input == Input::Tf32 {
                // "The only meaningful values of the index are: 0b1110, 0b0100" (1:2): the
                // indices of the 16-bit halves of the two-wide chunk, 2-3 the second element.
                if (m + c) % 2 == 1 {
                    (0b1110, vec![1])
                } else {
                    (0b0100, vec![0])
                }
            } else {
                let nibble = PAIRS[(3 * m + 5 * c) % 7];
                (nibble, vec![(nibble & 3) as usize, (nibble >> 2) as usize])
            };
            a.nibbles[m].push(nibble);
            for position in positions {
                let (v, bits) = value(m, start + position);
                a.dense[m][start + position] = v;
                a.stored[m].push(bits);
            }
        }
    }
    a
}

/// The metadata cells: lane `l`'s four columns from the metadata's, the nibbles in column
/// `selector` (f16, tf32) or from column 0 (8-bit); the others 0, which is no meaningful
/// metadata.
fn metadata(input: Input, a: &SparseA, selector: usize) -> Vec<u8> {
    let mut cells = vec![0u32; M * 4];
    for m in 0..M {
        for (c, &nibble) in a.nibbles[m].iter().enumerate() {
            let (lane, bit) = input.metadata_bit(m, c * input.chunk());
            let column = selector + bit / 32;
            cells[lane * 4 + column] |= nibble << (bit % 32);
        }
    }
    cells.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// The shared-memory image: the stored A (32 bytes a row) and B (`b(n, k)`, 64 bytes a row),
/// both K-major without swizzling (core matrices of 8 rows of 16 bytes, 8-row groups 128
/// bytes apart, 16-byte columns 2048 (A) and 512 (B) apart).
fn image(input: Input, a: &SparseA, b: &dyn Fn(usize, usize) -> u32) -> Vec<u8> {
    let size = input.bytes();
    let mut image = vec![0u8; IMAGE];
    let mut put = |at: usize, bits: u32| {
        image[at..at + size].copy_from_slice(&bits.to_le_bytes()[..size]);
    };
    for (m, row) in a.stored.iter().enumerate() {
        for (s, &bits) in row.iter().enumerate() {
            let byte = s * size;
            put(
                (m / 8) * 128 + (m % 8) * 16 + (byte / 16) * 2048 + byte % 16,
                bits,
            );
        }
    }
    for n in 0..N {
        for k in 0..input.depth() {
            let byte = k * size;
            let at = (n / 8) * 128 + (n % 8) * 16 + (byte / 16) * 512 + byte % 16;
            put(B_BASE + at, b(n, k));
        }
    }
    image
}

/// A shared-memory descriptor (Table 40): start, LBO, SBO `>> 4` at bits 0, 16, 32, the fixed
/// 0b001 at 46-48.
fn descriptor(start: usize, lbo: usize, sbo: usize) -> u64 {
    (start as u64 >> 4) | (lbo as u64 >> 4) << 16 | (sbo as u64 >> 4) << 32 | 1 << 46
}

/// Runs `mma_sp` and returns D (row-major words), or the launch's error.
fn run(input: Input, image: &mut [u8], meta: &mut [u8], idesc: u32) -> Result<Vec<u32>, String> {
    let source = SPARSE.replace("kind::f16", input.kind());
    let module = Module::load(&source, &Options::default()).expect("the kernel loads");
    let mut out = vec![0u8; M * N * 4];
    module
        .launch(
            "mma_sp",
            [1, 1, 1],
            [128, 1, 1],
            &mut [
                Arg::Buffer(image),
                Arg::Buffer(&mut out),
                Arg::Buffer(meta),
                Arg::U32(idesc),
                Arg::U64(descriptor(0, 2048, 128)),
                Arg::U64(descriptor(B_BASE, 512, 128)),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    Ok(out
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

fn a_value(m: usize, k: usize) -> i32 {
    ((m * 7 + k * 3) % 9) as i32 - 4
}

fn b_value(n: usize, k: usize) -> i32 {
    ((n * 5 + k * 11) % 7) as i32 - 3
}

/// The product of the dense A and B in exact integers against the kernel's D.
fn check(input: Input, selector: u32) {
    let a = sparse_a(input, &|m, k| (a_value(m, k), input.encode(a_value(m, k))));
    let mut image = image(input, &a, &|n, k| input.encode(b_value(n, k)));
    let mut meta = metadata(input, &a, selector as usize);
    let got = run(input, &mut image, &mut meta, input.idesc(selector)).expect("it runs");
    for m in 0..M {
        for n in 0..N {
            let sum: i32 = (0..input.depth())
                .map(|k| a.dense[m][k] * b_value(n, k))
                .sum();
            let want = match input {
                Input::S8 => sum as u32,
                _ => (sum as f32).to_bits(),
            };
            assert_eq!(got[m * N + n], want, "D({m}, {n}) for {input:?}");
        }
    }
}

#[test]
fn sparse_f16_and_bf16_expand_a_from_its_metadata() {
    check(Input::F16, 0);
    check(Input::Bf16, 0);
}

#[test]
fn sparse_tf32_i8_and_e4m3_expand_a_from_its_metadata() {
    check(Input::Tf32, 0);
    check(Input::S8, 0);
    check(Input::E4m3, 0);
}

#[test]
fn the_sparsity_selector_picks_the_metadata_column() {
    // The other three columns hold 0, no meaningful metadata: reading one traps.
    check(Input::F16, 2);
    check(Input::Tf32, 3);
}

#[test]
fn undefined_metadata_and_a_missing_sparse_bit_trap() {
    let input = Input::F16;
    let a = sparse_a(input, &|m, k| (a_value(m, k), input.encode(a_value(m, k))));
    let mut image = image(input, &a, &|n, k| input.encode(b_value(n, k)));
    // Column 1 holds nothing: selector 1 reads 0b0000 (undefined).
    let mut meta = metadata(input, &a, 0);
    let error = run(input, &mut image, &mut meta, input.idesc(1)).expect_err("it traps");
    assert!(error.contains("sparsity metadata"), "{error}");
    // `.sp` with a dense instruction descriptor (bit 2 clear).
    let error = run(input, &mut image, &mut meta, input.idesc(0) & !4).expect_err("it traps");
    assert!(error.contains("bit 2"), "{error}");
    // .kind::i8 takes selector 0 only ("must be 0 for .kind::i8 and .kind::f8f6f4").
    let input = Input::S8;
    let a = sparse_a(input, &|m, k| (a_value(m, k), input.encode(a_value(m, k))));
    let mut image = self::image(input, &a, &|n, k| input.encode(b_value(n, k)));
    let mut meta = metadata(input, &a, 0);
    let error = run(input, &mut image, &mut meta, input.idesc(1)).expect_err("it traps");
    assert!(error.contains("must be 0"), "{error}");
}

#[test]
fn an_inexact_sparse_sum_is_the_fused_step_of_mma_sim() {
    // Row m keeps, in order, 4096, 3 (chunk 0) and 0.25 eight times (chunks 1-4), the rest
    // stored zeros; B is 4096 at the column of the first kept element, 1 elsewhere. The exact
    // sum is 2^24 + 3 + 2. MMA-Sim's Blackwell `tcgen05mma` (`nv_fused_dot_add`, 25 fraction
    // bits): every product `sa sb 2^(ea + eb)` is truncated at 2^(max - 25) with max = 24
    // (4096 x 4096), so 3 (1.5 x 2^1) stays and each 0.25 (2^-2) is dropped; the sum 2^24 + 3
    // rounds toward zero to the f32 2^24 + 2 (round-to-nearest of the exact sum: 2^24 + 4).
    let input = Input::F16;
    let (one, three, quarter, big) = (0x3c00, 0x4200, 0x3400, 0x6c00);
    let first = std::cell::RefCell::new(vec![usize::MAX; M]);
    let count = std::cell::RefCell::new(vec![0usize; M]);
    let a = sparse_a(input, &|m, k| {
        let index = count.borrow()[m];
        count.borrow_mut()[m] += 1;
        if index == 0 {
            first.borrow_mut()[m] = k;
        }
        match index {
            0 => (4096, big),
            1 => (3, three),
            2..=9 => (0, quarter),
            _ => (0, 0),
        }
    });
    let first = first.into_inner();
    for row in &first {
        assert!(*row < 4, "the first kept element is in chunk 0");
    }
    // All rows' first kept element must share B's column: use rows whose pattern starts at
    // column 0 (patterns 0b0100, 0b1000, 0b1100), and B = 4096 at column 0.
    let mut image = image(input, &a, &|_, k| if k == 0 { big } else { one });
    let mut meta = metadata(input, &a, 0);
    let got = run(input, &mut image, &mut meta, input.idesc(0)).expect("it runs");
    for m in (0..M).filter(|&m| first[m] == 0) {
        for n in 0..N {
            assert_eq!(
                f32::from_bits(got[m * N + n]),
                16_777_218.0,
                "D({m}, {n}) (exact 16777221)"
            );
        }
    }
}
