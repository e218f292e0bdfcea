//! Execution traces, format v1 (`docs/trace-format.md`): the records of a trace, how they are
//! built from the executor's [`StepRecord`]s, their two spellings (JSON Lines and a compact
//! text form), a parser for both, and the filter of `ptxsim run --trace-filter`.
//!
//! A trace is a header line, one line per issued instruction (in CTA order, then in the order
//! the threads of a CTA ran), and an end line. Every line is a pure function of the module, the
//! launch and the step limit: no timestamps, no paths, keys in a fixed order, values in hex, so
//! traces are byte-identical across runs, host thread counts and platforms.
//!
//! Parsing and printing round-trip: `parse(write(t)) == t` for both forms, and a trace printed
//! in one form and parsed again equals the same trace printed in the other.

use std::fmt::{self, Write as _};

use ptxsim_isa::Type;

use crate::ir::Program;
use crate::machine::{Dim3, Outcome, StepRecord, unflatten};
use crate::memory::space_name;
use crate::report::{Stopped, json_string};

/// The trace format version written in the header line.
pub const VERSION: u32 = 1;

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

    /// A register value of type `ty` (the state JSON's widths: `.pred` 1 digit, `.b8` 2, ...).
    pub fn of_type(value: u128, ty: Type) -> Self {
        Self::new(value, crate::report::hex_digits(ty))
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
    /// The header of a launch of `program` over `grid` × `block`.
    pub fn new(program: &Program, grid: Dim3, block: Dim3) -> Self {
        let threads = grid.iter().chain(&block).map(|&d| u64::from(d)).product();
        Self {
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

impl Step {
    /// The trace record of an executed step of `program`.
    pub fn new(program: &Program, record: &StepRecord) -> Self {
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
                    old: Hex::of_type(write.old, ty),
                    new: Hex::of_type(write.new, ty),
                }
            })
            .collect();
        let memory = record
            .memory
            .iter()
            .map(|write| MemoryRecord {
                space: space_name(write.space).to_string(),
                address: write.address,
                bytes: write.bytes,
                value: Hex::new(write.value, 2 * write.bytes as usize),
            })
            .collect();
        Self {
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

impl End {
    /// The end of a run that issued `steps` instructions and ended with `outcome`.
    pub fn new(steps: u64, outcome: Result<&Outcome, &Stopped>) -> Self {
        let status = match outcome {
            Ok(outcome) => outcome.status(),
            Err(_) => "trapped",
        };
        Self {
            status: status.to_string(),
            steps,
        }
    }
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

fn header_json(header: &Header) -> String {
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

fn step_json(step: &Step) -> String {
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

/// The JSON header line of a launch of `program` (see [`Header::new`]).
pub fn header_line(program: &Program, grid: Dim3, block: Dim3) -> String {
    header_json(&Header::new(program, grid, block))
}

/// The JSON line of one executed step.
pub fn step_line(program: &Program, record: &StepRecord) -> String {
    step_json(&Step::new(program, record))
}

/// The JSON end line.
pub fn end_line(steps: u64, outcome: Result<&Outcome, &Stopped>) -> String {
    to_json(&Line::End(End::new(steps, outcome)))
}

// ---------------------------------------------------------------------------------------------
// Parsing.

/// A malformed trace line: its 1-based line number and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A parsed trace, with the line number of every record (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The form the file was in.
    pub format: Format,
    /// The header.
    pub header: Header,
    /// The steps, each with its 1-based line number in the file.
    pub steps: Vec<(usize, Step)>,
    /// The end line and its line number; `None` when the trace stops early (a truncated file).
    pub end: Option<(usize, End)>,
}

/// Parses a whole trace in either form (detected from the first line). A trailing `\r` on a
/// line is ignored; empty lines, lines after the end line and lines of the other form are
/// errors.
pub fn parse(contents: &str) -> Result<Trace, ParseError> {
    let contents = contents.strip_prefix('\u{feff}').unwrap_or(contents);
    let format = Format::detect(contents).ok_or_else(|| ParseError {
        line: 1,
        message: "not a ptxsim trace: expected a JSON header (`{\"ptxsim_trace\":1,...}`) or a \
                  text header (`ptxsim_trace 1 ...`)"
            .to_string(),
    })?;
    let mut header = None;
    let mut steps = Vec::new();
    let mut end = None;
    for (index, text) in contents.lines().enumerate() {
        let number = index + 1;
        let text = text.strip_suffix('\r').unwrap_or(text);
        let error = |message: String| ParseError {
            line: number,
            message,
        };
        if end.is_some() {
            return Err(error("a line after the end line".to_string()));
        }
        let line = parse_line(format, text).map_err(error)?;
        match (line, header.is_some()) {
            (Line::Header(h), false) => header = Some(h),
            (Line::Header(_), true) => return Err(error("a second header line".to_string())),
            (_, false) => return Err(error("the first line must be the header".to_string())),
            (Line::Step(step), true) => steps.push((number, step)),
            (Line::End(e), true) => end = Some((number, e)),
        }
    }
    let header = header.ok_or_else(|| ParseError {
        line: 1,
        message: "empty trace: no header line".to_string(),
    })?;
    Ok(Trace {
        format,
        header,
        steps,
        end,
    })
}

/// Parses one line of a trace in `format`.
pub fn parse_line(format: Format, text: &str) -> Result<Line, String> {
    match format {
        Format::Jsonl => parse_json_line(text),
        Format::Text => parse_text_line(text),
    }
}

/// Parses one JSON Lines trace line.
pub fn parse_json_line(text: &str) -> Result<Line, String> {
    if text.trim().is_empty() {
        return Err("empty line".to_string());
    }
    let value = JsonParser::parse(text)?;
    let Json::Object(fields) = &value else {
        return Err("expected a JSON object".to_string());
    };
    let object = Object(fields);
    if object.get("ptxsim_trace").is_some() {
        let version = object.u64("ptxsim_trace")?;
        if version != u64::from(VERSION) {
            return Err(format!(
                "trace format version {version}; this ptxsim reads version {VERSION}"
            ));
        }
        let registers = object
            .array("registers")?
            .iter()
            .map(|item| {
                let register = Object::of(item, "registers")?;
                Ok((register.string("name")?, register.string("type")?))
            })
            .collect::<Result<_, String>>()?;
        let filter = match object.get("filter") {
            Some(_) => Some(object.string("filter")?),
            None => None,
        };
        return Ok(Line::Header(Header {
            version: VERSION,
            entry: object.string("entry")?,
            threads: object.u64("threads")?,
            grid: object.dim3("grid")?,
            block: object.dim3("block")?,
            registers,
            filter,
        }));
    }
    if object.get("end").is_some() {
        return Ok(Line::End(End {
            status: object.string("end")?,
            steps: object.u64("steps")?,
        }));
    }
    if object.get("step").is_none() {
        return Err(
            "expected a header, step or end object (no `ptxsim_trace`, `step` or `end` key)"
                .to_string(),
        );
    }
    let step = object.u64("step")?;
    let thread = object.u64("thread")?;
    let pc = object.u64("pc")?;
    let line = u32::try_from(object.u64("line")?).map_err(|_| "`line` is too large".to_string())?;
    let text = object.string("text")?;
    let executed = object.bool("executed")?;
    let writes = object
        .array("writes")?
        .iter()
        .map(|item| {
            let write = Object::of(item, "writes")?;
            Ok(RegisterWrite {
                register: write.string("reg")?,
                old: write.hex("old")?,
                new: write.hex("new")?,
            })
        })
        .collect::<Result<_, String>>()?;
    let memory = match object.get("mem") {
        None => Vec::new(),
        Some(_) => object
            .array("mem")?
            .iter()
            .map(|item| {
                let write = Object::of(item, "mem")?;
                Ok(MemoryRecord {
                    space: write.string("space")?,
                    address: write.address("addr")?,
                    bytes: u32::try_from(write.u64("bytes")?)
                        .map_err(|_| "`bytes` is too large".to_string())?,
                    value: write.hex("value")?,
                })
            })
            .collect::<Result<_, String>>()?,
    };
    Ok(Line::Step(Step {
        step,
        thread,
        pc,
        line,
        text,
        executed,
        writes,
        memory,
    }))
}

/// Parses one line of the text form.
pub fn parse_text_line(text: &str) -> Result<Line, String> {
    if text.trim().is_empty() {
        return Err("empty line".to_string());
    }
    if let Some(rest) = text.strip_prefix("ptxsim_trace ") {
        return parse_text_header(rest).map(Line::Header);
    }
    if let Some(rest) = text.strip_prefix("end ") {
        let mut tokens = rest.split(' ');
        let status = tokens.next().unwrap_or_default();
        let steps = tokens
            .next()
            .and_then(|t| t.strip_prefix("steps="))
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| "expected `end STATUS steps=N`".to_string())?;
        if status.is_empty() || tokens.next().is_some() {
            return Err("expected `end STATUS steps=N`".to_string());
        }
        return Ok(Line::End(End {
            status: status.to_string(),
            steps,
        }));
    }
    if text.starts_with('t') {
        return parse_text_step(text).map(Line::Step);
    }
    Err(
        "expected a `ptxsim_trace` header, a step (`tN sN pcN LN ... | TEXT`) or an `end` line"
            .to_string(),
    )
}

fn parse_text_header(rest: &str) -> Result<Header, String> {
    let mut tokens = rest.split(' ');
    let version: u32 = tokens
        .next()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| "expected `ptxsim_trace VERSION ...`".to_string())?;
    if version != VERSION {
        return Err(format!(
            "trace format version {version}; this ptxsim reads version {VERSION}"
        ));
    }
    let (mut entry, mut threads, mut grid, mut block, mut registers, mut filter) =
        (None, None, None, None, None, None);
    for token in tokens {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("`{token}`: expected KEY=VALUE"))?;
        let dims = |value: &str| -> Result<Dim3, String> {
            let parts: Vec<&str> = value.split(',').collect();
            match parts[..] {
                [x, y, z] => {
                    let number = |t: &str| {
                        t.parse::<u32>()
                            .map_err(|_| format!("`{key}={value}`: expected X,Y,Z"))
                    };
                    Ok([number(x)?, number(y)?, number(z)?])
                }
                _ => Err(format!("`{key}={value}`: expected X,Y,Z")),
            }
        };
        match key {
            "entry" => entry = Some(value.to_string()),
            "threads" => {
                threads = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("`threads={value}`: expected a number"))?,
                );
            }
            "grid" => grid = Some(dims(value)?),
            "block" => block = Some(dims(value)?),
            "filter" => filter = Some(value.to_string()),
            "registers" => {
                registers = Some(
                    value
                        .split(',')
                        .filter(|r| !r.is_empty())
                        .map(|r| {
                            r.rsplit_once(':')
                                .map(|(name, ty)| (name.to_string(), ty.to_string()))
                                .ok_or_else(|| format!("register `{r}`: expected NAME:TYPE"))
                        })
                        .collect::<Result<Vec<_>, String>>()?,
                );
            }
            // Keys added by later versions of the format are skipped.
            _ => {}
        }
    }
    let missing = |key: &str| format!("the header has no `{key}=`");
    Ok(Header {
        version,
        entry: entry.ok_or_else(|| missing("entry"))?,
        threads: threads.ok_or_else(|| missing("threads"))?,
        grid: grid.ok_or_else(|| missing("grid"))?,
        block: block.ok_or_else(|| missing("block"))?,
        registers: registers.ok_or_else(|| missing("registers"))?,
        filter,
    })
}

