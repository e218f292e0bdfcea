//! The memory budget of a launch: how many bytes of the host's memory the simulated memories
//! may take, checked before any of them is allocated.
//!
//! A launch holds global memory (the module's `.global` variables and the argument buffers),
//! the `.const` bank and the kernel parameters once, and per CTA that runs at a time its
//! shared memory (static and dynamic) and per thread its registers, `.local` memory and
//! call-sequence `.param` memory. [`Footprint`] adds these up from the program and the launch's
//! shape; [`grid::prepare_within`](crate::grid::prepare_within) refuses a launch whose global
//! part and one CTA do not fit in the limit ([`LaunchError::Memory`]) before it allocates
//! anything, and [`grid::run_grid`](crate::grid::run_grid) runs at most as many CTAs at once as
//! fit (which changes no result: results do not depend on the number of host threads).
//!
//! The limit is [`DEFAULT_MEMORY_LIMIT`] unless the caller gives another (`ptxsim run
//! --memory-limit`, [`crate::api::LaunchOptions::memory_limit`]).

use crate::dim::Dim3;
use crate::error::LaunchError;
use crate::ir::Program;

/// The default limit: 4 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// What the executor keeps per thread besides its registers and memories (program counter,
/// step count, status, call stack header), counted against the budget.
const THREAD_OVERHEAD: u64 = 128;

/// The bytes a launch's simulated memories take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// `.global` variables and argument buffers.
    pub global: u64,
    /// The `.const` bank.
    pub constant: u64,
    /// The kernel parameter space.
    pub kernel_params: u64,
    /// Shared memory of one CTA, static and dynamic.
    pub shared: u64,
    /// Registers, `.local` and call-sequence `.param` memory of one thread, with the executor's
    /// own per-thread state.
    pub per_thread: u64,
    /// Threads per CTA.
    pub threads: u64,
}

impl Footprint {
    /// The footprint of a launch of `program` with CTAs of `block` threads, argument buffers
    /// of `argument_bytes` bytes in all, and `dynamic_shared` bytes of dynamic shared memory.
    pub fn new(program: &Program, block: Dim3, argument_bytes: u64, dynamic_shared: u64) -> Self {
        let global = program
            .globals
            .iter()
            .fold(argument_bytes, |sum, variable| {
                sum.saturating_add(variable.size)
            })
            .saturating_add(if program.uses_heap {
                crate::runtime::HEAP_BYTES
            } else {
                0
            });
        let wide = program
            .registers
            .iter()
            .filter(|register| register.bits() > 64)
            .count() as u64;
        let registers = (program.registers.len() as u64).saturating_add(wide);
        let per_thread = registers
            .saturating_mul(8)
            .saturating_add(program.local_bytes)
            .saturating_add(program.thread_param_bytes)
            .saturating_add(THREAD_OVERHEAD);
        let static_shared = match program.dynamic_shared {
            Some(base) => base.max(program.shared_bytes),
            None => program.shared_bytes,
        };
        Self {
            global,
            constant: program.constants.len() as u64,
            kernel_params: program.param_bytes,
            shared: static_shared.saturating_add(dynamic_shared).saturating_add(
                // The reserved region and its alignment (`Device::shared_allocation`).
                if program.reserved_shared {
                    crate::ir::RESERVED_SHARED_BYTES + 128
                } else {
                    0
                },
            ),
            per_thread,
            threads: block.iter().map(|&d| u64::from(d)).product(),
        }
    }

    /// The bytes held once per launch: global memory, the constant bank, the kernel parameters.
    pub fn fixed(&self) -> u64 {
        self.global
            .saturating_add(self.constant)
            .saturating_add(self.kernel_params)
    }

    /// The bytes of one CTA: its shared memory and its threads.
    pub fn per_cta(&self) -> u64 {
        self.per_thread
            .saturating_mul(self.threads)
            .saturating_add(self.shared)
    }

    /// The bytes of a launch running one CTA at a time: the least it can run in.
    pub fn least(&self) -> u64 {
        self.fixed().saturating_add(self.per_cta())
    }

    /// `Ok` if a launch fits in `limit` bytes running one CTA at a time; else the error that
    /// says what takes the memory.
    pub fn check(&self, limit: u64) -> Result<(), LaunchError> {
        if self.least() <= limit {
            return Ok(());
        }
        Err(LaunchError::Memory(format!(
            "the launch needs {} bytes of simulated memory, more than the memory limit of {} \
             bytes (global {}, constant {}, kernel parameters {}; per CTA: shared {}, {} \
             thread(s) of {} bytes of registers, local and call parameters); raise the limit \
             with --memory-limit if the host has the memory",
            self.least(),
            limit,
            self.global,
            self.constant,
            self.kernel_params,
            self.shared,
            self.threads,
            self.per_thread
        )))
    }

    /// How many CTAs may run at once within `limit` bytes (at least one).
    pub fn concurrent_ctas(&self, limit: u64) -> usize {
        let room = limit.saturating_sub(self.fixed());
        let count = room.checked_div(self.per_cta()).unwrap_or(u64::MAX);
        usize::try_from(count).unwrap_or(usize::MAX).max(1)
    }
}
