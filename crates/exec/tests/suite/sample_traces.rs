//! The project's regression net: the trace (text form, `docs/trace-format.md`) of every
//! runnable sample, snapshotted, so any change of what an instruction computes shows up in
//! review (`cargo insta review`).
//!
//! * `tests/exec/*.ptx`: one thread, with the file's `// entry:` and `// max-steps:`
//!   annotations (see `files.rs`); parameters get zeros (a 256-byte buffer for a pointer).
//! * `ptx-samples/nvcc/*.ptx`: every case of `tests/kernels/manifest.json` whose kernel the file
//!   holds, with the case's arguments and buffers as they are but a tiny launch, so snapshots
//!   stay small: one CTA of [`BLOCK`] threads, and the element count `n` (the case's `s32:`
//!   argument equal to its `n`) lowered to [`N`]; grid-stride loops then run a second
//!   iteration in thread 0.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions};
use ptxsim_exec::texture;
use ptxsim_trace::{self as trace, Format};

/// Threads in the one CTA of an nvcc sample's launch.
const BLOCK: u32 = 2;
/// The element count the nvcc samples run with.
const N: u64 = 3;
/// The most trace lines a case keeps in its snapshot (a kernel whose loop runs over a whole
/// row with two threads, `rmsnorm_row`, would write 18,000); the rest is cut with a line that
/// says how many were left out.
const MAX_CASE_LINES: usize = 5_000;

/// The launches of the device-side runtime samples (`ptx-samples/cuda/devrt.cu`): entry and
/// arguments.
const RUNTIME_CASES: &[(&str, &[&str])] = &[
    ("printf_returns", &["zeros:24", "s32:2"]),
    ("heap_sum", &["s32:3", "zeros:16"]),
    ("sleep_clock", &["zeros:24"]),
];

/// The dynamic-parallelism sample (`ptx-samples/cuda/cdp.cu`; its launches of kernels run
/// through the library and are checked in `crates/exec/tests/suite/dynamic_parallelism.rs`): the
/// child kernel `fill`, which launches nothing, as a trace of one kernel.
const DYNAMIC_PARALLELISM_CASES: &[(&str, &[&str])] = &[("_Z4fillPii", &["zeros:8", "s32:7"])];

/// The cooperative launches of the grid-barrier samples (`ptx-samples/cuda/coop.cu`; results
/// are checked in `crates/exec/tests/suite/cooperative.rs`): entry and arguments, on a grid of
/// [`COOPERATIVE_GRID`] CTAs of [`BLOCK`] threads, so that the trace shows the CTAs taking
/// turns at the grid barrier.
const COOPERATIVE_CASES: &[(&str, &[&str])] = &[
    ("coop_two_phase", &["zeros:16", "zeros:16", "u32:3"]),
    ("coop_reduce", &["zeros:16", "zeros:8", "zeros:4", "u32:4"]),
    ("coop_ranks", &["zeros:128"]),
];

/// CTAs in the launches of [`COOPERATIVE_CASES`].
const COOPERATIVE_GRID: u32 = 2;

/// The launches of the texture and surface sample (`ptx-samples/cuda/texture.cu`), against
/// [`texture_table`]: entry and arguments (handle 1 is a texture, 2 and 3 are surfaces).
const TEXTURE_CASES: &[(&str, &[&str])] = &[
    ("tex_fetch_1d", &["u64:1", "zeros:16", "zeros:64", "s32:2"]),
    ("tex_sample_2d", &["u64:1", "zeros:16", "zeros:64", "s32:2"]),
    ("tex_gather_2d", &["u64:1", "zeros:16", "zeros:64", "s32:2"]),
    ("surf_scale_2d", &["u64:2", "u64:3", "s32:2", "s32:1"]),
];

