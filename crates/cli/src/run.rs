//! `ptxsim run`: parse and check, build the program of one kernel and launch it over a grid,
//! then print one thread's registers and write the output buffers.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions, GridRun};
use ptxsim_exec::ir::Location;
use ptxsim_exec::{Dim3, Outcome, Program, Words, report};
use ptxsim_syntax::diag::decode_source;
use ptxsim_trace::{Filter, Format, IndexedTrace, Line, Records as _};

use crate::trace_sink::{Collected, TraceFile, TraceSink};

/// The launch options `run` and `debug` share.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LaunchArgs {
    /// The kernel to run (default: the only `.entry`).
    #[arg(long, value_name = "NAME")]
    pub(crate) entry: Option<String>,
    /// Grid size in CTAs: X[,Y[,Z]] (CUDA's limits: X at most 2147483647, Y and Z 65535).
    #[arg(long, value_name = "X[,Y,Z]", default_value = "1", value_parser = parse_grid)]
    pub(crate) grid: Dim3,
    /// CTA size in threads: X[,Y[,Z]] (CUDA's limits: X and Y at most 1024, Z 64, 1024 threads
    /// in all).
    #[arg(long, value_name = "X[,Y,Z]", default_value = "1", value_parser = parse_block)]
    pub(crate) block: Dim3,
    /// One per kernel parameter, in order: u8|u16|u32|u64|s8|s16|s32|s64|b8|b16|b32|b64|f32|f64:VALUE
    /// (decimal or 0x hex; floats also 1.5, inf, 0f3fc00000), buf:PATH (a global buffer with the
    /// file's bytes; the parameter gets its address) or zeros:N (a buffer of N zero bytes).
    #[arg(long = "arg", value_name = "KIND:VALUE", value_parser = ArgumentSpec::parse)]
    pub(crate) args: Vec<ArgumentSpec>,
    /// Stop a thread with status `out_of_fuel` after N of its instructions.
    #[arg(long, value_name = "N", default_value_t = ptxsim_exec::DEFAULT_MAX_STEPS)]
    pub(crate) max_steps: u64,
    /// Check the module as if its `.target` were this architecture (e.g. sm_100a).
    #[arg(long, value_name = "sm_XX")]
    pub(crate) target: Option<String>,
    /// Bytes of dynamic shared memory per CTA, where the kernel's `.extern .shared` arrays live
    /// (CUDA's third launch parameter; at most 232448, 227 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub(crate) dynamic_shared: u64,
    /// Thread-block cluster shape in CTAs: X[,Y[,Z]] (sm_90; the grid must be a whole number of
    /// clusters, at most 8 CTAs each). Default: the kernel's .reqnctapercluster, else clusters
    /// of one CTA. The CTAs of a cluster run together and share their shared memory
    /// (.shared::cluster, mapa, barrier.cluster).
    /// (`ptxsim debug` does not run clusters of several CTAs yet.)
    #[arg(long, value_name = "X[,Y,Z]", value_parser = parse_dim3)]
    pub(crate) cluster: Option<Dim3>,
}

/// Parses `--memory-limit`: a byte count, or a number with a `K`, `M`, `G` or `T` suffix
/// (powers of 1024; `KiB`, `MiB`, ... and `KB`, `MB`, ... read the same).
pub(crate) fn parse_memory_limit(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &trimmed[digits.len()..];
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "`{text}`: expected BYTES or a number with K, M, G or T"
            ));
        }
    };
    let value: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{text}`: expected BYTES or a number with K, M, G or T"))?;
    value
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{text}` is more than 2^64 bytes"))
}

