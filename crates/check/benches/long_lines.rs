//! Time of parsing and checking inputs that once took quadratic time (issue 23), over sizes:
//! one line of `count` register errors (`add.u32 %r1, %x, %y;` with `%x`, `%y` undeclared),
//! one line of `count` labels, and one line of `count` `1?` (lexer errors: PTX has no `?:`).
//! The time should double with `count` (the CLI's rendering of the diagnostics is linear too:
//! `crates/cli/tests/limits.rs` counts its bytes).
//!
//! Run with `cargo bench -p ptxsim-check --bench long_lines`.

use divan::counter::BytesCount;

fn main() {
    divan::main();
}

const COUNTS: [usize; 4] = [2_000, 4_000, 8_000, 16_000];

/// A module for sm_90 with `body`.
fn module(body: &str) -> String {
    format!(".version 8.7\n.target sm_90\n.address_size 64\n{body}\n")
}

fn bench(bencher: divan::Bencher<'_, '_>, source: &str) {
    let options = ptxsim_check::Options::default();
    bencher
        .counter(BytesCount::of_str(source))
        .bench(|| ptxsim_check::check_source(divan::black_box(source), &options));
}

/// `count` instructions with two undeclared registers each, on one line.
#[divan::bench(args = COUNTS, sample_count = 5)]
fn register_errors(bencher: divan::Bencher<'_, '_>, count: usize) {
    let source = module(&format!(
        ".entry k() {{ .reg .u32 %r1; {}}}",
        "add.u32 %r1, %x, %y; ".repeat(count)
    ));
    bench(bencher, &source);
}

/// `count` labels and a branch to each, on one line.
#[divan::bench(args = COUNTS, sample_count = 5)]
fn labels(bencher: divan::Bencher<'_, '_>, count: usize) {
    let body: String = (0..count).map(|i| format!("L{i}: bra L{i}; ")).collect();
    let source = module(&format!(".entry k() {{ {body}ret; }}"));
    bench(bencher, &source);
}

/// `count` `1?` and as many `:1` in one initializer.
#[divan::bench(args = COUNTS, sample_count = 5)]
fn question_marks(bencher: divan::Bencher<'_, '_>, count: usize) {
    let source = module(&format!(
        ".global .u32 g = {}1{};",
        "1?".repeat(count),
        ":1".repeat(count)
    ));
    bench(bencher, &source);
}
