//! The device runtime of CUDA Dynamic Parallelism as built-ins: the `__cudaCDP2*` functions
//! nvcc's PTX calls (docs/executor.md, "Dynamic parallelism"; [`crate::launches`] holds the
//! grid's recorded work and runs it after the grid).

use ptxsim_check::program::cdp::{DeviceRuntimeFunction, kernel_index};
use ptxsim_isa::ops::Space;

use super::Executor;
use crate::dim::Dim3;
use crate::dim::check_shape;
use crate::error::ExecError;
use crate::ir::Instruction;
use crate::launches::{
    ChildLaunch, MAX_DEVICE_GRIDS, MAX_NESTING_DEPTH, PendingBuffer, Work, WorkKind, code,
    error_string, limit,
};

/// `cudaMemcpyDeviceToDevice` and `cudaMemcpyDefault` (`driver_types.h`): the kinds a kernel's
/// `cudaMemcpyAsync` takes (device memory only).
const MEMCPY_DEVICE_TO_DEVICE: u64 = 3;
const MEMCPY_DEFAULT: u64 = 4;

/// The value `cudaRuntimeGetVersion` stores: `CUDART_VERSION` of CUDA 13.5
/// (`cuda_runtime_api.h`).
const RUNTIME_VERSION: u64 = 13050;

type Stop = (usize, Box<ExecError>);

