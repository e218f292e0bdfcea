//! CUTLASS 3's sm_90a GEMM kernels, as nvcc compiles them, launched as CUTLASS's device adapter
//! launches them: the kernel's `Params` block (made by CUTLASS's host code,
//! `scripts/hopper/cutlass-gemm.sh`) with the device pointers and tensor maps of this test's
//! buffers, the grid, cluster and shared memory CUTLASS asks for. The inputs are small
//! integers, so every sum is exact and a host loop gives the product bit for bit.

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
fn f16(v: i64) -> u16 {
    let magnitude = [0u16, 0x3c00, 0x4000, 0x4200, 0x4400][v.unsigned_abs() as usize];
    if v < 0 { magnitude | 0x8000 } else { magnitude }
}

fn numbers(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_u64().expect("a number"))
        .collect()
}

/// Runs the GEMM of `name` (`ptx-samples/cutlass/NAME.sm_90a.ptx` and `NAME.params.json`):
/// D (M x N, f32, row-major) = A (M x K, f16, row-major) * B (K x N, f16, column-major) + C,
/// with the inputs of `scripts/hopper/cutlass_gemm.cu`. Returns D's bits and the host's.
fn run_gemm(name: &str) -> (Vec<u32>, Vec<u32>) {
    let directory = repo().join("ptx-samples/cutlass");
    let source = std::fs::read_to_string(directory.join(format!("{name}.sm_90a.ptx")))
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

    // The inputs of cutlass_gemm.cu's a_at, b_at, c_at.
    let a = |i: usize, l: usize| ((i * 7 + l * 3) % 9) as i64 - 4;
    let b = |l: usize, j: usize| ((l * 5 + j * 11) % 7) as i64 - 3;
    let c = |i: usize, j: usize| ((i + 2 * j) % 5) as i64 - 2;
    let a_bytes: Vec<u8> = (0..m * k)
        .flat_map(|x| f16(a(x / k, x % k)).to_le_bytes())
        .collect();
    // Column-major: column j holds B[0..K][j].
    let b_bytes: Vec<u8> = (0..n * k)
        .flat_map(|x| f16(b(x % k, x / k)).to_le_bytes())
        .collect();
    let c_bytes: Vec<u8> = (0..m * n)
        .flat_map(|x| (c(x / n, x % n) as f32).to_le_bytes())
        .collect();

    let mut memory = DeviceMemory::allocations();
    let mut globals = module.globals();
    let mut buffers = Vec::new();
    for (label, bytes) in [
        ("A", &a_bytes),
        ("B", &b_bytes),
        ("C", &c_bytes),
        ("D", &vec![0u8; m * n * 4]),
    ] {
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
    let mut expected = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let sum: i64 = c(i, j) + (0..k).map(|l| a(i, l) * b(l, j)).sum::<i64>();
            expected.push((sum as f32).to_bits());
        }
    }
    (got, expected)
}

#[test]
fn the_cutlass_cooperative_warp_specialized_gemm_multiplies_exactly() {
    // CollectiveBuilder with KernelTmaWarpSpecializedCooperative: 128 x 128 x 64 tiles, a
    // 2 x 1 x 1 cluster (B multicast to both CTAs), 4 stages of TMA loads on mbarriers, one
    // producer and two consumer warpgroups (setmaxnreg), wgmma m64n128k16 f32 += f16 * f16,
    // the TMA epilogue (C loaded and D stored through shared memory by TMA).
    // 256 x 128 x 512: 8 K tiles pass the 4 stages twice.
    let (got, expected) = run_gemm("gemm_tma_ws_cooperative");
    let wrong = got.iter().zip(&expected).filter(|(g, e)| g != e).count();
    assert_eq!(wrong, 0, "{wrong} of {} elements differ", expected.len());
}

#[test]
fn the_cutlass_pingpong_warp_specialized_gemm_multiplies_exactly() {
    // KernelTmaWarpSpecializedPingpong: 64 x 128 x 64 tiles, a 1 x 2 x 1 cluster (A multicast
    // to both CTAs), a persistent grid of two CTAs (CUTLASS told of 2 SMs) that walk the 16
    // tiles of 256 x 256 x 256, the two consumer warpgroups taking alternate tiles, their
    // mainloops and epilogues ordered by named barriers.
    let (got, expected) = run_gemm("gemm_tma_ws_pingpong");
    let wrong = got.iter().zip(&expected).filter(|(g, e)| g != e).count();
    assert_eq!(wrong, 0, "{wrong} of {} elements differ", expected.len());
}