/// A 2x2 `.f32` texture (1, 2; 3, 4), point sampled and clamped, and two 2x1 `.f32` surfaces.
fn texture_table() -> std::sync::Arc<texture::TextureTable> {
    use std::sync::Arc;
    let format = texture::Format {
        channels: 1,
        ty: texture::ChannelType::F32,
    };
    let array = |values: &[f32], extent| {
        let array = texture::CudaArray::new(format, extent, false, false).expect("array");
        array.write(|data| {
            for (slot, value) in data.chunks_mut(4).zip(values) {
                slot.copy_from_slice(&value.to_le_bytes());
            }
        });
        Arc::new(array)
    };
    let mut table = texture::TextureTable::new();
    table.insert(
        1,
        texture::TextureObject::Texture(texture::Texture {
            resource: texture::Resource::Array(array(&[1.0, 2.0, 3.0, 4.0], [2, 2, 0])),
            address_modes: [texture::AddressMode::Clamp; 3],
            filter: texture::FilterMode::Point,
            read_mode: texture::ReadMode::ElementType,
            normalized_coordinates: false,
            border_color: [0.0; 4],
        }),
    );
    table.insert(
        2,
        texture::TextureObject::Surface(array(&[1.5, -2.0], [2, 1, 0])),
    );
    table.insert(
        3,
        texture::TextureObject::Surface(array(&[0.0, 0.0], [2, 1, 0])),
    );
    Arc::new(table)
}

/// `text` with at most [`MAX_CASE_LINES`] lines.
fn cut(text: String) -> String {
    let total = text.lines().count();
    if total <= MAX_CASE_LINES {
        return text;
    }
    let mut kept: String = text
        .lines()
        .take(MAX_CASE_LINES)
        .flat_map(|line| [line, "\n"])
        .collect();
    kept.push_str(&format!(
        "# ... {} more lines (cut for the snapshot)\n",
        total - MAX_CASE_LINES
    ));
    kept
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs one launch and returns its trace in the text form.
fn trace_text(
    program: &ptxsim_exec::Program,
    block: u32,
    max_steps: u64,
    arguments: Vec<Argument>,
    dynamic_shared: u64,
    textures: Option<std::sync::Arc<texture::TextureTable>>,
) -> String {
    launch_trace(
        program,
        1,
        block,
        max_steps,
        arguments,
        dynamic_shared,
        false,
        textures,
    )
}

/// Runs one launch of `ctas` CTAs (cooperative or not) and returns its trace in the text form.
#[allow(clippy::too_many_arguments)]
fn launch_trace(
    program: &ptxsim_exec::Program,
    ctas: u32,
    block: u32,
    max_steps: u64,
    arguments: Vec<Argument>,
    dynamic_shared: u64,
    cooperative: bool,
    textures: Option<std::sync::Arc<texture::TextureTable>>,
) -> String {
    let (mut device, _) = grid::prepare(program, [ctas, 1, 1], [block, 1, 1], max_steps, arguments)
        .unwrap_or_else(|error| panic!("{}: {error}", program.entry));
    if let Some(textures) = textures {
        device.set_textures(textures);
    }
    device
        .set_dynamic_shared(dynamic_shared)
        .unwrap_or_else(|error| panic!("{}: {error}", program.entry));
    if cooperative {
        grid::make_cooperative(&mut device)
            .unwrap_or_else(|error| panic!("{}: {error}", program.entry));
    }
    let mut out = String::new();
    let mut sink = |line: &str| {
        let parsed = trace::parse_json_line(line).expect("trace lines parse");
        out.push_str(&Format::Text.write(&parsed));
        out.push('\n');
    };
    let options = GridOptions {
        host_threads: 1,
        ..GridOptions::default()
    };
    grid::run_grid(&device, options, Some(&mut sink), None);
    out
}

/// The tensor-copy sample (`ptx-samples/cuda/tma.cu`; results are checked in
/// `crates/exec/tests/suite/tma.rs`): `tma_double` on one CTA over a 32 x 8 tensor of words
/// (at the first buffer's address), both maps swizzling 128 B.
fn tma_case(source: &str) -> String {
    use ptxsim_exec::memory::{GLOBAL_BASE, next_buffer};
    use ptxsim_exec::tensor_map::TensorMap;
    let tensor = 32 * 8 * 4u64;
    let map = |global_address| TensorMap {
        data_type: 2,
        rank: 2,
        global_address,
        global_dim: [32, 8, 0, 0, 0],
        global_strides: [128, 0, 0, 0],
        box_dim: [32, 8, 0, 0, 0],
        element_strides: [1, 1, 0, 0, 0],
        swizzle: 3,
        ..TensorMap::default()
    };
    let input: Vec<u8> = (0..tensor as u32 / 4)
        .flat_map(|i| (i * 3 + 1).to_le_bytes())
        .collect();
    let arguments = vec![
        Argument::Bytes(map(GLOBAL_BASE).encode().to_vec()),
        Argument::Bytes(
            map(next_buffer(Some((GLOBAL_BASE, tensor))))
                .encode()
                .to_vec(),
        ),
        Argument::Buffer(input),
        Argument::Buffer(vec![0; tensor as usize]),
        Argument::Scalar {
            ty: ptxsim_isa::Type::U32,
            bits: tensor,
        },
    ];
    let program = ptxsim_exec::load(source, Some("tma_double")).expect("tma_double loads");
    let mut out = format!(
        "# --entry tma_double --grid 1 --block {BLOCK}: two 32x8 .u32 maps (128-byte swizzle) \
         over the two buffers\n"
    );
    out.push_str(&cut(trace_text(
        &program, BLOCK, 100_000, arguments, 0, None,
    )));
    out
}

fn annotation<'a>(source: &'a str, key: &str) -> Option<&'a str> {
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("//"))
        .find_map(|comment| comment.trim().strip_prefix(key))
        .map(str::trim)
}

