//! ptxsim's step debugger: a [`Session`] on one kernel launch, and the command loop
//! ([`interact`]) that reads commands from a terminal (line editing and history, rustyline), a
//! file or a pipe. `ptxsim debug` (crates/cli) opens a session on a PTX file and its
//! arguments; the driver library (crates/cuda, `PTXSIM_DEBUG=kernel[:launch]`) opens one on a
//! launch of a running CUDA program. See `docs/debugger.md` and `docs/cuda-programs.md`.
//!
//! The commands and the stepping model are in the `command` and `session` modules.

mod command;
mod format;
mod session;
mod source;

use std::io::{BufRead as _, IsTerminal as _, Write};

pub use command::Reply;
pub use session::{LaunchShape, Restart, Session};

/// The prompt at a terminal (and before echoed commands).
pub const PROMPT: &str = "(ptxsim) ";

/// The longest command line read from a script or a pipe.
const MAX_COMMAND_LINE: u64 = 1 << 20;

/// Where commands come from.
pub enum Input {
    /// A terminal: rustyline, with history.
    Terminal(Box<rustyline::DefaultEditor>),
    /// A pipe or a file, line by line: the reader, the bytes read so far and the most it may
    /// give.
    Lines(Box<dyn std::io::BufRead>, u64, u64),
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Terminal(_) => f.write_str("Input::Terminal"),
            Input::Lines(_, read, limit) => write!(f, "Input::Lines({read} of {limit} bytes)"),
        }
    }
}

/// One read.
enum Read {
    /// A line.
    Line(String),
    /// Ctrl-C at the prompt: nothing to run.
    Interrupted,
    /// The end of the input.
    End,
}

impl Input {
    /// Line editing at a terminal when stdin is one, else the lines of stdin; at most `limit`
    /// bytes of them.
    pub fn stdin(limit: u64) -> Self {
        if std::io::stdin().is_terminal() {
            if let Ok(editor) = rustyline::DefaultEditor::new() {
                return Input::Terminal(Box::new(editor));
            }
        }
        Input::lines(Box::new(std::io::BufReader::new(std::io::stdin())), limit)
    }

    /// The lines of `reader` (a script), at most `limit` bytes of them.
    pub fn lines(reader: Box<dyn std::io::BufRead>, limit: u64) -> Self {
        Input::Lines(reader, 0, limit)
    }

    /// Whether commands come from a terminal (an empty line repeats the previous command).
    pub fn is_terminal(&self) -> bool {
        matches!(self, Input::Terminal(_))
    }

    fn read(&mut self) -> Result<Read, String> {
        match self {
            Input::Terminal(editor) => match editor.readline(PROMPT) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        // A history that cannot take the line is no reason to stop.
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    Ok(Read::Line(line))
                }
                Err(rustyline::error::ReadlineError::Interrupted) => Ok(Read::Interrupted),
                Err(rustyline::error::ReadlineError::Eof) => Ok(Read::End),
                Err(error) => Err(format!("cannot read the terminal: {error}")),
            },
            Input::Lines(reader, total, limit) => {
                let mut bytes = Vec::new();
                // A command line is short; a longer one (`--script /dev/zero`) is no script.
                let read = std::io::Read::take(&mut **reader, MAX_COMMAND_LINE + 1)
                    .read_until(b'\n', &mut bytes)
                    .map_err(|error| format!("cannot read the commands: {error}"))?;
                if read == 0 {
                    return Ok(Read::End);
                }
                if bytes.len() as u64 > MAX_COMMAND_LINE {
                    return Err(format!(
                        "a command line longer than {MAX_COMMAND_LINE} bytes: the input is not a \
                         list of debugger commands"
                    ));
                }
                *total = total.saturating_add(read as u64);
                if *total > *limit {
                    return Err(format!(
                        "cannot read the commands: larger than {limit} bytes, the input size \
                         limit (raise it with --max-input-bytes)"
                    ));
                }
                Ok(Read::Line(String::from_utf8_lossy(&bytes).into_owned()))
            }
        }
    }
}

/// Why [`interact`] stopped early.
#[derive(Debug)]
pub enum InteractError {
    /// The commands could not be read (the message says why).
    Input(String),
    /// The output could not be written.
    Output(std::io::Error),
}

impl std::fmt::Display for InteractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InteractError::Input(message) => f.write_str(message),
            InteractError::Output(error) => write!(f, "cannot write the session: {error}"),
        }
    }
}

impl std::error::Error for InteractError {}

/// Runs commands from `input` on `session`, writing each reply to `out`, until `quit` or the
/// end of the input; first writes `banner` and the session's starting point (the kernel, the
/// selection, the arguments, the next line). `echo`: when the commands do not come from a
/// terminal, write each one after the prompt, so that the output reads like a terminal
/// session. Lines starting with `#` are comments; an empty line at a terminal repeats the
/// previous command.
pub fn interact(
    session: &mut Session<'_>,
    input: &mut Input,
    out: &mut dyn Write,
    echo: bool,
) -> Result<(), InteractError> {
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(InteractError::Output)
    };
    write(out, &session.banner())?;
    let mut previous = String::new();
    loop {
        let line = match input.read().map_err(InteractError::Input)? {
            Read::Line(line) => line,
            Read::Interrupted => continue,
            Read::End => break,
        };
        let trimmed = line.trim();
        let command = if trimmed.is_empty() {
            if !input.is_terminal() || previous.is_empty() {
                continue;
            }
            previous.clone()
        } else {
            trimmed.to_string()
        };
        if echo && !input.is_terminal() {
            write(out, &format!("{PROMPT}{command}\n"))?;
        }
        if command.starts_with('#') {
            continue;
        }
        let reply = session.execute(&command);
        write(out, &reply.text)?;
        if reply.quit {
            break;
        }
        previous = command;
    }
    Ok(())
}

/// `X[,Y[,Z]]`: a shape or index of up to three numbers, each at least `minimum`; missing ones
/// are 0 (for a `minimum` of 0, an index) or 1 (a shape).
pub fn parse_dims(text: &str, minimum: u32) -> Result<ptxsim_exec::Dim3, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}`: expected X, X,Y or X,Y,Z"));
    }
    let mut dims = [if minimum == 0 { 0 } else { 1 }; 3];
    for (slot, part) in dims.iter_mut().zip(&parts) {
        let value: u32 = part
            .parse()
            .map_err(|_| format!("`{part}` is not a number"))?;
        if value < minimum {
            return Err(format!("dimensions must be at least {minimum}"));
        }
        *slot = value;
    }
    Ok(dims)
}
