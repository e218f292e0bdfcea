//! Where `ptxsim run`'s trace goes while the launch records it
//! (`ptxsim_exec::trace::run_grid_streamed`): each record is filtered (`--trace-filter`) and
//! written to its files as it comes, and for `--expect` kept only as far as the comparison
//! needs, so that a traced run's memory does not grow with its trace.
//!
//! Files are written next to their path under a temporary name and renamed into place at the
//! end ([`TraceFile::commit`]), so that an earlier file stays whole until a new one replaces it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use ptxsim_trace::{Filter, Format, Header, Line, Trace};

/// A trace file being written: to a temporary file beside `path`, renamed to `path` when done.
/// One dropped before [`TraceFile::commit`] (an error elsewhere ended the run) removes its
/// temporary file.
pub(crate) struct TraceFile {
    writer: std::io::BufWriter<std::fs::File>,
    temporary: PathBuf,
    path: PathBuf,
    format: Format,
    committed: bool,
}

impl TraceFile {
    /// Starts a trace in `format` to be written to `path` (nothing at `path` changes yet).
    pub(crate) fn create(path: &Path, format: Format) -> anyhow::Result<Self> {
        let temporary = temporary_path(path);
        let file = std::fs::File::create(&temporary)
            .with_context(|| format!("cannot create `{}`", temporary.display()))?;
        Ok(TraceFile {
            writer: std::io::BufWriter::new(file),
            temporary,
            path: path.to_path_buf(),
            format,
            committed: false,
        })
    }

    /// The path the trace is written to.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, line: &Line) -> anyhow::Result<()> {
        writeln!(self.writer, "{}", self.format.write(line))
            .with_context(|| format!("cannot write `{}`", self.temporary.display()))
    }

    /// Writes what is left and renames the file to its path.
    pub(crate) fn commit(mut self) -> anyhow::Result<()> {
        let result = self
            .writer
            .flush()
            .and_then(|()| std::fs::rename(&self.temporary, &self.path));
        // Renamed, there is no temporary file left to remove; not renamed, `drop` removes it.
        self.committed = result.is_ok();
        result.with_context(|| format!("cannot write `{}`", self.path.display()))
    }

    /// Removes the temporary file; `path` stays as it was.
    pub(crate) fn discard(self) {
        drop(self);
    }
}

impl Drop for TraceFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// `PATH.ptxsim-PID-N`: beside `path`, so that the rename stays on one file system, and
/// numbered, so that two files of one run (`--trace` and `--bless` of one path) never share it.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".ptxsim-{}-{number}", std::process::id()));
    PathBuf::from(temporary)
}

/// Receives the lines of a launch's trace: filters them, writes them to the trace files and
/// keeps the steps `--expect` compares.
pub(crate) struct TraceSink<'a> {
    /// The launch's header, with the filter.
    pub(crate) header: &'a Header,
    pub(crate) filter: &'a Filter,
    /// `--trace`'s file, and `--bless`'s.
    pub(crate) files: Vec<TraceFile>,
    /// The trace `--expect` compares: its steps up to `keep`, the rest counted.
    pub(crate) collected: Option<Trace>,
    /// How many steps `collected` keeps.
    pub(crate) keep: usize,
    /// The first write error; the run goes on without writing more.
    pub(crate) failure: Option<anyhow::Error>,
}

impl TraceSink<'_> {
    /// Takes one line of the trace.
    pub(crate) fn line(&mut self, line: Line) {
        if self.failure.is_some() {
            return;
        }
        let line = match line {
            // The header is the launch's, with the filter.
            Line::Header(_) => Line::Header(self.header.clone()),
            Line::Step(mut step) => {
                if !self.filter.keep(self.header, &mut step) {
                    return;
                }
                Line::Step(step)
            }
            Line::End(end) => Line::End(end),
        };
        for file in &mut self.files {
            if let Err(error) = file.write(&line) {
                self.failure = Some(error);
                return;
            }
        }
        if let Some(trace) = self.collected.as_mut() {
            // The line number the record would have in a file: the header is line 1.
            let number = usize::try_from(trace.step_count())
                .unwrap_or(usize::MAX)
                .saturating_add(2);
            match line {
                Line::Header(_) => {}
                Line::Step(step) if trace.steps.len() < self.keep => {
                    trace.steps.push((number, step));
                }
                Line::Step(_) => trace.more_steps += 1,
                Line::End(end) => trace.end = Some((number, end)),
            }
        }
    }

    /// Removes every file's temporary file.
    pub(crate) fn discard(&mut self) {
        for file in self.files.drain(..) {
            file.discard();
        }
    }
}
