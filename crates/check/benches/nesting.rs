//! Time of parsing and checking deeply nested input, over sizes: `levels` copies of
//! `.entry k() {`, one per line (`lines`) or all on one line (`one_line`). Every `.entry` after
//! the first is a syntax error inside the block the one before opened, so the parser's stack,
//! the checker's scopes and the number of diagnostics all grow with `levels`. The time should
//! double with the input (see "Deeply nested input" in `docs/checker.md`).
//!
//! Run with `cargo bench -p ptxsim-check --bench nesting`.

use divan::counter::BytesCount;

fn main() {
    divan::main();
}

const LEVELS: [usize; 5] = [1_000, 2_000, 4_000, 8_000, 16_000];

/// `levels` nested `.entry k() {`, each followed by `separator`.
fn nested(levels: usize, separator: &str) -> String {
    format!(".entry k() {{{separator}").repeat(levels)
}

/// One `.entry k() {` per line.
#[divan::bench(args = LEVELS, sample_count = 5)]
fn lines(bencher: divan::Bencher<'_, '_>, levels: usize) {
    let source = nested(levels, "\n");
    let options = ptxsim_check::Options::default();
    bencher
        .counter(BytesCount::of_str(&source))
        .bench(|| ptxsim_check::check_source(divan::black_box(&source), &options));
}

/// All of them on one line.
#[divan::bench(args = LEVELS, sample_count = 5)]
fn one_line(bencher: divan::Bencher<'_, '_>, levels: usize) {
    let source = nested(levels, "");
    let options = ptxsim_check::Options::default();
    bencher
        .counter(BytesCount::of_str(&source))
        .bench(|| ptxsim_check::check_source(divan::black_box(&source), &options));
}
