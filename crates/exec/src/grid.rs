//! Launches: kernel arguments, the grid of CTAs, and running it on the host's cores.
//!
//! CTAs run independently (PTX gives no ordering between CTAs without atomics or fences), so
//! a launch runs batches of CTAs ([`BATCH`], then twice as many each time up to [`MAX_BATCH`];
//! the sizes do not depend on the host) in parallel (rayon) and then handles their results
//! in CTA order: traces are written in CTA order, the first failure is the lowest-numbered
//! CTA's, and a failure stops the launch after its batch. Results therefore do not depend on
//! the number of host threads. A program with `atom`/`red` runs its CTAs one at a time, in
//! order, so that the old values atomics return are the same on every run.
//!
//! Within a CTA, threads run in lockstep ([`Cta::run`]): each step issues the lowest pending
//! instruction for every thread at it; threads that wait at `bar.sync` are released when every
//! unfinished thread has arrived.

use std::fmt;
use std::path::PathBuf;

use ptxsim_isa::{Type, TypeKind};
use rayon::prelude::*;

use crate::budget::{DEFAULT_MEMORY_LIMIT, Footprint};
use crate::device::Device;
use crate::dim::{Dim3, flatten, unflatten};
pub use crate::dim::{MAX_BLOCK, MAX_GRID, MAX_THREADS_PER_CTA, check_shape};
use crate::error::ExecError;
pub use crate::error::LaunchError;
use crate::ir::{Location, Program};
use crate::machine::{Cta, Slice};
use crate::memory::{GRID_WORKSPACE_BYTES, Words};
use crate::occupancy::{CtaResources, SM_COUNT};
use crate::report::Stopped;
use crate::runtime::Printed;
use crate::step::{Outcome, StepRecord};
use crate::tensor_memory::TensorMemory;

/// CTAs run in parallel per batch; a failure stops the launch at the end of its batch. The
/// first batch has this many CTAs; each next one twice as many as the one before, up to
/// [`MAX_BATCH`] (a failure early in a launch stops it soon; long launches synchronise the host
/// threads seldom).
pub const BATCH: u64 = 64;

/// The largest batch of CTAs.
pub const MAX_BATCH: u64 = 256;

/// The issues each CTA of a cooperative launch runs in its turn ([`Cta::run_slice`]): enough
/// that switching CTAs costs little, few enough that a CTA spinning at a grid barrier wastes
/// little of its step limit while the others catch up.
pub const COOPERATIVE_SLICE: u64 = 256;

/// A launch argument as written on the command line: `TYPE:VALUE`, `buf:PATH` or `zeros:N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentSpec {
    /// A scalar: its type and bits.
    Scalar {
        /// The type written.
        ty: Type,
        /// The value's bits (two's complement for negative integers).
        bits: u64,
    },
    /// A global buffer holding a file's bytes.
    File(PathBuf),
    /// A global buffer of `N` zero bytes.
    Zeros(u64),
}

/// The largest buffer `zeros:N` may ask for.
pub const MAX_BUFFER_BYTES: u64 = 1 << 32;

impl ArgumentSpec {
    /// Parses `u8|u16|u32|u64|s8|s16|s32|s64|b8|b16|b32|b64|f32|f64:VALUE`, `buf:PATH` or
    /// `zeros:N`. Integers are decimal or `0x` hex (a leading `-` for signed values); `f32` and
    /// `f64` take decimal floats, `inf`, `nan`, `0fXXXXXXXX` / `0dXXXXXXXXXXXXXXXX` bit patterns
    /// and `0x` hex bit patterns.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((kind, value)) = text.split_once(':') else {
            return Err(format!(
                "`{text}`: expected KIND:VALUE (u32:5, f32:1.5, buf:PATH, zeros:N)"
            ));
        };
        match kind {
            "buf" => {
                if value.is_empty() {
                    return Err("`buf:` needs a path".to_string());
                }
                Ok(ArgumentSpec::File(PathBuf::from(value)))
            }
            "zeros" => {
                let bytes = parse_unsigned(value)
                    .ok_or_else(|| format!("`{text}`: `zeros:N` needs a byte count"))?;
                if bytes > MAX_BUFFER_BYTES {
                    return Err(format!(
                        "`{text}`: at most {MAX_BUFFER_BYTES} bytes per buffer"
                    ));
                }
                Ok(ArgumentSpec::Zeros(bytes))
            }
            _ => {
                let ty = match kind {
                    "u8" | "u16" | "u32" | "u64" | "s8" | "s16" | "s32" | "s64" | "b8" | "b16"
                    | "b32" | "b64" | "f32" | "f64" => Type::from_name(kind),
                    _ => None,
                }
                .ok_or_else(|| {
                    format!(
                        "`{text}`: unknown argument kind `{kind}` (u8..u64, s8..s64, b8..b64, \
                         f32, f64, buf, zeros)"
                    )
                })?;
                let bits = parse_scalar(value, ty).ok_or_else(|| {
                    format!("`{text}`: `{value}` is not a valid .{} value", ty.name())
                })?;
                Ok(ArgumentSpec::Scalar { ty, bits })
            }
        }
    }
}

