//! `ptxsim run`: parse, check, lower and run one kernel, then print the thread's registers.

use anyhow::Context as _;
use ptxsim_exec::{LowerError, Machine, report};
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::diag::decode_source;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `ptxsim run`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The PTX file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The kernel to run (default: the only `.entry`).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Output format of the final state.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    format: RunFormat,
    /// Write a JSON Lines trace of every instruction to PATH (see docs/trace-format.md).
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// Stop with status `out_of_fuel` after N instructions.
    #[arg(long, value_name = "N", default_value_t = ptxsim_exec::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Check the module as if its `.target` were this architecture (e.g. sm_100a).
    #[arg(long, value_name = "sm_XX")]
    target: Option<String>,
}

/// How `run` prints the final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RunFormat {
    /// An aligned table on stdout.
    Text,
    /// Exactly one JSON object on stdout.
    Json,
}

/// Runs the command: exit 0 when the thread exited, 1 for errors in the input, a trap, running
/// out of fuel or an unsupported instruction; I/O and usage problems are errors (exit 2).
pub(crate) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let target = match &args.target {
        Some(name) => Some(
            ptxsim_isa::Target::parse(name)
                .map_err(|error| anyhow::anyhow!("--target {name}: {error}"))?,
        ),
        None => None,
    };
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read `{}`", args.file.display()))?;
    anyhow::ensure!(
        u32::try_from(bytes.len()).is_ok(),
        "`{}` is larger than 4 GiB",
        args.file.display()
    );
    let name = args.file.display().to_string();
    let (source, _) = decode_source(&bytes);
    // The checker applies the instruction table's rules, including the target requirements of
    // each form (for `--target` when given, else the module's `.target`).
    let options = ptxsim_check::Options { target };
    let (module, diagnostics) = ptxsim_check::parse_and_check_with(&source, &options);
    if diagnostics.iter().any(Diagnostic::is_error) {
        eprint!(
            "{}",
            crate::check::render_text(&name, &source, &diagnostics)?
        );
        return Ok(ExitCode::from(1));
    }
    let program = match ptxsim_exec::lower(&module, &source, args.entry.as_deref()) {
        Ok(program) => program,
        Err(LowerError::Invalid(diagnostics)) => {
            eprint!(
                "{}",
                crate::check::render_text(&name, &source, &diagnostics)?
            );
            return Ok(ExitCode::from(1));
        }
        Err(error) => {
            eprintln!("error: {name}: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut machine = Machine::new(&program, args.max_steps);
    let result = match &args.trace {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create `{}`", path.display()))?;
            let mut writer = std::io::BufWriter::new(file);
            let mut failure: Option<std::io::Error> = None;
            let mut sink = |line: &str| {
                if failure.is_none() {
                    if let Err(error) = writeln!(writer, "{line}") {
                        failure = Some(error);
                    }
                }
            };
            let result = ptxsim_exec::run(&mut machine, Some(&mut sink));
            if let Some(error) = failure {
                return Err(
                    anyhow::Error::new(error).context(format!("cannot write `{}`", path.display()))
                );
            }
            writer
                .flush()
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            result
        }
        None => ptxsim_exec::run(&mut machine, None),
    };
    let outcome = result.outcome.as_ref();
    let state = match args.format {
        RunFormat::Json => format!(
            "{}\n",
            report::state_json(&program, &result.registers, result.steps, outcome)
        ),
        RunFormat::Text => report::state_text(&program, &result.registers, result.steps, outcome),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(state.as_bytes())
        .context("cannot write to stdout")?;
    match &result.outcome {
        Ok(ptxsim_exec::Outcome::Exited) => Ok(ExitCode::SUCCESS),
        Ok(ptxsim_exec::Outcome::Trapped { message, location }) => {
            eprintln!(
                "error: {name}:{}:{}: trap: {message}",
                location.line, location.column
            );
            Ok(ExitCode::from(1))
        }
        Ok(ptxsim_exec::Outcome::OutOfFuel) => {
            eprintln!(
                "error: {name}: out of fuel after {} steps (raise --max-steps)",
                result.steps
            );
            Ok(ExitCode::from(1))
        }
        Ok(ptxsim_exec::Outcome::Running) => Ok(ExitCode::from(1)),
        Err(stopped) => {
            eprintln!(
                "error: {name}:{}:{}: {}",
                stopped.location.line, stopped.location.column, stopped.message
            );
            Ok(ExitCode::from(1))
        }
    }
}
