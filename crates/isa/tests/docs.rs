//! docs/isa.md is generated from the tables; this test keeps the committed file in sync.
//! Regenerate with `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`.

use std::path::PathBuf;

/// How many forms of each opcode `tests/hardware` compares with a GPU: the instructions of its
/// forms tables (`forms.tsv` of the conversions, `ops/forms.tsv` of the arithmetic,
/// `scalar/forms.tsv` of the rest of the scalar ISA, where a carry form's kernel that stores the
/// carry flag is the same form again, `packed/forms.tsv` of the packed integer and `.xorsign.abs`
/// forms, `oob/forms.tsv` of `fma.oob`).
fn compared_with_hardware() -> Vec<(String, usize)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/hardware");
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for table in [
        "forms.tsv",
        "ops/forms.tsv",
        "scalar/forms.tsv",
        "packed/forms.tsv",
        "oob/forms.tsv",
    ] {
        let text = std::fs::read_to_string(root.join(table)).expect("a forms table");
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let instruction = line.split('\t').nth(1).expect("an instruction column");
            if instruction.contains("(flag:") {
                continue;
            }
            let opcode = instruction.split(['.', ' ']).next().unwrap_or_default();
            *counts.entry(opcode.to_string()).or_default() += 1;
        }
    }
    counts.into_iter().collect()
}

#[test]
fn committed_coverage_table_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/isa.md");
    let rendered = ptxsim_isa::coverage::render_isa_markdown(&compared_with_hardware());
    if std::env::var_os("PTXSIM_BLESS").is_some() {
        std::fs::write(&path, &rendered).expect("write docs/isa.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "docs/isa.md is out of date; run `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`"
    );
}
