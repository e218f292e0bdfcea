//! The commands: parsing a line and running it on the [`Session`].
//!
//! Every command returns text (errors start with `error: `); none ends the session except
//! `quit`.

use std::fmt::Write as _;

use ptxsim_exec::ThreadStatus;
use ptxsim_exec::memory::to_generic;
use ptxsim_exec::report;
use ptxsim_isa::Type;
use ptxsim_isa::ops::Space;

use super::format::{self, FORMATS, Format};
use super::session::{Mode, PointKind, Session, dims, steps_text};

/// The commands, their aliases, arguments and what they do, as `help` prints them.
pub(crate) const COMMANDS: &[(&str, &str, &str, &str)] = &[
    (
        "step",
        "s",
        "[N] | line [N]",
        "run N instructions (default 1) of the selected thread, or to its Nth next .cu line",
    ),
    (
        "next",
        "n",
        "[N] | line [N]",
        "like step, but a call and its callee count as one instruction (or as its line)",
    ),
    (
        "continue",
        "c",
        "",
        "run to a breakpoint, a watchpoint or the thread's end; then the launch's",
    ),
    (
        "break",
        "b",
        "LINE|FILE:LINE|LABEL|FUNC",
        "stop before the instruction on LINE (of FILE: a .cu line), after LABEL, or at FUNC",
    ),
    (
        "delete",
        "d",
        "[N]",
        "delete breakpoint or watchpoint N (all without N)",
    ),
    (
        "info",
        "i",
        "breakpoints|threads|args",
        "list breakpoints, the block's threads, the arguments",
    ),
    ("watch", "w", "REG", "stop after an instruction changes REG"),
    (
        "print",
        "p",
        "REG[/FMT] [warp]",
        "show a register (or %tid.x, %ctaid.y, ...), decoded; `warp`: in every lane of the warp",
    ),
    (
        "regs",
        "r",
        "[PATTERN]",
        "show the registers (all, or matching a prefix or a glob)",
    ),
    (
        "mem",
        "x",
        "ADDR LEN [TYPE]",
        "show LEN bytes at ADDR, as bytes or as TYPE elements",
    ),
    (
        "set",
        "=",
        "REG VALUE",
        "write a register of the selected thread",
    ),
    (
        "list",
        "l",
        "[LINE|src|FILE:LINE]",
        "show the PTX around the next instruction (or LINE), or the `.cu` source",
    ),
    (
        "where",
        "bt",
        "",
        "show the selected thread, its call stack and next instruction",
    ),
    (
        "thread",
        "t",
        "[X[,Y,Z]]",
        "select a thread of the block (show the selection without)",
    ),
    (
        "block",
        "bl",
        "[X[,Y,Z]]",
        "select a block (CTA) of the grid, keeping the thread index",
    ),
    (
        "restart",
        "run",
        "",
        "start the launch again with fresh memory (breakpoints stay)",
    ),
    ("quit", "q", "", "leave the debugger"),
    ("help", "h", "", "this list"),
];

/// What running a command came to.
#[derive(Debug)]
pub struct Reply {
    /// What to print.
    pub text: String,
    /// Whether the session ends.
    pub quit: bool,
}

fn reply(text: String) -> Reply {
    Reply { text, quit: false }
}

fn error(message: impl std::fmt::Display) -> Reply {
    reply(format!("error: {message}\n"))
}

/// The help text.
pub(crate) fn help() -> String {
    let mut text = String::from("commands (alias in parentheses):\n");
    let usage = |(name, _, args, _): &(&str, &str, &str, &str)| {
        if args.is_empty() {
            (*name).to_string()
        } else {
            format!("{name} {args}")
        }
    };
    let width = COMMANDS
        .iter()
        .map(|c| usage(c).len() + c.1.len() + 3)
        .max()
        .unwrap_or(0);
    for command in COMMANDS {
        let left = format!("{} ({})", usage(command), command.1);
        let _ = writeln!(text, "  {left:<width$}  {}", command.3);
    }
    let _ = writeln!(text, "print formats: {FORMATS}");
    text.push_str(
        "ADDR: a generic address (global addresses are generic), SPACE:ADDR (global, shared, \
         local, const, param) or a register\n\
         an empty line repeats the last command at a terminal; lines starting with # are \
         comments\n",
    );
    text
}