impl fmt::Display for ArgumentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentSpec::Scalar { ty, bits } => write!(f, "{}:{bits:#x}", ty.name()),
            ArgumentSpec::File(path) => write!(f, "buf:{}", path.display()),
            ArgumentSpec::Zeros(bytes) => write!(f, "zeros:{bytes}"),
        }
    }
}

fn parse_unsigned(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_scalar(text: &str, ty: Type) -> Option<u64> {
    let bits = ty.bits();
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match ty.kind() {
        TypeKind::Float => {
            if let Some(hex) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
                return (ty == Type::F32 && hex.len() == 8)
                    .then(|| u64::from_str_radix(hex, 16).ok())
                    .flatten();
            }
            if let Some(hex) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
                return (ty == Type::F64 && hex.len() == 16)
                    .then(|| u64::from_str_radix(hex, 16).ok())
                    .flatten();
            }
            if text.starts_with("0x") || text.starts_with("0X") {
                return parse_unsigned(text).filter(|v| *v <= mask);
            }
            if ty == Type::F32 {
                text.parse::<f32>().ok().map(|v| u64::from(v.to_bits()))
            } else {
                text.parse::<f64>().ok().map(f64::to_bits)
            }
        }
        TypeKind::Signed => {
            // Hex is a bit pattern (`s8:0xff` is -1); decimal must be in the type's range.
            if text.starts_with("0x") || text.starts_with("0X") {
                return parse_unsigned(text).filter(|v| *v <= mask);
            }
            let (negative, magnitude) = match text.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, text),
            };
            let magnitude = i128::from(magnitude.parse::<u64>().ok()?);
            let value = if negative { -magnitude } else { magnitude };
            let min = -(1i128 << (bits - 1));
            let max = (1i128 << (bits - 1)) - 1;
            (min..=max)
                .contains(&value)
                .then_some((value as u64) & mask)
        }
        _ => parse_unsigned(text).filter(|v| *v <= mask),
    }
}

/// A launch argument with its buffer read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// A scalar of this type.
    Scalar {
        /// The type written.
        ty: Type,
        /// Its bits.
        bits: u64,
    },
    /// A global buffer with these initial bytes.
    Buffer(Vec<u8>),
    /// A global buffer with these initial bytes, already in words (see [`Words::read_from`]).
    Words(Words),
    /// The value of a parameter that is an array (a struct passed by value): exactly its
    /// bytes.
    Bytes(Vec<u8>),
}

impl Argument {
    /// The length in bytes of a buffer argument.
    pub fn buffer_len(&self) -> Option<u64> {
        match self {
            Argument::Scalar { .. } | Argument::Bytes(_) => None,
            Argument::Buffer(bytes) => Some(bytes.len() as u64),
            Argument::Words(words) => Some(words.len()),
        }
    }
}

/// The kernel's parameters as a readable list.
pub fn signature(program: &Program) -> String {
    if program.params.is_empty() {
        return format!("kernel `{}` takes no parameters", program.entry);
    }
    let mut out = format!("kernel `{}` takes:", program.entry);
    for (index, param) in program.params.iter().enumerate() {
        let kind = if param.pointer_like {
            " (a pointer: pass buf:PATH or zeros:N)"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n  {index}: {} .{} ({} bytes){kind}",
            param.name,
            param.ty.name(),
            param.bytes
        ));
    }
    out
}

/// Sets up a launch of `program`: global buffers for the buffer arguments (in order, after
/// the module's `.global` variables) and the kernel parameter space. Returns the device and,
/// per argument, the address of its buffer. The launch's memory must fit in
/// [`DEFAULT_MEMORY_LIMIT`] ([`prepare_within`]).
pub fn prepare<'p>(
    program: &'p Program,
    grid: Dim3,
    block: Dim3,
    max_steps: u64,
    arguments: Vec<Argument>,
) -> Result<(Device<'p>, Vec<Option<u64>>), LaunchError> {
    prepare_within(
        program,
        grid,
        block,
        max_steps,
        arguments,
        DEFAULT_MEMORY_LIMIT,
    )
}

