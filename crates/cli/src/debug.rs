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

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use ptxsim_debug::{Input, InteractError, LaunchShape, Session};
use ptxsim_exec::Dim3;

use crate::run::{LaunchArgs, Loaded, load, load_arguments, parse_dim3_index};

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
    if launch
        .cluster
        .is_some_and(|shape| shape.iter().any(|&d| d > 1))
    {
        report!("error: --cluster: the debugger does not run clusters of several CTAs yet");
        return Ok(ExitCode::from(2));
    }
    let arguments = load_arguments(&launch.args)?;
    let mut session = match Session::new(
        program,
        source,
        LaunchShape {
            grid: launch.grid,
            block: launch.block,
            max_steps: launch.max_steps,
            dynamic_shared: launch.dynamic_shared,
            memory_limit: args.memory_limit,
        },
        arguments,
        (args.cta, args.thread),
    ) {
        Ok(session) => session,
        Err(error) => {
            report!("error: {name}: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut input = match &args.script {
        Some(path) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            Input::lines(
                Box::new(std::io::BufReader::new(file)),
                crate::input::limit(),
            )
        }
        None => Input::stdin(crate::input::limit()),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match ptxsim_debug::interact(&mut session, &mut input, &mut out, args.echo) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(InteractError::Output(error)) => {
            Err(anyhow::Error::new(error).context(crate::output::STDOUT))
        }
        Err(InteractError::Input(message)) => Err(anyhow::anyhow!(message)),
    }
}
