//! `ptxsim check`: parse, check and report.

use crate::Color;
use anyhow::Context as _;
use codespan_reporting::diagnostic::{Diagnostic as Report, Label as ReportLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream, WriteColor};
use ptxsim_isa::Target;
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::diag::{LineIndex, decode_source};
use serde::Serialize;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

/// One diagnostic in the JSON output (lines and columns are 1-based; columns count characters).
#[derive(Debug, Serialize)]
struct JsonDiagnostic<'a> {
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

/// One line of JSON output.
#[derive(Debug, Serialize)]
struct JsonFile<'a> {
    file: String,
    diagnostics: Vec<JsonDiagnostic<'a>>,
}

/// Checks every file; returns exit status 1 if any file has errors. Unreadable files make the
/// whole run fail with status 2, after the readable files were reported.
pub(crate) fn run(
    files: &[PathBuf],
    json: bool,
    color: Color,
    target: Option<Target>,
) -> anyhow::Result<ExitCode> {
    let options = ptxsim_check::Options { target };
    let choice = match color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    };
    let stderr = StandardStream::stderr(choice);
    let mut any_errors = false;
    let mut io_errors = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in files {
        let awake = AwakeCores::for_file(path);
        let bytes = match read_file(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                io_errors.push(
                    anyhow::Error::new(error).context(format!("cannot read `{}`", path.display())),
                );
                continue;
            }
        };
        if u32::try_from(bytes.len()).is_err() {
            io_errors.push(anyhow::anyhow!("`{}` is larger than 4 GiB", path.display()));
            continue;
        }
        let (source, encoding) = decode_source(&bytes);
        // The checker starts its threads right away: the cores need to be awake only a little
        // longer.
        awake.release_soon();
        let mut diagnostics = ptxsim_check::check_source(&source, &options);
        if let Some(encoding) = encoding {
            diagnostics.insert(0, encoding);
        }
        any_errors |= diagnostics.iter().any(Diagnostic::is_error);
        let name = path.display().to_string();
        if json {
            let line = json_line(&name, &source, &diagnostics)?;
            writeln!(out, "{line}").context("cannot write to stdout")?;
        } else {
            write_text(&mut stderr.lock(), &name, &source, &diagnostics)?;
        }
    }
    if let Some(first) = io_errors.into_iter().next() {
        return Err(first);
    }
    Ok(if any_errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The contents of the file at `path`. A large regular file is read in pieces of [`READ_PIECE`]
/// bytes by two threads: copying it from the page cache and faulting in the buffer is a tenth of
/// the time `check` takes on it, and half of that overlaps. Each thread claims the next piece
/// no one has read, so that a thread that starts late only reads fewer. Anything else is read
/// as by `std::fs::read` (a file that changes size while read is read again that way).
fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt as _;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    const PARALLEL_READ: u64 = 4 << 20;
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    let Ok(length) = usize::try_from(metadata.len()) else {
        return std::fs::read(path);
    };
    if !metadata.is_file() || metadata.len() < PARALLEL_READ {
        return std::fs::read(path);
    }
    let mut bytes = vec![0u8; length];
    let pieces: Vec<Mutex<&mut [u8]>> = bytes.chunks_mut(READ_PIECE).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let read = || -> std::io::Result<()> {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(piece) = pieces.get(index) else {
                return Ok(());
            };
            let mut piece = piece
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?;
            file.read_exact_at(&mut piece, (index * READ_PIECE) as u64)?;
        }
    };
    let (one, two) = std::thread::scope(|scope| {
        let other = scope.spawn(read);
        let one = read();
        (one, other.join())
    });
    drop(pieces);
    match (one, two) {
        (Ok(()), Ok(Ok(()))) if file.metadata().is_ok_and(|now| now.len() == metadata.len()) => {
            Ok(bytes)
        }
        _ => std::fs::read(path),
    }
}

/// The size of the pieces [`read_file`] reads a large file in.
const READ_PIECE: usize = 1 << 20;

