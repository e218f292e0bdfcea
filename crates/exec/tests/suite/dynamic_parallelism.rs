//! CUDA Dynamic Parallelism (docs/executor.md, "Dynamic parallelism") on the nvcc kernels of
//! `ptx-samples/cuda/cdp.cu` (`-rdc=true`, sm_90; `ptx-samples/regen.sh`), through the library
//! API. Expected values are computed here on the host from the kernels' source and the CUDA
//! Programming Guide's ordering rules (work of one stream runs in order, a grid completes only
//! after its children, a tail launch runs after the grid's other work); the error codes and
//! strings are `driver_types.h`'s and NVIDIA's `libcudart`'s.

use std::path::{Path, PathBuf};

use ptxsim_exec::Outcome;
use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};
use ptxsim_exec::launches::MAX_NESTING_DEPTH;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn source() -> String {
    std::fs::read_to_string(repo().join("ptx-samples/nvcc/cdp.sm_90.ptx")).expect("the sample")
}

fn module() -> Module {
    Module::load(&source(), &Options::default()).expect("the sample loads")
}

fn ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The line (1-based) of the first line after the kernel `entry`'s header that contains
/// `text`.
fn line_in(entry: &str, text: &str) -> u32 {
    let source = source();
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with(".visible .entry") && l.contains(entry))
        .expect("the kernel");
    let at = lines[start..]
        .iter()
        .position(|l| l.contains(text))
        .expect("the text");
    (start + at + 1) as u32
}

#[test]
fn every_thread_launches_a_child_over_its_slice() {
    let (grid, block, n) = (2u32, 3u32, 5usize);
    let threads = (grid * block) as usize;
    let mut out = vec![0u8; 4 * threads * n];
    let report = module()
        .launch(
            "_Z7fan_outPii",
            [grid, 1, 1],
            [block, 1, 1],
            &mut [Arg::Buffer(&mut out), Arg::S32(n as i32)],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let expected: Vec<i32> = (0..threads)
        .flat_map(|slot| (0..n).map(move |t| 100 * slot as i32 + t as i32))
        .collect();
    assert_eq!(ints(&out), expected);
    // The parent's 2 CTAs and one CTA per child.
    assert_eq!(report.ctas, 2 + threads as u64);
}

/// The same kernel with the launch functions called by the names without `__cudaCDP2`, as
/// libNVVM's PTX calls them (cuda-samples' 7_libNVVM device-side-launch), which NVIDIA's
/// `cuda_device_runtime_api.h` defines as the `__cudaCDP2` ones: the same children.
#[test]
fn the_launch_functions_run_by_their_unprefixed_names_too() {
    let text = source()
        .replace("__cudaCDP2GetParameterBufferV2", "cudaGetParameterBufferV2")
        .replace("__cudaCDP2LaunchDeviceV2", "cudaLaunchDeviceV2");
    assert!(!text.contains("__cudaCDP2LaunchDeviceV2") && text.contains("cudaLaunchDeviceV2"));
    let module = Module::load(&text, &Options::default()).expect("the module loads");
    let (grid, block, n) = (2u32, 3u32, 5usize);
    let threads = (grid * block) as usize;
    let mut out = vec![0u8; 4 * threads * n];
    module
        .launch(
            "_Z7fan_outPii",
            [grid, 1, 1],
            [block, 1, 1],
            &mut [Arg::Buffer(&mut out), Arg::S32(n as i32)],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let expected: Vec<i32> = (0..threads)
        .flat_map(|slot| (0..n).map(move |t| 100 * slot as i32 + t as i32))
        .collect();
    assert_eq!(ints(&out), expected);
}

#[test]
fn stream_order_children_before_later_work_and_tail_launches_last() {
    let mut log = vec![0u8; 4 * 16];
    module()
        .launch(
            "_Z8orderingPi",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut log)],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let log = ints(&log);
    // append(1, depth 1) and its child append(10) complete before append(2) starts (same
    // stream); the named stream's append(3) may run at any point, here in launch order; the
    // tail launch append(9) after all of them.
    assert_eq!(&log[..6], &[5, 1, 10, 2, 3, 9]);
}

#[test]
fn recursion_to_the_maximum_depth_runs_and_one_more_is_a_located_error() {
    let depth = MAX_NESTING_DEPTH as usize;
    let mut out = vec![0xffu8; 4 * (depth + 2)];
    module()
        .launch(
            "_Z7recursePiii",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out), Arg::S32(0), Arg::S32(depth as i32)],
            &LaunchOptions::default(),
        )
        .expect("24 levels of nesting run");
    let out = ints(&out);
    assert_eq!(&out[..=depth], (0..=depth as i32).collect::<Vec<_>>());
    assert_eq!(out[depth + 1], -1);

    let mut out = vec![0u8; 4 * (depth + 2)];
    let error = module()
        .launch(
            "_Z7recursePiii",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out), Arg::S32(0), Arg::S32(1000)],
            &LaunchOptions::default(),
        )
        .expect_err("a runaway recursion fails");
    let Error::Run {
        message, location, ..
    } = &error
    else {
        panic!("a run error: {error}");
    };
    assert!(message.contains("nesting depth 24"), "{message}");
    assert!(
        message.contains("cudaErrorLaunchMaxDepthExceeded"),
        "{message}"
    );
    // The launch's call (the line before the callee's name).
    assert_eq!(
        location.line,
        line_in("_Z7recursePiii", "__cudaCDP2LaunchDeviceV2,") - 1
    );
}

