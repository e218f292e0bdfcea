//! Reading a trace: JSON Lines through serde, the text form by hand. Errors carry the 1-based
//! line number; no input makes the reader panic.

use serde::Deserialize;

use crate::{Dim3, End, Format, Header, Hex, Line, MemoryRecord, RegisterWrite, Step, VERSION};

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
    let mut steps = Vec::new();
    let (format, header, end) = read_lines(contents, |number, step, _| {
        steps.push((number, step));
    })?;
    Ok(Trace {
        format,
        header,
        steps,
        end,
    })
}

/// A trace checked whole but not kept parsed: each step is parsed again when it is asked for
/// ([`IndexedTrace::step`]), so that comparing long traces (`ptxsim trace-diff`, `run
/// --expect`) takes the text and a few bytes per step, not the parsed steps (several times the
/// text).
#[derive(Clone, Debug)]
pub struct IndexedTrace<'t> {
    /// The form the file was in.
    pub format: Format,
    /// The header.
    pub header: Header,
    /// Each step's 1-based line number and text.
    lines: Vec<(usize, &'t str)>,
    /// The end line and its line number; `None` when the trace stops early.
    pub end: Option<(usize, End)>,
}

impl IndexedTrace<'_> {
    /// The number of step records.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the trace has no step records.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Step `index` (from 0) and its line number. Every line was parsed by [`index`], so
    /// parsing it again succeeds; were it not to, the step reads as an empty record.
    pub fn step(&self, index: usize) -> Option<(usize, Step)> {
        let &(number, text) = self.lines.get(index)?;
        let step = match parse_line(self.format, text) {
            Ok(Line::Step(step)) => step,
            _ => Step {
                step: 0,
                thread: 0,
                pc: 0,
                line: 0,
                text: String::new(),
                executed: false,
                writes: Vec::new(),
                memory: Vec::new(),
            },
        };
        Some((number, step))
    }
}

/// Checks a whole trace as [`parse`] does (the same errors) and keeps the text of each step
/// line instead of the parsed step.
pub fn index(contents: &str) -> Result<IndexedTrace<'_>, ParseError> {
    let mut lines = Vec::new();
    let (format, header, end) = read_lines(contents, |number, _, text| {
        lines.push((number, text));
    })?;
    Ok(IndexedTrace {
        format,
        header,
        lines,
        end,
    })
}

/// An end line and its line number.
type LineEnd = (usize, End);

/// Reads every line of a trace, checking it, and hands each step with its line number and text
/// to `step`; returns the form, the header and the end.
fn read_lines<'t>(
    contents: &'t str,
    mut step: impl FnMut(usize, Step, &'t str),
) -> Result<(Format, Header, Option<LineEnd>), ParseError> {
    let contents = contents.strip_prefix('\u{feff}').unwrap_or(contents);
    let format = Format::detect(contents).ok_or_else(|| ParseError {
        line: 1,
        message: "not a ptxsim trace: expected a JSON header (`{\"ptxsim_trace\":1,...}`) or a \
                  text header (`ptxsim_trace 1 ...`)"
            .to_string(),
    })?;
    let mut header = None;
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
            (Line::Step(record), true) => {
                let threads = header.as_ref().map_or(0, |h: &Header| h.threads);
                if record.thread >= threads {
                    return Err(error(format!(
                        "thread {} does not exist: the header's launch has {threads} threads",
                        record.thread
                    )));
                }
                step(number, record, text);
            }
            (Line::End(e), true) => end = Some((number, e)),
        }
    }
    let header = header.ok_or_else(|| ParseError {
        line: 1,
        message: "empty trace: no header line".to_string(),
    })?;
    Ok((format, header, end))
}

/// Parses one line of a trace in `format`.
pub fn parse_line(format: Format, text: &str) -> Result<Line, String> {
    match format {
        Format::Jsonl => parse_json_line(text),
        Format::Text => parse_text_line(text),
    }
}

