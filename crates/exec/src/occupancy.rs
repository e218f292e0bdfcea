//! How many CTAs of a kernel a GPU keeps resident at once: the limit of a cooperative launch
//! (CUDA's `cudaLaunchCooperativeKernel` fails with `cudaErrorCooperativeLaunchTooLarge` when
//! the grid has more CTAs than fit) and what `cuOccupancyMaxActiveBlocksPerMultiprocessor`
//! answers.
//!
//! The model is an sm_90 GPU of [`SM_COUNT`] multiprocessors (the number the CUDA driver
//! library reports as `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`). Each holds at most
//! [`MAX_THREADS_PER_SM`] threads (counted in whole warps of 32), [`MAX_CTAS_PER_SM`] CTAs,
//! [`SHARED_PER_SM`] bytes of shared memory (each CTA takes its static and dynamic shared
//! memory plus [`RESERVED_SHARED_PER_CTA`] the system reserves) and [`REGISTERS_PER_SM`]
//! registers (each warp takes the thread's register count rounded up to 8, times 32) — the
//! figures of compute capability 9.0 in the CUDA C++ Programming Guide, "Technical
//! Specifications per Compute Capability". ptxsim does not allocate hardware registers (a PTX
//! program's virtual registers say nothing about the count `ptxas` would give), so the
//! register limit applies only when the caller knows a count.

use crate::ir::Program;

/// Multiprocessors of the modelled GPU.
pub const SM_COUNT: u64 = 16;

/// Resident threads per multiprocessor (compute capability 9.0).
pub const MAX_THREADS_PER_SM: u64 = 2048;

/// Resident CTAs per multiprocessor (compute capability 9.0).
pub const MAX_CTAS_PER_SM: u64 = 32;

/// 32-bit registers per multiprocessor (compute capability 9.0).
pub const REGISTERS_PER_SM: u64 = 64 * 1024;

/// Shared memory per multiprocessor: 228 KiB (compute capability 9.0).
pub const SHARED_PER_SM: u64 = 228 * 1024;

/// Shared memory the system reserves for each resident CTA: 1 KiB (compute capability 8.0
/// and later; `cudaDevAttrReservedSharedMemoryPerBlock`).
pub const RESERVED_SHARED_PER_CTA: u64 = 1024;

/// What one CTA of a launch takes on a multiprocessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaResources {
    /// Threads per CTA.
    pub threads: u64,
    /// Shared memory per CTA, static and dynamic, in bytes (without the reserved part).
    pub shared: u64,
    /// Registers per thread, when known.
    pub registers: Option<u64>,
}

impl CtaResources {
    /// The resources of a CTA of `threads` threads running `program` with `dynamic_shared`
    /// bytes of dynamic shared memory (its register count unknown).
    pub fn of(program: &Program, threads: u64, dynamic_shared: u64) -> Self {
        let static_shared = match program.dynamic_shared {
            Some(base) => base.max(program.shared_bytes),
            None => program.shared_bytes,
        };
        Self {
            threads,
            shared: static_shared.saturating_add(dynamic_shared),
            registers: None,
        }
    }

    /// How many such CTAs one multiprocessor holds at once: the least of the thread, CTA,
    /// shared memory and register limits (0 when one CTA does not fit, e.g. more than 2048
    /// threads or 227 KiB of shared memory).
    pub fn active_per_sm(&self) -> u64 {
        let warps = self.threads.div_ceil(32).max(1);
        let by_threads = MAX_THREADS_PER_SM / (warps * 32);
        let by_shared = SHARED_PER_SM / self.shared.saturating_add(RESERVED_SHARED_PER_CTA);
        let by_registers = match self.registers {
            Some(registers) if registers > 0 => {
                let per_warp = registers.div_ceil(8).saturating_mul(8 * 32);
                REGISTERS_PER_SM / per_warp.saturating_mul(warps)
            }
            _ => u64::MAX,
        };
        MAX_CTAS_PER_SM
            .min(by_threads)
            .min(by_shared)
            .min(by_registers)
    }

    /// The most CTAs a cooperative launch of such CTAs may have: [`CtaResources::active_per_sm`]
    /// times [`SM_COUNT`].
    pub fn max_cooperative(&self) -> u64 {
        self.active_per_sm() * SM_COUNT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cta(threads: u64, shared: u64, registers: Option<u64>) -> CtaResources {
        CtaResources {
            threads,
            shared,
            registers,
        }
    }

    #[test]
    fn limits() {
        // Small CTAs: the CTA limit.
        assert_eq!(cta(32, 0, None).active_per_sm(), 32);
        // Threads: 2048 / 256.
        assert_eq!(cta(256, 0, None).active_per_sm(), 8);
        assert_eq!(cta(1024, 0, None).active_per_sm(), 2);
        // A partial warp counts whole.
        assert_eq!(cta(33, 0, None).active_per_sm(), 32);
        assert_eq!(cta(1000, 0, None).active_per_sm(), 2);
        // Shared memory: 228 KiB / (48 KiB + 1 KiB) = 4; the largest CTA fits once.
        assert_eq!(cta(64, 48 * 1024, None).active_per_sm(), 4);
        assert_eq!(cta(64, 227 * 1024, None).active_per_sm(), 1);
        assert_eq!(cta(64, 228 * 1024, None).active_per_sm(), 0);
        // Registers: 64 per thread, 256 threads: 65536 / (64 * 256) = 4.
        assert_eq!(cta(256, 0, Some(64)).active_per_sm(), 4);
        // Rounded up to 8 per thread: 61 counts as 64.
        assert_eq!(cta(256, 0, Some(61)).active_per_sm(), 4);
        assert_eq!(cta(256, 0, Some(64)).max_cooperative(), 64);
    }
}
