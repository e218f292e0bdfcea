//! Writing results without panicking: `println!` panics when stdout is closed or full (`ptxsim
//! eval ... >/dev/full` exited 101 with "failed printing to stdout"). Results go through
//! [`stdout`], whose errors carry [`STDOUT`] as their context; `main` turns them into exit
//! status 2 with a one-line message, or, for a reader that went away (`ptxsim run ... | head`),
//! into exit status 2 without one, as Unix tools stop quietly on a closed pipe. Messages on
//! stderr go through `report!`, which drops what it cannot write.

use std::io::Write as _;

use anyhow::Context as _;

/// The context of every error writing to stdout.
pub(crate) const STDOUT: &str = "cannot write to stdout";

/// Writes `text` to stdout and flushes it.
pub(crate) fn stdout(text: &str) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context(STDOUT)
}

/// Writes `bytes` to stdout (nothing for none).
pub(crate) fn stdout_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context(STDOUT)
}

/// Whether `error` is a write to a pipe whose reader has gone (`EPIPE`): the reader wants no
/// more output, so there is nothing to report.
pub(crate) fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
