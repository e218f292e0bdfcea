//! The grids that kernels launched (CUDA Dynamic Parallelism, [`crate::launches`]): run after
//! their parent grid has finished, in the order its threads enqueued them, each child followed
//! by its own children, depth first.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::device::Device;
use crate::grid::{self, Failure, GridOptions, GridRun};
use crate::ir::{Location, Program};
use crate::launches::{DeviceRuntime, STREAM_TAIL_LAUNCH, Work, WorkKind, install};
use crate::memory::{GlobalMemory, Words};
use crate::runtime::Heap;
use crate::step::Outcome;

/// What the nested grids of a launch share: the launch's settings.
pub(crate) struct Nest<'o> {
    pub max_steps: u64,
    pub memory_limit: u64,
    pub options: GridOptions,
    pub constants: Option<&'o Arc<Vec<u8>>>,
    pub textures: Option<&'o Arc<crate::texture::TextureTable>>,
    /// The tensor cores the launch models, when not the program's own.
    pub tensor_cores: Option<crate::alu::tensor_cores::TensorCores>,
}

/// Runs what the grid of `device` enqueued (and what that enqueues, depth first) after the
/// grid's own `run`, adding their steps, CTAs and `printf` output to it; the first failure
/// stops everything and is the run's failure. `device`'s global memory and heap are lent to
/// each child grid and given back.
pub(crate) fn run_nested(device: &mut Device<'_>, run: &mut GridRun, nest: &Nest<'_>) {
    if run.failure.is_some() {
        return;
    }
    let work = device.runtime.take_work();
    if work.is_empty() {
        return;
    }
    let mut global = std::mem::take(&mut device.global);
    let mut heap = std::mem::take(&mut device.heap);
    let kernels = device.runtime.kernels;
    let grids = Arc::clone(&device.runtime.grids);
    let depth = device.runtime.depth;
    let failure = run_work(
        work,
        kernels,
        depth,
        &grids,
        &mut global,
        &mut heap,
        run,
        nest,
    );
    device.global = global;
    device.heap = heap;
    if let Some(failure) = failure {
        run.failure = Some(failure);
    }
}