/// Why a scalar `--arg` of type `given` does not suit a parameter of type `param` of the same
/// size: a float value for an integer parameter or an integer value for a float one (`f32:200`
/// for a `.u32` count, whose bits 0x43480000 would be a count of 1.1 billion). Raw bits
/// (`b32:`, `b64:`) and `.b` parameters take any value; signed and unsigned integers mix, as
/// in C.
fn kind_mismatch(given: Type, param: Type) -> Option<&'static str> {
    let float = |ty: Type| ty.kind() == TypeKind::Float;
    let integer = |ty: Type| matches!(ty.kind(), TypeKind::Signed | TypeKind::Unsigned);
    if float(given) && integer(param) {
        Some("a floating-point value")
    } else if integer(given) && float(param) {
        Some("an integer value")
    } else {
        None
    }
}

/// [`prepare`] with a memory limit: a launch whose simulated memory does not fit in
/// `memory_limit` bytes running one CTA at a time is [`LaunchError::Memory`], before anything
/// is allocated (see [`crate::budget`]); the device keeps the limit for
/// [`Device::set_dynamic_shared`] and [`run_grid`].
pub fn prepare_within<'p>(
    program: &'p Program,
    grid: Dim3,
    block: Dim3,
    max_steps: u64,
    arguments: Vec<Argument>,
    memory_limit: u64,
) -> Result<(Device<'p>, Vec<Option<u64>>), LaunchError> {
    check_shape(grid, block)?;
    let error = |message: String| LaunchError::Arguments {
        message,
        signature: signature(program),
    };
    if arguments.len() != program.params.len() {
        return Err(error(format!(
            "kernel `{}` has {} parameter(s) but {} --arg were given",
            program.entry,
            program.params.len(),
            arguments.len()
        )));
    }
    let argument_bytes = arguments
        .iter()
        .filter_map(Argument::buffer_len)
        .fold(0u64, u64::saturating_add);
    Footprint::new(program, block, argument_bytes, 0).check(memory_limit)?;
    let mut device = Device::new(program, grid, block, max_steps);
    device.set_memory_limit(memory_limit);
    let mut params = vec![0u8; usize::try_from(program.param_bytes).unwrap_or(0)];
    let mut addresses = Vec::new();
    for (index, (argument, param)) in arguments.into_iter().zip(&program.params).enumerate() {
        let (bits, written_bytes, address) = match argument {
            Argument::Scalar { ty, bits } => {
                let bytes = u64::from(ty.bits() / 8);
                if bytes != param.bytes {
                    return Err(error(format!(
                        "argument {index} is a {}-byte .{} but parameter {index} `{}` has {} bytes",
                        bytes,
                        ty.name(),
                        param.name,
                        param.bytes
                    )));
                }
                if let Some(message) = kind_mismatch(ty, param.ty) {
                    return Err(error(format!(
                        "argument {index} is {message} but parameter {index} `{}` is .{}: pass \
                         {}:VALUE, or b{}:BITS for the raw bits",
                        param.name,
                        param.ty.name(),
                        param.ty.name(),
                        ty.bits()
                    )));
                }
                (bits, bytes, None)
            }
            Argument::Bytes(bytes) => {
                if bytes.len() as u64 != param.bytes {
                    return Err(error(format!(
                        "argument {index} has {} bytes but parameter {index} `{}` has {}",
                        bytes.len(),
                        param.name,
                        param.bytes
                    )));
                }
                let start = usize::try_from(param.offset).unwrap_or(usize::MAX);
                if let Some(slot) = params.get_mut(start..start.saturating_add(bytes.len())) {
                    slot.copy_from_slice(&bytes);
                }
                addresses.push(None);
                continue;
            }
            Argument::Buffer(_) | Argument::Words(_) => {
                if param.bytes != 8 {
                    return Err(error(format!(
                        "argument {index} is a buffer, but parameter {index} `{}` is a {}-byte \
                         .{}, not a 64-bit pointer",
                        param.name,
                        param.bytes,
                        param.ty.name()
                    )));
                }
                let words = match argument {
                    Argument::Words(words) => words,
                    Argument::Buffer(bytes) => Words::from_bytes(&bytes),
                    Argument::Scalar { .. } | Argument::Bytes(_) => Words::default(),
                };
                let address = device.global.add_words(format!("argument {index}"), words);
                (address, 8, Some(address))
            }
        };
        addresses.push(address);
        let start = usize::try_from(param.offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(written_bytes as usize);
        if let Some(slot) = params.get_mut(start..end) {
            slot.copy_from_slice(&bits.to_le_bytes()[..written_bytes as usize]);
        }
    }
    device.set_params(params);
    Ok((device, addresses))
}

/// The simulated memory of a launch with every CTA resident at once: the launch's own and
/// each CTA's ([`crate::budget`]).
fn resident_bytes(device: &Device<'_>) -> u64 {
    let footprint = device.footprint();
    footprint
        .fixed()
        .saturating_add(footprint.per_cta().saturating_mul(device.ctas()))
}

/// Makes the launch of `device` cooperative ([`Device::set_cooperative`]) after checking that
/// its grid is co-resident: at most [`CtaResources::max_cooperative`] CTAs
/// ([`LaunchError::CooperativeTooLarge`]), and the simulated memory of every CTA at once within
/// the device's memory limit ([`LaunchError::Memory`]). Call it after the device's dynamic
/// shared memory and global memory are set.
pub fn make_cooperative(device: &mut Device<'_>) -> Result<(), LaunchError> {
    let resources = CtaResources::of(
        device.program(),
        device.threads_per_cta(),
        device.dynamic_shared(),
    );
    if device.cluster_ctas() > 1 {
        return Err(LaunchError::Shape(
            "cooperative launches with clusters are not supported".to_string(),
        ));
    }
    let ctas = device.ctas();
    let most = resources.max_cooperative();
    if ctas > most {
        return Err(LaunchError::CooperativeTooLarge {
            ctas,
            most,
            per_sm: resources.active_per_sm(),
            sms: SM_COUNT,
        });
    }
    let needed = resident_bytes(device).saturating_add(GRID_WORKSPACE_BYTES);
    if needed > device.memory_limit() {
        return Err(LaunchError::Memory(format!(
            "a cooperative launch keeps all {ctas} CTAs at once: {needed} bytes of simulated \
             memory, more than the memory limit of {} bytes; raise the limit with \
             --memory-limit if the host has the memory",
            device.memory_limit()
        )));
    }
    device.set_cooperative();
    Ok(())
}

/// Runs the launch of `device` with its CTAs in turns ([`Device::set_interleaved`]) where its
/// kernel may wait for another CTA and the grid could wait so on a GPU: the kernel has atomics
/// or polls global memory ([`Program::polls_global`]: a `.volatile`, `.relaxed` or `.acquire`
/// load; it would otherwise run its CTAs one after another, or on a few host threads, so a CTA
/// spinning on a flag a later CTA sets, or on a barrier of all CTAs made of an atomic counter,
/// as hand-written grid barriers and persistent kernels are, never finishes), the grid is
/// co-resident on the GPU (at most [`CtaResources::max_cooperative`] CTAs, what a program
/// sizes such a grid by: `cudaOccupancyMaxActiveBlocksPerMultiprocessor` x the
/// multiprocessors) and every CTA fits in the memory limit at once. Not for clusters, which
/// run together already, nor for kernels using the device heap or launching kernels, which run
/// their CTAs in order for the addresses and launch order they hand out. Returns whether it
/// did. The results of a kernel that does not wait for other CTAs are the same either way.
pub fn make_interleaved(device: &mut Device<'_>) -> bool {
    let program = device.program();
    if device.interleaved()
        || !(program.has_atomics || program.polls_global)
        || program.uses_heap
        || program.calls_device_runtime()
        || device.cluster_ctas() > 1
    {
        return false;
    }
    let resources = CtaResources::of(program, device.threads_per_cta(), device.dynamic_shared());
    let ctas = device.ctas();
    if ctas < 2 || ctas > resources.max_cooperative() {
        return false;
    }
    if resident_bytes(device) > device.memory_limit() {
        return false;
    }
    device.set_interleaved();
    true
}

/// How to run a grid. The default uses all cores and reports thread (0,0,0) of CTA (0,0,0).
#[derive(Clone, Copy, Debug)]
pub struct GridOptions {
    /// Host threads to use (0: all cores).
    pub host_threads: usize,
    /// The thread whose registers are reported: (CTA index, thread index in the CTA).
    pub inspect: (Dim3, Dim3),
    /// Whether the inspected thread's registers are reported ([`Inspected::registers`]; its
    /// steps always are). Its CTA then keeps every register a thread writes, which costs the
    /// compiled tier code of its own for that CTA: leave it off where nobody looks at the
    /// registers (the driver library).
    pub show_registers: bool,
    /// Whether a kernel whose atomics all commute ([`crate::ir::Program::atomics_commute`])
    /// may run its CTAs on several host threads (an untraced launch). The memory it leaves is
    /// the same, but the old values its atomics put in registers that no instruction reads
    /// depend on the order of the CTAs: set it where nobody looks at registers (the driver
    /// library), not where the inspected thread's registers are shown.
    pub commuting_atomics_in_parallel: bool,
}

impl Default for GridOptions {
    fn default() -> Self {
        Self {
            host_threads: 0,
            inspect: ([0; 3], [0; 3]),
            show_registers: true,
            commuting_atomics_in_parallel: false,
        }
    }
}

/// The inspected thread at the end of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspected {
    /// Its registers (none unless [`GridOptions::show_registers`]).
    pub registers: Vec<u128>,
    /// Its issued instructions.
    pub steps: u64,
}