fn parse_text_step(text: &str) -> Result<Step, String> {
    let (fields, instruction) = text
        .split_once(" | ")
        .ok_or_else(|| "a step line needs ` | ` before the instruction text".to_string())?;
    let mut tokens = fields.split(' ');
    let mut number = |prefix: &str, what: &str| -> Result<u64, String> {
        tokens
            .next()
            .and_then(|t| t.strip_prefix(prefix))
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("expected `{prefix}N` ({what}) in `tN sN pcN LN`"))
    };
    let thread = number("t", "the thread")?;
    let step = number("s", "the step")?;
    let pc = number("pc", "the instruction index")?;
    let line = u32::try_from(number("L", "the source line")?)
        .map_err(|_| "the source line is too large".to_string())?;
    let mut executed = true;
    let mut writes = Vec::new();
    let mut memory = Vec::new();
    for token in tokens {
        if token == "skip" && executed && writes.is_empty() && memory.is_empty() {
            executed = false;
            continue;
        }
        let (target, value) = token
            .split_once('=')
            .ok_or_else(|| format!("`{token}`: expected REG=OLD>NEW or SPACE[ADDR]=VALUE"))?;
        if let Some((space, address)) = target.strip_suffix(']').and_then(|t| t.split_once('[')) {
            let value = Hex::parse(value).ok_or_else(|| format!("`{value}` is not a hex value"))?;
            let address = Hex::parse(address)
                .and_then(|a| u64::try_from(a.value).ok())
                .ok_or_else(|| format!("`{address}` is not an address"))?;
            memory.push(MemoryRecord {
                space: space.to_string(),
                address,
                bytes: value.digits.div_ceil(2) as u32,
                value,
            });
        } else {
            let (old, new) = value
                .split_once('>')
                .ok_or_else(|| format!("`{token}`: expected REG=OLD>NEW"))?;
            let hex = |v: &str| Hex::parse(v).ok_or_else(|| format!("`{v}` is not a hex value"));
            writes.push(RegisterWrite {
                register: target.to_string(),
                old: hex(old)?,
                new: hex(new)?,
            });
        }
    }
    Ok(Step {
        step,
        thread,
        pc,
        line,
        text: instruction.to_string(),
        executed,
        writes,
        memory,
    })
}