/// Runs `work` of a grid of depth `depth`: every item but the tail launches in order, then the
/// tail launches in order; each child grid's own work right after it.
#[allow(clippy::too_many_arguments)]
fn run_work(
    work: Vec<Work>,
    kernels: &[Program],
    depth: u32,
    grids: &Arc<AtomicU64>,
    global: &mut GlobalMemory,
    heap: &mut Arc<Heap>,
    run: &mut GridRun,
    nest: &Nest<'_>,
) -> Option<Failure> {
    let (tail, other): (Vec<Work>, Vec<Work>) = work
        .into_iter()
        .partition(|w| w.stream == STREAM_TAIL_LAUNCH);
    for item in other.into_iter().chain(tail) {
        let fail = |message: String| Failure {
            cta: item.cta,
            thread: item.thread,
            outcome: Ok(Outcome::Trapped {
                message,
                location: item.location,
            }),
        };
        match &item.kind {
            WorkKind::Copy {
                destination,
                source,
                bytes,
            } => {
                if let Err(message) = copy(global, *destination, *source, *bytes) {
                    return Some(fail(format!("cudaMemcpyAsync in a kernel: {message}")));
                }
            }
            WorkKind::Set {
                destination,
                value,
                bytes,
            } => {
                for i in 0..*bytes {
                    if global
                        .store(destination.wrapping_add(i), 1, u64::from(*value))
                        .is_err()
                    {
                        return Some(fail(format!(
                            "cudaMemsetAsync in a kernel: byte 0x{:x} is not device memory",
                            destination.wrapping_add(i)
                        )));
                    }
                }
            }
            WorkKind::Launch(launch) => {
                let Some(program) = kernels.get(launch.kernel) else {
                    return Some(fail("a launch of an unknown kernel".to_string()));
                };
                let mut child = Device::new_in(
                    program,
                    launch.grid,
                    launch.block,
                    nest.max_steps,
                    std::mem::take(global),
                );
                child.heap = std::mem::take(heap);
                child.runtime = DeviceRuntime::new(kernels, depth + 1, Arc::clone(grids));
                child.set_params(launch.params.clone());
                child.set_memory_limit(nest.memory_limit);
                if let Some(cores) = nest.tensor_cores {
                    child.set_tensor_cores(cores);
                }
                if let Some(constants) = nest.constants {
                    child.set_constants(Arc::clone(constants));
                }
                if let Some(textures) = nest.textures {
                    child.set_textures(Arc::clone(textures));
                }
                if program.uses_heap && child.global.buffer_at(crate::runtime::HEAP_BASE).is_none()
                {
                    child.global.add_at(
                        "malloc heap",
                        crate::runtime::HEAP_BASE,
                        Words::zeros(crate::runtime::HEAP_BYTES),
                    );
                }
                if program.calls_device_runtime() {
                    install(&mut child.global);
                }
                let shaped = child.set_dynamic_shared(launch.dynamic_shared);
                let mut child_run = match shaped {
                    Ok(()) => grid::run_grid(&child, nest.options, None, None),
                    Err(message) => {
                        *global = std::mem::take(&mut child.global);
                        *heap = std::mem::take(&mut child.heap);
                        return Some(fail(format!(
                            "the launch of `{}` from a kernel: {message}",
                            program.entry
                        )));
                    }
                };
                run.steps = run.steps.saturating_add(child_run.steps);
                run.ctas_run = run.ctas_run.saturating_add(child_run.ctas_run);
                let printed = std::mem::take(&mut child_run.printed);
                run.add_printed(printed, child_run.printed_dropped);
                if let Some(failure) = child_run.failure.take() {
                    *global = std::mem::take(&mut child.global);
                    *heap = std::mem::take(&mut child.heap);
                    return Some(in_child(failure, program, depth + 1, item.location));
                }
                let work = child.runtime.take_work();
                *global = std::mem::take(&mut child.global);
                *heap = std::mem::take(&mut child.heap);
                drop(child);
                if let Some(failure) =
                    run_work(work, kernels, depth + 1, grids, global, heap, run, nest)
                {
                    return Some(failure);
                }
            }
        }
    }
    None
}

/// `count` bytes from `source` to `destination`, both in global memory.
fn copy(global: &GlobalMemory, destination: u64, source: u64, count: u64) -> Result<(), String> {
    let mut bytes = Vec::with_capacity(usize::try_from(count.min(1 << 24)).unwrap_or(0));
    for i in 0..count {
        let at = source.wrapping_add(i);
        let byte = global
            .load(at, 1)
            .map_err(|_| format!("byte 0x{at:x} of the source is not device memory"))?;
        bytes.push(byte as u8);
    }
    for (i, byte) in bytes.into_iter().enumerate() {
        let at = destination.wrapping_add(i as u64);
        global
            .store(at, 1, u64::from(byte))
            .map_err(|_| format!("byte 0x{at:x} of the destination is not device memory"))?;
    }
    Ok(())
}

/// A failure of a child grid, its message saying which grid (an assertion keeps the GPU's
/// message).
fn in_child(failure: Failure, program: &Program, depth: u32, launched: Location) -> Failure {
    let context = format!(
        "in grid `{}` (nesting depth {depth}, launched at {}:{})",
        program.entry, launched.line, launched.column
    );
    let outcome = match failure.outcome {
        Ok(Outcome::Trapped { message, location }) => Ok(Outcome::Trapped {
            message: format!("{message} ({context})"),
            location,
        }),
        Err(mut stopped) => {
            stopped.message = format!("{} ({context})", stopped.message);
            Err(stopped)
        }
        other => other,
    };
    Failure { outcome, ..failure }
}