/// Parses a count for `step N`/`next N`.
fn count(args: &[&str]) -> Result<u64, String> {
    match args {
        [] => Ok(1),
        [n] => n
            .parse::<u64>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("`{n}` is not a count (1 or more)")),
        _ => Err("expected at most one count".to_string()),
    }
}

/// Parses an unsigned number: decimal or `0x` hex.
fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// The most bytes `mem` shows at once.
const MAX_MEM_BYTES: u64 = 4096;

impl Session<'_> {
    /// Runs one command line (already trimmed, not empty).
    pub fn execute(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&name, args)) = words.split_first() else {
            return reply(String::new());
        };
        let Some(command) = COMMANDS.iter().find(|c| c.0 == name || c.1 == name) else {
            return error(format!(
                "unknown command `{name}` (`help` lists the commands)"
            ));
        };
        let no_arguments = |reply_fn: &mut dyn FnMut() -> Reply| -> Reply {
            if args.is_empty() {
                reply_fn()
            } else {
                error(format!("`{}` takes no arguments", command.0))
            }
        };
        match command.0 {
            "step" | "next" => {
                let over_calls = command.0 == "next";
                let (by_line, args) = match args.split_first() {
                    Some((&"line", rest)) => (true, rest),
                    _ => (false, args),
                };
                match count(args) {
                    Ok(n) if by_line => match self.lines_known() {
                        Ok(()) => reply(self.go(Mode::Line {
                            lines: n,
                            over_calls,
                        })),
                        Err(message) => error(message),
                    },
                    Ok(n) if over_calls => reply(self.go(Mode::Next(n))),
                    Ok(n) => reply(self.go(Mode::Step(n))),
                    Err(message) => error(message),
                }
            }
            "continue" => no_arguments(&mut || reply(self.go(Mode::Continue))),
            "break" => self.command_break(args),
            "delete" => self.command_delete(args),
            "info" => self.command_info(args),
            "watch" => self.command_watch(args),
            "print" => self.command_print(args),
            "regs" => self.command_regs(args),
            "mem" => self.command_mem(args),
            "set" => self.command_set(args),
            "list" => self.command_list(args),
            "where" => no_arguments(&mut || reply(self.command_where())),
            "thread" => self.command_select(args, false),
            "block" => self.command_select(args, true),
            "restart" => no_arguments(&mut || match self.restart() {
                Ok(()) => reply(format!("restarted\n{}", self.next_line())),
                Err(message) => error(message),
            }),
            "quit" => no_arguments(&mut || Reply {
                text: String::new(),
                quit: true,
            }),
            _ => reply(help()),
        }
    }

    /// `break FILE:LINE`: before the first instruction of each run of instructions whose
    /// `.loc` names that line of a `.file` whose name is FILE or ends in `/FILE` (PTX ISA 9.0,
    /// 11.6.1-2: `.file` and `.loc`, what `nvcc -lineinfo` and `-G` write).
    /// The indices of the `.file`s named `file` (the whole name or its last components).
    fn source_files_named(&self, file: &str) -> Result<Vec<u32>, String> {
        let suffix = format!("/{file}");
        let files: Vec<u32> = self
            .program
            .source_files
            .iter()
            .filter(|(_, name)| name == file || name.ends_with(&suffix))
            .map(|(index, _)| *index)
            .collect();
        if !files.is_empty() {
            return Ok(files);
        }
        Err(if self.program.source_files.is_empty() {
            "the PTX has no source lines (`.file`/`.loc`): build it with `nvcc -lineinfo` or `-G`"
                .to_string()
        } else {
            let names: Vec<&str> = self
                .program
                .source_files
                .iter()
                .map(|(_, name)| name.as_str())
                .collect();
            format!(
                "no source file `{file}`; the PTX names {}",
                names.join(", ")
            )
        })
    }

    fn break_at_source(&mut self, file: &str, line: u32) -> Reply {
        let files = match self.source_files_named(file) {
            Ok(files) => files,
            Err(message) => return error(message),
        };
        let on_line = |pc: usize| {
            self.program.instructions.get(pc).is_some_and(|i| {
                i.source
                    .is_some_and(|s| s.line == line && files.contains(&s.file))
            })
        };
        let pcs: Vec<usize> = (0..self.program.instructions.len())
            .filter(|&pc| on_line(pc) && (pc == 0 || !on_line(pc - 1)))
            .collect();
        if pcs.is_empty() {
            return error(format!(
                "no instruction of kernel `{}` or the functions it calls comes from {file}:{line}",
                self.program.entry
            ));
        }
        let at: Vec<String> = pcs
            .iter()
            .map(|&pc| self.program.instructions[pc].location.line.to_string())
            .collect();
        self.add_break(pcs, format!("{file}:{line} (line {})", at.join(", ")))
    }

    fn command_break(&mut self, args: &[&str]) -> Reply {
        let [target] = args else {
            return error("usage: break LINE|FILE:LINE|LABEL|FUNCTION");
        };
        if let Some((file, line)) = target.rsplit_once(':')
            && !file.is_empty()
            && let Ok(line) = line.parse::<u32>()
        {
            return self.break_at_source(file, line);
        }
        let (pcs, what) = if target.chars().all(|c| c.is_ascii_digit()) {
            let Ok(line) = target.parse::<u32>() else {
                return error(format!("`{target}` is not a line number"));
            };
            let pcs: Vec<usize> = self
                .program
                .instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| i.location.line == line)
                .map(|(pc, _)| pc)
                .collect();
            if pcs.is_empty() {
                let next = self
                    .program
                    .instructions
                    .iter()
                    .map(|i| i.location.line)
                    .filter(|&l| l > line)
                    .min();
                let hint = match next {
                    Some(next) => format!("; the next one is on line {next}"),
                    None => String::new(),
                };
                return error(format!(
                    "no instruction of kernel `{}` or the functions it calls is on line \
                     {line}{hint}",
                    self.program.entry
                ));
            }
            (pcs, format!("line {line}"))
        } else {
            let (pcs, lines) = self.map.label_targets(self.program, target);
            if pcs.is_empty() {
                if let Some(pc) = self.map.function_start(self.program, target) {
                    let line = self.program.instructions[pc].location.line;
                    return self.add_break(vec![pc], format!("function {target} (line {line})"));
                }
                return error(format!(
                    "no label `{target}` followed by an instruction, and no function \
                     `{target}`, in kernel `{}` or the functions it calls",
                    self.program.entry
                ));
            }
            let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
            let at: Vec<String> = pcs
                .iter()
                .filter_map(|&pc| self.program.instructions.get(pc))
                .map(|i| i.location.line.to_string())
                .collect();
            (
                pcs,
                format!(
                    "label {target} (line {}), before line {}",
                    lines.join(", "),
                    at.join(", ")
                ),
            )
        };
        self.add_break(pcs, what)
    }

    fn add_break(&mut self, pcs: Vec<usize>, what: String) -> Reply {
        if let Some(existing) = self.points.iter().find(|p| match &p.kind {
            PointKind::Break { pcs: other, .. } => *other == pcs,
            PointKind::Watch(_) => false,
        }) {
            return error(format!("breakpoint {} is already there", existing.id));
        }
        let id = self.add_point(PointKind::Break {
            pcs,
            what: what.clone(),
        });
        reply(format!("breakpoint {id}: {what}\n"))
    }

    fn command_delete(&mut self, args: &[&str]) -> Reply {
        match args {
            [] => {
                let count = self.points.len();
                self.points.clear();
                reply(format!("deleted {count} breakpoint(s) and watchpoint(s)\n"))
            }
            [n] => {
                let Some(id) = n.parse::<u32>().ok() else {
                    return error(format!("`{n}` is not a breakpoint number"));
                };
                match self.points.iter().position(|p| p.id == id) {
                    Some(index) => {
                        self.points.remove(index);
                        reply(format!("deleted {id}\n"))
                    }
                    None => error(format!(
                        "no breakpoint or watchpoint {id} (`info breakpoints` lists them)"
                    )),
                }
            }
            _ => error("usage: delete [N]"),
        }
    }

    fn command_info(&mut self, args: &[&str]) -> Reply {
        match args {
            ["breakpoints" | "break" | "b" | "watchpoints" | "watch" | "w"] => {
                if self.points.is_empty() {
                    return reply("no breakpoints or watchpoints\n".to_string());
                }
                let mut text = String::from("num  type        where\n");
                for point in &self.points {
                    let (kind, what) = match &point.kind {
                        PointKind::Break { what, .. } => ("breakpoint", what.clone()),
                        PointKind::Watch(register) => (
                            "watchpoint",
                            self.program.registers[register.index()].name.clone(),
                        ),
                    };
                    let hits = match point.hits {
                        0 => String::new(),
                        1 => "  (hit once)".to_string(),
                        n => format!("  (hit {n} times)"),
                    };
                    let _ = writeln!(text, "{:<4} {kind:<11} {what}{hits}", point.id);
                }
                reply(text)
            }
            ["threads" | "t"] => {
                let block = self.device.block();
                let selected = self.thread_index();
                let state = self.state();
                let mut rows = Vec::new();
                for (index, thread) in state.cta.threads().enumerate() {
                    let status = match thread.status() {
                        ThreadStatus::Ready => "ready".to_string(),
                        ThreadStatus::AtBarrier => "at bar.sync".to_string(),
                        ThreadStatus::AtWarpSync => "at a warp-synchronous instruction".to_string(),
                        ThreadStatus::Done(outcome) => outcome.status().to_string(),
                    };
                    rows.push((
                        index == selected,
                        ptxsim_exec::dim::unflatten(index as u64, block),
                        status,
                        thread.pc(),
                        thread.steps(),
                    ));
                }
                let mut text = format!("threads of block {}:\n", dims(self.cta));
                for (selected, tid, status, pc, steps) in rows {
                    let line = self
                        .program
                        .instructions
                        .get(pc)
                        .map_or(0, |i| i.location.line);
                    let _ = writeln!(
                        text,
                        "{} {}  {status:<11} line {line:<5} {}",
                        if selected { "*" } else { " " },
                        dims(tid),
                        steps_text(steps)
                    );
                }
                reply(text)
            }
            ["args" | "arguments"] => reply(self.arguments_text()),
            _ => error("usage: info breakpoints|threads|args"),
        }
    }

    /// A register by name (with or without `%`).
    fn register(&self, name: &str) -> Result<ptxsim_exec::ir::RegisterId, String> {
        self.program
            .register(name)
            .or_else(|| self.program.register(&format!("%{name}")))
            .ok_or_else(|| format!("no register `{name}` (`regs` lists them)"))
    }

    fn command_watch(&mut self, args: &[&str]) -> Reply {
        let [name] = args else {
            return error("usage: watch REG");
        };
        let register = match self.register(name) {
            Ok(register) => register,
            Err(message) => return error(message),
        };
        if let Some(existing) = self
            .points
            .iter()
            .find(|p| matches!(p.kind, PointKind::Watch(r) if r == register))
        {
            return error(format!("watchpoint {} already watches it", existing.id));
        }
        let id = self.add_point(PointKind::Watch(register));
        let register_name = &self.program.registers[register.index()].name;
        reply(format!("watchpoint {id}: {register_name}\n"))
    }

    fn command_print(&mut self, args: &[&str]) -> Reply {
        let (spec, warp) = match args {
            [spec] => (spec, false),
            [spec, "warp"] => (spec, true),
            _ => return error("usage: print REG[/FORMAT] [warp]"),
        };
        let (name, format) = match spec.split_once('/') {
            Some((name, format)) => match Format::parse(format) {
                Ok(format) => (name, format),
                Err(message) => return error(message),
            },
            None => (*spec, Format::Hex),
        };
        if warp {
            let register = match self.register(name) {
                Ok(register) => register,
                Err(message) => return error(message),
            };
            let info = &self.program.registers[register.index()];
            let (shown, ty) = (info.name.clone(), info.ty);
            // Lanes that are not where the selected thread is say where they are: a value read
            // in a lane that is behind, ahead or finished is not the value at this line.
            let here = self.position().0;
            let mut text = String::new();
            for lane in self.warp_values(register) {
                match format::print(&shown, lane.value, ty, format) {
                    Ok(line) => {
                        let state = match &lane.status {
                            ThreadStatus::Done(outcome) => format!("  [{}]", outcome.status()),
                            _ if lane.pc != here => format!(
                                "  [at line {}]",
                                self.program
                                    .instructions
                                    .get(lane.pc)
                                    .map_or(0, |i| i.location.line)
                            ),
                            _ => String::new(),
                        };
                        let (first, rest) = line.split_once('\n').unwrap_or((&line, ""));
                        let _ = write!(
                            text,
                            "lane {:>2} thread {}: {first}{state}\n{rest}",
                            lane.lane,
                            dims(lane.thread)
                        );
                    }
                    Err(message) => return error(message),
                }
            }
            return reply(text);
        }
        let (shown, value, ty) = if let Some((value, ty)) = self.special(name) {
            (name.to_string(), value, ty)
        } else {
            let register = match self.register(name) {
                Ok(register) => register,
                Err(message) => return error(message),
            };
            let info = &self.program.registers[register.index()];
            let (shown, ty) = (info.name.clone(), info.ty);
            let value = self.registers().get(register.index()).copied().unwrap_or(0);
            (shown, value, ty)
        };
        match format::print(&shown, value, ty, format) {
            Ok(text) => reply(text),
            Err(message) => error(message),
        }
    }

    fn command_regs(&mut self, args: &[&str]) -> Reply {
        let pattern = match args {
            [] => None,
            [pattern] => Some(*pattern),
            _ => return error("usage: regs [PATTERN]"),
        };
        let values = self.registers();
        let rows: Vec<[String; 4]> = self
            .program
            .registers
            .iter()
            .zip(&values)
            .filter(|(info, _)| pattern.is_none_or(|p| format::matches_pattern(&info.name, p)))
            .map(|(info, value)| {
                [
                    info.name.clone(),
                    info.ty.to_string(),
                    report::hex(*value, info.ty),
                    format::decoded(*value, info.ty),
                ]
            })
            .collect();
        if rows.is_empty() {
            return error(match pattern {
                Some(pattern) => format!("no register matches `{pattern}`"),
                None => "the kernel has no registers".to_string(),
            });
        }
        let mut widths = [0usize; 3];
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut text = String::new();
        for row in &rows {
            let _ = writeln!(
                text,
                "{:<w0$}  {:<w1$}  {:<w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
        }
        reply(text)
    }

    /// An address: a number, a register's value, or `SPACE:ADDR` (converted to generic).
    fn address(&mut self, text: &str) -> Result<u64, String> {
        if let Some((space, rest)) = text.split_once(':') {
            let space = match space {
                "global" => Space::Global,
                "shared" => Space::Shared,
                "local" => Space::Local,
                "const" => Space::Const,
                "param" => Space::Param,
                other => {
                    return Err(format!(
                        "unknown space `{other}` (global, shared, local, const, param)"
                    ));
                }
            };
            let at = self.address(rest)?;
            return Ok(to_generic(space, at));
        }
        if let Some(value) = number(text) {
            return Ok(value);
        }
        if text.starts_with('%') || self.program.register(&format!("%{text}")).is_some() {
            let register = self.register(text)?;
            let value = self.registers().get(register.index()).copied().unwrap_or(0);
            return Ok(value as u64);
        }
        Err(format!(
            "`{text}` is not an address (a number, a register, or SPACE:ADDR)"
        ))
    }

    fn command_mem(&mut self, args: &[&str]) -> Reply {
        let (address, length, ty) = match args {
            [address, length] => (address, length, None),
            [address, length, ty] => (address, length, Some(*ty)),
            _ => return error("usage: mem ADDR LEN [TYPE]"),
        };
        let start = match self.address(address) {
            Ok(start) => start,
            Err(message) => return error(message),
        };
        let Some(length) = number(length).filter(|&n| (1..=MAX_MEM_BYTES).contains(&n)) else {
            return error(format!(
                "`{length}` is not a length (1 to {MAX_MEM_BYTES} bytes)"
            ));
        };
        let ty = match ty {
            None => None,
            Some(name) => match Type::from_name(name)
                .filter(|t| t.bits() % 8 == 0 && !name.starts_with('.'))
            {
                Some(ty) => Some(ty),
                None => {
                    return error(format!(
                        "`{name}` is not a type mem can show (u8..u64, s8..s64, b8..b64, f16, \
                         bf16, f32, f64, e4m3x2, ...)"
                    ));
                }
            },
        };
        let bytes: Vec<Option<u8>> = (0..length)
            .map(|offset| {
                start
                    .checked_add(offset)
                    .and_then(|address| self.read_byte(address))
            })
            .collect();
        if bytes.iter().all(Option::is_none) {
            return error(format!(
                "nothing is mapped at {start:#x} (`info args` shows the buffers)"
            ));
        }
        let mut text = String::new();
        match ty {
            None => {
                for (row, chunk) in bytes.chunks(16).enumerate() {
                    let _ = write!(text, "{:#018x}:", start.wrapping_add(row as u64 * 16));
                    for (column, byte) in chunk.iter().enumerate() {
                        if column == 8 {
                            text.push(' ');
                        }
                        match byte {
                            Some(byte) => {
                                let _ = write!(text, " {byte:02x}");
                            }
                            None => text.push_str(" ??"),
                        }
                    }
                    text.push('\n');
                }
            }
            Some(ty) => {
                let size = (ty.bits() / 8) as usize;
                for (index, chunk) in bytes.chunks(size).enumerate() {
                    let at = start.wrapping_add((index * size) as u64);
                    if chunk.len() < size {
                        let _ = writeln!(text, "{at:#018x} [{index}] (only {} bytes)", chunk.len());
                        break;
                    }
                    let value: Option<u128> = chunk
                        .iter()
                        .rev()
                        .try_fold(0u128, |acc, byte| byte.map(|b| (acc << 8) | u128::from(b)));
                    match value {
                        Some(value) => {
                            let _ = writeln!(
                                text,
                                "{at:#018x} [{index}] {} = {}",
                                report::hex(value, ty),
                                report::decode(value, ty)
                            );
                        }
                        None => {
                            let _ = writeln!(text, "{at:#018x} [{index}] ?? (not mapped)");
                        }
                    }
                }
            }
        }
        reply(text)
    }

    fn command_set(&mut self, args: &[&str]) -> Reply {
        let [name, value] = args else {
            return error("usage: set REG VALUE");
        };
        if self.special(name).is_some() {
            return error(format!("`{name}` is a special register; it cannot be set"));
        }
        let register = match self.register(name) {
            Ok(register) => register,
            Err(message) => return error(message),
        };
        let info = &self.program.registers[register.index()];
        let (shown, ty) = (info.name.clone(), info.ty);
        let bits = match format::parse_value(value, ty) {
            Ok(bits) => bits,
            Err(message) => return error(message),
        };
        let program = self.program;
        let index = self.thread_index();
        self.state()
            .cta
            .set_register(program, index, register, bits);
        let now = self.registers().get(register.index()).copied().unwrap_or(0);
        reply(format!("{shown} = {}\n", format::value_text(now, ty)))
    }

    /// The instructions the breakpoints stop at.
    fn breakpoint_pcs(&self) -> impl Iterator<Item = usize> + '_ {
        self.points
            .iter()
            .filter_map(|p| match &p.kind {
                PointKind::Break { pcs, .. } => Some(pcs),
                PointKind::Watch(_) => None,
            })
            .flatten()
            .copied()
    }

    fn command_list(&mut self, args: &[&str]) -> Reply {
        let (pc, _, _) = self.position();
        match args {
            ["src" | "cu"] => return self.list_source(pc, None),
            [at] if at.contains(':') => {
                let (file, line) = at.rsplit_once(':').unwrap_or((at, ""));
                return match line.parse::<u32>() {
                    Ok(line) if line > 0 => self.list_source(pc, Some((file, line))),
                    _ => error(format!("`{at}` is not FILE:LINE")),
                };
            }
            _ => {}
        }
        let current = self
            .program
            .instructions
            .get(pc)
            .map_or(1, |i| i.location.line as usize);
        let center = match args {
            [] => current,
            [line] => match line.parse::<usize>() {
                Ok(line) if (1..=self.lines.len()).contains(&line) => line,
                _ => {
                    return error(format!(
                        "`{line}` is not a line of the file (1 to {})",
                        self.lines.len()
                    ));
                }
            },
            _ => return error("usage: list [LINE|src|FILE:LINE]"),
        };
        let breakpoint_lines: Vec<usize> = self
            .breakpoint_pcs()
            .filter_map(|pc| self.program.instructions.get(pc))
            .map(|i| i.location.line as usize)
            .collect();
        let first = center.saturating_sub(5).max(1);
        let last = (center + 5).min(self.lines.len());
        let mut text = String::new();
        for number in first..=last {
            let marker = if number == current { "=>" } else { "  " };
            let stop = if breakpoint_lines.contains(&number) {
                "*"
            } else {
                " "
            };
            let source = self.lines.get(number - 1).copied().unwrap_or("");
            let _ = writeln!(text, "{marker}{stop}{number:>5}  {}", source.trim_end());
        }
        reply(text)
    }

    /// `list src` and `list FILE:LINE`: the `.cu` lines around the selected thread's next
    /// instruction's `.loc` line (or around LINE of FILE), read from the host's disk. `=>`
    /// marks the next instruction's line, `*` the lines a breakpoint stops at.
    fn list_source(&mut self, pc: usize, at: Option<(&str, u32)>) -> Reply {
        let current = self.source_at(pc);
        let (file, center) = match at {
            Some((name, line)) => match self.source_files_named(name) {
                Ok(files) => (
                    files
                        .iter()
                        .copied()
                        .find(|f| self.source_text(*f).is_some())
                        .unwrap_or(files[0]),
                    line,
                ),
                Err(message) => return error(message),
            },
            None => match current {
                Some(source) => (source.file, source.line),
                None => {
                    return error(if let Err(message) = self.lines_known() {
                        message
                    } else {
                        "the next instruction has no `.loc` line".to_string()
                    });
                }
            },
        };
        let name = self
            .program
            .source_files
            .iter()
            .find(|(index, _)| *index == file)
            .map_or("?", |(_, name)| name.as_str());
        let Some(lines) = self.source_text(file) else {
            return error(format!(
                "`{name}` cannot be read on this machine (`list` shows the PTX)"
            ));
        };
        let center = center as usize;
        if center > lines.len() {
            return error(format!("`{name}` has {} lines, not {center}", lines.len()));
        }
        let stops: Vec<u32> = self
            .breakpoint_pcs()
            .filter_map(|pc| self.source_at(pc))
            .filter(|s| s.file == file)
            .map(|s| s.line)
            .collect();
        let first = center.saturating_sub(5).max(1);
        let last = (center + 5).min(lines.len());
        let mut text = format!("{name}:\n");
        for number in first..=last {
            let here = current.is_some_and(|s| s.file == file && s.line as usize == number);
            let marker = if here { "=>" } else { "  " };
            let stop = if stops.iter().any(|&l| l as usize == number) {
                "*"
            } else {
                " "
            };
            let _ = writeln!(
                text,
                "{marker}{stop}{number:>5}  {}",
                lines[number - 1].trim_end()
            );
        }
        reply(text)
    }

    fn command_where(&mut self) -> String {
        let (pc, status, steps) = self.position();
        let state_text = match &status {
            ThreadStatus::Ready => "ready".to_string(),
            ThreadStatus::AtBarrier => "waiting at bar.sync".to_string(),
            ThreadStatus::AtWarpSync => "waiting for lanes of its warp".to_string(),
            ThreadStatus::Done(outcome) => outcome.status().to_string(),
        };
        let [gx, gy, gz] = self.device.grid();
        let [bx, by, bz] = self.device.block();
        if matches!(status, ThreadStatus::Done(_)) {
            return self.next_line();
        }
        let mut text = format!(
            "{} (grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}): {state_text}, {}\n",
            self.who(),
            steps_text(steps)
        );
        let index = self.thread_index();
        let stack = self.state().stacks.get(index).cloned().unwrap_or_default();
        let function = |pc: usize| {
            self.map
                .function_of(self.program, pc)
                .unwrap_or("?")
                .to_string()
        };
        let _ = write!(
            text,
            "#0  in {}  {}",
            function(pc),
            self.instruction_line(pc)
        );
        for (depth, &call) in stack.iter().rev().enumerate() {
            let _ = write!(
                text,
                "#{}  in {}  {}",
                depth + 1,
                function(call),
                self.instruction_line(call)
            );
        }
        text
    }

    fn command_select(&mut self, args: &[&str], block: bool) -> Reply {
        let noun = if block { "block" } else { "thread" };
        match args {
            [] => {}
            [index] => {
                let parsed = match crate::parse_dims(index, 0) {
                    Ok(parsed) => parsed,
                    Err(message) => return error(message),
                };
                let shape = if block {
                    self.device.grid()
                } else {
                    self.device.block()
                };
                if parsed.iter().zip(&shape).any(|(i, d)| i >= d) {
                    let [x, y, z] = shape;
                    return error(format!(
                        "{noun} {} is outside the {} ({x}x{y}x{z})",
                        dims(parsed),
                        if block { "grid" } else { "block" }
                    ));
                }
                if block {
                    self.cta = parsed;
                } else {
                    self.thread = parsed;
                }
            }
            _ => return error(format!("usage: {noun} [X[,Y,Z]]")),
        }
        let next = self.next_line();
        if matches!(self.position().1, ThreadStatus::Done(_)) {
            reply(next)
        } else {
            reply(format!("{}\n{next}", self.who()))
        }
    }
}