/// A JSON value, as much of JSON as traces use (numbers are kept as written).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// Typed access to the keys of a JSON object, with messages naming the key.
struct Object<'a>(&'a [(String, Json)]);

impl<'a> Object<'a> {
    fn of(value: &'a Json, within: &str) -> Result<Self, String> {
        match value {
            Json::Object(fields) => Ok(Object(fields)),
            other => Err(format!(
                "`{within}`: expected objects, found {}",
                other.kind()
            )),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Json> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn required(&self, key: &str) -> Result<&'a Json, String> {
        self.get(key).ok_or_else(|| format!("missing key `{key}`"))
    }

    fn u64(&self, key: &str) -> Result<u64, String> {
        match self.required(key)? {
            Json::Number(text) => text
                .parse()
                .map_err(|_| format!("`{key}`: `{text}` is not a non-negative integer")),
            other => Err(format!(
                "`{key}`: expected a number, found {}",
                other.kind()
            )),
        }
    }

    fn string(&self, key: &str) -> Result<String, String> {
        match self.required(key)? {
            Json::String(text) => Ok(text.clone()),
            other => Err(format!(
                "`{key}`: expected a string, found {}",
                other.kind()
            )),
        }
    }

    fn bool(&self, key: &str) -> Result<bool, String> {
        match self.required(key)? {
            Json::Bool(value) => Ok(*value),
            other => Err(format!(
                "`{key}`: expected true or false, found {}",
                other.kind()
            )),
        }
    }

    fn array(&self, key: &str) -> Result<&'a [Json], String> {
        match self.required(key)? {
            Json::Array(items) => Ok(items),
            other => Err(format!(
                "`{key}`: expected an array, found {}",
                other.kind()
            )),
        }
    }

