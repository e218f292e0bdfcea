//! Comparing two traces (`ptxsim trace-diff`, `ptxsim run --expect`): the first divergence,
//! with the lines it is on in both files and a few earlier steps of its thread.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::{End, Header, IndexedTrace, MemoryRecord, RegisterWrite, Step, Trace};

/// A dimension triple as `x,y,z`.
fn dims([x, y, z]: [u32; 3]) -> String {
    format!("{x},{y},{z}")
}

/// `thread 5 (cta 0,0,0 tid 5,0,0)`.
fn who(header: &Header, thread: u64) -> String {
    let (cta, tid) = header.locate(thread);
    format!("thread {thread} (cta {} tid {})", dims(cta), dims(tid))
}

/// A step in one line: `step 3 pc 3 line 21: add.s32 %r3, %r2, 5  [%r3 0x0>0x5]`.
fn describe(step: &Step) -> String {
    let mut out = format!(
        "step {} pc {} line {}: {}",
        step.step, step.pc, step.line, step.text
    );
    if !step.executed {
        out.push_str("  (not executed: guard false)");
    }
    let mut effects = Vec::new();
    for write in &step.writes {
        effects.push(format!("{} {}>{}", write.register, write.old, write.new));
    }
    for write in &step.memory {
        effects.push(format!(
            "{}[{:#x}]={}",
            write.space, write.address, write.value
        ));
    }
    if !effects.is_empty() {
        let _ = write!(out, "  [{}]", effects.join(", "));
    }
    out
}

/// The differences of two headers, one per line; empty when equal. `comparable` is false when
/// the steps cannot be compared (a different kernel or launch shape).
fn header_differences(a: &Header, b: &Header) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let mut comparable = true;
    if a.entry != b.entry {
        out.push(format!("entry: A `{}` vs B `{}`", a.entry, b.entry));
        comparable = false;
    }
    if a.grid != b.grid || a.block != b.block || a.threads != b.threads {
        out.push(format!(
            "launch: A grid {} block {} ({} threads) vs B grid {} block {} ({} threads)",
            dims(a.grid),
            dims(a.block),
            a.threads,
            dims(b.grid),
            dims(b.block),
            b.threads
        ));
        comparable = false;
    }
    if a.filter != b.filter {
        let show = |f: &Option<String>| {
            f.as_deref()
                .map_or("none".to_string(), |f| format!("`{f}`"))
        };
        out.push(format!(
            "filter: A {} vs B {}",
            show(&a.filter),
            show(&b.filter)
        ));
    }
    if a.registers != b.registers {
        let spell = |r: Option<&(String, String)>| {
            r.map_or("(none)".to_string(), |(name, ty)| format!("{name}:{ty}"))
        };
        let first = (0..a.registers.len().max(b.registers.len()))
            .find(|&i| a.registers.get(i) != b.registers.get(i))
            .unwrap_or(0);
        out.push(format!(
            "registers: A declares {} and B {}; the first difference is register {first}: A {} vs B {}",
            a.registers.len(),
            b.registers.len(),
            spell(a.registers.get(first)),
            spell(b.registers.get(first))
        ));
    }
    (out, comparable)
}