impl Executor<'_, '_> {
    /// One lane's call of a device-runtime function: its result, or `None` where the lane
    /// stopped (a fault, a launch past the limits).
    #[inline(never)]
    pub(super) fn device_runtime(
        &mut self,
        instruction: &Instruction,
        lane: usize,
        function: DeviceRuntimeFunction,
        arguments: &[(u64, u64)],
    ) -> Result<Option<u64>, Stop> {
        let mut values = Vec::with_capacity(arguments.len());
        for &(address, bytes) in arguments {
            values.push(self.param_argument(lane, address, bytes, function)?);
        }
        let scalar = |i: usize| values.get(i).map_or(0, |v: &[u32; 3]| join(*v));
        let dim = |i: usize| values.get(i).copied().unwrap_or([1, 1, 1]);
        let cta = self.ctaid;
        let thread = self.threads[lane].tid;
        let device = self.device;
        let runtime = &device.runtime;
        let returned = match function {
            DeviceRuntimeFunction::GetParameterBuffer => {
                let address = runtime.parameter_buffer(scalar(0), scalar(1), PendingBuffer::Plain);
                if address == 0 {
                    runtime.set_error(cta, thread, code::LAUNCH_PENDING_COUNT_EXCEEDED);
                }
                return Ok(Some(address));
            }
            DeviceRuntimeFunction::GetParameterBufferV2 if runtime.kernels.is_empty() => {
                let message = "a launch from a kernel: grids launched by kernels run only \
                               where the kernel's module is loaded (the library's \
                               `Module::launch`, the CUDA driver), not in a launch of one \
                               kernel alone"
                    .to_string();
                self.trap(lane, instruction, message);
                return Ok(None);
            }
            DeviceRuntimeFunction::GetParameterBufferV2 => {
                let kernel = kernel_index(scalar(0)).filter(|&k| k < runtime.kernels.len());
                let Some(kernel) = kernel else {
                    runtime.set_error(cta, thread, code::INVALID_DEVICE_FUNCTION);
                    return Ok(Some(0));
                };
                let size = runtime.kernels[kernel].param_bytes;
                let pending = PendingBuffer::Shaped {
                    kernel,
                    grid: dim(1),
                    block: dim(2),
                    dynamic_shared: scalar(3),
                };
                let address = runtime.parameter_buffer(0, size, pending);
                if address == 0 {
                    runtime.set_error(cta, thread, code::LAUNCH_PENDING_COUNT_EXCEEDED);
                }
                return Ok(Some(address));
            }
            DeviceRuntimeFunction::LaunchDeviceV2 => match runtime.take_buffer(scalar(0)) {
                Some(PendingBuffer::Shaped {
                    kernel,
                    grid,
                    block,
                    dynamic_shared,
                }) => {
                    let stream = scalar(1);
                    let buffer = scalar(0);
                    return self.launch(
                        instruction,
                        lane,
                        [kernel as u64, buffer, dynamic_shared, stream],
                        grid,
                        block,
                    );
                }
                _ => code::INVALID_VALUE,
            },
            DeviceRuntimeFunction::LaunchDevice => {
                let kernel = kernel_index(scalar(0)).filter(|&k| k < runtime.kernels.len());
                match (kernel, runtime.take_buffer(scalar(1))) {
                    (None, _) => code::INVALID_DEVICE_FUNCTION,
                    (Some(_), None) => code::INVALID_VALUE,
                    (Some(kernel), Some(_)) => {
                        let parts = [kernel as u64, scalar(1), scalar(4), scalar(5)];
                        return self.launch(instruction, lane, parts, dim(2), dim(3));
                    }
                }
            }
            DeviceRuntimeFunction::Malloc => {
                let address = device.heap.allocate(scalar(1));
                if address == 0 {
                    code::MEMORY_ALLOCATION
                } else {
                    match self.store(lane, Space::Generic, scalar(0), 8, u128::from(address)) {
                        Ok(()) => code::SUCCESS,
                        Err(fault) => {
                            self.fault(lane, instruction, fault);
                            return Ok(None);
                        }
                    }
                }
            }
            DeviceRuntimeFunction::Free => match device.heap.free(scalar(0)) {
                Ok(()) => code::SUCCESS,
                Err(_) => code::INVALID_VALUE,
            },
            DeviceRuntimeFunction::StreamCreateWithFlags
            | DeviceRuntimeFunction::EventCreateWithFlags => {
                let handle = runtime.handle();
                return self.put_u64(instruction, lane, scalar(0), handle, 8);
            }
            DeviceRuntimeFunction::StreamDestroy
            | DeviceRuntimeFunction::StreamWaitEvent
            | DeviceRuntimeFunction::EventRecord
            | DeviceRuntimeFunction::EventRecordWithFlags
            | DeviceRuntimeFunction::EventDestroy => code::SUCCESS,
            // These return the error; they do not set it.
            DeviceRuntimeFunction::GetLastError => {
                return Ok(Some(u64::from(runtime.last_error(cta, thread, true))));
            }
            DeviceRuntimeFunction::PeekAtLastError => {
                return Ok(Some(u64::from(runtime.last_error(cta, thread, false))));
            }
            DeviceRuntimeFunction::GetErrorString => {
                return Ok(Some(error_string(scalar(0) as u32, false)));
            }
            DeviceRuntimeFunction::GetErrorName => {
                return Ok(Some(error_string(scalar(0) as u32, true)));
            }
            DeviceRuntimeFunction::GetDevice => {
                return self.put_u64(instruction, lane, scalar(0), 0, 4);
            }
            DeviceRuntimeFunction::GetDeviceCount => {
                return self.put_u64(instruction, lane, scalar(0), 1, 4);
            }
            DeviceRuntimeFunction::RuntimeGetVersion => {
                return self.put_u64(instruction, lane, scalar(0), RUNTIME_VERSION, 4);
            }
            DeviceRuntimeFunction::DeviceGetLimit => match limit(scalar(1) as u32) {
                Some(value) => return self.put_u64(instruction, lane, scalar(0), value, 8),
                None => code::UNSUPPORTED_LIMIT,
            },
            DeviceRuntimeFunction::MemcpyAsync => {
                if matches!(scalar(3), MEMCPY_DEVICE_TO_DEVICE | MEMCPY_DEFAULT) {
                    let kind = WorkKind::Copy {
                        destination: scalar(0),
                        source: scalar(1),
                        bytes: scalar(2),
                    };
                    self.enqueue(instruction, lane, kind, scalar(4));
                    code::SUCCESS
                } else {
                    code::INVALID_VALUE
                }
            }
            DeviceRuntimeFunction::MemsetAsync => {
                let kind = WorkKind::Set {
                    destination: scalar(0),
                    value: scalar(1) as u8,
                    bytes: scalar(2),
                };
                self.enqueue(instruction, lane, kind, scalar(3));
                code::SUCCESS
            }
        };
        runtime.set_error(cta, thread, returned);
        Ok(Some(u64::from(returned)))
    }