/// A failure: which thread, and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The CTA.
    pub cta: Dim3,
    /// The thread in the CTA.
    pub thread: Dim3,
    /// What stopped it: an outcome of the program (`Trapped`, `OutOfFuel`), or a limit of the
    /// simulator (an unsupported instruction).
    pub outcome: Result<Outcome, Stopped>,
}

/// The result of a grid run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridRun {
    /// Instructions issued by all threads.
    pub steps: u64,
    /// CTAs that ran.
    pub ctas_run: u64,
    /// The first failure in CTA order, if any.
    pub failure: Option<Failure>,
    /// The inspected thread, if its CTA ran.
    pub inspected: Option<Inspected>,
    /// What the threads printed with `printf`, by CTA (in linear order, the CTAs that ran),
    /// then by thread (linear order), then call order; at most
    /// [`crate::runtime::PRINTF_LIMIT`] bytes.
    pub printed: Vec<Printed>,
    /// The `printf` calls whose output was dropped past that limit.
    pub printed_dropped: u64,
    /// The bytes of `printed` (each record counting at least one).
    pub printed_bytes: usize,
}

impl GridRun {
    /// Appends what a CTA printed, dropping records past [`crate::runtime::PRINTF_LIMIT`]
    /// bytes in all.
    pub(crate) fn add_printed(&mut self, printed: Vec<Printed>, dropped: u64) {
        self.printed_dropped += dropped;
        for record in printed {
            let bytes = self.printed_bytes.saturating_add(record.bytes.len().max(1));
            if bytes > crate::runtime::PRINTF_LIMIT {
                self.printed_dropped += 1;
            } else {
                self.printed_bytes = bytes;
                self.printed.push(record);
            }
        }
    }

