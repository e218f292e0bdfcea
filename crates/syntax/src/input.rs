//! Reading inputs whole with a size limit, so that no input (`/dev/zero`, a runaway generator,
//! a FIFO that never ends) makes ptxsim allocate without bound. The command line (modules,
//! `--arg buf:` buffers, traces, scripts) and the driver library (`cuModuleLoad`,
//! `cuLibraryLoadFromFile`, `cuLinkAddFile`) read files through [`read_file`].
//!
//! Memory: an input past the limit costs at most the limit plus one byte, never twice the limit
//! (a doubling `Vec` would); a text input from a device or a pipe stops at its first NUL byte,
//! which no PTX text has, so that `check /dev/zero` is refused before it reads a megabyte.

use std::io::{self, Read as _};
use std::path::Path;

/// What an input holds, which decides when reading can stop early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    /// PTX (or another) text: a NUL byte read from a stream (not a regular file) ends reading
    /// with an error, since no text has one. A regular file is read whole (its size is known
    /// and within the limit) and the parser reports a NUL at its place.
    Text,
    /// Any bytes (a fatbin, a buffer): only the limit stops reading.
    Binary,
}

/// The error for an input larger than `limit` bytes. `option` names the setting that raises it
/// (`--max-input-bytes` on the command line), if there is one (else it is empty).
pub fn too_large(limit: u64, option: &str) -> io::Error {
    let message = if option.is_empty() {
        format!("larger than {limit} bytes, the input size limit")
    } else {
        format!("larger than {limit} bytes, the input size limit (raise it with {option})")
    };
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Reads the file at `path` whole, at most `limit` bytes (a larger one is an error of kind
/// `InvalidData` naming `option`). A regular file larger than the limit is refused before
/// anything is read; a regular file gets its whole size as one buffer.
pub fn read_file(path: &Path, limit: u64, contents: Contents, option: &str) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() > limit {
        return Err(too_large(limit, option));
    }
    if metadata.is_file() {
        read_bounded(file, limit, metadata.len(), Contents::Binary, option)
    } else {
        read_bounded(file, limit, 0, contents, option)
    }
}

/// Reads `reader` whole, at most `limit` bytes, with room for `expected` bytes made at the
/// start; for [`Contents::Text`], a NUL byte is an error at once.
///
/// An input of unknown size is read into pieces that double in size (to 64 MiB) and are joined
/// at the end, so that reading never copies a growing buffer (the allocator may keep each freed
/// copy: `/dev/zero` under a 100 MB limit took 246 MB that way).
pub fn read_bounded(
    reader: impl io::Read,
    limit: u64,
    expected: u64,
    contents: Contents,
    option: &str,
) -> io::Result<Vec<u8>> {
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
        if contents == Contents::Text
            && let Some(at) = piece.iter().position(|&byte| byte == 0)
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not text: a NUL byte at offset {}", total + at),
            ));
        }
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
        return Err(too_large(limit, option));
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

    const OPTION: &str = "--max-input-bytes";

    #[test]
    fn an_endless_input_stops_one_byte_past_the_limit() {
        let error = read_bounded(io::repeat(1), 100_000, 0, Contents::Binary, OPTION)
            .expect_err("endless input");
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("--max-input-bytes"), "{error}");
    }

    #[test]
    fn an_input_of_exactly_the_limit_is_read() {
        let longer = vec![b'x'; 200_001];
        assert!(read_bounded(&longer[..], 200_000, 0, Contents::Text, OPTION).is_err());
        let text = vec![b'x'; 200_000];
        let bytes =
            read_bounded(&text[..], 200_000, 0, Contents::Text, OPTION).expect("within the limit");
        assert_eq!(bytes, text);
    }

    #[test]
    fn a_text_stream_stops_at_its_first_nul_byte() {
        // An endless stream of zeros is refused after its first piece, whatever the limit.
        let error = read_bounded(io::repeat(0), u64::MAX, 0, Contents::Text, OPTION)
            .expect_err("zeros are no text");
        assert_eq!(error.to_string(), "not text: a NUL byte at offset 0");
        let mut bytes = vec![b'a'; 100_000];
        bytes[70_000] = 0;
        let error = read_bounded(&bytes[..], u64::MAX, 0, Contents::Text, OPTION)
            .expect_err("a NUL in the second piece");
        assert_eq!(error.to_string(), "not text: a NUL byte at offset 70000");
        // Binary contents may hold any byte.
        assert_eq!(
            read_bounded(&bytes[..], u64::MAX, 0, Contents::Binary, OPTION).expect("binary"),
            bytes
        );
    }
}
