//! What the compiled tier's test binaries share: the repository's root, a seeded random
//! generator, and the record of a grid's run that the tiers are compared on.
#![allow(dead_code)] // Each test binary uses its own part.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, GridOptions};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What a run left: steps, failure, the inspected thread's registers and steps, every buffer.
pub type Run = (u64, String, Option<(Vec<u128>, u64)>, Vec<Vec<u8>>);

/// A xorshift64* generator: the random kernels and inputs are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Runs the grid of `device` with `options` and collects what it left (`addresses`: the
/// arguments' buffers): steps, failure, the inspected thread, and every buffer.
pub fn outcome(
    device: &ptxsim_exec::Device<'_>,
    options: GridOptions,
    addresses: &[Option<u64>],
) -> Run {
    let run = grid::run_grid(device, options, None, None);
    let buffers = addresses
        .iter()
        .flatten()
        .map(|&address| {
            device
                .global
                .buffer_at(address)
                .map(|b| b.contents())
                .unwrap_or_default()
        })
        .collect();
    let inspected = run
        .inspected
        .as_ref()
        .map(|i| (i.registers.clone(), i.steps));
    (run.steps, format!("{:?}", run.failure), inspected, buffers)
}