/// What differs between two steps at the same position, one line each. Register values are
/// decoded by the register's declared type where `decode` knows it (`0x3f800000 (1.0)`).
fn step_differences(header: &Header, a: &Step, b: &Step, decode: Decode<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let value = |register: &str, hex: &crate::Hex| {
        let decoded = header
            .registers
            .iter()
            .find(|(name, _)| name == register)
            .and_then(|(_, ty)| decode(ty, hex.value));
        match decoded {
            Some(decoded) => format!("{hex} ({decoded})"),
            None => hex.to_string(),
        }
    };
    if a.thread != b.thread {
        out.push(format!(
            "thread: A {} vs B {}",
            who(header, a.thread),
            who(header, b.thread)
        ));
    }
    if a.step != b.step {
        out.push(format!("step number: A {} vs B {}", a.step, b.step));
    }
    if a.pc != b.pc || a.line != b.line || a.text != b.text {
        out.push(format!(
            "instruction: A line {} `{}` vs B line {} `{}`",
            a.line, a.text, b.line, b.text
        ));
    }
    if a.executed != b.executed {
        out.push(format!("executed: A {} vs B {}", a.executed, b.executed));
    }
    for index in 0..a.writes.len().max(b.writes.len()) {
        match (a.writes.get(index), b.writes.get(index)) {
            (Some(x), Some(y)) if x.register == y.register => {
                if x.new != y.new {
                    out.push(format!(
                        "{}: A {} vs B {}",
                        x.register,
                        value(&x.register, &x.new),
                        value(&y.register, &y.new)
                    ));
                }
                if x.old != y.old {
                    out.push(format!(
                        "{} (value before): A {} vs B {}",
                        x.register,
                        value(&x.register, &x.old),
                        value(&y.register, &y.old)
                    ));
                }
            }
            (x, y) => {
                let spell = |w: Option<&RegisterWrite>| {
                    w.map_or("no write".to_string(), |w| {
                        format!("{} = {}", w.register, value(&w.register, &w.new))
                    })
                };
                out.push(format!(
                    "register write {}: A {} vs B {}",
                    index + 1,
                    spell(x),
                    spell(y)
                ));
            }
        }
    }
    for index in 0..a.memory.len().max(b.memory.len()) {
        match (a.memory.get(index), b.memory.get(index)) {
            (Some(x), Some(y)) if x.space == y.space && x.address == y.address => {
                if x.value != y.value {
                    out.push(format!(
                        "{}[{:#x}]: A {} vs B {}",
                        x.space, x.address, x.value, y.value
                    ));
                }
            }
            (x, y) => {
                let spell = |w: Option<&MemoryRecord>| {
                    w.map_or("no write".to_string(), |w| {
                        format!("{}[{:#x}] = {}", w.space, w.address, w.value)
                    })
                };
                out.push(format!(
                    "memory write {}: A {} vs B {}",
                    index + 1,
                    spell(x),
                    spell(y)
                ));
            }
        }
    }
    out
}

/// A trace's records as [`diff`] reads them, one step at a time: a parsed [`Trace`] or an
/// [`IndexedTrace`] (which parses a step when it is read).
pub trait Records {
    /// The header.
    fn header(&self) -> &Header;
    /// The number of steps that can be read.
    fn len(&self) -> usize;
    /// Whether no step can be read.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The number of step records, including any a collector counted but did not keep (then
    /// more than [`Records::len`]).
    fn step_count(&self) -> u64;
    /// Step `index` (from 0) with its line number.
    fn step(&self, index: usize) -> Option<(usize, Cow<'_, Step>)>;
    /// The end line and its line number.
    fn end(&self) -> Option<&(usize, End)>;
}

impl Records for Trace {
    fn header(&self) -> &Header {
        &self.header
    }
    fn len(&self) -> usize {
        self.steps.len()
    }
    fn step_count(&self) -> u64 {
        self.steps.len() as u64
    }
    fn step(&self, index: usize) -> Option<(usize, Cow<'_, Step>)> {
        self.steps
            .get(index)
            .map(|(line, step)| (*line, Cow::Borrowed(step)))
    }
    fn end(&self) -> Option<&(usize, End)> {
        self.end.as_ref()
    }
}

impl Records for IndexedTrace<'_> {
    fn header(&self) -> &Header {
        &self.header
    }
    fn len(&self) -> usize {
        IndexedTrace::len(self)
    }
    fn step_count(&self) -> u64 {
        IndexedTrace::len(self) as u64
    }
    fn step(&self, index: usize) -> Option<(usize, Cow<'_, Step>)> {
        IndexedTrace::step(self, index).map(|(line, step)| (line, Cow::Owned(step)))
    }
    fn end(&self) -> Option<&(usize, End)> {
        self.end.as_ref()
    }
}

/// The up to `count` steps of `thread` before position `at` in `trace`, oldest first.
fn context_lines(
    trace: &dyn Records,
    name: &str,
    at: usize,
    thread: u64,
    count: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = (0..at.min(trace.len()))
        .rev()
        .filter_map(|index| trace.step(index))
        .filter(|(_, step)| step.thread == thread)
        .take(count)
        .map(|(line, step)| format!("  {name}:{line}: {}", describe(&step)))
        .collect();
    lines.reverse();
    lines
}