/// While a large file is read, and until the checker has started its threads: one thread per
/// other core that the checker will use, each yielding its core in a loop.
///
/// On virtual machines a core left idle can take milliseconds to run a thread started for it
/// (measured on a 2-core VM: about 1.9 ms in half of the starts, 0.05 ms when the other core is
/// running something), and meanwhile one core does the work of two. The file's second reader
/// starts right after these, the checker's threads a fraction of a millisecond after the file
/// is read; kept awake, the cores run them at once (`ptxsim check` on 8.5 MB: median 36.0 ->
/// 33.4 ms). A thread that only yields gives way to any other thread of its core, but not to
/// threads queued on another core, so the threads stop [`RELEASE_AFTER`] after
/// [`AwakeCores::release_soon`] (or when dropped, or after [`AWAKE_AT_MOST`]).
struct AwakeCores {
    /// Nanoseconds after `start` when the threads stop (`u64::MAX`: not yet set).
    stop_at: std::sync::Arc<std::sync::atomic::AtomicU64>,
    start: std::time::Instant,
}

/// How long [`AwakeCores`] keep the cores awake after [`AwakeCores::release_soon`].
const RELEASE_AFTER: std::time::Duration = std::time::Duration::from_millis(3);

/// The longest [`AwakeCores`] keep a core awake.
const AWAKE_AT_MOST: std::time::Duration = std::time::Duration::from_millis(100);

