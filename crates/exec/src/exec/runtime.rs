//! The device-side runtime family: calls of `vprintf`, `__assertfail`, `malloc`, `free` and
//! `cudaGraphSetConditional`,
//! which nvcc declares `.extern` and the module has no body for, run as built-ins
//! ([`crate::runtime`] holds the formatter and the heap).

use ptxsim_isa::ops::Space;

use super::{Control, Executor};
use crate::error::ExecError;
use crate::ir::{Instruction, RuntimeFunction};
use crate::memory::Fault;
use crate::runtime::{self, PrintfSource, STRING_LIMIT};
use crate::step::Outcome;

impl Executor<'_, '_> {
    /// A call of a device-side runtime function, for every lane: its `.param` arguments read,
    /// the function run, its result (if any) written to the caller's return `.param`.
    #[inline(never)]
    pub(super) fn call_runtime(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        function: RuntimeFunction,
        arguments: &[(u64, u64)],
        result: Option<(u64, u64)>,
    ) -> Result<Control, (usize, Box<ExecError>)> {
        let internal = |lane: usize| {
            (
                lane,
                Box::new(ExecError::Internal(format!(
                    "a `{}` parameter outside the parameter space",
                    function.name()
                ))),
            )
        };
        if let RuntimeFunction::DeviceRuntime(function) = function {
            for &lane in lanes {
                let returned = self.device_runtime(instruction, lane, function, arguments)?;
                if let (Some(returned), Some((address, bytes))) = (returned, result) {
                    self.store(
                        lane,
                        Space::Param,
                        address,
                        bytes as u32,
                        u128::from(returned),
                    )
                    .map_err(|_| internal(lane))?;
                }
            }
            return Ok(Control::Next);
        }
        for &lane in lanes {
            let mut values = [0u64; 5];
            for (value, &(address, bytes)) in values.iter_mut().zip(arguments) {
                *value = self
                    .load(lane, Space::Param, address, bytes as u32)
                    .map_err(|_| internal(lane))? as u64;
            }
            let returned = match function {
                RuntimeFunction::Vprintf => match self.vprintf(lane, values[0], values[1]) {
                    Ok(count) => u64::from(count as u32),
                    Err(fault) => {
                        self.fault(lane, instruction, fault);
                        continue;
                    }
                },
                RuntimeFunction::AssertFail => {
                    let outcome = match self.assertion(lane, values) {
                        Ok(message) => Outcome::AssertionFailed {
                            message,
                            location: instruction.location,
                        },
                        Err(fault) => {
                            self.fault(lane, instruction, fault);
                            continue;
                        }
                    };
                    self.stop(lane, outcome);
                    continue;
                }
                RuntimeFunction::DeviceRuntime(_) => continue,
                RuntimeFunction::Malloc => self.device.heap.allocate(values[0]),
                RuntimeFunction::Free => match self.device.heap.free(values[0]) {
                    Ok(()) => 0,
                    Err(message) => {
                        self.trap(lane, instruction, message);
                        continue;
                    }
                },
                RuntimeFunction::GraphSetConditional => {
                    if let Err(fault) = self.graph_set_conditional(lane, values[0], values[1]) {
                        self.fault(lane, instruction, fault);
                    }
                    continue;
                }
            };
            if let Some((address, bytes)) = result {
                self.store(
                    lane,
                    Space::Param,
                    address,
                    bytes as u32,
                    u128::from(returned),
                )
                .map_err(|_| internal(lane))?;
            }
        }
        Ok(Control::Next)
    }

    /// `vprintf(format, arguments)`: formats and keeps the text for the launch's output;
    /// returns the number of arguments read, or -1 for a null format (CUDA C++ Programming
    /// Guide, "Formatted Output": "If the format string is NULL, -1 is returned").
    fn vprintf(&mut self, lane: usize, format: u64, arguments: u64) -> Result<i32, Fault> {
        if format == 0 {
            return Ok(-1);
        }
        let text = self.c_string(lane, format, STRING_LIMIT)?;
        let mut source = Arguments {
            executor: self,
            lane,
            base: arguments,
            offset: 0,
        };
        let (bytes, count) = runtime::format(&text, &mut source)?;
        self.printed.push(lane, bytes);
        Ok(count as i32)
    }

    /// `cudaGraphSetConditional(handle, value)`: a conditional handle of ptxsim's driver is
    /// the global address of the handle's 32-bit value (`crates/cuda`, "Conditional nodes"),
    /// so the call is a 4-byte global store of `value` there; a handle that is no such address
    /// faults as the store would.
    fn graph_set_conditional(&mut self, lane: usize, handle: u64, value: u64) -> Result<(), Fault> {
        self.store(lane, Space::Global, handle, 4, u128::from(value as u32))
    }

    /// The message of `__assertfail(message, file, line, function, char_size)`.
    fn assertion(&mut self, lane: usize, values: [u64; 5]) -> Result<String, Fault> {
        let message = self.c_string(lane, values[0], STRING_LIMIT)?;
        let file = self.c_string(lane, values[1], STRING_LIMIT)?;
        let function = self.c_string(lane, values[3], STRING_LIMIT)?;
        Ok(runtime::assertion_message(
            &message,
            &file,
            values[2] as u32,
            &function,
            self.ctaid,
            self.threads[lane].tid,
        ))
    }

    /// The bytes of the NUL-terminated string at generic address `address`, at most `limit`;
    /// a string whose memory ends before its NUL ends there. The first byte must be readable
    /// (else its fault).
    fn c_string(&mut self, lane: usize, address: u64, limit: u64) -> Result<Vec<u8>, Fault> {
        let mut text = Vec::new();
        for i in 0..limit {
            match self.load(lane, Space::Generic, address.wrapping_add(i), 1) {
                Ok(0) => break,
                Ok(byte) => text.push(byte as u8),
                Err(fault) if i == 0 => return Err(fault),
                Err(_) => break,
            }
        }
        Ok(text)
    }
}

/// The arguments of one `vprintf` call: its buffer (a generic address) and where the next
/// argument starts.
struct Arguments<'e, 'a, 'p> {
    executor: &'e mut Executor<'a, 'p>,
    lane: usize,
    base: u64,
    offset: u64,
}

impl PrintfSource for Arguments<'_, '_, '_> {
    type Error = Fault;

    fn argument(&mut self, bytes: u32) -> Result<u64, Fault> {
        let offset = self.offset.next_multiple_of(u64::from(bytes));
        self.offset = offset + u64::from(bytes);
        let address = self.base.wrapping_add(offset);
        Ok(self
            .executor
            .load(self.lane, Space::Generic, address, bytes)? as u64)
    }

    fn string(&mut self, address: u64, limit: u64) -> Result<Vec<u8>, Fault> {
        self.executor.c_string(self.lane, address, limit)
    }
}
