//! Throughput of the front end on a large module (at least 5 MiB) made of renamed copies of the
//! real functions in `tests/parse/` and `ptx-samples/`.
//!
//! Run with `cargo bench -p ptxsim-check`; divan reports bytes per second.

use divan::counter::BytesCount;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn collect_ptx(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_ptx(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "ptx") {
            out.push(path);
        }
    }
}

/// The generated module, built once.
fn large_module() -> &'static str {
    static MODULE: OnceLock<String> = OnceLock::new();
    MODULE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        collect_ptx(&root.join("tests/parse"), &mut files);
        collect_ptx(&root.join("ptx-samples"), &mut files);
        files.sort();
        let sources: Vec<String> = files
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .collect();
        let seeds: Vec<&str> = sources.iter().map(String::as_str).collect();
        let module = ptxsim_syntax::synth::large_module(&seeds, 6 << 20);
        assert!(
            module.len() >= 5 << 20,
            "the seed files produced only {} bytes",
            module.len()
        );
        module
    })
}

#[divan::bench(sample_count = 10)]
fn parse(bencher: divan::Bencher<'_, '_>) {
    let source = large_module();
    bencher
        .counter(BytesCount::of_str(source))
        .bench(|| ptxsim_syntax::parse(divan::black_box(source)));
}

#[divan::bench(sample_count = 10)]
fn parse_and_resolve(bencher: divan::Bencher<'_, '_>) {
    let source = large_module();
    bencher
        .counter(BytesCount::of_str(source))
        .bench(|| ptxsim_check::parse_and_check(divan::black_box(source)));
}

/// What `ptxsim check` does: parsing and checking in pieces, without keeping the tree.
#[divan::bench(sample_count = 10)]
fn check_source(bencher: divan::Bencher<'_, '_>) {
    let source = large_module();
    let options = ptxsim_check::Options::default();
    bencher
        .counter(BytesCount::of_str(source))
        .bench(|| ptxsim_check::check_source(divan::black_box(source), &options));
}

#[divan::bench(sample_count = 10)]
fn lex_only(bencher: divan::Bencher<'_, '_>) {
    let source = large_module();
    bencher
        .counter(BytesCount::of_str(source))
        .bench(|| ptxsim_syntax::lexer::Lexer::new(divan::black_box(source)).count());
}
