//! The tensor-core sample kernels of `tests/mma-kernels/` (an nvcc bf16 GEMM fed by `ldmatrix`,
//! an FP8 e4m3 GEMM with a per-tensor scale and a `cvt.rn.satfinite.e4m3x2.f32` output, a Triton
//! `tl.dot` matmul for sm_80 with `ldmatrix` and `cp.async`, and for sm_90a with
//! `wgmma.mma_async`), run on their inputs and compared
//! byte for byte with what an H100 wrote for the same PTX (`tests/mma-kernels/gpu-h100.bin.xz`,
//! made by `scripts/hardware/mma/session.sh`; see `tests/mma-kernels/README.md`), on a
//! modelled H100 whatever the module's `.target`.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, Argument, GridOptions};

/// Cases ptxsim cannot run yet, with the text its failure must contain (none now: Triton's
/// sm_90a matmul, two `wgmma.mma_async` with 64- and 128-byte swizzled descriptors, runs and is
/// compared like the others). Their GPU bytes are skipped; when one runs, it leaves this list.
const PENDING: &[(&str, &str)] = &[];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mma-kernels")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The launch arguments of a case (`buf:FILE`, `out:BYTES`, `s32:V`, `b64:V`) and which of
/// them are outputs.
fn arguments(case: &serde_json::Value) -> (Vec<Argument>, Vec<usize>) {
    let mut outputs = Vec::new();
    let arguments = case["args"]
        .as_array()
        .expect("args")
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let spec = spec.as_str().expect("an argument is a string");
            let (kind, value) = spec.split_once(':').expect("KIND:VALUE");
            match kind {
                "buf" => Argument::Buffer(read(&format!("data/{value}"))),
                "out" => {
                    outputs.push(index);
                    Argument::Buffer(vec![0; value.parse().expect("a byte count")])
                }
                "s32" => Argument::Scalar {
                    ty: ptxsim_isa::Type::S32,
                    bits: u64::from(value.parse::<i32>().expect("an s32") as u32),
                },
                "b64" => Argument::Scalar {
                    ty: ptxsim_isa::Type::B64,
                    bits: value.parse().expect("a b64"),
                },
                _ => panic!("unknown argument {spec}"),
            }
        })
        .collect();
    (arguments, outputs)
}

#[test]
fn the_tensor_core_samples_equal_the_h100_byte_for_byte() {
    let cases: serde_json::Value =
        serde_json::from_slice(&read("cases.json")).expect("cases.json parses");
    let mut gpu = Vec::new();
    lzma_rs::xz_decompress(&mut read("gpu-h100.bin.xz").as_slice(), &mut gpu)
        .expect("the GPU outputs unpack");
    let mut offset = 0;
    let mut compared = Vec::new();
    for case in cases["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let entry = case["entry"].as_str().expect("entry");
        let dims = |key: &str| -> [u32; 3] {
            let v = case[key].as_array().expect("dimensions");
            [0, 1, 2].map(|i| v[i].as_u64().expect("a dimension") as u32)
        };
        for ptx in case["ptx"].as_array().expect("ptx") {
            let ptx = ptx.as_str().expect("a file name");
            let source = String::from_utf8(read(ptx)).expect("UTF-8");
            let program = ptxsim_exec::load(&source, Some(entry))
                .unwrap_or_else(|e| panic!("{name} {ptx}: {e:?}"));
            let (arguments, outputs) = arguments(case);
            let (mut device, addresses) =
                grid::prepare(&program, dims("grid"), dims("block"), 1_000_000, arguments)
                    .unwrap_or_else(|e| panic!("{name} {ptx}: {e}"));
            let shared = case["dynamic_shared"].as_u64().unwrap_or(0);
            device
                .set_dynamic_shared(shared)
                .unwrap_or_else(|e| panic!("{name} {ptx}: {e}"));
            // The bytes are an H100's, also for the modules built for sm_80: the GPU's tensor
            // cores, not the module's `.target`, decide the rounding (docs/tensor-cores.md).
            device.set_tensor_cores(ptxsim_exec::alu::mma::TensorCores::Hopper);
            let run = grid::run_grid(&device, GridOptions::default(), None, None);
            if let Some(&(_, reason)) = PENDING.iter().find(|(pending, _)| *pending == name) {
                let failure = format!("{:?}", run.failure);
                assert!(failure.contains(reason), "{name} {ptx}: {failure}");
                for index in outputs {
                    let address = addresses[index].expect("an output buffer has an address");
                    offset += device
                        .global
                        .buffer_at(address)
                        .expect("the buffer")
                        .contents()
                        .len();
                }
                continue;
            }
            assert!(run.failure.is_none(), "{name} {ptx}: {:?}", run.failure);
            for index in outputs {
                let address = addresses[index].expect("an output buffer has an address");
                let ours = device
                    .global
                    .buffer_at(address)
                    .expect("the buffer")
                    .contents();
                let theirs = &gpu[offset..offset + ours.len()];
                offset += ours.len();
                let differing = ours.iter().zip(theirs).filter(|(a, b)| a != b).count();
                assert_eq!(
                    differing,
                    0,
                    "{name} {ptx} argument {index}: {differing} of {} bytes differ from the H100",
                    ours.len()
                );
                compared.push(format!("{name} {ptx} {index}"));
            }
        }
    }
    assert_eq!(offset, gpu.len(), "every GPU output was compared");
    assert_eq!(compared.len(), 7, "{compared:?}");
}