#[test]
fn device_runtime_calls_memory_errors_and_strings() {
    let mut out = vec![0u8; 4 * 16];
    let mut text = vec![0u8; 128];
    module()
        .launch(
            "_Z13runtime_callsPiPc",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut out), Arg::Buffer(&mut text)],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let out = ints(&out);
    // cudaMalloc, cudaMemcpyAsync, cudaMemsetAsync: cudaSuccess; the launch of 2048 threads a
    // block: cudaErrorInvalidConfiguration (9), peeked, taken, then cudaSuccess; cudaFree of
    // the block: cudaSuccess.
    assert_eq!(&out[..7], &[0, 0, 0, 9, 9, 0, 0]);
    // The copy of 7, 14, 21, 28, then fill(50) over the first two (same stream, in order);
    // the memset's 0xff bytes.
    assert_eq!(&out[8..14], &[50, 51, 21, 28, -1, -1]);
    let end = text.iter().position(|&b| b == 0).unwrap();
    assert_eq!(
        std::str::from_utf8(&text[..end]).unwrap(),
        "invalid configuration argument|cudaErrorInvalidConfiguration"
    );
}

#[test]
fn children_print_after_their_parent_in_launch_order() {
    let report = module()
        .launch(
            "_Z13parent_printsv",
            [1, 1, 1],
            [2, 1, 1],
            &mut [],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    assert_eq!(
        String::from_utf8(report.printed_bytes()).unwrap(),
        "parent 0\nparent 1\nchild 0\nchild 1\n"
    );
}

#[test]
fn a_failing_child_fails_the_launch_at_its_instruction() {
    let error = module()
        .launch(
            "_Z18launches_bad_childv",
            [1, 1, 1],
            [1, 1, 1],
            &mut [],
            &LaunchOptions::default(),
        )
        .expect_err("the child stores through NULL");
    let Error::Run {
        message,
        location,
        outcome,
        ..
    } = &error
    else {
        panic!("a run error: {error}");
    };
    assert!(matches!(outcome, Some(Outcome::Trapped { .. })), "{error}");
    assert!(message.contains("_Z9bad_childPi"), "{message}");
    assert_eq!(location.line, line_in("_Z9bad_childPi", "st.global"));
}

#[test]
fn the_driver_path_runs_children_in_lent_memory() {
    use ptxsim_exec::memory::DeviceMemory;
    let module = module();
    let mut memory = DeviceMemory::allocations();
    let mut globals = module.globals();
    let n = 4usize;
    let buffer = memory.allocate("out", 4 * 2 * n as u64).unwrap();
    let mut params = buffer.to_le_bytes().to_vec();
    params.extend((n as i32).to_le_bytes());
    let mut memories = [&mut memory, &mut globals];
    module
        .launch_in(
            "_Z7fan_outPii",
            [1, 1, 1],
            [2, 1, 1],
            &params,
            &mut memories,
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let mut out = vec![0u8; 4 * 2 * n];
    memory.read(buffer, &mut out).unwrap();
    assert_eq!(ints(&out), [0, 1, 2, 3, 100, 101, 102, 103]);
}
