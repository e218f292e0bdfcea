//! CUTLASS's GEMM kernels, as nvcc compiles them, launched as CUTLASS's device adapter
//! launches them: the kernel's `Params` block (made by CUTLASS's host code,
//! `scripts/hopper/cutlass-gemm.sh` for sm_90a, `scripts/blackwell/cutlass-sm100.sh` for
//! sm_100a) with the device pointers and tensor maps of this test's buffers, the grid, cluster
//! and shared memory CUTLASS asks for. The inputs are small integers (and the scale factors
//! powers of two), so every sum is exact and a host loop gives the product bit for bit.

use std::path::PathBuf;

use ptxsim_exec::api::{LaunchOptions, Module, Options};
use ptxsim_exec::memory::DeviceMemory;
use ptxsim_exec::tensor_map::TensorMap;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// f16 of the integers -4..=4: 0, 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 4.0 = 0x4400
/// (IEEE 754 binary16: bias 15, 10 fraction bits).
fn f16(v: i64) -> Vec<u8> {
    let magnitude = [0u16, 0x3c00, 0x4000, 0x4200, 0x4400][v.unsigned_abs() as usize];
    (if v < 0 { magnitude | 0x8000 } else { magnitude })
        .to_le_bytes()
        .to_vec()
}

/// E4M3 of the integers -4..=4 (OCP FP8: bias 7, 3 fraction bits): 1.0 = 0x38, 2.0 = 0x40,
/// 3.0 = 0x44, 4.0 = 0x48, the sign in bit 7.
fn e4m3(v: i64) -> Vec<u8> {
    let magnitude = [0u8, 0x38, 0x40, 0x44, 0x48][v.unsigned_abs() as usize];
    vec![if v < 0 { magnitude | 0x80 } else { magnitude }]
}

fn numbers(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_u64().expect("a number"))
        .collect()
}

/// A GEMM sample: `ptx-samples/DIRECTORY/NAME.TARGET.ptx` and `NAME.params.json`,
/// D (M x N, f32, row-major) = A (M x K, row-major) * B (K x N, column-major) + C with the
/// inputs of the program that made it, A and B `element`s.
struct Sample {
    directory: &'static str,
    name: &'static str,
    target: &'static str,
    element: fn(i64) -> Vec<u8>,
    /// MXFP8: a ue8m0 factor per 32 elements of K of each row of A and column of B.
    block_scaled: bool,
}

/// The elements of K one scale factor covers (`mx_float8_t`: 32).
const SF_VECTOR: usize = 32;

/// The exponents of the scale factors of `scripts/blackwell/cutlass_sm100.cu` (`-DMXFP8`):
/// row `m` of A and column `n` of B, block `b` of K.
fn sfa_exponent(m: usize, block: usize) -> i32 {
    ((m + 3 * block) % 4) as i32 - 1
}
fn sfb_exponent(n: usize, block: usize) -> i32 {
    ((2 * n + block) % 3) as i32 - 1
}

/// The scale factors of `rows` rows (of A, or columns of B) as CUTLASS's `Sm1xxBlkScaledConfig`
/// lays them out in global memory (`SfKMajorAtom`, `((32,4),(32,4)):((16,4),(0,1))`: 512-byte
/// atoms of 128 rows and 4 blocks of K, row `r` at `16 (r % 32) + 4 (r / 32)`, block `b` at
/// `b`; the atoms K-first, `tile_to_shape` with `Step<_2,_1,_3>`): the ue8m0 byte `127 + e`.
fn scale_factor_bytes(rows: usize, k: usize, exponent: fn(usize, usize) -> i32) -> Vec<u8> {
    let k_atoms = (k / SF_VECTOR).div_ceil(4);
    let mut bytes = vec![0u8; 512 * k_atoms * rows.div_ceil(128)];
    for row in 0..rows {
        for block in 0..k / SF_VECTOR {
            let atom = block / 4 + k_atoms * (row / 128);
            let at = 512 * atom + 16 * (row % 32) + 4 * ((row / 32) % 4) + block % 4;
            bytes[at] = u8::try_from(127 + exponent(row, block)).expect("a ue8m0 byte");
        }
    }
    bytes
}

