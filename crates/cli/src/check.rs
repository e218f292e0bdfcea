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
/// bytes by two threads, each with its own handle: copying it from the page cache and faulting
/// in the buffer is a tenth of the time `check` takes on it, and half of that overlaps. Each
/// thread claims the next piece no one has read, so that a thread that starts late only reads
/// fewer. Anything else is read by `std::fs::read` (so is a file that changes size while read,
/// again).
fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Read as _, Seek as _, SeekFrom};
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
    // Reads the pieces no one has claimed yet through `file` (a handle of its own: the position
    // is the handle's).
    let read = |mut file: &std::fs::File| -> std::io::Result<()> {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(piece) = pieces.get(index) else {
                return Ok(());
            };
            let mut piece = piece
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?;
            file.seek(SeekFrom::Start((index * READ_PIECE) as u64))?;
            file.read_exact(&mut piece)?;
        }
    };
    let (one, two) = std::thread::scope(|scope| {
        // A second handle that cannot be opened leaves every piece to the first.
        let other = scope.spawn(|| std::fs::File::open(path).and_then(|other| read(&other)));
        let one = read(&file);
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
    use super::{READ_PIECE, read_file};

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
}
