//! docs/isa.md is generated from the tables; this test keeps the committed file in sync.
//! Regenerate with `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`.

use std::path::PathBuf;

#[test]
fn committed_coverage_table_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/isa.md");
    let rendered = ptxsim_isa::coverage::render_isa_markdown();
    if std::env::var_os("PTXSIM_BLESS").is_some() {
        std::fs::write(&path, &rendered).expect("write docs/isa.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "docs/isa.md is out of date; run `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`"
    );
}
