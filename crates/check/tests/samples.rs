//! Every valid input (`ptx-samples/**/*.ptx`, `tests/parse/**/*.ptx`) parses and checks with zero
//! diagnostics.

use std::path::{Path, PathBuf};

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

pub fn valid_inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    collect_ptx(&root.join("ptx-samples"), &mut files);
    collect_ptx(&root.join("tests/parse"), &mut files);
    files.sort();
    files
}

#[test]
fn samples_check_cleanly() {
    let files = valid_inputs();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path).expect("sample files are UTF-8");
        let (_, diagnostics) = ptxsim_check::parse_and_check(&source);
        if !diagnostics.is_empty() {
            failures.push(format!("{}: {:#?}", path.display(), diagnostics));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