    /// The launch's outcome as one value: `Exited` when every thread exited, else the first
    /// failure's.
    pub fn outcome(&self) -> Result<Outcome, Stopped> {
        match &self.failure {
            Some(failure) => failure.outcome.clone(),
            None => Ok(Outcome::Exited),
        }
    }
}

struct CtaReport {
    printed: Vec<Printed>,
    printed_dropped: u64,
    steps: u64,
    failure: Option<Failure>,
    inspected: Option<Inspected>,
    trace: Vec<String>,
}

fn run_cta(
    device: &Device<'_>,
    slot: &mut Option<Cta>,
    linear: u64,
    options: &GridOptions,
    trace: bool,
) -> CtaReport {
    let program = device.program();
    let ctaid = unflatten(linear, device.grid());
    // The inspected thread's registers are reported (where asked), and a trace shows values.
    let shown = trace || (options.show_registers && options.inspect.0 == ctaid);
    let cta = match slot {
        Some(cta) => {
            cta.reset(device, ctaid, shown);
            cta
        }
        None => {
            let cta = slot.insert(Cta::new(device, ctaid));
            cta.shown = shown;
            cta
        }
    };
    let mut lines = Vec::new();
    let result = {
        let mut sink = |record: &StepRecord| lines.push(crate::trace::step_line(program, record));
        cta.run(device, if trace { Some(&mut sink) } else { None })
    };
    let steps = cta.threads().map(|t| t.steps()).sum();
    let (printed, printed_dropped) = cta.take_printed();
    let failure = failure(device, cta, result);
    let inspected = inspect(device, cta, options);
    CtaReport {
        printed,
        printed_dropped,
        steps,
        failure,
        inspected,
        trace: lines,
    }
}

/// The failure of `cta` that ran to `result` ([`Cta::run`]), if it failed.
pub(crate) fn failure(
    device: &Device<'_>,
    cta: &Cta,
    result: Result<Option<(usize, Outcome)>, (usize, ExecError)>,
) -> Option<Failure> {
    let ctaid = cta.ctaid();
    match result {
        Ok(None) => None,
        Ok(Some((index, outcome))) => Some(Failure {
            cta: ctaid,
            thread: unflatten(index as u64, device.block()),
            outcome: Ok(outcome),
        }),
        Err((index, error)) => {
            let location = cta
                .thread(index)
                .and_then(|t| device.program().instructions.get(t.pc()))
                .map_or(Location::default(), |i| i.location);
            Some(Failure {
                cta: ctaid,
                thread: unflatten(index as u64, device.block()),
                outcome: Err(stopped(&error, location)),
            })
        }
    }
}

