//! docs/isa.md is generated from the tables; this test keeps the committed file in sync.
//! Regenerate with `PTXSIM_BLESS=1 cargo test -p ptxsim-isa --test docs`.

use std::path::PathBuf;

/// How many forms of each opcode `tests/hardware` compares with a GPU: the instructions of its
/// forms tables (`forms.tsv` of the conversions, `ops/forms.tsv` of the arithmetic,
/// `scalar/forms.tsv` of the rest of the scalar ISA, where a carry form's kernel that stores the
/// carry flag is the same form again, `packed/forms.tsv` of the packed integer and `.xorsign.abs`
/// forms, `oob/forms.tsv` of `fma.oob`), and the tensor-core forms of `mma/` and `wmma/`.
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
    // Tensor cores: the `mma.sync` forms of the golden run (`tests/hardware/mma/mma-log.txt`,
    // every form whose status is `ok`) and the distinct `wmma.mma` forms of the two wmma probes
    // (`tests/hardware/wmma/wmma.txt.xz`, `wmma2.txt.xz`: `mma NAME tile T` headers).
    let log = std::fs::read_to_string(root.join("mma/mma-log.txt")).expect("the mma log");
    let mma = log
        .lines()
        .filter(|l| l.starts_with('m') && l.contains(": ok,"))
        .count();
    *counts.entry("mma".to_string()).or_default() += mma;
    let mut wmma = std::collections::BTreeSet::new();
    for file in ["wmma/wmma.txt.xz", "wmma/wmma2.txt.xz"] {
        let packed = std::fs::read(root.join(file)).expect("a wmma data file");
        let mut text = Vec::new();
        lzma_rs::xz_decompress(&mut packed.as_slice(), &mut text).expect("xz");
        for line in String::from_utf8_lossy(&text).lines() {
            if let Some(rest) = line.strip_prefix("mma ") {
                // The first probe writes `shape.d.a` (C has D's type, B A's), the second
                // `shape.d.a.b.c[.satfinite]`.
                let name = rest.split_whitespace().next().unwrap_or_default();
                let parts: Vec<&str> = name.split('.').collect();
                let full = match parts[..] {
                    [shape, d, a] => format!("{shape}.{d}.{a}.{a}.{d}"),
                    _ => name.to_string(),
                };
                wmma.insert(full);
            }
        }
    }
    *counts.entry("wmma".to_string()).or_default() += wmma.len();
    // `wgmma.mma_async`: the distinct forms of `tests/hardware/wgmma/wgmma-golden.bin.xz` (its
    // format: scripts/hardware/wgmma/wgmma.cu), the immediates' variants counted once.
    let packed = std::fs::read(root.join("wgmma/wgmma-golden.bin.xz")).expect("the wgmma data");
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut packed.as_slice(), &mut raw).expect("xz");
    let word =
        |at: usize| u32::from_le_bytes(raw[at..at + 4].try_into().expect("4 bytes")) as usize;
    let mut wgmma = std::collections::BTreeSet::new();
    let mut at = 20;
    for _ in 0..word(16) {
        let name = String::from_utf8_lossy(&raw[at..at + 48]);
        wgmma.insert(
            name.split([' ', '\0'])
                .next()
                .unwrap_or_default()
                .to_string(),
        );
        let (tiles, nd) = (word(at + 48), word(at + 52));
        at += 48 + 8 + 16 + tiles * (2048 + 512 + 2 * 128 * nd * 4);
    }
    *counts.entry("wgmma".to_string()).or_default() += wgmma.len();
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