    fn hex(&self, key: &str) -> Result<Hex, String> {
        let text = self.string(key)?;
        Hex::parse(&text).ok_or_else(|| format!("`{key}`: `{text}` is not a hex value (0x...)"))
    }

    fn address(&self, key: &str) -> Result<u64, String> {
        self.hex(key).and_then(|hex| {
            u64::try_from(hex.value).map_err(|_| format!("`{key}`: more than 64 bits"))
        })
    }

    fn dim3(&self, key: &str) -> Result<Dim3, String> {
        let items = self.array(key)?;
        let number = |item: &Json| match item {
            Json::Number(text) => text.parse::<u32>().ok(),
            _ => None,
        };
        match items {
            [x, y, z] => match (number(x), number(y), number(z)) {
                (Some(x), Some(y), Some(z)) => Ok([x, y, z]),
                _ => Err(format!("`{key}`: expected three numbers")),
            },
            _ => Err(format!("`{key}`: expected [X,Y,Z]")),
        }
    }
}

/// A small recursive-descent JSON parser; errors name the 1-based column.
struct JsonParser<'a> {
    text: &'a str,
    position: usize,
    depth: usize,
}

impl<'a> JsonParser<'a> {
    fn parse(text: &'a str) -> Result<Json, String> {
        let mut parser = JsonParser {
            text,
            position: 0,
            depth: 0,
        };
        let value = parser.value()?;
        parser.skip_space();
        if parser.position < text.len() {
            return Err(parser.error("unexpected text after the JSON value"));
        }
        Ok(value)
    }