/// Runs the GEMM of `sample`; returns D's bits and the host's.
fn run_gemm(sample: &Sample) -> (Vec<u32>, Vec<u32>) {
    let directory = repo().join("ptx-samples").join(sample.directory);
    let name = sample.name;
    let source = std::fs::read_to_string(directory.join(format!("{name}.{}.ptx", sample.target)))
        .expect("the sample is there");
    let launch: Value = serde_json::from_str(
        &std::fs::read_to_string(directory.join(format!("{name}.params.json")))
            .expect("the launch is there"),
    )
    .expect("the launch is JSON");
    let module = Module::load(&source, &Options::default()).expect("the sample loads");
    let entry = module.kernels().next().expect("a kernel").to_string();
    let size = |key: &str| launch[key].as_u64().expect("a size") as usize;
    let (m, n, k) = (size("m"), size("n"), size("k"));

    // The inputs of the programs' a_at, b_at, c_at.
    let a = |i: usize, l: usize| ((i * 7 + l * 3) % 9) as i64 - 4;
    let b = |l: usize, j: usize| ((l * 5 + j * 11) % 7) as i64 - 3;
    let c = |i: usize, j: usize| ((i + 2 * j) % 5) as i64 - 2;
    let a_bytes: Vec<u8> = (0..m * k)
        .flat_map(|x| (sample.element)(a(x / k, x % k)))
        .collect();
    // Column-major: column j holds B[0..K][j].
    let b_bytes: Vec<u8> = (0..n * k)
        .flat_map(|x| (sample.element)(b(x % k, x / k)))
        .collect();
    let c_bytes: Vec<u8> = (0..m * n)
        .flat_map(|x| (c(x / n, x % n) as f32).to_le_bytes())
        .collect();
    let (sfa, sfb) = if sample.block_scaled {
        (
            scale_factor_bytes(m, k, sfa_exponent),
            scale_factor_bytes(n, k, sfb_exponent),
        )
    } else {
        (Vec::new(), Vec::new())
    };

    let mut memory = DeviceMemory::allocations();
    let mut globals = module.globals();
    let mut buffers = Vec::new();
    for (label, bytes) in [
        ("A", &a_bytes),
        ("B", &b_bytes),
        ("C", &c_bytes),
        ("D", &vec![0u8; m * n * 4]),
        ("SFA", &sfa),
        ("SFB", &sfb),
    ] {
        if bytes.is_empty() {
            continue;
        }
        let address = memory.allocate(label, bytes.len() as u64).expect("room");
        memory.write(address, bytes).expect("inside the buffer");
        buffers.push(address);
    }
    // Tensor i was at `placeholder + (i << 32)` when CUTLASS made the parameters.
    let placeholder = launch["placeholder"].as_u64().expect("the placeholder");
    let relocate = |address: u64| -> Option<u64> {
        let tensor = address.checked_sub(placeholder)? >> 32;
        let offset = address & 0xffff_ffff;
        Some(buffers.get(usize::try_from(tensor).ok()?)? + offset)
    };
    let hex = launch["params"].as_str().expect("the parameters");
    let mut params: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    for word in params.chunks_exact_mut(8) {
        let value = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        if let Some(address) = relocate(value) {
            word.copy_from_slice(&address.to_le_bytes());
        }
    }
    let maps = launch["maps"].as_array().expect("the maps");
    assert!(!maps.is_empty(), "CUTLASS made no tensor map");
    for map in maps {
        let field = |key: &str| map[key].as_u64().expect("a field");
        let fill = |key: &str| {
            let mut out = [0u64; 5];
            for (slot, value) in out.iter_mut().zip(numbers(&map[key])) {
                *slot = value;
            }
            out
        };
        let (dim, strides, boxes, element_strides) = (
            fill("dim"),
            fill("strides"),
            fill("box"),
            fill("element_strides"),
        );
        let encoded = TensorMap {
            data_type: field("data_type") as u32,
            rank: field("rank") as u32,
            global_address: relocate(field("address")).expect("a tensor's address"),
            global_dim: dim,
            global_strides: [strides[0], strides[1], strides[2], strides[3]],
            box_dim: boxes.map(|v| v as u32),
            element_strides: element_strides.map(|v| v as u32),
            interleave: field("interleave") as u32,
            swizzle: field("swizzle") as u32,
            l2_promotion: field("l2_promotion") as u32,
            oob_fill: field("oob_fill") as u32,
            ..TensorMap::default()
        };
        encoded
            .validate()
            .expect("the driver library would encode it");
        let offset = usize::try_from(map["offset"].as_i64().expect("found in the parameters"))
            .expect("found in the parameters");
        params[offset..offset + 128].copy_from_slice(&encoded.encode());
    }

    let dim3 = |key: &str| -> [u32; 3] {
        let v = numbers(&launch[key]);
        [v[0] as u32, v[1] as u32, v[2] as u32]
    };
    let options = LaunchOptions {
        dynamic_shared: launch["shared_bytes"].as_u64().expect("shared bytes"),
        cluster: Some(dim3("cluster")),
        ..LaunchOptions::default()
    };
    module
        .launch_in(
            &entry,
            dim3("grid"),
            dim3("block"),
            &params,
            &mut [&mut memory, &mut globals],
            &options,
        )
        .expect("the GEMM runs");
    let mut d = vec![0u8; m * n * 4];
    memory.read(buffers[3], &mut d).expect("D is there");
    let got = d
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect();
    // 2^e exactly, e in -1..=1 (the factors of cutlass_sm100.cu).
    let scale = |e: i32| f64::from(1u32 << (e + 1)) / 2.0;
    let mut expected = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            // Every term a multiple of 1/4 below 2^20: exact in f64, and the sum in f32.
            let mut sum = c(i, j) as f64;
            for l in 0..k {
                let factors = if sample.block_scaled {
                    let block = l / SF_VECTOR;
                    scale(sfa_exponent(i, block)) * scale(sfb_exponent(j, block))
                } else {
                    1.0
                };
                sum += (a(i, l) * b(l, j)) as f64 * factors;
            }
            expected.push((sum as f32).to_bits());
        }
    }
    (got, expected)
}

