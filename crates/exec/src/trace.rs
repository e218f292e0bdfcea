//! The executor's side of traces: the records of `ptxsim-trace`'s format (`docs/trace-format.md`)
//! built from a [`Program`] and the [`StepRecord`]s of its run, their JSON Lines spelling, which
//! the executor's trace sinks receive, and [`run_grid_streamed`], a launch that hands each
//! record to its sink as it is issued.

use ptxsim_isa::Type;
use ptxsim_trace::{End, Header, Hex, Line, MemoryRecord, RegisterWrite, Step, VERSION};

use crate::dim::Dim3;
use crate::ir::Program;
use crate::report::{Stopped, hex_digits};
use crate::step::{Outcome, StepRecord};

/// The header of a launch of `program` over `grid` × `block`.
pub fn header(program: &Program, grid: Dim3, block: Dim3) -> Header {
    let threads = grid.iter().chain(&block).map(|&d| u64::from(d)).product();
    Header {
        version: VERSION,
        entry: program.entry.clone(),
        threads,
        grid,
        block,
        registers: program
            .registers
            .iter()
            .map(|r| (r.name.clone(), r.ty.name().to_string()))
            .collect(),
        filter: None,
    }
}

/// A register value of type `ty` as traces spell it (the state JSON's widths: `.pred` 1 digit,
/// `.b8` 2, ...).
pub fn register_value(value: u128, ty: Type) -> Hex {
    Hex::new(value, hex_digits(ty))
}

/// The trace record of an issued step of `program`.
pub fn step(program: &Program, record: &StepRecord) -> Step {
    let instruction = program.instructions.get(record.pc);
    let (line, text) = instruction.map_or((0, ""), |i| (i.location.line, i.text.as_str()));
    let writes = record
        .writes
        .iter()
        .map(|write| {
            let info = program.registers.get(write.register.index());
            let (name, ty) = info.map_or(("?", Type::B128), |i| (i.name.as_str(), i.ty));
            RegisterWrite {
                register: name.to_string(),
                old: register_value(write.old, ty),
                new: register_value(write.new, ty),
            }
        })
        .collect();
    let memory = record
        .memory
        .iter()
        .map(|write| MemoryRecord {
            space: write.space.name().to_string(),
            address: write.address,
            bytes: write.bytes,
            value: Hex::new(write.value, 2 * write.bytes as usize),
        })
        .collect();
    Step {
        step: record.step,
        thread: record.thread,
        pc: record.pc as u64,
        line,
        text: text.to_string(),
        executed: record.executed,
        writes,
        memory,
    }
}

/// The end of a run that issued `steps` instructions and ended with `outcome` (an unsupported
/// instruction reads `trapped`, as in the state JSON).
pub fn end(steps: u64, outcome: Result<&Outcome, &Stopped>) -> End {
    let status = match outcome {
        Ok(outcome) => outcome.status(),
        Err(_) => "trapped",
    };
    End {
        status: status.to_string(),
        steps,
    }
}

/// The JSON header line of a launch of `program` (see [`header`]); a one-thread run of the
/// library's `Machine` is a launch of one CTA of one thread.
pub fn header_line(program: &Program, grid: Dim3, block: Dim3) -> String {
    ptxsim_trace::to_json(&Line::Header(header(program, grid, block)))
}

/// The JSON line of one issued step.
pub fn step_line(program: &Program, record: &StepRecord) -> String {
    ptxsim_trace::to_json(&Line::Step(step(program, record)))
}

/// The JSON end line.
pub fn end_line(steps: u64, outcome: Result<&Outcome, &Stopped>) -> String {
    ptxsim_trace::to_json(&Line::End(end(steps, outcome)))
}
