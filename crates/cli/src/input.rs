//! Reading input files with a size limit, so that no input (`/dev/zero`, a runaway generator)
//! makes ptxsim allocate without bound: module files, `--arg buf:` buffers and traces are read
//! through [`read`], which fails beyond [`limit`] bytes (`--max-input-bytes`, default 1 GiB).

use std::io::{self, Read as _};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default limit: 1 GiB, well under the memory of the machines ptxsim runs on.
pub(crate) const DEFAULT_LIMIT: u64 = 1 << 30;

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
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "larger than {} bytes, the input size limit (raise it with --max-input-bytes)",
            limit()
        ),
    )
}

/// Reads `reader` whole, at most [`limit`] bytes.
pub(crate) fn read_all(reader: impl io::Read) -> io::Result<Vec<u8>> {
    let limit = limit();
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads the file at `path` whole, at most [`limit`] bytes.
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_all(std::fs::File::open(path)?)
}
