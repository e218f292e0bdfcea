//! `ptxsim trace-diff A B`: compares two traces (JSON Lines or text form, in any mix) and
//! prints the first divergence with a few steps of context (`ptxsim_trace::diff`). Also used by
//! `ptxsim run --expect`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use ptxsim_trace::{IndexedTrace, diff_decoded};

/// Arguments of `ptxsim trace-diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct TraceDiffArgs {
    /// The first trace (the expected one).
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second trace (the actual one).
    #[arg(value_name = "B")]
    b: PathBuf,
    /// How many earlier steps of the diverging thread to print.
    #[arg(long, value_name = "N", default_value_t = 3)]
    context: usize,
}

/// Runs the command: exit 0 when the traces are equal, 1 when they differ (the first
/// divergence is printed on stdout), 2 when a file cannot be read or is not a valid trace.
pub(crate) fn run(args: &TraceDiffArgs) -> anyhow::Result<ExitCode> {
    // Each trace is checked whole and kept as its text; the comparison parses the steps it
    // reads (`ptxsim_trace::index`), which takes a fraction of the memory of parsed traces.
    let a_text = read_trace_text(&args.a)?;
    let a = index_trace(&args.a, &a_text)?;
    let b_text = read_trace_text(&args.b)?;
    let b = index_trace(&args.b, &b_text)?;
    let a_name = args.a.display().to_string();
    let b_name = args.b.display().to_string();
    match diff_decoded(&a, &a_name, &b, &b_name, args.context, &decode) {
        None => Ok(ExitCode::SUCCESS),
        Some(report) => {
            crate::output::stdout(&report)?;
            Ok(ExitCode::from(1))
        }
    }
}

/// A register value decoded by its type's name as the trace header gives it (`f32`, `b16`,
/// `pred`), as the debugger's `print` shows it; `None` for a type ptxsim does not know.
pub(crate) fn decode(ty: &str, value: u128) -> Option<String> {
    let ty = ptxsim_isa::Type::from_name(ty.trim_start_matches('.'))?;
    Some(ptxsim_exec::report::decode(value, ty))
}

/// Reads a trace file as text (at most the input size limit); errors name the file and line.
pub(crate) fn read_trace_text(path: &Path) -> anyhow::Result<String> {
    let bytes = crate::input::read_text(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let line = error.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!("{}:{line}: not UTF-8 text", path.display())
    })
}

/// Checks the trace `text` read from `path`; errors name the file and line.
pub(crate) fn index_trace<'t>(path: &Path, text: &'t str) -> anyhow::Result<IndexedTrace<'t>> {
    ptxsim_trace::index(text)
        .map_err(|error| anyhow::anyhow!("{}:{}: {}", path.display(), error.line, error.message))
}