    /// A `.param` argument of `bytes` bytes at `address`, as 32-bit words (a `dim3` takes
    /// three, a 64-bit value two).
    fn param_argument(
        &mut self,
        lane: usize,
        address: u64,
        bytes: u64,
        function: DeviceRuntimeFunction,
    ) -> Result<[u32; 3], Stop> {
        let internal = || {
            (
                lane,
                Box::new(ExecError::Internal(format!(
                    "a `{}` parameter outside the parameter space",
                    function.name()
                ))),
            )
        };
        let mut words = [0u32; 3];
        for (i, word) in words
            .iter_mut()
            .enumerate()
            .take(bytes.div_ceil(4) as usize)
        {
            let at = address + 4 * i as u64;
            let size = bytes.saturating_sub(4 * i as u64).min(4) as u32;
            *word = self
                .load(lane, Space::Param, at, size)
                .map_err(|_| internal())? as u32;
        }
        Ok(words)
    }

    /// Stores the low `bytes` bytes of `value` at generic address `address` and returns
    /// `cudaSuccess`; a fault stops the lane.
    fn put_u64(
        &mut self,
        instruction: &Instruction,
        lane: usize,
        address: u64,
        value: u64,
        bytes: u32,
    ) -> Result<Option<u64>, Stop> {
        match self.store(lane, Space::Generic, address, bytes, u128::from(value)) {
            Ok(()) => Ok(Some(u64::from(code::SUCCESS))),
            Err(fault) => {
                self.fault(lane, instruction, fault);
                Ok(None)
            }
        }
    }

    /// Records work of the lane's thread into `stream`.
    fn enqueue(&mut self, instruction: &Instruction, lane: usize, kind: WorkKind, stream: u64) {
        self.device.runtime.enqueue(Work {
            kind,
            stream,
            location: instruction.location,
            cta: self.ctaid,
            thread: self.threads[lane].tid,
        });
    }

    /// A launch of kernel `parts[0]` with the parameters in the buffer at `parts[1]`,
    /// `parts[2]` bytes of dynamic shared memory, into stream `parts[3]`: checked (a shape
    /// CUDA refuses is `cudaErrorInvalidConfiguration`; past [`MAX_NESTING_DEPTH`] or
    /// [`MAX_DEVICE_GRIDS`] the thread stops with an error here), its parameters copied,
    /// recorded.
    fn launch(
        &mut self,
        instruction: &Instruction,
        lane: usize,
        parts: [u64; 4],
        grid: Dim3,
        block: Dim3,
    ) -> Result<Option<u64>, Stop> {
        let [kernel, buffer, dynamic_shared, stream] = parts;
        let device = self.device;
        let runtime = &device.runtime;
        let (cta, thread) = (self.ctaid, self.threads[lane].tid);
        let Some(program) = runtime.kernels.get(kernel as usize) else {
            runtime.set_error(cta, thread, code::INVALID_DEVICE_FUNCTION);
            return Ok(Some(u64::from(code::INVALID_DEVICE_FUNCTION)));
        };
        if check_shape(grid, block).is_err() {
            runtime.set_error(cta, thread, code::INVALID_CONFIGURATION);
            return Ok(Some(u64::from(code::INVALID_CONFIGURATION)));
        }
        if runtime.depth >= MAX_NESTING_DEPTH {
            let message = format!(
                "a kernel at nesting depth {} launched `{}`, deeper than CUDA's maximum launch \
                 depth of {MAX_NESTING_DEPTH} (cudaErrorLaunchMaxDepthExceeded; the host's \
                 launch is depth 0): a runaway recursion?",
                runtime.depth, program.entry
            );
            self.trap(lane, instruction, message);
            return Ok(None);
        }
        if !runtime.count_grid() {
            let message = format!(
                "more than {MAX_DEVICE_GRIDS} grids launched by kernels in one host launch \
                 (ptxsim's limit; this one launches `{}`): a runaway recursion?",
                program.entry
            );
            self.trap(lane, instruction, message);
            return Ok(None);
        }
        let mut params = Vec::with_capacity(usize::try_from(program.param_bytes).unwrap_or(0));
        for i in 0..program.param_bytes {
            match self.load(lane, Space::Generic, buffer.wrapping_add(i), 1) {
                Ok(byte) => params.push(byte as u8),
                Err(fault) => {
                    self.fault(lane, instruction, fault);
                    return Ok(None);
                }
            }
        }
        let kind = WorkKind::Launch(ChildLaunch {
            kernel: kernel as usize,
            grid,
            block,
            dynamic_shared,
            params,
        });
        self.enqueue(instruction, lane, kind, stream);
        Ok(Some(u64::from(code::SUCCESS)))
    }
}

/// The value of a `.param` argument of up to 8 bytes read as words.
fn join(words: [u32; 3]) -> u64 {
    u64::from(words[0]) | u64::from(words[1]) << 32
}