/// Runs `sample` and checks D bit for bit.
fn check(sample: &Sample) {
    let (got, expected) = run_gemm(sample);
    let wrong = got.iter().zip(&expected).filter(|(g, e)| g != e).count();
    assert_eq!(wrong, 0, "{wrong} of {} elements differ", expected.len());
}

/// A CUTLASS 3 sm_90a sample (`scripts/hopper/cutlass_gemm.cu`: f16 A and B).
fn hopper(name: &'static str) -> Sample {
    Sample {
        directory: "cutlass",
        name,
        target: "sm_90a",
        element: f16,
        block_scaled: false,
    }
}

#[test]
fn the_cutlass_cooperative_warp_specialized_gemm_multiplies_exactly() {
    // CollectiveBuilder with KernelTmaWarpSpecializedCooperative: 128 x 128 x 64 tiles, a
    // 2 x 1 x 1 cluster (B multicast to both CTAs), 4 stages of TMA loads on mbarriers, one
    // producer and two consumer warpgroups (setmaxnreg), wgmma m64n128k16 f32 += f16 * f16,
    // the TMA epilogue (C loaded and D stored through shared memory by TMA).
    // 256 x 128 x 512: 8 K tiles pass the 4 stages twice.
    check(&hopper("gemm_tma_ws_cooperative"));
}

#[test]
fn the_cutlass_pingpong_warp_specialized_gemm_multiplies_exactly() {
    // KernelTmaWarpSpecializedPingpong: 64 x 128 x 64 tiles, a 1 x 2 x 1 cluster (A multicast
    // to both CTAs), a persistent grid of two CTAs (CUTLASS told of 2 SMs) that walk the 16
    // tiles of 256 x 256 x 256, the two consumer warpgroups taking alternate tiles, their
    // mainloops and epilogues ordered by named barriers.
    check(&hopper("gemm_tma_ws_pingpong"));
}

