//! What the fuzz targets drive: the libraries' entry points, and the command-line tool's own
//! code for `check`'s rendering, `eval` and the debugger's commands, compiled here from the
//! `ptxsim` crate's source files (`#[path]`) with small stand-ins for the parts of `main.rs`,
//! `run.rs` and `output.rs` they name. Nothing here may panic on any input; every function
//! returns normally or with an error.

#![allow(dead_code, unused_imports, unreachable_pub, clippy::all)]

use std::str;

/// `main.rs`'s `report!`, formatting its message and dropping it (the fuzzer's output stays
/// readable; the formatting code still runs).
macro_rules! report {
    ($($arg:tt)*) => {{
        let _ = format!($($arg)*);
    }};
}

/// `main.rs`'s `report_part!` (see [`report!`]).
macro_rules! report_part {
    ($($arg:tt)*) => {{
        let _ = format!($($arg)*);
    }};
}

/// `main.rs`'s `--color` values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Color {
    Auto,
    Always,
    Never,
}

#[path = "../../crates/cli/src"]
mod cli {
    pub(crate) mod check;
    pub(crate) mod eval;
    pub(crate) mod input;
    pub(crate) mod debug {
        pub(crate) mod command;
        pub(crate) mod format;
        pub(crate) mod session;
        pub(crate) mod source;
    }
}

use cli::{check, input};

/// Stand-in for `output.rs`: the text is dropped.
mod output {
    pub(crate) const STDOUT: &str = "cannot write to stdout";

    pub(crate) fn stdout(text: &str) -> anyhow::Result<()> {
        std::hint::black_box(text);
        Ok(())
    }
}

/// Stand-in for `run.rs`'s `parse_dim3_index` (the same code as `run.rs`'s `parse_dims` with
/// a minimum of 0).
mod run {
    use ptxsim_exec::Dim3;

    pub(crate) fn parse_dim3_index(text: &str) -> Result<Dim3, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!("`{text}`: expected X, X,Y or X,Y,Z"));
        }
        let mut dims = [0; 3];
        for (slot, part) in dims.iter_mut().zip(&parts) {
            *slot = part
                .parse()
                .map_err(|_| format!("`{part}` is not a number"))?;
        }
        Ok(dims)
    }
}

/// `ptxsim check FILE` on `bytes`: decode, check, render the diagnostics as text (at most the
/// default number) and as the JSON line of `--json`.
pub fn check(bytes: &[u8]) {
    let (source, encoding) = ptxsim_syntax::diag::decode_source(bytes);
    let mut diagnostics = ptxsim_check::check_source(&source, &ptxsim_check::Options::default());
    if let Some(encoding) = encoding {
        diagnostics.insert(0, encoding);
    }
    let text = check::render_text("fuzz.ptx", &source, &diagnostics, check::Shown::DEFAULT);
    std::hint::black_box(text.ok());
    let json = check::json_line("fuzz.ptx", &source, &diagnostics);
    std::hint::black_box(json.ok());
}

/// The step limit of each thread in [`run`] and [`debug`].
pub const MAX_STEPS: u64 = 2_000;

/// The simulated-memory budget of [`run`]'s launch.
pub const MEMORY_LIMIT: u64 = 16 << 20;

