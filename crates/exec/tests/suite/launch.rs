//! What the kernel tests of one launch share: loading a module and launching one entry over a
//! row of CTAs, and reading a buffer back as 32-bit words.

use ptxsim_exec::api::{Arg, Error, LaunchOptions, LaunchReport, Module, Options};

/// The step limit of the launches that must finish.
pub const STEPS: u64 = ptxsim_exec::DEFAULT_MAX_STEPS;

/// Launches `entry` of `source` on `ctas` CTAs of `threads` threads (along x) with `buffers`
/// and `max_steps`.
pub fn launch(
    source: &str,
    entry: &str,
    (ctas, threads): (u32, u32),
    buffers: &mut [Arg<'_>],
    max_steps: u64,
) -> Result<LaunchReport, Error> {
    let module = Module::load(source, &Options::default()).expect("the kernel loads");
    let options = LaunchOptions {
        max_steps,
        ..LaunchOptions::default()
    };
    module.launch(entry, [ctas, 1, 1], [threads, 1, 1], buffers, &options)
}

/// `bytes` as little-endian 32-bit words.
pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|word| u32::from_le_bytes(word.try_into().unwrap()))
        .collect()
}