fn end_text(trace: &dyn Records, name: &str) -> String {
    match trace.end() {
        Some((line, end)) => format!(
            "{name}:{line}: end {} after {} steps",
            end.status, end.steps
        ),
        None => format!("{name} has no end line (a truncated trace?)"),
    }
}

/// Decodes a register value by its type's name (`f32`, `b16`, as the header declares it):
/// `Some("1.0")`, or `None` where it has nothing to add to the hex. This crate knows no
/// formats; `ptxsim trace-diff` passes the executor's decoding (what `print` shows).
pub type Decode<'d> = &'d dyn Fn(&str, u128) -> Option<String>;

/// Compares two traces; `None` when they are equal, else a report of the first divergence.
/// `a_name`/`b_name` name them in the report. The steps are read one at a time, in order (and
/// those of one thread again for the context), so an [`IndexedTrace`] is never parsed whole.
pub fn diff<A: Records, B: Records>(
    a: &A,
    a_name: &str,
    b: &B,
    b_name: &str,
    context: usize,
) -> Option<String> {
    diff_records(a, a_name, b, b_name, context, &|_, _| None)
}

/// [`diff`], with the differing register values also decoded by `decode`.
pub fn diff_decoded<A: Records, B: Records>(
    a: &A,
    a_name: &str,
    b: &B,
    b_name: &str,
    context: usize,
    decode: Decode<'_>,
) -> Option<String> {
    diff_records(a, a_name, b, b_name, context, decode)
}