#[test]
fn the_cutlass_sm100_1sm_tcgen05_gemm_multiplies_exactly() {
    // scripts/blackwell/cutlass_sm100.cu: the sm100 CollectiveBuilder with KernelScheduleAuto
    // and no cluster (MainloopSm100TmaUmmaWarpSpecialized, SM100_MMA_F16BF16_SS 128 x 128):
    // 128 x 128 x 64 tiles, 6 stages of 128-byte-swizzled TMA loads, warp 0 issuing
    // tcgen05.mma.cta_group::1.kind::f16 (f32 in tensor memory) and committing to the
    // mbarriers, cluster launch control as the tile scheduler, the epilogue warps reading
    // tensor memory (tcgen05.ld.32x32b.x16) and storing D by TMA.
    // 256 x 128 x 512: two tiles, 8 K tiles each (the stages wrap).
    check(&Sample {
        directory: "cutlass-sm100",
        name: "gemm_1sm",
        target: "sm_100a",
        element: f16,
        block_scaled: false,
    });
}

#[test]
fn the_cutlass_sm100_2sm_tcgen05_gemm_multiplies_exactly() {
    // scripts/blackwell/cutlass_sm100.cu -DTWO_SM: 256 x 128 x 64 tiles over a 2 x 1 x 1
    // cluster (KernelScheduleAuto picks the 2SM schedule, SM100_MMA_F16BF16_2x1SM_SS): the even
    // CTA issues tcgen05.mma.cta_group::2 over both CTAs' shared and tensor memories, both
    // CTAs' TMA loads (.cta_group::2) complete on the even CTA's mbarrier, which the odd CTA
    // reaches by clearing bit 24 of its own shared address (`Sm100MmaPeerBitMask`: the GPU's
    // shared-address layout, docs/clusters.md "Addresses").
    // 512 x 256 x 256: 4 tiles on 8 CTAs, 4 K tiles each.
    check(&Sample {
        directory: "cutlass-sm100",
        name: "gemm_2sm",
        target: "sm_100a",
        element: f16,
        block_scaled: false,
    });
}

#[test]
fn the_cutlass_sm100_block_scaled_mxfp8_gemm_multiplies_exactly() {
    // scripts/blackwell/cutlass_sm100.cu -DMXFP8: OpClassBlockScaledTensorOp with
    // mx_float8_t<float_e4m3_t> A and B (MainloopSm100TmaUmmaWarpSpecializedBlockScaled):
    // 128 x 128 x 128 tiles, the ue8m0 scale factors loaded by TMA (4-D maps) and copied into
    // tensor memory by tcgen05.cp.32x128b.warpx4, tcgen05.mma.kind::mxf8f6f4.block_scale.
    // 256 x 128 x 512 with factors 2^-1..2^1 per row, column and block of 32.
    check(&Sample {
        directory: "cutlass-sm100",
        name: "gemm_mxfp8",
        target: "sm_100a",
        element: e4m3,
        block_scaled: true,
    });
}

#[test]
fn the_cutlass_sm100_2sm_block_scaled_mxfp8_gemm_multiplies_exactly() {
    // scripts/blackwell/cutlass_sm100.cu -DMXFP8 -DTWO_SM: 256 x 128 x 128 tiles over a 2 x 1 x 1
    // cluster (SM100_MMA_MXF8F6F4_2x1SM_SS): each CTA copies its rows' and all of B's columns'
    // scale factors into its tensor memory (tcgen05.cp.cta_group::2.32x128b.warpx4), the even
    // CTA issues tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.
    // 512 x 256 x 256 with factors 2^-1..2^1 per row, column and block of 32.
    check(&Sample {
        directory: "cutlass-sm100",
        name: "gemm_mxfp8_2sm",
        target: "sm_100a",
        element: e4m3,
        block_scaled: true,
    });
}