/// Parses one JSON Lines trace line. The object is read by serde; which record it is comes from
/// its keys (`ptxsim_trace`: the header, `end`: the end, `step`: a step), and keys the record
/// does not have are skipped.
pub fn parse_json_line(text: &str) -> Result<Line, String> {
    if text.trim().is_empty() {
        return Err("empty line".to_string());
    }
    // serde would also read a struct from an array of its values.
    if !text.trim_start().starts_with('{') {
        return Err("expected a JSON object".to_string());
    }
    let object: JsonLine = serde_json::from_str(text).map_err(|error| json_error(&error))?;
    if let Some(version) = object.ptxsim_trace {
        if version != u64::from(VERSION) {
            return Err(format!(
                "trace format version {version}; this ptxsim reads version {VERSION}"
            ));
        }
        let filter = object.filter;
        return Ok(Line::Header(Header {
            version: VERSION,
            entry: required(object.entry, "entry")?,
            threads: required(object.threads, "threads")?,
            grid: required(object.grid, "grid")?,
            block: required(object.block, "block")?,
            registers: required(object.registers, "registers")?
                .into_iter()
                .map(|register| (register.name, register.ty))
                .collect(),
            filter,
        }));
    }
    if let Some(status) = object.end {
        return Ok(Line::End(End {
            status,
            steps: required(object.steps, "steps")?,
        }));
    }
    let Some(step) = object.step else {
        return Err(
            "expected a header, step or end object (no `ptxsim_trace`, `step` or `end` key)"
                .to_string(),
        );
    };
    // Missing keys are reported in the order the format lists them.
    let thread = required(object.thread, "thread")?;
    let pc = required(object.pc, "pc")?;
    let line = required(object.line, "line")?;
    let text = required(object.text, "text")?;
    let executed = required(object.executed, "executed")?;
    let writes = required(object.writes, "writes")?
        .into_iter()
        .map(|write| {
            Ok(RegisterWrite {
                register: write.reg,
                old: hex("old", &write.old)?,
                new: hex("new", &write.new)?,
            })
        })
        .collect::<Result<_, String>>()?;
    let memory = object
        .mem
        .unwrap_or_default()
        .into_iter()
        .map(|write| {
            let address = hex("addr", &write.addr)?;
            Ok(MemoryRecord {
                space: write.space,
                address: u64::try_from(address.value)
                    .map_err(|_| "`addr`: more than 64 bits".to_string())?,
                bytes: write.bytes,
                value: hex("value", &write.value)?,
            })
        })
        .collect::<Result<_, String>>()?;
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

/// Every key of the three kinds of JSON line; a line is the kind whose distinguishing key it
/// has, and the keys of that kind it lacks are reported by [`required`] (a key whose value is
/// `null` counts as missing).
#[derive(Debug, Deserialize)]
struct JsonLine {
    ptxsim_trace: Option<u64>,
    entry: Option<String>,
    threads: Option<u64>,
    grid: Option<Dim3>,
    block: Option<Dim3>,
    filter: Option<String>,
    registers: Option<Vec<JsonRegister>>,
    step: Option<u64>,
    thread: Option<u64>,
    pc: Option<u64>,
    line: Option<u32>,
    text: Option<String>,
    executed: Option<bool>,
    writes: Option<Vec<JsonWrite>>,
    mem: Option<Vec<JsonMemory>>,
    end: Option<String>,
    steps: Option<u64>,
}

/// One register of the header's `registers`.
#[derive(Debug, Deserialize)]
struct JsonRegister {
    name: String,
    #[serde(rename = "type")]
    ty: String,
}

/// One register write of a step's `writes` (values as written; [`hex`] reads them).
#[derive(Debug, Deserialize)]
struct JsonWrite {
    reg: String,
    old: String,
    new: String,
}

/// One memory write of a step's `mem`.
#[derive(Debug, Deserialize)]
struct JsonMemory {
    space: String,
    addr: String,
    bytes: u32,
    value: String,
}

/// The value of a key the line's kind must have.
fn required<T>(value: Option<T>, key: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing key `{key}`"))
}

/// The value of key `key`, a hex string (`0x` and 1 to 32 digits).
fn hex(key: &str, text: &str) -> Result<Hex, String> {
    Hex::parse(text).ok_or_else(|| format!("`{key}`: `{text}` is not a hex value (0x...)"))
}

/// serde_json's message for a malformed line, located by column (the line is the caller's):
/// `column 21: EOF while parsing an object`.
fn json_error(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&position) {
        Some(message) if error.column() > 0 => format!("column {}: {message}", error.column()),
        _ => message,
    }
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