#[test]
fn hand_written_samples() {
    insta::glob!("../../../../tests/exec", "*.ptx", |path| {
        let source = std::fs::read_to_string(path).expect("readable");
        let entry = annotation(&source, "entry:");
        let max_steps = annotation(&source, "max-steps:").map_or(1000, |n| n.parse().unwrap());
        let program = ptxsim_exec::load(&source, entry)
            .unwrap_or_else(|error| panic!("{}: {error:?}", path.display()));
        // Parameters, where a file has them, get zeros: a 256-byte buffer for a pointer.
        let (specs, arguments): (Vec<String>, Vec<Argument>) = program
            .params
            .iter()
            .map(|param| {
                if param.pointer_like {
                    ("zeros:256".to_string(), Argument::Buffer(vec![0; 256]))
                } else {
                    let scalar = Argument::Scalar {
                        ty: param.ty,
                        bits: 0,
                    };
                    (format!("{}:0", param.ty.name()), scalar)
                }
            })
            .unzip();
        let mut out = format!("# --entry {} --max-steps {max_steps}", program.entry);
        for spec in &specs {
            out.push_str(&format!(" --arg {spec}"));
        }
        out.push('\n');
        out.push_str(&trace_text(&program, 1, max_steps, arguments, 0, None));
        insta::assert_snapshot!("exec", out);
    });
}

