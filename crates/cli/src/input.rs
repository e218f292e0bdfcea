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
    larger_than(limit())
}

fn larger_than(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "larger than {limit} bytes, the input size limit (raise it with --max-input-bytes)"
        ),
    )
}

/// Reads `reader` whole, at most [`limit`] bytes. The buffer grows by doubling but never past
/// the limit, so an endless input (`/dev/zero`) costs at most the limit in memory, not twice it.
pub(crate) fn read_all(reader: impl io::Read) -> io::Result<Vec<u8>> {
    read_bounded(reader, limit(), 0)
}

/// Reads the file at `path` whole, at most [`limit`] bytes; a regular file larger than that is
/// refused before anything is read.
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() > limit() {
        return Err(too_large());
    }
    let expected = if metadata.is_file() {
        metadata.len()
    } else {
        0
    };
    read_bounded(file, limit(), expected)
}

/// Reads `reader` whole, at most `limit` bytes, with room for `expected` bytes made at the start.
///
/// An input of unknown size is read into pieces that double in size and are joined at the end,
/// so that reading never copies a growing buffer (the allocator may keep each freed copy:
/// `/dev/zero` under a 100 MB limit took 246 MB); an input past the limit costs the limit.
fn read_bounded(reader: impl io::Read, limit: u64, expected: u64) -> io::Result<Vec<u8>> {
    const FIRST_PIECE: usize = 64 * 1024;
    const LARGEST_PIECE: usize = 64 * 1024 * 1024;
    // One byte past the limit tells a larger input from one of exactly the limit.
    let most = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let mut reader = reader.take(limit.saturating_add(1));
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut total = 0usize;
    let mut next = usize::try_from(expected)
        .unwrap_or(0)
        .saturating_add(1)
        .max(FIRST_PIECE)
        .min(most);
    loop {
        let mut piece = Vec::with_capacity(next);
        let read = (&mut reader).take(next as u64).read_to_end(&mut piece)?;
        total += read;
        let full = read == next;
        if read > 0 {
            pieces.push(piece);
        }
        if !full || total >= most {
            break;
        }
        next = total.min(LARGEST_PIECE).min(most - total).max(1);
    }
    if total as u64 > limit {
        return Err(larger_than(limit));
    }
    Ok(match pieces.len() {
        0 => Vec::new(),
        1 => pieces.swap_remove(0),
        _ => pieces.concat(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_input_stops_one_byte_past_the_limit() {
        // `read_all` of an endless reader must end: it reads at most limit + 1 bytes, and its
        // buffer never holds more than that.
        let error = read_bounded(io::repeat(0), 100_000, 0).expect_err("endless input");
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("--max-input-bytes"), "{error}");
    }

    #[test]
    fn an_input_of_exactly_the_limit_is_read() {
        let longer = vec![b'x'; 200_001];
        assert!(read_bounded(&longer[..], 200_000, 0).is_err());
        let text = vec![b'x'; 200_000];
        let bytes = read_bounded(&text[..], 200_000, 0).expect("within the limit");
        assert_eq!(bytes, text);
    }
}