    fn error(&self, message: &str) -> String {
        // Count characters by their first bytes: the position may be inside one.
        let bytes = &self.text.as_bytes()[..self.position.min(self.text.len())];
        let column = bytes.iter().filter(|&&b| b & 0xc0 != 0x80).count() + 1;
        format!("column {column}: {message}")
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.position).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.position += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.position += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_space();
        self.depth += 1;
        if self.depth > 64 {
            return Err(self.error("nested too deeply"));
        }
        let value = match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.position;
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.position += 1;
                }
                Ok(Json::Number(self.text[start..self.position].to_string()))
            }
            Some(_) => {
                let rest = &self.text[self.position..];
                let literal = [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ]
                .into_iter()
                .find(|(word, _)| rest.starts_with(word));
                match literal {
                    Some((word, value)) => {
                        self.position += word.len();
                        Ok(value)
                    }
                    None => Err(self.error("expected a JSON value")),
                }
            }
            None => Err(self.error("unexpected end of line")),
        };
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Result<Json, String> {
        self.position += 1;
        let mut fields = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.position += 1;
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a key string"));
            }
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            fields.push((key, value));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.position += 1,
                Some(b'}') => {
                    self.position += 1;
                    return Ok(Json::Object(fields));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.position += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.position += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.position += 1,
                Some(b']') => {
                    self.position += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.position += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.position..];
            let Some(c) = rest.chars().next() else {
                return Err(self.error("unterminated string"));
            };
            self.position += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(escape) = self.peek() else {
                        return Err(self.error("unterminated escape"));
                    };
                    self.position += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' => {
                            let code = self
                                .text
                                .get(self.position..self.position + 4)
                                .and_then(|digits| u32::from_str_radix(digits, 16).ok());
                            let Some(code) = code else {
                                return Err(self.error("expected four hex digits after `\\u`"));
                            };
                            self.position += 4;
                            // Surrogates (never written by ptxsim) become U+FFFD.
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.error("unknown escape")),
                    }
                }
                c if (c as u32) < 0x20 => return Err(self.error("control character in a string")),
                c => out.push(c),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Filtering.

/// Which threads a filter keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Threads {
    /// Grid-wide indices `from..=to`.
    Range(u64, u64),
    /// Every thread of a CTA.
    Cta(Dim3),
    /// The thread with this index in every CTA.
    Tid(Dim3),
    /// One thread: CTA and index in it.
    CtaTid(Dim3, Dim3),
}

/// The `--trace-filter` of `ptxsim run`: which threads and which registers a trace keeps.
///
/// A filter is a list of clauses, separated by `;` (or given as several `--trace-filter`
/// options):
///
/// * `N`, `N-M`, `N,M-K,...` — threads by grid-wide index (`ctaid linear × threads per CTA +
///   tid linear`), ranges inclusive;
/// * `cta=X[,Y,Z]` — every thread of a CTA; `tid=X[,Y,Z]` — that thread of every CTA;
///   `cta=X,Y,Z/tid=X,Y,Z` — one thread;
/// * `reg=NAME[,NAME...]` — only writes to these registers;
/// * `mem` — only memory writes.
///
/// Thread clauses add up (a thread is kept when any clause names it; none: every thread).
/// With `reg=` or `mem`, a step keeps only the chosen writes and is dropped when none is left;
/// without them, steps are kept whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    threads: Vec<Threads>,
    registers: Vec<String>,
    memory: bool,
}

