//! Comparing two traces (`ptxsim trace-diff`, `ptxsim run --expect`): the first divergence,
//! with the lines it is on in both files and a few earlier steps of its thread.

use std::fmt::Write as _;

use crate::{Header, MemoryRecord, RegisterWrite, Step, Trace};

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

/// What differs between two steps at the same position, one line each.
fn step_differences(header: &Header, a: &Step, b: &Step) -> Vec<String> {
    let mut out = Vec::new();
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
                    out.push(format!("{}: A {} vs B {}", x.register, x.new, y.new));
                }
                if x.old != y.old {
                    out.push(format!(
                        "{} (value before): A {} vs B {}",
                        x.register, x.old, y.old
                    ));
                }
            }
            (x, y) => {
                let spell = |w: Option<&RegisterWrite>| {
                    w.map_or("no write".to_string(), |w| {
                        format!("{} = {}", w.register, w.new)
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

/// The up to `count` steps of `thread` before position `at` in `trace`, oldest first.
fn context_lines(trace: &Trace, name: &str, at: usize, thread: u64, count: usize) -> Vec<String> {
    let mut lines: Vec<String> = trace.steps[..at.min(trace.steps.len())]
        .iter()
        .rev()
        .filter(|(_, step)| step.thread == thread)
        .take(count)
        .map(|(line, step)| format!("  {name}:{line}: {}", describe(step)))
        .collect();
    lines.reverse();
    lines
}

fn end_text(trace: &Trace, name: &str) -> String {
    match &trace.end {
        Some((line, end)) => format!(
            "{name}:{line}: end {} after {} steps",
            end.status, end.steps
        ),
        None => format!("{name} has no end line (a truncated trace?)"),
    }
}

/// Compares two traces; `None` when they are equal, else a report of the first divergence.
/// `a_name`/`b_name` name them in the report.
pub fn diff(a: &Trace, a_name: &str, b: &Trace, b_name: &str, context: usize) -> Option<String> {
    let mut out = String::new();
    let (header_lines, comparable) = header_differences(&a.header, &b.header);
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
    let position = a
        .steps
        .iter()
        .zip(&b.steps)
        .position(|((_, x), (_, y))| x != y);
    let header = &a.header;
    if let Some(index) = position {
        let (a_line, x) = &a.steps[index];
        let (b_line, y) = &b.steps[index];
        let _ = writeln!(
            out,
            "traces differ at step record {} ({a_name}:{a_line}, {b_name}:{b_line}): {}, step {}, source line {}",
            index + 1,
            who(header, x.thread),
            x.step,
            x.line
        );
        let _ = writeln!(out, "  A: {}", describe(x));
        let _ = writeln!(out, "  B: {}", describe(y));
        let _ = writeln!(out, "differences:");
        for line in step_differences(header, x, y) {
            let _ = writeln!(out, "  {line}");
        }
        let values_differ = |x: &Step, y: &Step| {
            x.thread != y.thread
                || x.step != y.step
                || x.executed != y.executed
                || x.writes != y.writes
                || x.memory != y.memory
        };
        if !values_differ(x, y) {
            // Only the instruction changed here; say where the values first part.
            let later = a.steps[index..]
                .iter()
                .zip(&b.steps[index..])
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
                    for line in step_differences(header, x, y) {
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
    if a.steps.len() != b.steps.len() {
        let (short, short_name, long, long_name) = if a.steps.len() < b.steps.len() {
            (a, a_name, b, b_name)
        } else {
            (b, b_name, a, a_name)
        };
        let index = short.steps.len();
        let (line, next) = &long.steps[index];
        let _ = writeln!(
            out,
            "traces differ: {short_name} has {} step records and {long_name} {}; {long_name}:{line} goes on with {}, {}",
            short.step_count(),
            long.step_count(),
            who(header, next.thread),
            describe(next)
        );
        let _ = writeln!(out, "  {}", end_text(short, short_name));
        let before = context_lines(long, long_name, index, next.thread, context);
        if !before.is_empty() {
            let _ = writeln!(out, "before it (thread {}):", next.thread);
            for line in before {
                let _ = writeln!(out, "{line}");
            }
        }
        return Some(out);
    }
    let a_end = a.end.as_ref().map(|(_, end)| end);
    let b_end = b.end.as_ref().map(|(_, end)| end);
    if a_end != b_end {
        let _ = writeln!(
            out,
            "traces differ at the end: every step record is equal, but the runs end differently"
        );
        let _ = writeln!(out, "  A: {}", end_text(a, a_name));
        let _ = writeln!(out, "  B: {}", end_text(b, b_name));
        if let Some(filter) = &a.header.filter {
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
