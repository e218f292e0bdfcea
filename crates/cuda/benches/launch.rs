//! Launch overhead: what a caller that sends the same PTX for every launch (tinygrad, other
//! test suites launching thousands of tiny kernels) pays besides the simulation itself, through
//! both drop-ins' Rust layers (`ptxsim_ocelot::run` under `ptx_run`; `cuda::driver` under
//! `cuModuleLoadData`, `cuLaunchKernel`). The module is nvcc's `warp.sm_90.ptx` (11 KB, 5
//! kernels); its `warp_sum_down` runs on one warp (32 threads, 1 CTA). `docs/tinygrad.md`
//! ("Launch overhead") has the numbers.
//!
//! - `first_*`: a module never seen before (a unique comment appended), so it is parsed and
//!   checked, then launched;
//! - `again_*`: the same text again (the content caches), then launched;
//! - `launch_only`: a kernel of a module loaded before;
//! - `trivial_*`: a kernel of one `ret` on 1 thread, the fixed cost of a launch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cuda::driver::{self, Launch};
use ptxsim_exec::memory::HostMemory;

fn main() {
    divan::main();
}

/// nvcc's warp-level kernels, about 11 KB of PTX.
const WARP: &str = include_str!("../../../ptx-samples/nvcc/warp.sm_90.ptx");
/// The kernel launched from it.
const KERNEL: &str = "warp_sum_down";
/// One thread, one instruction.
const TRIVIAL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
                       .visible .entry nothing()\n{\n\tret;\n}\n";

/// The text of a module the caches have not seen: `source` and a unique comment.
fn unique(source: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{source}\n// {}\n", NEXT.fetch_add(1, Ordering::Relaxed))
}

// ---- ptx_run (crates/ocelot) ----

/// Host memory for `ptx_run`'s pointer arguments: one page at [`HOST_BASE`], as a process's
/// memory would be (the C ABI reads the caller's memory instead).
#[derive(Debug)]
struct Page(Mutex<Vec<u8>>);

const HOST_BASE: u64 = 0x1000_0000;

impl HostMemory for Page {
    fn read(&self, address: u64, out: &mut [u8]) -> bool {
        let page = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(start) = address.checked_sub(HOST_BASE).map(|s| s as usize) else {
            return false;
        };
        match page.get(start..start + out.len()) {
            Some(bytes) => {
                out.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    fn write(&self, address: u64, bytes: &[u8]) -> bool {
        let mut page = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(start) = address.checked_sub(HOST_BASE).map(|s| s as usize) else {
            return false;
        };
        match page.get_mut(start..start + bytes.len()) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }
}

fn host() -> Arc<dyn HostMemory> {
    let mut page = vec![0u8; 4096];
    for (i, value) in page[..128].chunks_mut(4).enumerate() {
        value.copy_from_slice(&(i as f32).to_le_bytes());
    }
    Arc::new(Page(Mutex::new(page)))
}

/// `warp_sum_down(in, out, 32)` through `ptx_run`'s Rust layer (the first kernel of `source`).
fn ptx_run(source: &str, host: &Arc<dyn HostMemory>) {
    let args = [HOST_BASE, HOST_BASE + 1024, 32];
    let launch = ptxsim_ocelot::Launch {
        source,
        args: &args,
        block: [32, 1, 1],
        grid: [1, 1, 1],
        shared_mem_size: 0,
    };
    ptxsim_ocelot::run(&launch, Arc::clone(host)).expect("warp_sum_down runs");
}

#[divan::bench]
fn first_ptx_run(bencher: divan::Bencher) {
    let host = host();
    bencher
        .with_inputs(|| unique(WARP))
        .bench_local_values(|source| ptx_run(&source, &host));
}

#[divan::bench]
fn again_ptx_run(bencher: divan::Bencher) {
    let host = host();
    ptx_run(WARP, &host);
    bencher.bench_local(|| ptx_run(WARP, &host));
}

#[divan::bench]
fn trivial_ptx_run(bencher: divan::Bencher) {
    let host = host();
    let launch = ptxsim_ocelot::Launch {
        source: TRIVIAL,
        args: &[],
        block: [1, 1, 1],
        grid: [1, 1, 1],
        shared_mem_size: 0,
    };
    bencher.bench_local(|| ptxsim_ocelot::run(&launch, Arc::clone(&host)).expect("runs"));
}

// ---- the driver library (crates/cuda) ----

/// The input and output allocations, made once in the context of the first bench that asks.
struct Device {
    context: u64,
    input: u64,
    output: u64,
}

fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    let device = DEVICE.get_or_init(|| {
        driver::init(0).expect("cuInit");
        let context = driver::context_create(0, 0).expect("cuCtxCreate");
        let input = driver::memory_allocate(128).expect("cuMemAlloc");
        let output = driver::memory_allocate(4).expect("cuMemAlloc");
        let values: Vec<u8> = (0..32).flat_map(|i| (i as f32).to_le_bytes()).collect();
        driver::copy_to_device(input, &values).expect("cuMemcpyHtoD");
        Device {
            context,
            input,
            output,
        }
    });
    // The current context is per thread; divan may run a bench on another thread.
    driver::context_set_current(device.context).expect("cuCtxSetCurrent");
    device
}

/// `cuModuleLoadData` and `cuModuleGetFunction`.
fn load(text: &str) -> (u64, u64) {
    let module = driver::module_load(text.as_bytes()).expect("cuModuleLoadData");
    let function = driver::module_get_function(module, KERNEL).expect("cuModuleGetFunction");
    (module, function)
}

/// `cuLaunchKernel` of `warp_sum_down(input, output, 32)`.
fn launch(device: &Device, function: u64) {
    let mut params = Vec::with_capacity(20);
    params.extend(device.input.to_le_bytes());
    params.extend(device.output.to_le_bytes());
    params.extend(32u32.to_le_bytes());
    driver::launch(&Launch {
        function,
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        stream: 0,
        params: &params,
        cooperative: false,
        cluster: None,
    })
    .expect("cuLaunchKernel");
}

#[divan::bench]
fn first_driver(bencher: divan::Bencher) {
    let device = device();
    bencher
        .with_inputs(|| unique(WARP))
        .bench_local_values(|text| {
            let (module, function) = load(&text);
            launch(device, function);
            driver::module_unload(module).expect("cuModuleUnload");
        });
}

#[divan::bench]
fn again_driver(bencher: divan::Bencher) {
    let device = device();
    load(WARP);
    bencher.bench_local(|| {
        let (module, function) = load(WARP);
        launch(device, function);
        driver::module_unload(module).expect("cuModuleUnload");
    });
}

#[divan::bench]
fn launch_only_driver(bencher: divan::Bencher) {
    let device = device();
    let (_, function) = load(WARP);
    bencher.bench_local(|| launch(device, function));
}

#[divan::bench]
fn trivial_driver(bencher: divan::Bencher) {
    device();
    let module = driver::module_load(TRIVIAL.as_bytes()).expect("cuModuleLoadData");
    let function = driver::module_get_function(module, "nothing").expect("cuModuleGetFunction");
    bencher.bench_local(|| {
        driver::launch(&Launch {
            function,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
            stream: 0,
            params: &[],
            cooperative: false,
            cluster: None,
        })
        .expect("cuLaunchKernel")
    });
}