fn dims(text: &str, what: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{what}={text}`: expected X, X,Y or X,Y,Z"));
    }
    let mut out = [0; 3];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = part
            .parse()
            .map_err(|_| format!("`{what}={text}`: `{part}` is not a number"))?;
    }
    Ok(out)
}

fn dims_text([x, y, z]: Dim3) -> String {
    format!("{x},{y},{z}")
}

impl Filter {
    /// Parses filter specs (each may hold several `;`-separated clauses).
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<Self, String> {
        let mut filter = Filter::default();
        for clause in specs
            .iter()
            .flat_map(|s| s.as_ref().split(';'))
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            if clause == "mem" {
                filter.memory = true;
            } else if let Some(names) = clause.strip_prefix("reg=") {
                for name in names.split(',').map(str::trim) {
                    if name.is_empty() {
                        return Err(format!("`{clause}`: empty register name"));
                    }
                    if !filter.registers.iter().any(|r| r == name) {
                        filter.registers.push(name.to_string());
                    }
                }
            } else if let Some(rest) = clause.strip_prefix("cta=") {
                match rest.split_once('/') {
                    Some((cta, tid)) => {
                        let tid = tid
                            .trim()
                            .strip_prefix("tid=")
                            .ok_or_else(|| format!("`{clause}`: expected cta=X,Y,Z/tid=X,Y,Z"))?;
                        filter
                            .threads
                            .push(Threads::CtaTid(dims(cta, "cta")?, dims(tid, "tid")?));
                    }
                    None => filter.threads.push(Threads::Cta(dims(rest, "cta")?)),
                }
            } else if let Some(rest) = clause.strip_prefix("tid=") {
                filter.threads.push(Threads::Tid(dims(rest, "tid")?));
            } else {
                let list = clause.strip_prefix("thread=").unwrap_or(clause);
                for item in list.split(',').map(str::trim) {
                    let number = |t: &str| {
                        t.trim().parse::<u64>().map_err(|_| {
                            format!(
                                "`{clause}`: expected thread indices (3, 0-7), cta=X,Y,Z, \
                                 tid=X,Y,Z, cta=X,Y,Z/tid=X,Y,Z, reg=NAME,... or mem"
                            )
                        })
                    };
                    let (from, to) = match item.split_once('-') {
                        Some((from, to)) => (number(from)?, number(to)?),
                        None => (number(item)?, number(item)?),
                    };
                    if from > to {
                        return Err(format!("`{item}`: an empty range"));
                    }
                    filter.threads.push(Threads::Range(from, to));
                }
            }
        }
        Ok(filter)
    }

    /// Whether the filter keeps everything.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.registers.is_empty() && !self.memory
    }

    /// The canonical spelling, written in the trace header (`0-3;cta=1,0,0;reg=%r1;mem`).
    pub fn canonical(&self) -> String {
        let mut clauses: Vec<String> = self
            .threads
            .iter()
            .map(|t| match t {
                Threads::Range(from, to) if from == to => from.to_string(),
                Threads::Range(from, to) => format!("{from}-{to}"),
                Threads::Cta(cta) => format!("cta={}", dims_text(*cta)),
                Threads::Tid(tid) => format!("tid={}", dims_text(*tid)),
                Threads::CtaTid(cta, tid) => {
                    format!("cta={}/tid={}", dims_text(*cta), dims_text(*tid))
                }
            })
            .collect();
        if !self.registers.is_empty() {
            clauses.push(format!("reg={}", self.registers.join(",")));
        }
        if self.memory {
            clauses.push("mem".to_string());
        }
        clauses.join(";")
    }

    /// Checks the filter against a launch (threads inside it, registers of the kernel) and
    /// records it in the header.
    pub fn apply_to_header(&self, header: &mut Header) -> Result<(), String> {
        for name in &self.registers {
            if !header.registers.iter().any(|(r, _)| r == name) {
                return Err(format!(
                    "--trace-filter: kernel `{}` has no register `{name}`",
                    header.entry
                ));
            }
        }
        let inside = |index: Dim3, shape: Dim3| index.iter().zip(&shape).all(|(i, d)| i < d);
        for clause in &self.threads {
            let ok = match clause {
                Threads::Range(from, _) => *from < header.threads,
                Threads::Cta(cta) => inside(*cta, header.grid),
                Threads::Tid(tid) => inside(*tid, header.block),
                Threads::CtaTid(cta, tid) => {
                    inside(*cta, header.grid) && inside(*tid, header.block)
                }
            };
            if !ok {
                return Err(format!(
                    "--trace-filter: no thread of the launch (grid {}, block {}, {} threads) \
                     matches `{}`",
                    dims_text(header.grid),
                    dims_text(header.block),
                    header.threads,
                    Filter {
                        threads: vec![clause.clone()],
                        ..Filter::default()
                    }
                    .canonical()
                ));
            }
        }
        if !self.is_empty() {
            header.filter = Some(self.canonical());
        }
        Ok(())
    }

    /// Whether the filter keeps thread `thread` of a launch described by `header`.
    pub fn keeps_thread(&self, header: &Header, thread: u64) -> bool {
        if self.threads.is_empty() {
            return true;
        }
        let (cta, tid) = header.locate(thread);
        self.threads.iter().any(|clause| match clause {
            Threads::Range(from, to) => (*from..=*to).contains(&thread),
            Threads::Cta(c) => *c == cta,
            Threads::Tid(t) => *t == tid,
            Threads::CtaTid(c, t) => *c == cta && *t == tid,
        })
    }

    /// Applies the filter to a step: `false` when the step is dropped; otherwise the writes
    /// the filter does not keep are removed from it.
    pub fn keep(&self, header: &Header, step: &mut Step) -> bool {
        if !self.keeps_thread(header, step.thread) {
            return false;
        }
        if self.registers.is_empty() && !self.memory {
            return true;
        }
        step.writes.retain(|w| self.registers.contains(&w.register));
        if !self.memory {
            step.memory.clear();
        }
        !step.writes.is_empty() || !step.memory.is_empty()
    }
}
