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

use super::tcgen05::{B_BASE, IMAGE, Input, M, N, a_value, b_value, descriptor};

/// `mma_sp(image, out, meta, idesc, a_desc, b_desc)`: the kernel's comment.
const SPARSE: &str = include_str!("tcgen05_kernels/sparse.ptx");

/// Elements to a chunk: "1:2" for `.kind::tf32`, "2:4" for the others (9.7.16.10.8).
fn chunk(input: Input) -> usize {
    if input == Input::Tf32 { 2 } else { 4 }
}

/// The instruction descriptor (Table 42) of [`Input::idesc`] with bit 2 (sparse) and the
/// sparsity selector in bits 0-1. [`Input::depth`] (64 bytes of a row of B) is the sparse K:
/// twice the dense K (Table 39).
fn sparse_idesc(input: Input, selector: u32) -> u32 {
    input.idesc(false, M as u32) | 1 << 2 | selector
}

/// The tensor-memory (lane, bit) of the metadata of element `k` of row `m` (bits counted
/// along the lane from the metadata's column), as CUTLASS's `tmem_e_frg` lays out M = 128:
/// 16-bit types the atom `((8,2,8),(16,2)):((1,2048,16),(128,8))` of one bit per element,
/// tf32 `((8,2,8),(8,2)):((1,1024,16),(128,8))` of two bits per element, 8-bit types
/// `(128,64):(1,128)` of one bit per element; an address `v` is lane `v % 128`, element
/// `v / 128` along the lane.
fn metadata_bit(input: Input, m: usize, k: usize) -> (usize, usize) {
    let (m0, m1, m2) = (m % 8, (m / 8) % 2, m / 16);
    match input {
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
        for c in 0..depth / chunk(input) {
            let start = c * chunk(input);
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

/// The kernel's `cells`, twelve words a lane: the metadata's four columns, the nibbles in
/// column `selector` (f16, tf32) or from column 0 (8-bit), the others 0, which is no
/// meaningful metadata; then the stored A of row `lane` in eight cells, its bytes in order
/// from the low bits (the dense form's A in tensor memory, as docs/tensor-cores.md assumes).
fn cells(input: Input, a: &SparseA, selector: usize) -> Vec<u8> {
    let mut cells = vec![0u32; M * 12];
    for m in 0..M {
        for (c, &nibble) in a.nibbles[m].iter().enumerate() {
            let (lane, bit) = metadata_bit(input, m, c * chunk(input));
            let column = selector + bit / 32;
            cells[lane * 12 + column] |= nibble << (bit % 32);
        }
        let size = input.bytes();
        for (s, &bits) in a.stored[m].iter().enumerate() {
            let bit = 8 * s * size;
            cells[m * 12 + 4 + bit / 32] |= bits << (bit % 32);
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

/// Runs `mma_sp` and returns D (row-major words), or the launch's error.
fn run(
    input: Input,
    image: &mut [u8],
    (cells, a_tmem): (&mut [u8], bool),
    idesc: u32,
) -> Result<Vec<u32>, String> {
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
                Arg::Buffer(cells),
                Arg::U32(idesc),
                Arg::U64(descriptor(0, 2048, 128, 0)),
                Arg::U64(descriptor(B_BASE, 512, 128, 0)),
                Arg::U32(u32::from(a_tmem)),
            ],
            &LaunchOptions::default(),
        )
        .map_err(|error| error.to_string())?;
    Ok(out
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

/// Runs the small-integer tiles ([`a_value`] kept where the patterns say, [`b_value`]) with
/// the metadata in column `selector`, the instruction descriptor `idesc` and A from shared
/// memory or (`a_tmem`) tensor memory; returns the sparse A and the run's D or error.
fn run_tiles(
    input: Input,
    (selector, idesc): (u32, u32),
    a_tmem: bool,
) -> (SparseA, Result<Vec<u32>, String>) {
    let a = sparse_a(input, &|m, k| (a_value(m, k), input.encode(a_value(m, k))));
    let mut image = image(input, &a, &|n, k| input.encode(b_value(n, k)));
    let mut cells = cells(input, &a, selector as usize);
    let result = run(input, &mut image, (&mut cells, a_tmem), idesc);
    (a, result)
}

/// The product of the dense A and B in exact integers against the kernel's D.
fn check(input: Input, selector: u32, a_tmem: bool) {
    let (a, got) = run_tiles(input, (selector, sparse_idesc(input, selector)), a_tmem);
    let got = got.expect("it runs");
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
    check(Input::F16, 0, false);
    check(Input::Bf16, 0, false);
}

#[test]
fn sparse_tf32_i8_and_e4m3_expand_a_from_its_metadata() {
    check(Input::Tf32, 0, false);
    check(Input::S8, 0, false);
    check(Input::E4m3, 0, false);
}

#[test]
fn the_sparsity_selector_picks_the_metadata_column() {
    // The other three columns hold 0, no meaningful metadata: reading one traps.
    check(Input::F16, 2, false);
    check(Input::Tf32, 3, false);
}

#[test]
fn a_sparse_a_in_tensor_memory_gives_the_same_product() {
    // The stored half of A in tensor memory, row m in lane m, packed as the dense form reads
    // an A there.
    check(Input::F16, 0, true);
    check(Input::Tf32, 1, true);
    check(Input::S8, 0, true);
}

#[test]
fn undefined_metadata_and_a_missing_sparse_bit_trap() {
    let trap = |input, selector, idesc| {
        run_tiles(input, (selector, idesc), false)
            .1
            .expect_err("it traps")
    };
    // Column 1 holds nothing: selector 1 reads 0b0000 (undefined).
    let error = trap(Input::F16, 0, sparse_idesc(Input::F16, 1));
    assert!(error.contains("sparsity metadata"), "{error}");
    // `.sp` with a dense instruction descriptor (bit 2 clear).
    let error = trap(Input::F16, 0, sparse_idesc(Input::F16, 0) & !4);
    assert!(error.contains("bit 2"), "{error}");
    // .kind::i8 takes selector 0 only ("must be 0 for .kind::i8 and .kind::f8f6f4").
    let error = trap(Input::S8, 0, sparse_idesc(Input::S8, 1));
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
    let mut cells = cells(input, &a, 0);
    let got = run(
        input,
        &mut image,
        (&mut cells, false),
        sparse_idesc(input, 0),
    )
    .expect("it runs");
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