/// The inspected thread, if it is in `cta`.
pub(crate) fn inspect(device: &Device<'_>, cta: &Cta, options: &GridOptions) -> Option<Inspected> {
    (options.inspect.0 == cta.ctaid())
        .then(|| {
            let index = flatten(options.inspect.1, device.block());
            cta.thread(usize::try_from(index).ok()?).map(|t| Inspected {
                registers: if options.show_registers {
                    t.registers()
                } else {
                    Vec::new()
                },
                steps: t.steps(),
            })
        })
        .flatten()
}

fn stopped(error: &ExecError, location: Location) -> Stopped {
    Stopped {
        message: error.to_string(),
        location,
    }
}

/// The host's cores, asked once: `available_parallelism` reads the process's cgroup files on
/// Linux each time (tens of microseconds, more than a small launch takes).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A thread pool of `threads` host threads (0: one per core), made on first use and kept for
/// the process: a pool costs a few hundred microseconds to start, which a program of many
/// small launches (a CUDA program on the driver library) would pay at every launch.
fn shared_pool(threads: usize) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    static POOLS: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<usize, std::sync::Arc<rayon::ThreadPool>>>,
    > = std::sync::LazyLock::new(Default::default);
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(pool) = pools.get(&threads) {
        return Some(std::sync::Arc::clone(pool));
    }
    let pool = std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .ok()?,
    );
    pools.insert(threads, std::sync::Arc::clone(&pool));
    Some(pool)
}

/// Runs every CTA of the device's grid. `trace` receives the trace lines (header, steps in CTA
/// order, end); `progress` is told after each batch how many CTAs of how many have run.
pub fn run_grid(
    device: &Device<'_>,
    options: GridOptions,
    mut trace: Option<&mut dyn FnMut(&str)>,
    progress: Option<&dyn Fn(u64, u64)>,
) -> GridRun {
    let program = device.program();
    if let Some(sink) = trace.as_mut() {
        sink(&crate::trace::header_line(
            program,
            device.grid(),
            device.block(),
        ));
    }
    if device.interleaved() {
        let run = run_cooperative(device, &options, &mut trace, progress);
        if let Some(sink) = trace.as_mut() {
            sink(&crate::trace::end_line(run.steps, run.outcome().as_ref()));
        }
        return run;
    }
    let total = device.ctas();
    let tracing = trace.is_some();
    let atomics_in_parallel =
        program.atomics_commute && options.commuting_atomics_in_parallel && !tracing;
    let sequential = (program.has_atomics && !atomics_in_parallel)
        || program.uses_heap
        || options.host_threads == 1
        || program.calls_device_runtime();
    // More host threads than CTAs, or than a few per core, only cost start-up time (and memory).
    let cores = cores();
    let useful = usize::try_from(total).unwrap_or(usize::MAX).min(4 * cores);
    let host_threads = match options.host_threads {
        0 => 0,
        n => n.min(useful).max(1),
    };
    // No more CTAs at once than the memory limit holds (crate::budget).
    // A host thread running a cluster holds all its CTAs.
    let fit = (device.footprint().concurrent_ctas(device.memory_limit())
        / usize::try_from(device.cluster_ctas()).unwrap_or(1).max(1))
    .max(1);
    let host_threads = match host_threads {
        0 if fit < cores => fit,
        n => n.min(fit),
    };
    // One CTA, or one host thread, runs on the calling thread: a pool costs a few hundred
    // microseconds to start, more than a small launch takes.
    let sequential = sequential || total <= 1 || host_threads == 1;
    let pool = if sequential {
        None
    } else {
        shared_pool(host_threads)
    };
    let mut run = GridRun {
        steps: 0,
        ctas_run: 0,
        failure: None,
        inspected: None,
        printed: Vec::new(),
        printed_dropped: 0,
        printed_bytes: 0,
    };
    let mut reused = None;
    let mut start = 0;
    let mut batch = BATCH;
    // A launch with clusters of several CTAs runs each cluster as one unit ([`run_cluster`]);
    // `total` counts clusters then.
    let cluster_ctas = device.cluster_ctas();
    let total = if cluster_ctas > 1 {
        total / cluster_ctas
    } else {
        total
    };
    while start < total && run.failure.is_none() {
        let end = total.min(start + batch);
        batch = (batch * 2).min(MAX_BATCH);
        let reports: Vec<CtaReport> = match (&pool, cluster_ctas > 1) {
            (Some(pool), true) => pool.install(|| {
                (start..end)
                    .into_par_iter()
                    .flat_map_iter(|cluster| run_cluster(device, cluster, &options, tracing))
                    .collect()
            }),
            (None, true) => (start..end)
                .flat_map(|cluster| run_cluster(device, cluster, &options, tracing))
                .collect(),
            (Some(pool), false) => pool.install(|| {
                (start..end)
                    .into_par_iter()
                    .map_init(
                        || None,
                        |slot, linear| run_cta(device, slot, linear, &options, tracing),
                    )
                    .collect()
            }),
            (None, false) => (start..end)
                .map(|linear| run_cta(device, &mut reused, linear, &options, tracing))
                .collect(),
        };
        for report in reports {
            run.add_printed(report.printed, report.printed_dropped);
            run.steps += report.steps;
            run.ctas_run += 1;
            if let Some(sink) = trace.as_mut() {
                for line in &report.trace {
                    sink(line);
                }
            }
            if report.inspected.is_some() {
                run.inspected = report.inspected;
            }
            if run.failure.is_none() {
                run.failure = report.failure;
            }
        }
        if let Some(progress) = progress {
            progress(end, total);
        }
        start = end;
    }
    if let Some(sink) = trace.as_mut() {
        sink(&crate::trace::end_line(run.steps, run.outcome().as_ref()));
    }
    run
}