/// Arguments of `ptxsim run`.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The PTX file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    launch: LaunchArgs,
    /// The most host memory the simulated memories may take: global variables and buffers,
    /// constants, parameters, and per CTA running at once its shared memory and its threads'
    /// registers, local and call memory. A launch that does not fit is refused before anything
    /// is allocated. BYTES, or with a K, M, G or T suffix (powers of 1024).
    #[arg(long, value_name = "BYTES", default_value = "4G", value_parser = parse_memory_limit)]
    memory_limit: u64,
    /// The GPU whose tensor-core arithmetic mma.sync and wmma.mma follow: sm_80 (A100), sm_86
    /// (RTX 30), sm_89 (L40, RTX 40), sm_90 (H100), sm_100 (B200), sm_120 (RTX 50). Default: the
    /// module's .target (--target when given); see docs/tensor-cores.md.
    #[arg(long, value_name = "sm_XX", value_parser = ptxsim_exec::alu::tensor_cores::TensorCores::parse)]
    device: Option<ptxsim_exec::alu::tensor_cores::TensorCores>,
    /// Launch cooperatively (CUDA's cudaLaunchCooperativeKernel): every CTA is resident at
    /// once and they run in turn, so a kernel may synchronize the whole grid
    /// (cooperative_groups::this_grid().sync(); %envreg1/%envreg2 give the grid workspace's
    /// address). At most 16 multiprocessors' worth of CTAs (2048 threads, 32 CTAs and 228 KiB
    /// of shared memory each); runs on one host thread.
    #[arg(long)]
    cooperative: bool,
    /// After the run, write the buffer of argument INDEX (0-based) to PATH; to PATH.partial
    /// (PATH untouched) when the run did not exit normally. Repeatable.
    #[arg(long, value_name = "INDEX=PATH", value_parser = parse_out)]
    out: Vec<(usize, PathBuf)>,
    /// After the run, print the first elements of the buffer of argument INDEX decoded as TYPE
    /// (f32, f64, f16, bf16, e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0, u8..u64, s8..s64). Repeatable.
    #[arg(long, value_name = "INDEX=TYPE[:COUNT]", value_parser = parse_show)]
    show: Vec<(usize, ptxsim_softfloat::Type, usize)>,
    /// The thread whose registers are printed: its index in the CTA.
    #[arg(long, value_name = "X[,Y,Z]", default_value = "0", value_parser = parse_dim3_index)]
    thread: Dim3,
    /// The CTA of the thread whose registers are printed.
    #[arg(long, value_name = "X[,Y,Z]", default_value = "0", value_parser = parse_dim3_index)]
    cta: Dim3,
    /// Host threads to simulate with (default: all cores; more than four per core or than the
    /// grid has CTAs are not started). Results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// After the run, print to stderr how long the simulation took (the launch alone, without
    /// reading the module and the argument files or writing outputs) and the simulated
    /// instructions per second.
    #[arg(long)]
    stats: bool,
    /// Which tier runs the kernel: interp (the interpreter), compiled (native code generated
    /// for the instructions the compiled tier covers, the interpreter for the rest) or auto
    /// (compiled unless the kernel uses atomics, volatile or ordered memory accesses, or the
    /// device heap, whose results depend on the order threads run in; traced and cooperative
    /// runs always use the interpreter). Default: PTXSIM_ENGINE, else interp (the compiled tier
    /// is new and not faster yet). --stats says which ran. See
    /// docs/compiled-tier.md.
    #[arg(long, value_name = "ENGINE", value_parser = ptxsim_jit::Engine::parse)]
    engine: Option<ptxsim_jit::Engine>,
    /// Output format of the final state.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    format: RunFormat,
    /// Text format: leave out the register table (print the summary and --show only).
    #[arg(long)]
    no_registers: bool,
    /// Write a trace of every instruction to PATH (see docs/trace-format.md); to PATH.partial
    /// (PATH untouched) when the run did not exit normally.
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// The form of the trace written by --trace and --bless: jsonl (default) or text; with
    /// --expect and no --trace-format, the stored trace's form.
    #[arg(long, value_enum, value_name = "FORM")]
    trace_format: Option<TraceForm>,
    /// Keep only some threads and/or registers in the trace, `;`-separated or repeated:
    /// thread indices in the grid (3, 0-7), cta=X,Y,Z, tid=X,Y,Z, cta=X,Y,Z/tid=X,Y,Z,
    /// reg=NAME[,NAME...] (only writes of these registers), mem (only memory writes).
    #[arg(long, value_name = "FILTER")]
    trace_filter: Vec<String>,
    /// Compare the run's trace with the stored trace TRACE: exit 0 when equal, 1 (printing the
    /// first divergence as `ptxsim trace-diff` does) when not.
    #[arg(long, value_name = "TRACE")]
    expect: Option<PathBuf>,
    /// With --expect: write this run's trace to TRACE (creating it) instead of comparing.
    #[arg(long, requires = "expect")]
    bless: bool,
}

/// The forms of a trace on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TraceForm {
    /// JSON Lines: one JSON object per line.
    Jsonl,
    /// The compact text form: one space-separated record per line.
    Text,
}

impl From<TraceForm> for Format {
    fn from(form: TraceForm) -> Self {
        match form {
            TraceForm::Jsonl => Format::Jsonl,
            TraceForm::Text => Format::Text,
        }
    }
}

/// How `run` prints the final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RunFormat {
    /// An aligned table on stdout.
    Text,
    /// Exactly one JSON object on stdout.
    Json,
}

/// `X[,Y[,Z]]`, each at least 1 (missing ones are 1).
pub(crate) fn parse_dim3(text: &str) -> Result<Dim3, String> {
    ptxsim_debug::parse_dims(text, 1)
}

/// `--grid X[,Y[,Z]]` within CUDA's limits ([`grid::MAX_GRID`]): a larger grid is a usage
/// error (exit 2) before anything is read.
fn parse_grid(text: &str) -> Result<Dim3, String> {
    let dims = parse_dim3(text)?;
    for ((&value, &most), axis) in dims.iter().zip(&grid::MAX_GRID).zip(["x", "y", "z"]) {
        if value > most {
            return Err(format!("a grid has at most {most} blocks along {axis}"));
        }
    }
    Ok(dims)
}

