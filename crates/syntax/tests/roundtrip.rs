//! Every sample module parses without diagnostics, and printing is faithful:
//! `parse(print(parse(x))) == parse(x)` with spans ignored.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

/// All valid PTX inputs: `ptx-samples/**/*.ptx` and `tests/parse/**/*.ptx`.
fn valid_inputs() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = Vec::new();
    collect_ptx(&root.join("ptx-samples"), &mut files);
    collect_ptx(&root.join("tests/parse"), &mut files);
    files.sort();
    files
}

#[test]
fn samples_parse_cleanly_and_round_trip() {
    let files = valid_inputs();
    assert!(!files.is_empty(), "no .ptx inputs found");
    let mut failures = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path).expect("sample files are UTF-8");
        let (module, diagnostics) = ptxsim_syntax::parse(&source);
        if !diagnostics.is_empty() {
            failures.push(format!("{}: {:?}", path.display(), diagnostics));
            continue;
        }
        let printed = module.to_string();
        let (reparsed, rediagnostics) = ptxsim_syntax::parse(&printed);
        if !rediagnostics.is_empty() {
            failures.push(format!(
                "{}: printed form has diagnostics {:?}\n{printed}",
                path.display(),
                rediagnostics
            ));
            continue;
        }
        if reparsed.without_spans() != module.without_spans() {
            failures.push(format!(
                "{}: printed form parses to a different tree",
                path.display()
            ));
        }
        assert_eq!(
            reparsed.to_string(),
            printed,
            "printing is not a fixpoint for {}",
            path.display()
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