#[test]
fn nvcc_samples() {
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("tests/kernels/manifest.json")).expect("manifest"),
    )
    .expect("manifest parses");
    let cases = manifest["cases"].as_array().expect("cases");
    insta::glob!("../../../../ptx-samples/nvcc", "*.ptx", |path| {
        let name = format!(
            "ptx-samples/nvcc/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let source = std::fs::read_to_string(path).expect("readable");
        let mut out = String::new();
        for case in cases {
            let holds = case["ptx"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p.as_str() == Some(name.as_str()));
            if !holds {
                continue;
            }
            let n = case["n"].as_u64().unwrap();
            let specs: Vec<String> = case["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    let a = a.as_str().unwrap();
                    if a == format!("s32:{n}") {
                        format!("s32:{N}")
                    } else {
                        a.to_string()
                    }
                })
                .collect();
            let arguments = specs
                .iter()
                .map(|spec| match ArgumentSpec::parse(spec).expect("argument") {
                    ArgumentSpec::Scalar { ty, bits } => Argument::Scalar { ty, bits },
                    ArgumentSpec::File(file) => {
                        Argument::Buffer(std::fs::read(repo().join(file)).expect("buffer file"))
                    }
                    ArgumentSpec::Zeros(bytes) => Argument::Buffer(vec![0; bytes as usize]),
                })
                .collect();
            let entry = case["entry"].as_str().unwrap();
            let program = ptxsim_exec::load(&source, Some(entry))
                .unwrap_or_else(|error| panic!("{name} {entry}: {error:?}"));
            let dynamic_shared = case["dynamic_shared"].as_u64().unwrap_or(0);
            let shared = if dynamic_shared > 0 {
                format!(" --dynamic-shared {dynamic_shared}")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "# case {}: --entry {entry} --grid 1 --block {BLOCK}{shared} --arg {}\n",
                case["name"].as_str().unwrap(),
                specs.join(" --arg ")
            ));
            out.push_str(&cut(trace_text(
                &program,
                BLOCK,
                100_000,
                arguments,
                dynamic_shared,
                None,
            )));
        }
        // The device-side runtime samples (devrt.cu) have no manifest case (their outputs are
        // printf text, an assertion, heap addresses: crates/exec/tests/suite/device_runtime.rs checks
        // them); these launches snapshot their traces.
        let launches = if name.starts_with("ptx-samples/nvcc/devrt.") {
            RUNTIME_CASES
        } else if name.starts_with("ptx-samples/nvcc/texture.") {
            TEXTURE_CASES
        } else if name.starts_with("ptx-samples/nvcc/cdp.") {
            DYNAMIC_PARALLELISM_CASES
        } else {
            &[]
        };
        {
            for (entry, specs) in launches {
                let arguments = specs
                    .iter()
                    .map(|spec| match ArgumentSpec::parse(spec).expect("argument") {
                        ArgumentSpec::Scalar { ty, bits } => Argument::Scalar { ty, bits },
                        ArgumentSpec::Zeros(bytes) => Argument::Buffer(vec![0; bytes as usize]),
                        ArgumentSpec::File(_) => unreachable!("no files"),
                    })
                    .collect();
                let program = ptxsim_exec::load(&source, Some(entry))
                    .unwrap_or_else(|error| panic!("{name} {entry}: {error:?}"));
                out.push_str(&format!(
                    "# --entry {entry} --grid 1 --block {BLOCK} --arg {}\n",
                    specs.join(" --arg ")
                ));
                let textures = name
                    .starts_with("ptx-samples/nvcc/texture.")
                    .then(texture_table);
                out.push_str(&cut(trace_text(
                    &program, BLOCK, 100_000, arguments, 0, textures,
                )));
            }
        }
        if name.starts_with("ptx-samples/nvcc/tma.") {
            out.push_str(&tma_case(&source));
        }
        if name.starts_with("ptx-samples/nvcc/coop.") {
            for (entry, specs) in COOPERATIVE_CASES {
                let arguments = specs
                    .iter()
                    .map(|spec| match ArgumentSpec::parse(spec).expect("argument") {
                        ArgumentSpec::Scalar { ty, bits } => Argument::Scalar { ty, bits },
                        ArgumentSpec::Zeros(bytes) => Argument::Buffer(vec![0; bytes as usize]),
                        ArgumentSpec::File(_) => unreachable!("no files"),
                    })
                    .collect();
                let program = ptxsim_exec::load(&source, Some(entry))
                    .unwrap_or_else(|error| panic!("{name} {entry}: {error:?}"));
                out.push_str(&format!(
                    "# --entry {entry} --grid {COOPERATIVE_GRID} --block {BLOCK} --cooperative \
                     --arg {}\n",
                    specs.join(" --arg ")
                ));
                out.push_str(&cut(launch_trace(
                    &program,
                    COOPERATIVE_GRID,
                    BLOCK,
                    100_000,
                    arguments,
                    0,
                    true,
                    None,
                )));
            }
        }
        assert!(
            !out.is_empty(),
            "{name}: no manifest case runs a kernel of it"
        );
        insta::assert_snapshot!("nvcc", out);
    });
}
