//! What the C ABI tests of `crates/ocelot` and `crates/cuda` share (included with `#[path]`):
//! the repository root and the cdylib cargo built beside the test.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cdylib `stem` (`cuda`, `ptxsim_ocelot`) cargo built beside this test (in `deps/` or the
/// profile directory above it).
pub fn library(stem: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("the test is in a directory");
    let name = format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps.join(&name), deps.join("..").join(&name)]
        .into_iter()
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{name} next to {}", deps.display()))
}
