//! Generates the PTX parser from the workspace-level grammar `grammar/ptx.lalrpop`.

use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let grammar_dir = manifest_dir.join("../../grammar");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let result = lalrpop::Configuration::new()
        .set_in_dir(&grammar_dir)
        .set_out_dir(&out_dir)
        .emit_rerun_directives(true)
        .process();
    if let Err(error) = result {
        panic!("failed to generate the PTX parser from grammar/ptx.lalrpop: {error}");
    }
}
