//! Agreement with ptxas on whole modules: every row of `tests/conformance/modgen-modules.txt.xz`
//! (written by `scripts/conformance/modgen.py --tsv`: ptxas 13.5's verdict on a generated
//! module that varies declarations, linkage, function headers, debug directives and the
//! `.target` list around trivial instructions, and its text) and of
//! `tests/conformance/realcorpus-modules.txt.xz` (`scripts/conformance/realcorpus.py mutate
//! --tsv`: small modules nvcc 13.5 made from HeCBench and Rodinia, one line or the header of
//! each mutated) and of `tests/conformance/llvm-modules.txt.xz` (`realcorpus.py judge|mutate
//! --assembler --tsv` on `scripts/conformance/llvmcorpus.py`'s corpus: modules LLVM's NVPTX
//! back end wrote from LLVM's own code-generation tests and from clang's CUDA, whole and
//! mutated, and hand-written probes of the rules they showed) must get ptxas's verdict from
//! `ptxsim check`, on both paths: the whole tree,
//! and piece by piece straight from the text (small pieces, two threads), which must give the
//! same diagnostics. The files hold only modules ptxsim agreed on when they were written
//! (docs/conformance.md, "The seventh round", "The eighth round" and "The tenth round";
//! the tenth round's also holds modules of Triton's newer LLVM, `llvmcorpus.py triton`), and
//! of `tests/conformance/hand-modules.txt.xz` (the eleventh round: `realcorpus.py judge
//! --assembler --tsv` on the boundary modules of `scripts/conformance/hand-probes/`; the
//! modules of other projects that round judged are not committed, being their authors' code:
//! `handcorpus.py` rebuilds them from a checkout).

#[path = "../../../tests/conformance/data.rs"]
mod data;

use ptxsim_check::{Options, check_source_in_pieces, parse_and_check_in_chunks};
use std::path::PathBuf;

/// A row's module text: `\n`, `\t` and `\\` escaped as modgen.py writes them.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[test]
fn every_generated_module_gets_ptxas_verdict() {
    every_module_gets_ptxas_verdict("modgen-modules.txt.xz", 1000, 100);
}

#[test]
fn every_mutated_real_module_gets_ptxas_verdict() {
    every_module_gets_ptxas_verdict("realcorpus-modules.txt.xz", 1000, 300);
}

#[test]
fn every_llvm_module_gets_ptxas_verdict() {
    every_module_gets_ptxas_verdict("llvm-modules.txt.xz", 1000, 500);
}

/// The fourteenth round's headers: every `.target` spelling at every `.version` ptxas 13.5
/// knows (and some it does not), with a kernel, and `.target` option lists
/// (`scripts/conformance/headers.py --judge --tsv`).
#[test]
fn every_header_module_gets_ptxas_verdict() {
    every_module_gets_ptxas_verdict("header-modules.txt.xz", 6000, 1500);
}

#[test]
fn every_hand_written_module_gets_ptxas_verdict() {
    every_module_gets_ptxas_verdict("hand-modules.txt.xz", 10, 5);
}

/// Checks every row of `tests/conformance/<name>`, which has more than `min_rows` rows and
/// more than `min_accepted` modules ptxas accepts.
fn every_module_gets_ptxas_verdict(name: &str, min_rows: usize, min_accepted: usize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/conformance")
        .join(name);
    let text = data::read(&path);
    let options = Options::default();
    let mut rows = 0;
    let mut accepted = 0;
    let mut wrong = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let (verdict, module) = line.split_once('\t').expect("verdict<TAB>module");
        let module = unescape(module);
        let accept = verdict == "accept";
        rows += 1;
        accepted += usize::from(accept);
        let (_, whole) = parse_and_check_in_chunks(&module, &options, 1);
        let pieces = check_source_in_pieces(&module, &options, 64, 2);
        assert_eq!(
            format!("{whole:?}"),
            format!("{pieces:?}"),
            "the two paths disagree on\n{module}"
        );
        let first_error = whole.iter().find(|d| d.is_error());
        if accept == first_error.is_none() {
            continue;
        }
        wrong.push(format!(
            "ptxas {verdict}s, ptxsim {}:\n{module}",
            first_error.map_or("accepts".to_string(), |d| format!(
                "rejects ({} {})",
                d.code, d.message
            ))
        ));
    }
    assert!(
        rows > min_rows && accepted > min_accepted,
        "{name}: {rows} rows, {accepted} accepted"
    );
    assert!(
        wrong.is_empty(),
        "{name}: {} of {rows} modules disagree with ptxas:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(10)].join("\n")
    );
}
