//! The type stub `ptxsim.pyi` declares every name the module exports (`src/lib.rs` adds them),
//! and its `__all__` lists exactly those. A Rust test so that `cargo test --workspace` also
//! builds the extension module (the cdylib) itself; the package's behaviour is tested by
//! pytest (`tests/test_ptxsim.py`, `scripts/test-python.sh`).

use std::collections::BTreeSet;

fn read(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The names `src/lib.rs` adds to the module: `add_class::<Name>()` and `add("Name", ...)`.
fn exported() -> BTreeSet<String> {
    let source = read("src/lib.rs");
    let mut names = BTreeSet::new();
    for line in source.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("module.add_class::<") {
            names.insert(rest.split('>').next().unwrap_or_default().to_string());
        } else if let Some(rest) = line.strip_prefix("module.add(\"") {
            names.insert(rest.split('"').next().unwrap_or_default().to_string());
        }
    }
    names
}

#[test]
fn the_stub_declares_every_exported_name() {
    let names = exported();
    assert!(
        names.len() >= 6,
        "lib.rs no longer adds names as this test reads them: {names:?}"
    );
    let stub = read("ptxsim.pyi");
    for name in &names {
        let declared = stub.lines().any(|line| {
            line.starts_with(&format!("class {name}("))
                || line.starts_with(&format!("class {name}:"))
                || line.starts_with(&format!("{name}:"))
        });
        assert!(declared, "ptxsim.pyi does not declare `{name}`");
    }
    let all_start = stub.find("__all__ = [").expect("ptxsim.pyi has __all__");
    let all_end = all_start + stub[all_start..].find(']').expect("__all__ ends");
    let listed: BTreeSet<String> = stub[all_start..all_end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert_eq!(listed, names, "ptxsim.pyi's __all__");
}
