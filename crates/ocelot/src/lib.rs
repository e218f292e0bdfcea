//! gpuocelot's `ptx_run` on ptxsim: a drop-in for `libgpuocelot.so` as tinygrad's mock GPU
//! loads it (`OCELOT_PATH=.../libptxsim_ocelot.so`).
//!
//! ```c
//! void ptx_run(const char *source, int n_args, void *args[],
//!              int blck_x, int blck_y, int blck_z,
//!              int grid_x, int grid_y, int grid_z, int shared_mem_size);
//! const char *ptx_last_error(void);
//! ```
//!
//! `ptx_run` checks `source` (cached by content), runs its first `.entry` over the grid and
//! returns when every thread has finished. `args[i]` is the value of parameter `i` widened to
//! 64 bits (cut to the parameter's size); a pointer parameter holds a host address, and the
//! kernel's global memory is the host's memory (see [`ffi`] for how, and what the caller
//! promises). A failure (a check error, a trap, a memory fault, an unsupported instruction)
//! is printed on stderr with its line and column; `ptx_last_error()` then returns the message
//! (NULL after a launch that succeeded), valid until the thread's next `ptx_run`. Nothing
//! unwinds into C.
//!
//! Environment: `PTXSIM_TARGET=sm_XX` checks and runs every module as if its `.target` were
//! that architecture; `PTXSIM_MAX_STEPS=N` sets the step limit of each thread.
//!
//! Everything but the C boundary is safe Rust ([`run`] here); the `unsafe` code is the one
//! module [`ffi`].
#![warn(missing_docs)]

pub mod ffi;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use ptxsim_exec::api::{Arg, LaunchOptions, LaunchReport, Module, Options};
use ptxsim_exec::memory::HostMemory;
use ptxsim_isa::Target;

/// One `ptx_run` call, its arguments converted from C.
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    /// The PTX text.
    pub source: &'a str,
    /// Each parameter's value widened to 64 bits.
    pub args: &'a [u64],
    /// Threads per CTA, x y z.
    pub block: [i32; 3],
    /// CTAs, x y z.
    pub grid: [i32; 3],
    /// Bytes of dynamic shared memory per CTA.
    pub shared_mem_size: i32,
}

/// Modules checked so far, by their text: tinygrad sends the same PTX for every launch of a
/// kernel. At most [`CACHE_ENTRIES`]; the cache starts over when full.
static CACHE: LazyLock<Mutex<HashMap<String, Arc<Module>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The most modules [`CACHE`] holds.
pub const CACHE_ENTRIES: usize = 256;

fn options() -> Result<Options, String> {
    let target = match std::env::var("PTXSIM_TARGET") {
        Ok(name) if !name.is_empty() => {
            Some(Target::parse(&name).map_err(|error| format!("PTXSIM_TARGET=`{name}`: {error}"))?)
        }
        _ => None,
    };
    Ok(Options { target })
}

fn module(source: &str) -> Result<Arc<Module>, String> {
    let cached = CACHE
        .lock()
        .map_err(|_| "the module cache is poisoned".to_string())?
        .get(source)
        .cloned();
    if let Some(module) = cached {
        return Ok(module);
    }
    let module = Arc::new(
        Module::load(source, &options()?)
            .map_err(|error| format!("the module does not check:\n{error}"))?,
    );
    let mut cache = CACHE
        .lock()
        .map_err(|_| "the module cache is poisoned".to_string())?;
    if cache.len() >= CACHE_ENTRIES {
        cache.clear();
    }
    cache.insert(source.to_string(), Arc::clone(&module));
    Ok(module)
}

/// Runs one `ptx_run` launch with `host` as the global memory behind pointer arguments.
/// Returns the error message (located where the module gives a location) on failure.
pub fn run(launch: &Launch<'_>, host: Arc<dyn HostMemory>) -> Result<LaunchReport, String> {
    let module = module(launch.source)?;
    let entry = module
        .kernels()
        .next()
        .ok_or("the module has no kernel (`.entry` with a body)")?;
    let dims = |what: &str, d: [i32; 3]| -> Result<[u32; 3], String> {
        let mut out = [0u32; 3];
        for (o, v) in out.iter_mut().zip(d) {
            *o = u32::try_from(v).map_err(|_| format!("{what} dimension {v} is negative"))?;
        }
        Ok(out)
    };
    let block = dims("block", launch.block)?;
    let grid = dims("grid", launch.grid)?;
    let dynamic_shared = u64::try_from(launch.shared_mem_size)
        .map_err(|_| format!("shared_mem_size {} is negative", launch.shared_mem_size))?;
    let mut options = LaunchOptions {
        dynamic_shared,
        host_memory: Some(host),
        ..LaunchOptions::default()
    };
    if let Ok(steps) = std::env::var("PTXSIM_MAX_STEPS") {
        options.max_steps = steps
            .parse()
            .map_err(|_| format!("PTXSIM_MAX_STEPS=`{steps}` is not a number"))?;
    }
    // PTXSIM_ENGINE: the tier that runs the kernel (docs/compiled-tier.md); the module keeps
    // each kernel's compiled code for the next launches of the same source.
    options.compiler =
        ptxsim_jit::JitCompiler::for_engine(ptxsim_jit::Engine::from_env()?.unwrap_or_default());
    let mut args: Vec<Arg<'_>> = launch.args.iter().map(|&bits| Arg::Bits(bits)).collect();
    module
        .launch(entry, grid, block, &mut args, &options)
        .map_err(|error| format!("kernel `{entry}`: {error}"))
}