/// Runs cluster `cluster` (linear, x fastest) of a launch with clusters of several CTAs
/// ([`Device::set_cluster`]): its CTAs are resident together (PTX ISA 9.0, 2.2.1: "CTAs in a
/// cluster are guaranteed to be co-scheduled"), and run in turn, by rank, [`COOPERATIVE_SLICE`]
/// issues each ([`Cta::run_slice`]), round after round until all have finished. While a CTA
/// runs it holds the other CTAs' shared and tensor memories (`.shared::cluster` accesses,
/// `mapa`, `tcgen05` `.cta_group::2`); after
/// each round the cluster barrier completes when every unfinished thread of the cluster
/// arrived (`barrier.cluster`). A round in which no CTA issued an instruction and the barrier
/// could not complete is a deadlock: the first thread waiting at `barrier.cluster.wait` traps
/// there. A failure stops the cluster at once. Returns one report per CTA, by rank; trace
/// lines come slice by slice in the first CTA's report.
fn run_cluster(
    device: &Device<'_>,
    cluster: u64,
    options: &GridOptions,
    tracing: bool,
) -> Vec<CtaReport> {
    let program = device.program();
    let size = device.cluster_ctas();
    let mut ctas: Vec<Cta> = (0..size)
        .map(|rank| Cta::new(device, device.cluster_cta(cluster, rank)))
        .collect();
    let mut lines = Vec::new();
    let mut failure = None;
    let mut finished = vec![false; ctas.len()];
    while failure.is_none() && finished.contains(&false) {
        let mut progress = false;
        for rank in 0..ctas.len() {
            if finished[rank] {
                continue;
            }
            // Lend the other CTAs' shared memories to this one for its slice.
            let mut peers: Vec<Vec<u8>> = ctas
                .iter_mut()
                .enumerate()
                .map(|(other, cta)| {
                    if other == rank {
                        Vec::new()
                    } else {
                        std::mem::take(&mut cta.shared)
                    }
                })
                .collect();
            // And their tensor memories.
            let mut tmem: Vec<TensorMemory> = ctas
                .iter_mut()
                .enumerate()
                .map(|(other, cta)| {
                    if other == rank {
                        TensorMemory::default()
                    } else {
                        std::mem::take(&mut cta.tmem)
                    }
                })
                .collect();
            let cta = &mut ctas[rank];
            std::mem::swap(&mut cta.cluster.peers, &mut peers);
            std::mem::swap(&mut cta.cluster.tmem, &mut tmem);
            let before: u64 = cta.threads().map(|t| t.steps()).sum();
            let slice = if tracing {
                let mut sink =
                    |record: &StepRecord| lines.push(crate::trace::step_line(program, record));
                cta.run_slice(device, Some(&mut sink), COOPERATIVE_SLICE)
            } else {
                cta.run_slice(device, None, COOPERATIVE_SLICE)
            };
            let after: u64 = cta.threads().map(|t| t.steps()).sum();
            progress |= after != before;
            std::mem::swap(&mut cta.cluster.peers, &mut peers);
            std::mem::swap(&mut cta.cluster.tmem, &mut tmem);
            for (other, (memory, tmem)) in peers.into_iter().zip(tmem).enumerate() {
                if other != rank {
                    ctas[other].shared = memory;
                    ctas[other].tmem = tmem;
                }
            }
            let result = match slice {
                Ok(Slice::Paused) => {
                    progress = true;
                    continue;
                }
                Ok(Slice::Blocked) => continue,
                Ok(Slice::Finished(stopped)) => Ok(stopped),
                Err(error) => Err(error),
            };
            finished[rank] = true;
            progress = true;
            failure = self::failure(device, &ctas[rank], result);
            if failure.is_some() {
                break;
            }
        }
        if failure.is_some() {
            break;
        }
        // The cluster barrier: complete when every unfinished thread of the cluster arrived.
        let (all, some) = ctas.iter().fold((true, false), |(all, some), cta| {
            let (a, s) = cta.cluster_arrived();
            (all && a, some || s)
        });
        if all && some {
            for cta in &mut ctas {
                cta.cluster.phase += 1;
            }
            progress = true;
        }
        if !progress {
            let arrived = ctas.iter().map(Cta::cluster_arrivals).sum();
            let threads = ctas.iter().map(Cta::thread_count).sum();
            if let Some(rank) = ctas.iter().position(Cta::waits_for_cluster) {
                let cta = &mut ctas[rank];
                let stopped = cta.trap_cluster_wait(device, arrived, threads);
                failure = self::failure(device, cta, Ok(stopped));
            }
            break;
        }
    }
    let mut reports: Vec<CtaReport> = ctas
        .iter_mut()
        .map(|cta| {
            let (printed, printed_dropped) = cta.take_printed();
            CtaReport {
                printed,
                printed_dropped,
                steps: cta.threads().map(|t| t.steps()).sum(),
                failure: None,
                inspected: inspect(device, cta, options),
                trace: Vec::new(),
            }
        })
        .collect();
    if let Some(first) = reports.first_mut() {
        first.trace = lines;
        first.failure = failure;
    }
    reports
}

