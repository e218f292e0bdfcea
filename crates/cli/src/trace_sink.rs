//! Where `ptxsim run`'s trace goes while the launch records it
//! (`ptxsim_exec::streamed::run_grid_streamed`): each record is filtered (`--trace-filter`) and
//! written to its files as it comes, and for `--expect` kept only as far as the comparison
//! needs, so that a traced run's memory does not grow with its trace.
//!
//! Files are written next to their path under a temporary name and renamed into place at the
//! end ([`TraceFile::commit`]), so that an earlier file stays whole until a new one replaces it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use std::borrow::Cow;

use ptxsim_trace::{End, Filter, Format, Header, IndexedTrace, Line, Records, Step};

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

    /// Writes the trace to `path` instead (beside the first path: the temporary file is there).
    pub(crate) fn set_path(&mut self, path: PathBuf) {
        self.path = path;
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

/// The run's trace as `--expect` compares it, collected while the run goes: the steps equal to
/// the stored trace's from the start are not kept (they read as the stored ones), the steps
/// from the first that differs on are kept up to a bound (one more than the stored trace has,
/// enough for the comparison's report), and the rest are only counted. So a run that matches a
/// long stored trace holds none of its own steps.
#[derive(Debug)]
pub(crate) struct Collected<'e> {
    /// The stored trace.
    expected: Option<&'e IndexedTrace<'e>>,
    /// The form the trace is compared (and blessed) in.
    pub(crate) format: Format,
    header: Header,
    /// How many steps from the start equal the stored trace's.
    same: usize,
    /// The steps after those, with their line numbers.
    rest: Vec<(usize, Step)>,
    /// How many steps at most `same` and `rest` cover.
    keep: usize,
    /// Steps counted but not kept.
    more_steps: u64,
    end: Option<(usize, End)>,
}

impl<'e> Collected<'e> {
    /// An empty trace of a launch with `header`, compared with `expected`.
    pub(crate) fn new(
        format: Format,
        header: Header,
        expected: Option<&'e IndexedTrace<'e>>,
    ) -> Self {
        Collected {
            expected,
            format,
            header,
            same: 0,
            rest: Vec::new(),
            // One step more than the stored trace has tells that this run goes on longer.
            keep: expected.map_or(0, |t| t.len().saturating_add(1)),
            more_steps: 0,
            end: None,
        }
    }

    /// Steps counted but not kept.
    pub(crate) fn more_steps(&self) -> u64 {
        self.more_steps
    }

    fn push(&mut self, step: Step) {
        // The line number the record has in the trace: the header is line 1.
        let number = usize::try_from(self.step_count())
            .unwrap_or(usize::MAX)
            .saturating_add(2);
        let position = self.same + self.rest.len();
        let equal = self.rest.is_empty()
            && self
                .expected
                .and_then(|expected| expected.step(position))
                .is_some_and(|(_, stored)| stored == step);
        if equal {
            self.same += 1;
        } else if position < self.keep {
            self.rest.push((number, step));
        } else {
            self.more_steps += 1;
        }
    }
}

impl Records for Collected<'_> {
    fn header(&self) -> &Header {
        &self.header
    }
    fn len(&self) -> usize {
        self.same + self.rest.len()
    }
    fn step_count(&self) -> u64 {
        (self.same + self.rest.len()) as u64 + self.more_steps
    }
    fn step(&self, index: usize) -> Option<(usize, Cow<'_, Step>)> {
        if index < self.same {
            // Equal to the stored step, and on the same line (both traces have one record a
            // line after the header).
            let (line, step) = self.expected?.step(index)?;
            return Some((line, Cow::Owned(step)));
        }
        let (line, step) = self.rest.get(index - self.same)?;
        Some((*line, Cow::Borrowed(step)))
    }
    fn end(&self) -> Option<&(usize, End)> {
        self.end.as_ref()
    }
}

/// Receives the lines of a launch's trace: filters them, writes them to the trace files and
/// collects the trace `--expect` compares.
pub(crate) struct TraceSink<'a> {
    /// The launch's header, with the filter.
    pub(crate) header: &'a Header,
    pub(crate) filter: &'a Filter,
    /// `--trace`'s file, and `--bless`'s.
    pub(crate) files: Vec<TraceFile>,
    /// The trace `--expect` compares.
    pub(crate) collected: Option<Collected<'a>>,
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
            match line {
                Line::Header(_) => {}
                Line::Step(step) => trace.push(step),
                Line::End(end) => {
                    let number = usize::try_from(trace.step_count())
                        .unwrap_or(usize::MAX)
                        .saturating_add(2);
                    trace.end = Some((number, end));
                }
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