impl AwakeCores {
    /// Keeps awake the cores that checking the file at `path` will use, if it is large enough
    /// to be checked on several threads.
    fn for_file(path: &std::path::Path) -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        let start = std::time::Instant::now();
        let stop_at = std::sync::Arc::new(AtomicU64::new(u64::MAX));
        let length = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
        for _ in 0..AwakeCores::threads(length) {
            let stop_at = std::sync::Arc::clone(&stop_at);
            // Best effort: without the thread, the checker's threads may only start later.
            let _ = std::thread::Builder::new().spawn(move || {
                loop {
                    let now = start.elapsed();
                    let deadline = stop_at.load(Ordering::Relaxed);
                    if now >= AWAKE_AT_MOST || nanos(now) >= deadline {
                        return;
                    }
                    std::thread::yield_now();
                }
            });
        }
        AwakeCores { stop_at, start }
    }

    /// How many threads keep cores awake for a file of `length` bytes: one per thread the
    /// checker starts besides the calling one.
    fn threads(length: u64) -> usize {
        ptxsim_syntax::default_chunks(usize::try_from(length).unwrap_or(usize::MAX))
            .saturating_sub(1)
    }

    /// Lets the threads stop [`RELEASE_AFTER`] from now.
    fn release_soon(&self) {
        let deadline = nanos(self.start.elapsed() + RELEASE_AFTER);
        self.stop_at
            .fetch_min(deadline, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Drop for AwakeCores {
    fn drop(&mut self) {
        self.stop_at.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `duration` in nanoseconds, saturated.
fn nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// Parses the value of `--target`: an architecture name ptxas knows (`sm_90`, `sm_100a`,
/// `sm_120f`, `compute_90`). A bad value is a usage error (exit status 2).
pub(crate) fn parse_target(text: &str) -> Result<Target, String> {
    let target = Target::parse(text).map_err(|error| error.to_string())?;
    if target.min_ptx_version().is_none() {
        return Err(format!(
            "`{text}` is not an architecture ptxas 13.5 knows (e.g. sm_90, sm_100a, sm_120f)"
        ));
    }
    Ok(target)
}

/// The JSON object for one file, on one line.
pub(crate) fn json_line(
    file: &str,
    source: &str,
    diagnostics: &[Diagnostic],
) -> anyhow::Result<String> {
    // Lines are indexed only when there is something to locate (a large file takes
    // milliseconds).
    let index = LineIndex::new(if diagnostics.is_empty() { "" } else { source });
    let diagnostics = diagnostics
        .iter()
        .map(|diagnostic| {
            let (line, column) = index.line_column(source, diagnostic.span.range().start);
            let (end_line, end_column) = index.line_column(source, diagnostic.span.range().end);
            JsonDiagnostic {
                severity: diagnostic.severity.as_str(),
                code: diagnostic.code,
                message: &diagnostic.message,
                line,
                column,
                end_line,
                end_column,
            }
        })
        .collect();
    Ok(serde_json::to_string(&JsonFile {
        file: file.to_string(),
        diagnostics,
    })?)
}

/// rustc-style text (without colors) for every diagnostic of one file.
pub(crate) fn render_text(
    file: &str,
    source: &str,
    diagnostics: &[Diagnostic],
) -> anyhow::Result<String> {
    if diagnostics.is_empty() {
        // Nothing to show: skip indexing the lines of a possibly large file.
        return Ok(String::new());
    }
    let files = SimpleFile::new(file, source);
    let config = term::Config::default();
    let mut text = String::new();
    for diagnostic in diagnostics {
        let report = to_report(source, diagnostic);
        text.push_str(&term::emit_into_string(&config, &files, &report)?);
    }
    Ok(text)
}

/// Writes rustc-style text for every diagnostic of one file, with colors if `out` has them.
pub(crate) fn write_text(
    out: &mut impl WriteColor,
    file: &str,
    source: &str,
    diagnostics: &[Diagnostic],
) -> anyhow::Result<()> {
    if diagnostics.is_empty() {
        return Ok(());
    }
    let files = SimpleFile::new(file, source);
    let config = term::Config::default();
    for diagnostic in diagnostics {
        let report = to_report(source, diagnostic);
        term::emit_to_write_style(out, &config, &files, &report)?;
    }
    Ok(())
}

fn clamp(source: &str, span: ptxsim_syntax::Span) -> std::ops::Range<usize> {
    let range = span.range();
    let mut start = range.start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = range.end.clamp(start, source.len());
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

fn to_report(source: &str, diagnostic: &Diagnostic) -> Report<()> {
    let report = if diagnostic.is_error() {
        Report::error()
    } else {
        Report::warning()
    };
    let mut labels = vec![ReportLabel::primary((), clamp(source, diagnostic.span))];
    labels.extend(diagnostic.labels.iter().map(|label| {
        ReportLabel::secondary((), clamp(source, label.span)).with_message(label.message.clone())
    }));
    let mut notes = Vec::new();
    if let Some(help) = &diagnostic.help {
        notes.push(format!("help: {help}"));
    }
    if let Some(fix) = &diagnostic.fix {
        if fix.span.is_empty() {
            notes.push(format!("fix: insert `{}`", fix.replacement));
        } else {
            let old = source.get(clamp(source, fix.span)).unwrap_or("");
            if fix.replacement.is_empty() {
                notes.push(format!("fix: remove `{}`", old.trim_end()));
            } else {
                notes.push(format!("fix: replace `{old}` with `{}`", fix.replacement));
            }
        }
    }
    report
        .with_code(diagnostic.code)
        .with_message(diagnostic.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

#[cfg(test)]
mod tests {
    use super::{AwakeCores, READ_PIECE, read_file};

    #[test]
    fn a_large_file_read_in_pieces_is_the_file() {
        let dir = std::env::temp_dir().join(format!("ptxsim-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        // A whole number of pieces, a last piece of one byte, and a small file read at once.
        for size in [5 * READ_PIECE, 5 * READ_PIECE + 1, (4 << 20) + 12_345, 100] {
            let path = dir.join(format!("{size}.ptx"));
            let bytes: Vec<u8> = (0..size).map(|index| (index % 251) as u8).collect();
            std::fs::write(&path, &bytes).expect("temporary file");
            assert!(read_file(&path).expect("readable") == bytes, "{size} bytes");
        }
        assert!(read_file(&dir.join("missing.ptx")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Cores are kept awake only for files the checker reads on several threads (one per
    /// thread it starts), and keeping them awake for a missing file, then releasing them, does
    /// nothing.
    #[test]
    fn cores_are_kept_awake_only_for_large_files() {
        let threshold = ptxsim_syntax::PARALLEL_THRESHOLD as u64;
        assert_eq!(AwakeCores::threads(0), 0);
        assert_eq!(AwakeCores::threads(threshold - 1), 0);
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get().min(16));
        assert_eq!(AwakeCores::threads(threshold), cores - 1);
        assert_eq!(AwakeCores::threads(u64::MAX), cores - 1);
        let awake = AwakeCores::for_file(std::path::Path::new("/nonexistent/ptxsim.ptx"));
        awake.release_soon();
        drop(awake);
    }
}
