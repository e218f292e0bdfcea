//! Reading input files with a size limit, so that no input (`/dev/zero`, a runaway generator)
//! makes ptxsim allocate without bound: module files, `--arg buf:` buffers and traces are read
//! through [`read_text`] (buffers by `run::load_arguments`, into words), which fail beyond [`limit`] bytes (`--max-input-bytes`,
//! default 1 GiB). The reading itself is `ptxsim_syntax::input`'s, which the driver library
//! shares.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ptxsim_syntax::input::{self as bounded, Contents};

/// The default limit: 1 GiB, well under the memory of the machines ptxsim runs on.
pub(crate) const DEFAULT_LIMIT: u64 = 1 << 30;

/// The option that raises the limit, named in the error.
const OPTION: &str = "--max-input-bytes";

static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_LIMIT);

/// Sets the limit (from `--max-input-bytes`).
pub(crate) fn set_limit(bytes: u64) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The most bytes an input may have.
pub(crate) fn limit() -> u64 {
    LIMIT.load(Ordering::Relaxed)
}

/// The error for an input larger than the limit.
pub(crate) fn too_large() -> io::Error {
    bounded::too_large(limit(), OPTION)
}

/// Reads the text `reader` gives whole, at most [`limit`] bytes; a NUL byte ends it with an
/// error (no PTX text has one), so that an endless stream of zeros costs one small read.
pub(crate) fn read_all_text(reader: impl io::Read) -> io::Result<Vec<u8>> {
    bounded::read_bounded(reader, limit(), 0, Contents::Text, OPTION)
}

/// Reads the text file at `path` (a module, a script) whole, at most [`limit`] bytes; from a
/// device or a pipe, a NUL byte ends it with an error at once (`run /dev/zero`).
pub(crate) fn read_text(path: &Path) -> io::Result<Vec<u8>> {
    bounded::read_file(path, limit(), Contents::Text, OPTION)
}
