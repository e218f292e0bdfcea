//! What the integration tests of the `ptxsim` binary share: temporary paths that are removed
//! when a test ends.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// A path in a fresh temporary directory of its own, `ptxsim-PREFIX-XXXXXX` in the system's
/// temporary directory. Dropping it removes the directory and all it holds, also when the test
/// fails (a panic unwinds).
#[derive(Debug)]
pub struct TempPath {
    path: PathBuf,
    _dir: TempDir,
}

impl TempPath {
    /// `name` in a new temporary directory; nothing is created at `name` itself.
    pub fn new(prefix: &str, name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ptxsim-{prefix}-"))
            .tempdir()
            .expect("the temporary directory is writable");
        Self {
            path: dir.path().join(name),
            _dir: dir,
        }
    }
}

impl Deref for TempPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for TempPath {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}
