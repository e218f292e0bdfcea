//! Reading the conformance tables (shared by `crates/isa/tests/conformance.rs` and
//! `crates/check/tests/conformance.rs` through `#[path]`).

/// A data file's text: `.tsv` as it is, `.tsv.xz` (the large tables, compressed to keep the
/// repository small) decompressed.
pub fn read(path: &std::path::Path) -> String {
    let bytes = std::fs::read(path).expect("readable");
    if path.extension().is_some_and(|x| x == "xz") {
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut bytes.as_slice(), &mut out).expect("xz data");
        String::from_utf8(out).expect("UTF-8")
    } else {
        String::from_utf8(bytes).expect("UTF-8")
    }
}
