//! The ptxsim trace format, version 1 (`docs/trace-format.md`): the records of a trace, their
//! two spellings (JSON Lines and a compact text form), a reader for both, the filter of
//! `ptxsim run --trace-filter`, and the comparison of `ptxsim trace-diff`.
//!
//! A trace is a header line, one line per issued instruction (in CTA order, then in the order
//! the threads of a CTA ran), and an end line. Every line is a pure function of the module, the
//! launch and the step limit: no timestamps, no paths, keys in a fixed order, values in hex, so
//! traces are byte-identical across runs, host thread counts and platforms.
//!
//! The writers are hand-written, so that the bytes of a trace are spelled out here and nowhere
//! else; the JSON reader is serde's. Reading and writing round-trip: `parse(write(t)) == t` for
//! both forms, and a trace printed in one form and parsed again equals the same trace printed in
//! the other.
//!
//! This crate knows nothing of the executor: `ptxsim-exec` builds the records from its steps
//! (`ptxsim_exec::trace`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt::{self, Write as _};

mod diff;
mod filter;
mod read;

pub use diff::{Decode, Records, diff, diff_decoded};
pub use filter::Filter;
pub use read::{
    IndexedTrace, ParseError, Trace, index, parse, parse_json_line, parse_line, parse_text_line,
};

/// The trace format version written in the header line.
pub const VERSION: u32 = 1;

/// A grid, CTA shape or index in one: `[x, y, z]`.
pub type Dim3 = [u32; 3];

/// The index in `shape` of the linear index `index` (`x` fastest), as the trace's `thread`
/// numbers count.
fn unflatten(index: u64, shape: Dim3) -> Dim3 {
    let x = u64::from(shape[0].max(1));
    let y = u64::from(shape[1].max(1));
    [
        (index % x) as u32,
        ((index / x) % y) as u32,
        (index / (x * y)) as u32,
    ]
}

/// A value in hex as traces spell it: `0x` and lowercase digits, zero-padded to `digits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hex {
    /// The value.
    pub value: u128,
    /// How many hex digits it is printed with (at least 1).
    pub digits: usize,
}

impl Hex {
    /// `value` padded to `digits` hex digits.
    pub fn new(value: u128, digits: usize) -> Self {
        Self {
            value,
            digits: digits.max(1),
        }
    }

    /// Parses `0x` followed by 1 to 32 hex digits; the digit count is kept.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.strip_prefix("0x")?;
        if digits.is_empty() || digits.len() > 32 || !digits.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return None;
        }
        Some(Self {
            value: u128::from_str_radix(digits, 16).ok()?,
            digits: digits.len(),
        })
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:0width$x}", self.value, width = self.digits)
    }
}

/// The first line of a trace: what ran and how it was launched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// The kernel that ran.
    pub entry: String,
    /// Threads in the launch (grid × block).
    pub threads: u64,
    /// The grid, in CTAs.
    pub grid: Dim3,
    /// The CTA shape, in threads.
    pub block: Dim3,
    /// Every register of a thread, in declaration order: output name and type without the dot.
    pub registers: Vec<(String, String)>,
    /// The `--trace-filter` the trace was written with (canonical spelling), if any.
    pub filter: Option<String>,
}

impl Header {
    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u64 {
        self.block
            .iter()
            .map(|&d| u64::from(d))
            .product::<u64>()
            .max(1)
    }

    /// The CTA and the thread in the CTA of a grid-wide thread index.
    pub fn locate(&self, thread: u64) -> (Dim3, Dim3) {
        let per_cta = self.threads_per_cta();
        (
            unflatten(thread / per_cta, self.grid),
            unflatten(thread % per_cta, self.block),
        )
    }
}

/// One register write of a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterWrite {
    /// The register's output name.
    pub register: String,
    /// Its value before.
    pub old: Hex,
    /// Its value after.
    pub new: Hex,
}

/// One memory write of a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRecord {
    /// The state space written (`global`, `shared`, `local`, `param`); generic addresses are
    /// resolved to their space.
    pub space: String,
    /// The address within that space.
    pub address: u64,
    /// The number of bytes written.
    pub bytes: u32,
    /// The bytes written, as a little-endian number (`2 × bytes` hex digits).
    pub value: Hex,
}

/// One issued instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The thread's step number, from 0 (what `%clock` reads).
    pub step: u64,
    /// The thread's grid-wide index: `ctaid linear × threads per CTA + tid linear`.
    pub thread: u64,
    /// The instruction's index in the kernel body.
    pub pc: u64,
    /// The 1-based source line.
    pub line: u32,
    /// The instruction as written, white space collapsed, without `;`.
    pub text: String,
    /// `false` when a predicate guard switched the instruction off.
    pub executed: bool,
    /// The registers written, in order.
    pub writes: Vec<RegisterWrite>,
    /// The memory written, in order.
    pub memory: Vec<MemoryRecord>,
}