/// `--block X[,Y[,Z]]` within CUDA's limits ([`grid::MAX_BLOCK`], at most
/// [`grid::MAX_THREADS_PER_CTA`] threads in all).
fn parse_block(text: &str) -> Result<Dim3, String> {
    let dims = parse_dim3(text)?;
    for ((&value, &most), axis) in dims.iter().zip(&grid::MAX_BLOCK).zip(["x", "y", "z"]) {
        if value > most {
            return Err(format!("a block has at most {most} threads along {axis}"));
        }
    }
    let threads: u64 = dims.iter().map(|&d| u64::from(d)).product();
    if threads > grid::MAX_THREADS_PER_CTA {
        return Err(format!(
            "a CTA has at most {} threads; this block has {threads}",
            grid::MAX_THREADS_PER_CTA
        ));
    }
    Ok(dims)
}

/// `X[,Y[,Z]]`, an index (missing ones are 0).
pub(crate) fn parse_dim3_index(text: &str) -> Result<Dim3, String> {
    ptxsim_debug::parse_dims(text, 0)
}

fn parse_out(text: &str) -> Result<(usize, PathBuf), String> {
    let (index, path) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected INDEX=PATH"))?;
    let index = index
        .parse()
        .map_err(|_| format!("`{index}` is not an argument index"))?;
    if path.is_empty() {
        return Err("--out needs a path after `=`".to_string());
    }
    Ok((index, PathBuf::from(path)))
}

fn parse_show(text: &str) -> Result<(usize, ptxsim_softfloat::Type, usize), String> {
    let (index, rest) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected INDEX=TYPE[:COUNT]"))?;
    let index = index
        .parse()
        .map_err(|_| format!("`{index}` is not an argument index"))?;
    let (ty, count) = match rest.split_once(':') {
        Some((ty, count)) => (
            ty,
            count
                .parse()
                .map_err(|_| format!("`{count}` is not a count"))?,
        ),
        None => (rest, 8),
    };
    let known = ptxsim_softfloat::Type::ALL
        .iter()
        .copied()
        .filter(|t| *t != ptxsim_softfloat::Type::S2f6 && *t != ptxsim_softfloat::Type::Tf32);
    let names: Vec<&str> = known.clone().map(|t| t.name()).collect();
    let ty = known.clone().find(|t| t.name() == ty).ok_or_else(|| {
        format!(
            "`{ty}` is not a type ptxsim can show ({})",
            names.join(", ")
        )
    })?;
    Ok((index, ty, count))
}

/// Reads the buffer files and turns the specs into arguments.
pub(crate) fn load_arguments(specs: &[ArgumentSpec]) -> anyhow::Result<Vec<Argument>> {
    specs
        .iter()
        .map(|spec| {
            Ok(match spec {
                ArgumentSpec::Scalar { ty, bits } => Argument::Scalar {
                    ty: *ty,
                    bits: *bits,
                },
                ArgumentSpec::File(path) => Argument::Words(
                    std::fs::File::open(path)
                        .and_then(|file| {
                            let size = file.metadata()?.len();
                            let limit = crate::input::limit();
                            if size > limit {
                                return Err(crate::input::too_large());
                            }
                            let words = Words::read_from(
                                std::io::Read::take(file, limit.saturating_add(1)),
                                size,
                                limit.saturating_add(1),
                            )?;
                            if words.len() > limit {
                                return Err(crate::input::too_large());
                            }
                            Ok(words)
                        })
                        .with_context(|| format!("cannot read `{}`", path.display()))?,
                ),
                ArgumentSpec::Zeros(bytes) => Argument::Words(Words::zeros(*bytes)),
            })
        })
        .collect()
}

/// A module loaded for running: its source text, display name and program.
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub(crate) source: String,
    pub(crate) program: Program,
}

/// Reads, checks and lowers `file`. `Ok(Err(code))` when the input has errors (already
/// printed on stderr).
pub(crate) fn load(file: &Path, launch: &LaunchArgs) -> anyhow::Result<Result<Loaded, ExitCode>> {
    let target = match &launch.target {
        Some(name) => Some(
            ptxsim_isa::Target::parse(name)
                .map_err(|error| anyhow::anyhow!("--target {name}: {error}"))?,
        ),
        None => None,
    };
    let bytes = crate::input::read_text(file)
        .with_context(|| format!("cannot read `{}`", file.display()))?;
    anyhow::ensure!(
        u32::try_from(bytes.len()).is_ok(),
        "`{}` is larger than 4 GiB",
        file.display()
    );
    let name = file.display().to_string();
    let (source, _) = decode_source(&bytes);
    let source = source.into_owned();
    // The checker applies the instruction table's rules, including the target requirements of
    // each form (for `--target` when given, else the module's `.target`).
    let options = ptxsim_check::Options { target };
    let (checked, diagnostics) = ptxsim_check::compile(&source, &options);
    let Some(checked) = checked else {
        report_part!(
            "{}",
            crate::check::render_text(&name, &source, &diagnostics, crate::check::Shown::DEFAULT)?
        );
        return Ok(Err(ExitCode::from(1)));
    };
    // The checker's program for the kernel: a module it accepts never fails to build, only
    // the choice of kernel or a limit of the executor can refuse it.
    let program = match checked.program(launch.entry.as_deref()) {
        Ok(program) => program,
        Err(error) => {
            report!("error: {name}: {error}");
            return Ok(Err(ExitCode::from(1)));
        }
    };
    Ok(Ok(Loaded {
        name,
        source,
        program,
    }))
}