/// `ptxsim run`'s path through the library: load (parse, check, build every kernel), then
/// launch the first kernel on 2 CTAs of 4 threads with a 64-byte buffer for each 8-byte
/// parameter and the bits 3 for every other, [`MAX_STEPS`] steps per thread and a
/// [`MEMORY_LIMIT`] budget.
pub fn run(bytes: &[u8]) {
    let Ok(source) = str::from_utf8(bytes) else {
        return;
    };
    let Ok(module) = ptxsim_exec::api::Module::load(source, &ptxsim_exec::api::Options::default())
    else {
        return;
    };
    let Some(entry) = module.kernels().next().map(str::to_string) else {
        return;
    };
    let Ok(program) = module.program(&entry) else {
        return;
    };
    let sizes: Vec<u64> = program.params.iter().map(|param| param.bytes).collect();
    let mut buffers: Vec<Vec<u8>> = sizes
        .iter()
        .filter(|&&size| size == 8)
        .map(|_| vec![0u8; 64])
        .collect();
    let mut buffers = buffers.iter_mut();
    let mut args: Vec<ptxsim_exec::api::Arg<'_>> = sizes
        .iter()
        .map(|&size| match (size, buffers.next()) {
            (8, Some(buffer)) => ptxsim_exec::api::Arg::Buffer(buffer),
            _ => ptxsim_exec::api::Arg::Bits(3),
        })
        .collect();
    let options = ptxsim_exec::api::LaunchOptions {
        max_steps: MAX_STEPS,
        host_threads: 1,
        memory_limit: MEMORY_LIMIT,
        ..ptxsim_exec::api::LaunchOptions::default()
    };
    let report = module.launch(&entry, [2, 1, 1], [4, 1, 1], &mut args, &options);
    std::hint::black_box(report.map_err(|error| error.to_string()).ok());
}

#[derive(Debug, clap::Parser)]
struct EvalCommand {
    #[command(flatten)]
    args: cli::eval::EvalArgs,
}

/// `ptxsim eval INSTRUCTION NAME=VALUE...`: the first line of `text` is the instruction, every
/// other line an operand value.
pub fn eval(text: &str) {
    let mut lines = text.lines();
    let instruction = lines.next().unwrap_or("");
    let mut argv = vec!["eval", "--", instruction];
    argv.extend(lines.take(16));
    let Ok(command) = <EvalCommand as clap::Parser>::try_parse_from(argv) else {
        return;
    };
    std::hint::black_box(cli::eval::run(&command.args).ok());
}

/// `ptxsim trace-diff`'s reading of a trace: parse it whole, index it, read every indexed step
/// back, and compare it with itself.
pub fn trace(text: &str) {
    let parsed = ptxsim_trace::parse(text);
    let indexed = ptxsim_trace::index(text);
    if let Ok(indexed) = &indexed {
        for index in 0..indexed.len() {
            std::hint::black_box(indexed.step(index));
        }
        std::hint::black_box(ptxsim_trace::diff(indexed, "a", indexed, "b", 3));
    }
    if let Ok(parsed) = &parsed {
        std::hint::black_box(ptxsim_trace::diff(parsed, "a", parsed, "b", 3));
    }
    std::hint::black_box((parsed.is_ok(), indexed.is_ok()));
}

/// The kernel [`debug`] runs: a loop, a call, shared memory, a barrier, a global store and
/// a predicate, over 2 CTAs of 4 threads.
pub const DEBUG_KERNEL: &str = include_str!("debug_kernel.ptx");

/// `ptxsim debug --script`: each line of `script` (at most 64) a command of a session on
/// [`DEBUG_KERNEL`], as `debug.rs` feeds them (trimmed; empty lines and `#` comments skipped;
/// `quit` ends).
pub fn debug(script: &str) {
    let Ok(program) = ptxsim_exec::load(DEBUG_KERNEL, None) else {
        return;
    };
    let arguments = vec![
        ptxsim_exec::grid::Argument::Buffer(vec![0u8; 64]),
        ptxsim_exec::grid::Argument::Scalar {
            ty: ptxsim_isa::Type::U32,
            bits: 5,
        },
    ];
    let Ok(mut session) = cli::debug::session::Session::new(
        &program,
        DEBUG_KERNEL,
        ([2, 1, 1], [4, 1, 1], MAX_STEPS, 0, MEMORY_LIMIT),
        arguments,
        ([0, 0, 0], [1, 0, 0]),
    ) else {
        return;
    };
    for line in script.lines().take(64) {
        let command = line.trim();
        if command.is_empty() || command.starts_with('#') {
            continue;
        }
        let reply = session.execute(command);
        std::hint::black_box(&reply.text);
        if reply.quit {
            break;
        }
    }
}