/// Runs a cooperative launch ([`Device::set_cooperative`]), or an interleaved one
/// ([`make_interleaved`]): every CTA of the grid is resident
/// from the start, and they run in turn, in linear order, [`COOPERATIVE_SLICE`] issues each
/// ([`Cta::run_slice`]), round after round until all have finished, so that CTAs waiting for
/// each other through global memory (CUDA's grid barrier) all get to run. Everything runs on
/// the calling thread, in the same order every time, so results do not depend on the host. A
/// failure stops the launch at once; it is the first in that order (a CTA whose threads spin
/// forever, waiting for a CTA that exited, stops at the step limit). Trace lines come slice by
/// slice, each slice's grouped by thread.
fn run_cooperative(
    device: &Device<'_>,
    options: &GridOptions,
    trace: &mut Option<&mut dyn FnMut(&str)>,
    progress: Option<&dyn Fn(u64, u64)>,
) -> GridRun {
    let program = device.program();
    let total = device.ctas();
    let mut ctas: Vec<Cta> = (0..total)
        .map(|linear| Cta::new(device, unflatten(linear, device.grid())))
        .collect();
    let mut live: Vec<usize> = (0..ctas.len()).collect();
    let mut failure = None;
    let mut finished = 0;
    while !live.is_empty() && failure.is_none() {
        let mut kept = 0;
        for slot in 0..live.len() {
            let cta = &mut ctas[live[slot]];
            let slice = match trace.as_mut() {
                Some(sink) => {
                    let mut lines =
                        |record: &StepRecord| sink(&crate::trace::step_line(program, record));
                    cta.run_slice(device, Some(&mut lines), COOPERATIVE_SLICE)
                }
                None => cta.run_slice(device, None, COOPERATIVE_SLICE),
            };
            let result = match slice {
                Ok(Slice::Paused | Slice::Blocked) => {
                    live[kept] = live[slot];
                    kept += 1;
                    continue;
                }
                Ok(Slice::Finished(stopped)) => Ok(stopped),
                Err(error) => Err(error),
            };
            finished += 1;
            failure = self::failure(device, cta, result);
            if failure.is_some() {
                break;
            }
        }
        live.truncate(kept);
        if let Some(progress) = progress {
            progress(finished, total);
        }
    }
    let mut run = GridRun {
        steps: 0,
        ctas_run: total,
        failure,
        inspected: None,
        printed: Vec::new(),
        printed_dropped: 0,
        printed_bytes: 0,
    };
    for cta in &mut ctas {
        run.steps += cta.threads().map(|t| t.steps()).sum::<u64>();
        let (printed, dropped) = cta.take_printed();
        run.add_printed(printed, dropped);
        if let Some(inspected) = inspect(device, cta, options) {
            run.inspected = Some(inspected);
        }
    }
    run
}