fn diff_records(
    a: &dyn Records,
    a_name: &str,
    b: &dyn Records,
    b_name: &str,
    context: usize,
    decode: Decode<'_>,
) -> Option<String> {
    let mut out = String::new();
    let (header_lines, comparable) = header_differences(a.header(), b.header());
    if !header_lines.is_empty() {
        let _ = writeln!(
            out,
            "traces differ: the headers differ ({a_name}:1, {b_name}:1)"
        );
        for line in &header_lines {
            let _ = writeln!(out, "  {line}");
        }
        if !comparable {
            let _ = writeln!(
                out,
                "the traces are of different kernels or launches; steps not compared"
            );
            return Some(out);
        }
    }
    let both = |index: usize| Some((a.step(index)?, b.step(index)?));
    let common = a.len().min(b.len());
    let first = (0..common)
        .filter_map(both)
        .enumerate()
        .find(|(_, ((_, x), (_, y)))| x != y);
    let header = a.header();
    if let Some((index, ((a_line, x), (b_line, y)))) = first {
        let _ = writeln!(
            out,
            "traces differ at step record {} ({a_name}:{a_line}, {b_name}:{b_line}): {}, step {}, source line {}",
            index + 1,
            who(header, x.thread),
            x.step,
            x.line
        );
        let _ = writeln!(out, "  A: {}", describe(&x));
        let _ = writeln!(out, "  B: {}", describe(&y));
        let _ = writeln!(out, "differences:");
        for line in step_differences(header, &x, &y, decode) {
            let _ = writeln!(out, "  {line}");
        }
        let values_differ = |x: &Step, y: &Step| {
            x.thread != y.thread
                || x.step != y.step
                || x.executed != y.executed
                || x.writes != y.writes
                || x.memory != y.memory
        };
        if !values_differ(&x, &y) {
            // Only the instruction changed here; say where the values first part.
            let later = (index..common)
                .filter_map(both)
                .find(|((_, x), (_, y))| values_differ(x, y));
            match later {
                Some(((a_line, x), (b_line, y))) => {
                    let _ = writeln!(
                        out,
                        "the first value that differs is at {a_name}:{a_line}, {b_name}:{b_line}: {}, step {}, source line {}",
                        who(header, x.thread),
                        x.step,
                        x.line
                    );
                    for line in step_differences(header, &x, &y, decode) {
                        let _ = writeln!(out, "  {line}");
                    }
                }
                None => {
                    let _ = writeln!(out, "every value written is the same in both traces");
                }
            }
        }
        let before = context_lines(a, a_name, index, x.thread, context);
        if !before.is_empty() {
            let _ = writeln!(
                out,
                "before it ({} equal step{} of thread {}):",
                before.len(),
                if before.len() == 1 { "" } else { "s" },
                x.thread
            );
            for line in before {
                let _ = writeln!(out, "{line}");
            }
        }
        return Some(out);
    }
    if a.len() != b.len() {
        let (short, short_name, long, long_name) = if a.len() < b.len() {
            (a, a_name, b, b_name)
        } else {
            (b, b_name, a, a_name)
        };
        let index = short.len();
        if let Some((line, next)) = long.step(index) {
            let _ = writeln!(
                out,
                "traces differ: {short_name} has {} step records and {long_name} {}; {long_name}:{line} goes on with {}, {}",
                short.step_count(),
                long.step_count(),
                who(header, next.thread),
                describe(&next)
            );
            let _ = writeln!(out, "  {}", end_text(short, short_name));
            let before = context_lines(long, long_name, index, next.thread, context);
            if !before.is_empty() {
                let _ = writeln!(out, "before it (thread {}):", next.thread);
                for line in before {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
        return Some(out);
    }
    let a_end = a.end().map(|(_, end)| end);
    let b_end = b.end().map(|(_, end)| end);
    if a_end != b_end {
        let _ = writeln!(
            out,
            "traces differ at the end: every step record is equal, but the runs end differently"
        );
        let _ = writeln!(out, "  A: {}", end_text(a, a_name));
        let _ = writeln!(out, "  B: {}", end_text(b, b_name));
        if let Some(filter) = &a.header().filter {
            let _ = writeln!(
                out,
                "  (the difference is in steps the filter `{filter}` leaves out)"
            );
        }
        return Some(out);
    }
    if !header_lines.is_empty() {
        return Some(out);
    }
    None
}

/// Whether two traces in memory are equal as traces (the form they are spelled in aside).
#[cfg(test)]
fn equal(a: &Trace, b: &Trace) -> bool {
    diff(a, "a", b, "b", 0).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Line, parse};

    const A: &str = r#"{"ptxsim_trace":1,"entry":"k","threads":2,"grid":[1,1,1],"block":[2,1,1],"registers":[{"name":"%r0","type":"b32"}]}
{"step":0,"thread":0,"pc":0,"line":5,"text":"mov.b32 %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000000","new":"0x00000001"}]}
{"step":0,"thread":1,"pc":0,"line":5,"text":"mov.b32 %r0, 1","executed":true,"writes":[{"reg":"%r0","old":"0x00000000","new":"0x00000001"}],"mem":[{"space":"global","addr":"0x7f0000000000","bytes":4,"value":"0x00000001"}]}
{"end":"exited","steps":2}
"#;

    #[test]
    fn the_text_form_of_a_trace_equals_it() {
        let a = parse(A).unwrap();
        let text: String = std::iter::once(Line::Header(a.header.clone()))
            .chain(a.steps.iter().map(|(_, s)| Line::Step(s.clone())))
            .chain(a.end.iter().map(|(_, e)| Line::End(e.clone())))
            .map(|line| Format::Text.write(&line) + "\n")
            .collect();
        let b = parse(&text).unwrap();
        assert_eq!(b.format, Format::Text);
        assert!(equal(&a, &b));
    }

    #[test]
    fn a_changed_value_is_reported_with_its_lines() {
        let a = parse(A).unwrap();
        let b = parse(&A.replace(
            "\"new\":\"0x00000001\"}],\"mem\"",
            "\"new\":\"0x00000002\"}],\"mem\"",
        ))
        .unwrap();
        let report = diff(&a, "a", &b, "b", 3).unwrap();
        assert!(report.contains("(a:3, b:3)"), "{report}");
        assert!(
            report.contains("%r0: A 0x00000001 vs B 0x00000002"),
            "{report}"
        );
        assert!(
            report.contains("thread 1 (cta 0,0,0 tid 1,0,0)"),
            "{report}"
        );
    }
}
