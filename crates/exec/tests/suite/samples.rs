//! No input makes the checker or the executor panic: every PTX file of the repository (real
//! nvcc and Triton kernels, hand-written samples, broken inputs) is parsed and checked; for
//! each kernel of a module without errors, the program is built and run with a small step
//! limit. Whatever happens must be a diagnostic, an outcome or an `ExecError`.

use std::path::{Path, PathBuf};

use ptxsim_exec::Machine;

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            ptx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

#[test]
fn every_repository_ptx_file_builds_and_runs_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["ptx-samples", "tests/parse", "tests/broken", "tests/exec"] {
        ptx_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 20, "found only {} PTX files", files.len());
    let mut runs = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("readable");
        let (source, _) = ptxsim_syntax::diag::decode_source(&bytes);
        let (checked, _) = ptxsim_check::compile(&source, &Default::default());
        let Some(checked) = checked else {
            continue;
        };
        for entry in checked.entries() {
            if let Ok(program) = checked.program(Some(entry)) {
                let mut machine = Machine::new(&program, 5_000);
                let _ = ptxsim_exec::run(&mut machine, None);
                runs += 1;
            }
        }
    }
    assert!(runs > 20, "only {runs} kernels built");
}
