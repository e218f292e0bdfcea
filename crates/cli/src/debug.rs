//! `ptxsim debug`: step through a kernel instruction by instruction and watch the bits change.
//!
//! At a terminal the commands are read with line editing and history (rustyline); otherwise
//! (a pipe, a file, `--script FILE`) they are read line by line and the output is the same,
//! without the prompt. Everything the session prints goes to stdout, errors included (as
//! `error: ...` lines), so that a transcript keeps its order; problems loading the module or
//! setting up the launch go to stderr, as for `run`. See `docs/debugger.md`.
//!
//! Exit status: 0 after `quit` or at the end of the input (whatever the kernel did); 1 for
//! errors in the module or the launch arguments; 2 for usage and I/O errors.

mod command;
mod format;
mod session;
mod source;

use std::io::{BufRead as _, IsTerminal as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use ptxsim_exec::Dim3;

use crate::run::{LaunchArgs, Loaded, load, load_arguments, parse_dim3_index};
use session::Session;

/// Arguments of `ptxsim debug`.
#[derive(Debug, clap::Args)]
pub(crate) struct DebugArgs {
    /// The PTX file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    launch: LaunchArgs,
    /// The most host memory the simulated memories may take (as for `run`): global variables
    /// and buffers, constants, parameters, and per CTA its shared memory and its threads'
    /// registers, local and call memory. A launch that does not fit is refused before anything
    /// is allocated. BYTES, or with a K, M, G or T suffix (powers of 1024).
    #[arg(long, value_name = "BYTES", default_value = "4G", value_parser = crate::run::parse_memory_limit)]
    memory_limit: u64,
    /// Read the commands from FILE instead of stdin (no prompt, as for a pipe).
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// When the commands do not come from a terminal, print each one after a `(ptxsim) `
    /// prompt, so that the output reads like a terminal session.
    #[arg(long)]
    echo: bool,
    /// The thread selected at the start: its index in the CTA.
    #[arg(long, value_name = "X[,Y,Z]", default_value = "0", value_parser = parse_dim3_index)]
    thread: Dim3,
    /// The CTA selected at the start.
    #[arg(long, value_name = "X[,Y,Z]", default_value = "0", value_parser = parse_dim3_index)]
    cta: Dim3,
}

/// The prompt at a terminal (and before echoed commands).
const PROMPT: &str = "(ptxsim) ";

/// Where commands come from.
enum Input {
    /// A terminal: rustyline, with history.
    Terminal(Box<rustyline::DefaultEditor>),
    /// A pipe or a file, line by line, and the bytes read so far (at most the input size
    /// limit, `--max-input-bytes`).
    Lines(Box<dyn std::io::BufRead>, u64),
}

/// The longest command line read from a script or a pipe.
const MAX_COMMAND_LINE: u64 = 1 << 20;

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
    fn open(script: Option<&PathBuf>) -> anyhow::Result<Self> {
        if let Some(path) = script {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            return Ok(Input::Lines(Box::new(std::io::BufReader::new(file)), 0));
        }
        if std::io::stdin().is_terminal() {
            if let Ok(editor) = rustyline::DefaultEditor::new() {
                return Ok(Input::Terminal(Box::new(editor)));
            }
        }
        Ok(Input::Lines(
            Box::new(std::io::BufReader::new(std::io::stdin())),
            0,
        ))
    }

    fn is_terminal(&self) -> bool {
        matches!(self, Input::Terminal(_))
    }

    fn read(&mut self) -> anyhow::Result<Read> {
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
                Err(error) => Err(anyhow::Error::new(error).context("cannot read the terminal")),
            },
            Input::Lines(reader, total) => {
                let mut bytes = Vec::new();
                // A command line is short; a longer one (`--script /dev/zero`) is no script.
                let read = std::io::Read::take(&mut **reader, MAX_COMMAND_LINE + 1)
                    .read_until(b'\n', &mut bytes)
                    .context("cannot read the commands")?;
                if read == 0 {
                    return Ok(Read::End);
                }
                if bytes.len() as u64 > MAX_COMMAND_LINE {
                    anyhow::bail!(
                        "a command line longer than {MAX_COMMAND_LINE} bytes: the input is not a \
                         list of debugger commands"
                    );
                }
                *total = total.saturating_add(read as u64);
                if *total > crate::input::limit() {
                    return Err(anyhow::Error::new(crate::input::too_large())
                        .context("cannot read the commands"));
                }
                Ok(Read::Line(String::from_utf8_lossy(&bytes).into_owned()))
            }
        }
    }
}

/// Runs the command: loads the module, prepares the launch and reads commands until `quit` or
/// the end of the input.
pub(crate) fn run(args: &DebugArgs) -> anyhow::Result<ExitCode> {
    let loaded = match load(&args.file, &args.launch)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let Loaded {
        name,
        source,
        program,
    } = &loaded;
    let launch = &args.launch;
    if args.thread.iter().zip(&launch.block).any(|(i, d)| i >= d)
        || args.cta.iter().zip(&launch.grid).any(|(i, d)| i >= d)
    {
        report!(
            "error: --thread/--cta name a thread outside the launch (grid {:?}, block {:?})",
            launch.grid,
            launch.block
        );
        return Ok(ExitCode::from(2));
    }
    let arguments = load_arguments(&launch.args)?;
    let mut session = match Session::new(
        program,
        source,
        (
            launch.grid,
            launch.block,
            launch.max_steps,
            launch.dynamic_shared,
            args.memory_limit,
        ),
        arguments,
        (args.cta, args.thread),
    ) {
        Ok(session) => session,
        Err(error) => {
            report!("error: {name}: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut input = Input::open(args.script.as_ref())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    let banner = format!(
        "kernel {} (grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}); selected: {} (`help` lists the \
         commands)\n{}{}",
        program.entry,
        session.who(),
        session.arguments_text(),
        session.next_line()
    );
    write(&mut out, &banner)?;
    let mut previous = String::new();
    loop {
        let line = match input.read()? {
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
        if args.echo && !input.is_terminal() {
            write(&mut out, &format!("{PROMPT}{command}\n"))?;
        }
        if command.starts_with('#') {
            continue;
        }
        let reply = session.execute(&command);
        write(&mut out, &reply.text)?;
        if reply.quit {
            break;
        }
        previous = command;
    }
    Ok(ExitCode::SUCCESS)
}

fn write(out: &mut impl std::io::Write, text: &str) -> anyhow::Result<()> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context(crate::output::STDOUT)
}