/// Runs the command: exit 0 when every thread exited, 1 for errors in the input or the
/// arguments, a trap or fault, running out of fuel or an unsupported instruction (the state
/// and the output buffers are written first); I/O and usage problems are errors (exit 2).
pub(crate) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let loaded = match load(&args.file, &args.launch)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let Loaded { name, program, .. } = &loaded;
    for (index, _) in &args.out {
        anyhow::ensure!(
            *index < args.launch.args.len(),
            "--out {index}=...: there is no argument {index} (the launch has {})",
            args.launch.args.len()
        );
    }
    let arguments = load_arguments(&args.launch.args)?;
    let (mut device, addresses) = match grid::prepare_within(
        program,
        args.launch.grid,
        args.launch.block,
        args.launch.max_steps,
        arguments,
        args.memory_limit,
    ) {
        Ok(prepared) => prepared,
        Err(error) => {
            report!("error: {name}: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    if let Err(error) = device.set_dynamic_shared(args.launch.dynamic_shared) {
        report!("error: --dynamic-shared: {error}");
        return Ok(ExitCode::from(2));
    }
    if let Some(cores) = args.device {
        device.set_tensor_cores(cores);
    }
    if let Err(error) = device.set_cluster(args.launch.cluster) {
        report!("error: {name}: --cluster: {error}");
        return Ok(ExitCode::from(1));
    }
    if args.cooperative {
        if let Err(error) = grid::make_cooperative(&mut device) {
            report!("error: {name}: --cooperative: {error}");
            return Ok(ExitCode::from(1));
        }
    }
    for (index, _) in args.out.iter().chain(
        args.show
            .iter()
            .map(|(index, _, _)| (*index, PathBuf::new()))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        if addresses.get(*index).copied().flatten().is_none() {
            report!("error: argument {index} is not a buffer (buf:PATH or zeros:N)");
            return Ok(ExitCode::from(2));
        }
    }
    let block_threads: u64 = args.launch.block.iter().map(|&d| u64::from(d)).product();
    if args
        .thread
        .iter()
        .zip(&args.launch.block)
        .any(|(i, d)| i >= d)
        || args.cta.iter().zip(&args.launch.grid).any(|(i, d)| i >= d)
    {
        report!(
            "error: --thread/--cta name a thread outside the launch (grid {:?}, block {:?})",
            args.launch.grid,
            args.launch.block
        );
        return Ok(ExitCode::from(2));
    }
    let options = GridOptions {
        host_threads: args.jobs,
        inspect: (args.cta, args.thread),
        // The text without the register table shows only the inspected thread's steps.
        show_registers: !(args.no_registers && args.format == RunFormat::Text),
        ..GridOptions::default()
    };
    let started = Instant::now();
    let show_progress = std::io::stderr().is_terminal();
    let progress = |done: u64, total: u64| {
        if show_progress && started.elapsed().as_millis() > 500 {
            let width = 30;
            let filled = (done * width / total.max(1)) as usize;
            report_part!(
                "\r[{}{}] {done}/{total} CTAs",
                "=".repeat(filled),
                " ".repeat(width as usize - filled)
            );
            if done == total {
                report!();
            }
        }
    };
    let mut header = ptxsim_exec::trace::header(program, args.launch.grid, args.launch.block);
    let filter = match Filter::parse(&args.trace_filter) {
        Ok(filter) => filter,
        Err(error) => {
            report!("error: --trace-filter: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    if let Err(error) = filter.apply_to_header(&mut header) {
        report!("error: {error}");
        return Ok(ExitCode::from(2));
    }
    // The stored trace is checked whole and kept as its text (`ptxsim_trace::index`).
    let expected_text = match &args.expect {
        Some(path) if !args.bless || path.exists() => {
            match crate::trace_diff::read_trace_text(path) {
                Ok(text) => Some(text),
                Err(error) if !args.bless => {
                    let hint = if path.exists() {
                        ""
                    } else {
                        " (run with --bless to create it)"
                    };
                    report!("error: {error:#}{hint}");
                    return Ok(ExitCode::from(2));
                }
                // --bless replaces an unreadable stored trace.
                Err(_) => None,
            }
        }
        _ => None,
    };
    let expected = match (&args.expect, &expected_text) {
        (Some(path), Some(text)) => match crate::trace_diff::index_trace(path, text) {
            Ok(trace) => Some(trace),
            Err(error) if !args.bless => {
                report!("error: {error:#}");
                return Ok(ExitCode::from(2));
            }
            // --bless replaces a malformed stored trace.
            Err(_) => None,
        },
        _ => None,
    };
    let file_format = args.trace_format.map_or(Format::Jsonl, Format::from);
    let expect_format = args
        .trace_format
        .map(Format::from)
        .or(expected.as_ref().map(|t| t.format))
        .unwrap_or(Format::Jsonl);
    // --trace's file, then --bless's; each written beside its path and renamed into place
    // after the run, so that an earlier file stays until a new one replaces it.
    let mut files = Vec::new();
    if let Some(path) = &args.trace {
        files.push(TraceFile::create(path, file_format)?);
    }
    let blessing = match &args.expect {
        Some(path) if args.bless => match TraceFile::create(path, expect_format) {
            Ok(file) => {
                files.push(file);
                true
            }
            Err(error) => {
                files.into_iter().for_each(TraceFile::discard);
                return Err(error);
            }
        },
        _ => false,
    };
    // --expect keeps only the steps that differ from the stored trace's, as far as the
    // comparison needs them (`Collected`).
    let mut sink = TraceSink {
        header: &header,
        filter: &filter,
        files,
        collected: args
            .expect
            .as_ref()
            .map(|_| Collected::new(expect_format, header.clone(), expected.as_ref())),
        failure: None,
    };
    let tracing = !sink.files.is_empty() || sink.collected.is_some();
    let engine = match args
        .engine
        .map(Ok)
        .or_else(|| ptxsim_jit::Engine::from_env().transpose())
    {
        Some(Ok(engine)) => engine,
        None => ptxsim_jit::Engine::default(),
        Some(Err(error)) => {
            report!("error: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    let engine_note = choose_engine(&mut device, engine, tracing || args.cooperative);
    let launched = Instant::now();
    let result = if tracing {
        // Records go to the sink as they are issued: the trace is never held in memory.
        let mut line = |line: Line| sink.line(line);
        ptxsim_exec::streamed::run_grid_streamed(&device, options, &mut line, Some(&progress))
    } else {
        grid::run_grid(&device, options, None, Some(&progress))
    };
    if args.stats {
        let seconds = launched.elapsed().as_secs_f64();
        report!(
            "stats: {} instructions in {} CTAs, {seconds:.6} s simulated ({:.1} M instructions/s)",
            result.steps,
            result.ctas_run,
            result.steps as f64 / seconds.max(1e-9) / 1e6
        );
        report!("stats: engine: {engine_note}");
    }
    if let Some(error) = sink.failure.take() {
        sink.discard();
        return Err(error);
    }
    let succeeded = result.outcome() == Ok(Outcome::Exited);
    let mut bless_file = blessing.then(|| sink.files.pop()).flatten();
    // The --trace file, as the output buffers below: to PATH when every thread exited, to
    // PATH.partial otherwise (PATH stays as it is).
    if let Some(mut file) = sink.files.pop() {
        let path = file.path().to_path_buf();
        if !succeeded {
            file.set_path(partial_path(&path));
        }
        let written = file.path().to_path_buf();
        if let Err(error) = file.commit() {
            if let Some(file) = bless_file.take() {
                file.discard();
            }
            return Err(error);
        }
        if !succeeded {
            report!(
                "note: the run did not exit normally: its trace is in `{}` (`{}` is untouched)",
                written.display(),
                path.display()
            );
        }
    }
    // Output buffers are written whatever the outcome, so that a fault loses no output already
    // made; each goes to a temporary file first and is renamed into place: to PATH when every
    // thread exited, to PATH.partial otherwise (PATH, maybe from an earlier run, stays as it is).
    let mut outputs = Vec::new();
    for (index, path) in &args.out {
        let Some(address) = addresses.get(*index).copied().flatten() else {
            continue;
        };
        // An empty buffer holds no address: its file is written empty.
        let buffer = device.global.buffer_at(address);
        let target = if succeeded {
            path.clone()
        } else {
            partial_path(path)
        };
        let mut temporary = target.clone().into_os_string();
        temporary.push(format!(".ptxsim-{}", std::process::id()));
        let temporary = PathBuf::from(temporary);
        std::fs::File::create(&temporary)
            .and_then(|file| {
                let mut file = std::io::BufWriter::new(file);
                if let Some(buffer) = buffer {
                    buffer.write_to(&mut file)?;
                }
                file.flush()
            })
            .and_then(|()| std::fs::rename(&temporary, &target))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&temporary);
            })
            .with_context(|| format!("cannot write `{}`", target.display()))?;
        if !succeeded {
            report!(
                "note: the run did not exit normally: argument {index}'s buffer is in `{}` \
                 (`{}` is untouched)",
                target.display(),
                path.display()
            );
        }
        outputs.push((*index, target, buffer.map_or(0, |b| b.len as usize)));
    }
    let launch_is_grid = block_threads > 1 || args.launch.grid != [1, 1, 1];
    let mut shows = String::new();
    let mut shows_json = Vec::new();
    for (index, ty, count) in &args.show {
        let address = addresses.get(*index).copied().flatten().unwrap_or(0);
        // Only the bytes of the shown elements are read (a 4 GB buffer is not copied for 8).
        let shown = (*count as u64)
            .saturating_mul(u64::from(ty.bits()))
            .div_ceil(8);
        let length = device
            .global
            .buffer_at(address)
            .map_or(0, |b| b.len.min(shown));
        let bytes: Vec<u8> = (0..length)
            .map_while(|offset| device.global.load(address + offset, 1).ok())
            .map(|byte| byte as u8)
            .collect();
        shows.push_str(&show_buffer(*index, *ty, *count, &bytes));
        shows_json.push(show_json(*index, *ty, *count, &bytes));
    }
    let state = state(
        args,
        program,
        &result,
        &outputs,
        &shows_json,
        launch_is_grid,
    );
    if args.format == RunFormat::Text {
        // What the kernel printed with printf, before the report (as a CUDA program's
        // output comes before what the host prints after the launch).
        crate::output::stdout_bytes(&ptxsim_exec::runtime::printed_bytes(&result.printed))?;
        if result.printed_dropped > 0 {
            report!(
                "note: {} printf call(s) dropped past {} bytes of output",
                result.printed_dropped,
                ptxsim_exec::runtime::PRINTF_LIMIT
            );
        }
    }
    crate::output::stdout(&state)?;
    if args.format == RunFormat::Text {
        crate::output::stdout(&shows)?;
    }
    let code = report_outcome(name, program, &result, launch_is_grid);
    if let Some(hint) = dynamic_shared_hint(program, args.launch.dynamic_shared, &result) {
        report!("{hint}");
    }
    let Some(actual) = sink.collected else {
        return Ok(code);
    };
    let Some(path) = &args.expect else {
        return Ok(code);
    };
    match bless_file {
        Some(file) => Ok(bless(file, succeeded, expected.as_ref(), &actual)),
        None => expect(path, expected.as_ref(), &actual),
    }
}

/// `PATH.partial`: where an output of a run that did not exit normally goes.
fn partial_path(path: &Path) -> PathBuf {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    PathBuf::from(partial)
}

/// `--bless`: puts the run's trace (written to `file`'s temporary file) in place of the stored
/// one, unless the run did not exit normally (exit 1, the stored trace untouched) or the trace
/// is the stored one already (the file is left as it is).
fn bless(
    file: TraceFile,
    succeeded: bool,
    expected: Option<&IndexedTrace<'_>>,
    actual: &Collected<'_>,
) -> ExitCode {
    let path = file.path().display().to_string();
    if !succeeded {
        file.discard();
        report!("not blessed: the run did not exit normally; `{path}` is untouched");
        return ExitCode::from(1);
    }
    if expected.is_some_and(|e| {
        e.format == actual.format
            && actual.more_steps() == 0
            && ptxsim_trace::diff(e, "", actual, "", 0).is_none()
    }) {
        file.discard();
        report!("trace unchanged: `{path}`");
        return ExitCode::SUCCESS;
    }
    if let Err(error) = file.commit() {
        report!("error: {error:#}");
        return ExitCode::from(2);
    }
    report!(
        "blessed: wrote the trace ({} steps) to `{path}`",
        actual.step_count()
    );
    ExitCode::SUCCESS
}

/// `--expect`: compares the run's trace with the stored one (exit 0 equal, 1 different).
fn expect(
    path: &Path,
    expected: Option<&IndexedTrace<'_>>,
    actual: &Collected<'_>,
) -> anyhow::Result<ExitCode> {
    let Some(expected) = expected else {
        anyhow::bail!("no stored trace `{}`", path.display());
    };
    let name = path.display().to_string();
    match ptxsim_trace::diff_decoded(
        expected,
        &name,
        actual,
        "this run",
        3,
        &crate::trace_diff::decode,
    ) {
        None => {
            report!("trace matches `{name}` ({} steps)", actual.step_count());
            Ok(ExitCode::SUCCESS)
        }
        Some(report) => {
            report_part!("{report}");
            report!("(to accept the new trace: rerun with --bless)");
            Ok(ExitCode::from(1))
        }
    }
}

fn state(
    args: &RunArgs,
    program: &Program,
    result: &GridRun,
    outputs: &[(usize, PathBuf, usize)],
    shows: &[String],
    launch_is_grid: bool,
) -> String {
    let outcome = result.outcome();
    let empty = vec![0; program.registers.len()];
    let (registers, steps) = match &result.inspected {
        // Without `show_registers` the registers are not reported (zeros stand in).
        Some(thread) if thread.registers.is_empty() => (&empty, thread.steps),
        Some(thread) => (&thread.registers, thread.steps),
        None => (&empty, 0),
    };
    match args.format {
        RunFormat::Json => {
            let mut json = report::state_json(program, registers, steps, outcome.as_ref());
            // Launch keys are added only for launches that have them, so a one-thread run
            // keeps exactly the original contract.
            json.pop();
            if launch_is_grid {
                let [tx, ty, tz] = args.thread;
                let [cx, cy, cz] = args.cta;
                json.push_str(&format!(
                    ",\"thread\":[{tx},{ty},{tz}],\"cta\":[{cx},{cy},{cz}],\"total_steps\":{}",
                    result.steps
                ));
            }
            if let Some(failure) = &result.failure {
                if launch_is_grid {
                    let [tx, ty, tz] = failure.thread;
                    let [cx, cy, cz] = failure.cta;
                    json.push_str(&format!(
                        ",\"failed_thread\":[{tx},{ty},{tz}],\"failed_cta\":[{cx},{cy},{cz}]"
                    ));
                }
            }
            if !outputs.is_empty() {
                let items: Vec<String> = outputs
                    .iter()
                    .map(|(index, path, bytes)| {
                        format!(
                            "{{\"arg\":{index},\"path\":{},\"bytes\":{bytes}}}",
                            report::json_string(&path.display().to_string())
                        )
                    })
                    .collect();
                json.push_str(&format!(",\"outputs\":[{}]", items.join(",")));
            }
            // The `--show` buffers, in the order given: a key only where there are some.
            if !shows.is_empty() {
                json.push_str(&format!(",\"shows\":[{}]", shows.join(",")));
            }
            // printf output: a key only where the kernel printed (the text form prints it
            // before the state instead).
            if !result.printed.is_empty() || result.printed_dropped > 0 {
                let bytes = ptxsim_exec::runtime::printed_bytes(&result.printed);
                json.push_str(&format!(
                    ",\"printf\":{},\"printf_dropped\":{}",
                    report::json_string(&String::from_utf8_lossy(&bytes)),
                    result.printed_dropped
                ));
            }
            json.push_str("}\n");
            json
        }
        RunFormat::Text => {
            let mut text = report::state_text(program, registers, steps, outcome.as_ref());
            if args.no_registers {
                text = text
                    .lines()
                    .next()
                    .map(|l| format!("{l}\n"))
                    .unwrap_or_default();
            }
            if launch_is_grid {
                let [tx, ty, tz] = args.thread;
                let [cx, cy, cz] = args.cta;
                let threads: u64 = args
                    .launch
                    .grid
                    .iter()
                    .chain(&args.launch.block)
                    .map(|&d| u64::from(d))
                    .product();
                let [gx, gy, gz] = args.launch.grid;
                let [bx, by, bz] = args.launch.block;
                let shown = if args.no_registers {
                    String::new()
                } else {
                    format!("registers of thread ({tx},{ty},{tz}) of CTA ({cx},{cy},{cz}):\n")
                };
                text = format!(
                    "grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}: {threads} threads, {} instructions\n{shown}{text}",
                    result.steps
                );
            }
            for (index, path, bytes) in outputs {
                text.push_str(&format!(
                    "wrote argument {index} ({bytes} bytes) to {}\n",
                    path.display()
                ));
            }
            text
        }
    }
}

/// The first `count` elements of a buffer, decoded: each element's bits as hex (as many
/// digits as its width) and its value (`0x38`, `1.0`). Sub-byte formats (e2m1) are packed two
/// per byte, the first element in the low nibble; fp6 formats take one byte each.
fn shown_elements(ty: ptxsim_softfloat::Type, count: usize, bytes: &[u8]) -> Vec<(String, String)> {
    let element_bits = ty.bits() as usize;
    let mut elements = Vec::new();
    for element in 0..count {
        let bit = element * element_bits;
        let byte = bit / 8;
        let width = element_bits.div_ceil(8).max(1);
        let Some(chunk) = bytes.get(byte..byte + width) else {
            break;
        };
        let mut value = 0u64;
        for (k, b) in chunk.iter().enumerate() {
            value |= u64::from(*b) << (8 * k);
        }
        if element_bits < 8 {
            value = (value >> (bit % 8)) & ((1 << element_bits) - 1);
        }
        let decoded = match ty.integer() {
            Some((width, true)) => {
                let shift = 64 - width;
                (((value << shift) as i64) >> shift).to_string()
            }
            Some((_, false)) => value.to_string(),
            None => report::float_text(value, ty),
        };
        elements.push((
            format!("0x{value:0digits$x}", digits = element_bits.div_ceil(4)),
            decoded,
        ));
    }
    elements
}

/// `--show` in text: `argument 0 as e4m3:` and a line per element, `[0] 0x38 = 1.0`.
fn show_buffer(index: usize, ty: ptxsim_softfloat::Type, count: usize, bytes: &[u8]) -> String {
    let mut text = format!("argument {index} as {}:", ty.name());
    for (element, (hex, decoded)) in shown_elements(ty, count, bytes).iter().enumerate() {
        text.push_str(&format!("\n  [{element}] {hex} = {decoded}"));
    }
    text.push('\n');
    text
}

/// `--show` in JSON: `{"arg":0,"type":"e4m3","elements":[{"bits":"0x38","value":"1.0"}]}`
/// (values as strings, since `inf` and `nan` are no JSON numbers).
fn show_json(index: usize, ty: ptxsim_softfloat::Type, count: usize, bytes: &[u8]) -> String {
    let elements: Vec<String> = shown_elements(ty, count, bytes)
        .iter()
        .map(|(hex, decoded)| {
            format!(
                "{{\"bits\":\"{hex}\",\"value\":{}}}",
                report::json_string(decoded)
            )
        })
        .collect();
    format!(
        "{{\"arg\":{index},\"type\":\"{}\",\"elements\":[{}]}}",
        ty.name(),
        elements.join(",")
    )
}

/// The help line for a shared-memory access out of bounds in a kernel that declares dynamic
/// shared memory (`.extern .shared`) launched without any (`--dynamic-shared` left out): the
/// arrays start where the static `.shared` variables end and have the launch's size, 0 bytes
/// by default, so their first access faults.
fn dynamic_shared_hint(program: &Program, dynamic_bytes: u64, result: &GridRun) -> Option<String> {
    let failure = result.failure.as_ref()?;
    let Ok(Outcome::Trapped { message, .. }) = &failure.outcome else {
        return None;
    };
    (program.dynamic_shared.is_some()
        && dynamic_bytes == 0
        && message.contains("out-of-bounds")
        && message.contains("shared"))
    .then(|| {
        format!(
            "help: kernel `{}` declares dynamic shared memory (`.extern .shared`) and this launch \
             gave it 0 bytes: pass --dynamic-shared BYTES",
            program.entry
        )
    })
}

fn report_outcome(
    name: &str,
    program: &Program,
    result: &GridRun,
    launch_is_grid: bool,
) -> ExitCode {
    // The source line of the instruction, where the PTX has `.loc` (`nvcc -lineinfo`).
    let source = |location: Location| {
        program
            .source_text(location)
            .map_or_else(String::new, |source| format!(" ({source})"))
    };
    let Some(failure) = &result.failure else {
        return ExitCode::SUCCESS;
    };
    let who = if launch_is_grid {
        let [tx, ty, tz] = failure.thread;
        let [cx, cy, cz] = failure.cta;
        format!(" (thread ({tx},{ty},{tz}) of CTA ({cx},{cy},{cz}))")
    } else {
        String::new()
    };
    match &failure.outcome {
        Ok(Outcome::Trapped { message, location }) => {
            report!(
                "error: {name}:{}:{}{}: trap: {message}{}",
                location.line,
                location.column,
                source(*location),
                if message.contains("thread (") {
                    ""
                } else {
                    &who
                }
            );
        }
        Ok(Outcome::AssertionFailed { message, location }) => {
            report!(
                "error: {name}:{}:{}{}: assertion failed: {message}",
                location.line,
                location.column,
                source(*location)
            );
        }
        Ok(Outcome::OutOfFuel) => {
            report!(
                "error: {name}: out of fuel{who}: a thread reached --max-steps (raise it if the \
                 kernel is not stuck in a loop)"
            );
        }
        Ok(Outcome::Running | Outcome::Exited) => {}
        Err(stopped) => {
            report!(
                "error: {name}:{}:{}{}: {}{who}",
                stopped.location.line,
                stopped.location.column,
                source(stopped.location),
                stopped.message
            );
        }
    }
    ExitCode::from(1)
}

/// Gives `device` the kernel's compiled code when `engine` asks for it (never for a traced or
/// cooperative run, which the interpreter's scheduling defines); returns what ran, for
/// `--stats`.
fn choose_engine(
    device: &mut ptxsim_exec::Device<'_>,
    engine: ptxsim_jit::Engine,
    interpreter_only: bool,
) -> String {
    use ptxsim_jit::Engine;
    let program = device.program();
    let work = ptxsim_exec::compiled::launch_work(program, device.grid(), device.block());
    let reason = match engine {
        Engine::Interp => Some("--engine interp"),
        _ if interpreter_only => Some("traced or cooperative run"),
        Engine::Auto => ptxsim_jit::keeps_interpreter(program).or((work < ptxsim_jit::AUTO_WORK)
            .then_some("a small launch: threads x instructions below 2^22")),
        Engine::Compiled => None,
    };
    if let Some(reason) = reason {
        return format!("interpreter ({reason})");
    }
    match ptxsim_jit::compile_shared(program, device.block()) {
        Ok(kernel) => {
            if let Some(why) = kernel
                .auto_declines(program)
                .filter(|_| engine == Engine::Auto)
            {
                return format!("interpreter ({why})");
            }
            let stats = kernel.stats();
            device.set_compiled(kernel);
            let warps = if stats.warp_function {
                format!(
                    "; converged warps in lockstep, {} warp-synchronous instructions compiled, {} shuffles inline",
                    stats.warp_instructions, stats.warp_shuffles_inline
                )
            } else {
                String::new()
            };
            format!(
                "compiled ({} of {} instructions compiled in {:.1} ms{warps}; the interpreter runs the rest)",
                stats.covered,
                stats.instructions,
                stats.compile_time.as_secs_f64() * 1e3
            )
        }
        Err(error) => format!("interpreter ({error})"),
    }
}
