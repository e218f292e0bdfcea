//! The `ptxsim` command-line tool.

/// `eprintln!` that never panics: a message that cannot be written (stderr closed or full) is
/// dropped, and the exit status still tells the caller what happened. (`eprintln!` panics when
/// the write fails, which turned `ptxsim check f.ptx 2>/dev/full` into exit 101.)
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see [`report!`]).
macro_rules! report_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod check;
mod debug;
mod eval;
mod input;
mod output;
mod run;
mod trace_diff;
mod trace_sink;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// PTX instruction-level interpreter and functional simulator.
#[derive(Debug, Parser)]
#[command(
    name = "ptxsim",
    version,
    about = "PTX instruction-level interpreter and functional simulator",
    long_about = "ptxsim reads PTX (NVIDIA's GPU assembly language) as emitted by nvcc, Triton or \
written by hand, checks it the way ptxas does, and runs it bit-exactly on a simulated register \
file, with cvt / cvt.pack / mov conversions between every format of the PTX ISA (f64, f32, f16, \
bf16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0, s2f6).\n\n\
Examples:\n    ptxsim check kernel.ptx\n    ptxsim check --target sm_90 --format json build/*.ptx\n    \
ptxsim run kernel.ptx --format json --trace trace.jsonl\n    \
ptxsim eval 'cvt.rn.satfinite.e4m3x2.f32 d, a, b' a=448.0 b=0x3fc00000\n\n\
Exit status: 0 success, 1 errors in the input (or a run that trapped or ran out of steps), 2 \
usage or I/O errors."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The largest input file (module, --arg buffer, trace) read, in bytes; a larger one is an
    /// error (exit 2).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_LIMIT)]
    max_input_bytes: u64,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse and check PTX files, reporting every error and warning.
    #[command(
        long_about = "Parse and check PTX files as ptxas would: syntax, declarations, scopes, \
labels and register ranges, unknown instructions, and for every instruction ptxsim runs (cvt, \
cvt.pack, mov, arithmetic, memory, control flow...; docs/isa.md lists them) every modifier \
rule, the operands with the operand-size rules (PTX ISA 9.4.1) and the .target / .version \
requirements. All problems are reported, not only the first, each with its location and, \
where one exists, a fix.\n\n\
Examples:\n    ptxsim check kernel.ptx other.ptx\n    ptxsim check --format json kernel.ptx\n    \
ptxsim check --target sm_90 kernel_for_blackwell.ptx   # would it run on Hopper?"
    )]
    Check(CheckArgs),
    /// Launch a kernel over a grid, print one thread's registers and write output buffers.
    Run(run::RunArgs),
    /// Evaluate one instruction (mov, cvt, cvt.pack, or any other register-only instruction ptxsim runs) on given operand values.
    Eval(eval::EvalArgs),
    /// Compare two traces and print the first divergence (exit 0 equal, 1 different).
    #[command(
        long_about = "Compare two traces written by `ptxsim run --trace` (JSON Lines or text form, \
in any mix) and print the first divergence: the step, the thread (grid index, CTA and thread \
index), the source line and instruction, the register or memory values that differ (A vs B), and \
the steps of the same thread before it. Different kernels or launches, and one trace ending \
before the other, are reported too.\n\n\
Exit status: 0 equal, 1 different, 2 a file is missing or not a valid trace.\n\n\
Examples:\n    ptxsim trace-diff expected.jsonl actual.jsonl\n    \
ptxsim trace-diff --context 10 old.trace new.jsonl"
    )]
    TraceDiff(trace_diff::TraceDiffArgs),
    /// Step through a kernel instruction by instruction: breakpoints, watchpoints, decoded values.
    Debug(debug::DebugArgs),
    /// Write a large synthetic module built from seed PTX files (for benchmarks).
    #[command(hide = true)]
    GenerateBenchModule(GenerateArgs),
}

/// Arguments of `ptxsim check`.
#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The PTX files to check.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// When to color text output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Check as if the modules targeted this GPU (`sm_90`, `sm_100a`, `sm_120f`, ...) instead of
    /// their `.target`; their `.version` stays.
    #[arg(long, value_name = "ARCH", value_parser = check::parse_target)]
    target: Option<ptxsim_isa::Target>,
    /// Print at most N diagnostics per file as text, then one line saying how many more there
    /// are (0: print all). JSON output always has every diagnostic.
    #[arg(long, value_name = "N", default_value_t = check::DEFAULT_MAX_DIAGNOSTICS)]
    max_diagnostics: usize,
}

/// When `check` colors its text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    /// When stderr is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How `check` prints diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// rustc-style messages with source excerpts, on stderr.
    Text,
    /// One JSON object per file and line, on stdout.
    Json,
}

/// Arguments of the hidden `generate-bench-module` subcommand.
#[derive(Debug, clap::Args)]
struct GenerateArgs {
    /// Where to write the module.
    #[arg(long, short)]
    output: PathBuf,
    /// Minimum size in MiB.
    #[arg(long, default_value_t = 8)]
    size_mib: usize,
    /// Seed PTX files whose functions are copied.
    #[arg(required = true)]
    seeds: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            // Help or a version that cannot be written (stdout closed or full) is an I/O error;
            // a usage error exits 2 anyway.
            if error.print().is_err() {
                return ExitCode::from(2);
            }
            return ExitCode::from(code);
        }
    };
    input::set_limit(cli.max_input_bytes);
    let result = match cli.command {
        Command::Check(args) => check::run(
            &args.files,
            args.format == Format::Json,
            args.color,
            args.target,
            args.max_diagnostics,
        ),
        Command::Run(args) => run::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::TraceDiff(args) => trace_diff::run(&args),
        Command::Debug(args) => debug::run(&args),
        Command::GenerateBenchModule(args) => generate(&args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            // A reader that went away (`ptxsim run ... | head -1`) wants no message.
            if !output::is_closed_pipe(&error) {
                report!("error: {error:#}");
            }
            ExitCode::from(2)
        }
    }
}

fn generate(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    let mut sources = Vec::new();
    for seed in &args.seeds {
        let bytes =
            input::read_text(seed).with_context(|| format!("cannot read `{}`", seed.display()))?;
        sources.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    let seeds: Vec<&str> = sources.iter().map(String::as_str).collect();
    let module = ptxsim_syntax::synth::large_module(&seeds, args.size_mib.saturating_mul(1 << 20));
    anyhow::ensure!(
        !module.is_empty(),
        "none of the seed files parses without errors"
    );
    std::fs::write(&args.output, module)
        .with_context(|| format!("cannot write `{}`", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// mimalloc instead of the system allocator: `ptxsim check` allocates a syntax tree node by node,
/// and with glibc's allocator that (with its page faults) was a third of the time on large
/// modules.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