/// The last line of a trace: how the run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    /// `exited`, `trapped` or `out_of_fuel`, as in the state JSON (an unsupported instruction
    /// reads `trapped`).
    pub status: String,
    /// Instructions issued by all threads.
    pub steps: u64,
}

/// One line of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The first line.
    Header(Header),
    /// An issued instruction.
    Step(Step),
    /// The last line.
    End(End),
}

/// The two spellings of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// One compact, space-separated record per line.
    Text,
}

impl Format {
    /// Which form a trace file is in, from its first line (`{` for JSON Lines, `ptxsim_trace`
    /// for text).
    pub fn detect(contents: &str) -> Option<Self> {
        let first = contents.trim_start_matches('\u{feff}').trim_start();
        if first.starts_with('{') {
            Some(Format::Jsonl)
        } else if first.starts_with("ptxsim_trace") {
            Some(Format::Text)
        } else {
            None
        }
    }

    /// `line` in this form, without a line end.
    pub fn write(self, line: &Line) -> String {
        match self {
            Format::Jsonl => to_json(line),
            Format::Text => to_text(line),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// A JSON string literal: `"`, `\\` and the control characters escaped (`\\n`, `\\r`, `\\t`,
/// else `\\u00XX`), everything else as it is.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `line` as one JSON object (no line end).
pub fn to_json(line: &Line) -> String {
    match line {
        Line::Header(header) => header_json(header),
        Line::Step(step) => step_json(step),
        Line::End(end) => format!(
            "{{\"end\":{},\"steps\":{}}}",
            json_string(&end.status),
            end.steps
        ),
    }
}

pub(crate) fn header_json(header: &Header) -> String {
    let registers: Vec<String> = header
        .registers
        .iter()
        .map(|(name, ty)| {
            format!(
                "{{\"name\":{},\"type\":{}}}",
                json_string(name),
                json_string(ty)
            )
        })
        .collect();
    let [gx, gy, gz] = header.grid;
    let [bx, by, bz] = header.block;
    let mut out = format!(
        "{{\"ptxsim_trace\":{},\"entry\":{},\"threads\":{},\"grid\":[{gx},{gy},{gz}],\"block\":[{bx},{by},{bz}],",
        header.version,
        json_string(&header.entry),
        header.threads
    );
    if let Some(filter) = &header.filter {
        let _ = write!(out, "\"filter\":{},", json_string(filter));
    }
    let _ = write!(out, "\"registers\":[{}]}}", registers.join(","));
    out
}

pub(crate) fn step_json(step: &Step) -> String {
    let mut out = format!(
        "{{\"step\":{},\"thread\":{},\"pc\":{},\"line\":{},\"text\":{},\"executed\":{},\"writes\":[",
        step.step,
        step.thread,
        step.pc,
        step.line,
        json_string(&step.text),
        step.executed
    );
    for (index, write) in step.writes.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"reg\":{},\"old\":\"{}\",\"new\":\"{}\"}}",
            json_string(&write.register),
            write.old,
            write.new
        );
    }
    out.push(']');
    if !step.memory.is_empty() {
        out.push_str(",\"mem\":[");
        for (index, write) in step.memory.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"space\":{},\"addr\":\"{:#x}\",\"bytes\":{},\"value\":\"{}\"}}",
                json_string(&write.space),
                write.address,
                write.bytes,
                write.value
            );
        }
        out.push(']');
    }
    out.push('}');
    out
}

/// `line` in the compact text form (no line end):
///
/// ```text
/// ptxsim_trace 1 entry=k threads=2 grid=1,1,1 block=2,1,1 registers=%r0:b32,%rd0:b64
/// t0 s3 pc3 L14 %r0=0x00000000>0x00000005 global[0x7f0000000000]=0x00000005 | st.global.u32 [%rd0], %r0
/// t1 s0 pc0 L12 skip | @%p0 bra DONE
/// end exited steps=9
/// ```
pub fn to_text(line: &Line) -> String {
    match line {
        Line::Header(header) => {
            let [gx, gy, gz] = header.grid;
            let [bx, by, bz] = header.block;
            let mut out = format!(
                "ptxsim_trace {} entry={} threads={} grid={gx},{gy},{gz} block={bx},{by},{bz}",
                header.version, header.entry, header.threads
            );
            if let Some(filter) = &header.filter {
                let _ = write!(out, " filter={filter}");
            }
            out.push_str(" registers=");
            for (index, (name, ty)) in header.registers.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{name}:{ty}");
            }
            out
        }
        Line::Step(step) => {
            let mut out = format!(
                "t{} s{} pc{} L{}",
                step.thread, step.step, step.pc, step.line
            );
            if !step.executed {
                out.push_str(" skip");
            }
            for write in &step.writes {
                let _ = write!(out, " {}={}>{}", write.register, write.old, write.new);
            }
            for write in &step.memory {
                let _ = write!(
                    out,
                    " {}[{:#x}]={}",
                    write.space, write.address, write.value
                );
            }
            out.push_str(" | ");
            out.push_str(&step.text);
            out
        }
        Line::End(end) => format!("end {} steps={}", end.status, end.steps),
    }
}
