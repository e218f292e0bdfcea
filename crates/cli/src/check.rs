//! `ptxsim check`: parse, check and report.

mod excerpt;

use crate::Color;
use anyhow::Context as _;
use codespan_reporting::diagnostic::{Diagnostic as Report, Label as ReportLabel};
use codespan_reporting::term;
use codespan_reporting::term::termcolor::{BufferedStandardStream, ColorChoice, WriteColor};
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
/// whole run fail with status 2, after the readable files were reported. Text output shows at
/// most `max_diagnostics` diagnostics per file (0: all); JSON output shows all.
pub(crate) fn run(
    files: &[PathBuf],
    json: bool,
    color: Color,
    target: Option<Target>,
    max_diagnostics: usize,
) -> anyhow::Result<ExitCode> {
    let options = ptxsim_check::Options { target };
    let choice = match color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    };
    // Buffered: codespan writes a diagnostic in many small pieces (one per character of the
    // source lines), each a system call on an unbuffered stderr.
    let mut stderr = BufferedStandardStream::stderr(choice);
    let shown = Shown {
        max: max_diagnostics,
        to_see_more: "use --max-diagnostics N to see more",
    };
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
            write_text(&mut stderr, &name, &source, &diagnostics, shown)?;
            stderr.flush().context("cannot write to stderr")?;
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
    if metadata.len() > crate::input::limit() {
        return Err(crate::input::too_large());
    }
    let Ok(length) = usize::try_from(metadata.len()) else {
        return crate::input::read_text(path);
    };
    if !metadata.is_file() {
        return crate::input::read_all_text(file);
    }
    if metadata.len() < PARALLEL_READ {
        return crate::input::read_text(path);
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
        _ => crate::input::read_text(path),
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

/// How many diagnostics of one file `check` prints as text by default (`--max-diagnostics`).
pub(crate) const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

/// How many diagnostics of a file the text output shows, and what its last line, when it
/// leaves some out, tells the user to do to see more.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shown {
    /// At most this many diagnostics per file; 0: all.
    pub(crate) max: usize,
    /// For example `use --max-diagnostics N to see more`.
    pub(crate) to_see_more: &'static str,
}

impl Shown {
    /// The default of `ptxsim run` and `ptxsim eval`, which have no `--max-diagnostics`.
    pub(crate) const DEFAULT: Self = Self {
        max: DEFAULT_MAX_DIAGNOSTICS,
        to_see_more: "use `ptxsim check --max-diagnostics N` to see more",
    };
}

/// rustc-style text (without colors) for the diagnostics of one file (at most `shown.max`).
pub(crate) fn render_text(
    file: &str,
    source: &str,
    diagnostics: &[Diagnostic],
    shown: Shown,
) -> anyhow::Result<String> {
    let mut text = term::termcolor::NoColor::new(Vec::new());
    write_text(&mut text, file, source, diagnostics, shown)?;
    // The renderer writes strings only; a lossy conversion never replaces anything.
    Ok(String::from_utf8_lossy(&text.into_inner()).into_owned())
}

/// Writes rustc-style text for the diagnostics of one file (at most `shown.max`, then one line
/// that says how many more there are), with colors if `out` has them. Each diagnostic shows
/// the lines it labels, a line of more than [`excerpt::MAX_WIDTH`] characters cut to windows
/// around the labels (see [`excerpt`]), so that the output is linear in the number of
/// diagnostics whatever the length of the lines.
pub(crate) fn write_text(
    out: &mut impl WriteColor,
    file: &str,
    source: &str,
    diagnostics: &[Diagnostic],
    shown: Shown,
) -> anyhow::Result<()> {
    if diagnostics.is_empty() {
        // Nothing to show: skip indexing the lines of a possibly large file.
        return Ok(());
    }
    let index = LineIndex::new(source);
    let config = term::Config::default();
    let count = match shown.max {
        0 => diagnostics.len(),
        max => max.min(diagnostics.len()),
    };
    let (printed, left_out) = diagnostics.split_at(count);
    for diagnostic in printed {
        let mut labels = vec![clamp(source, diagnostic.span)];
        labels.extend(
            diagnostic
                .labels
                .iter()
                .map(|label| clamp(source, label.span)),
        );
        let excerpt = excerpt::Excerpt::new(file, source, &index, &labels);
        let labels = labels
            .iter()
            .map(|range| excerpt.text_offset(range.start)..excerpt.text_offset(range.end));
        let report = to_report(source, diagnostic, labels);
        term::emit_to_write_style(out, &config, &excerpt, &report)?;
    }
    if !left_out.is_empty() {
        let errors = left_out.iter().filter(|d| d.is_error()).count();
        let kind = match (errors, left_out.len()) {
            (1, 1) => "error",
            (0, 1) => "warning",
            (errors, all) if errors == all => "errors",
            (0, _) => "warnings",
            _ => "diagnostics",
        };
        writeln!(
            out,
            "... and {} more {kind} ({})",
            left_out.len(),
            shown.to_see_more
        )?;
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

/// The codespan report of `diagnostic`, its primary label and then its secondary labels at
/// `labels` (byte ranges in the excerpt it is rendered from).
fn to_report(
    source: &str,
    diagnostic: &Diagnostic,
    mut labels: impl Iterator<Item = std::ops::Range<usize>>,
) -> Report<()> {
    let report = if diagnostic.is_error() {
        Report::error()
    } else {
        Report::warning()
    };
    let primary = labels.next().unwrap_or(0..0);
    let mut report_labels = vec![ReportLabel::primary((), primary)];
    report_labels.extend(diagnostic.labels.iter().zip(labels).map(|(label, range)| {
        ReportLabel::secondary((), range).with_message(label.message.clone())
    }));
    let mut notes = Vec::new();
    if let Some(help) = &diagnostic.help {
        notes.push(format!("help: {help}"));
    }
    if let Some(fix) = &diagnostic.fix {
        if fix.span.is_empty() {
            notes.push(format!("fix: insert `{}`", fix.replacement));
        } else {
            let old = excerpt::shorten(source.get(clamp(source, fix.span)).unwrap_or(""));
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
        .with_labels(report_labels)
        .with_notes(notes)
}

#[cfg(test)]
mod tests {
    use super::{READ_PIECE, Shown, clamp, read_file, render_text, to_report};
    use codespan_reporting::files::SimpleFile;
    use codespan_reporting::term;
    use ptxsim_syntax::{Diagnostic, Span};

    /// Everything shown.
    const ALL: Shown = Shown {
        max: 0,
        to_see_more: "",
    };

    /// The text of `diagnostic` as rendered before excerpts: codespan's whole lines.
    fn whole_lines(source: &str, diagnostic: &Diagnostic) -> String {
        let mut labels = vec![clamp(source, diagnostic.span)];
        labels.extend(
            diagnostic
                .labels
                .iter()
                .map(|label| clamp(source, label.span)),
        );
        let report = to_report(source, diagnostic, labels.into_iter());
        term::emit_into_string(
            &term::Config::default(),
            &SimpleFile::new("test.ptx", source),
            &report,
        )
        .expect("renders")
    }

    /// An error at `start..end` with a secondary label at `label` (if any) and a fix.
    fn diagnostic(start: usize, end: usize, label: Option<(usize, usize)>) -> Diagnostic {
        let mut diagnostic = Diagnostic::error("E0000", "message", Span::new(start, end))
            .with_fix(Span::new(start, end), "x");
        if let Some((start, end)) = label {
            diagnostic = diagnostic.with_label(Span::new(start, end), "label");
        }
        diagnostic
    }

    /// On lines of at most 200 characters, the excerpts are the whole lines: every label (one
    /// line or several, empty, past the end, inside a character), alone and with a secondary
    /// label, renders exactly as codespan renders it from the whole source.
    #[test]
    fn short_lines_render_as_whole_lines() {
        let source = "ab\n\n\tmov.u32 %r1, é€𝔸;\r\nline four\n5\n6\n7\n8\n9\n10\n11 last";
        let ends: Vec<usize> = (0..=source.len() + 1).collect();
        for &start in &ends {
            for &end in ends.iter().filter(|end| **end >= start).step_by(3) {
                for label in [
                    None,
                    Some((3, 7)),
                    Some((end, source.len())),
                    Some((0, start)),
                ] {
                    let diagnostic = diagnostic(start, end, label);
                    let text =
                        render_text("test.ptx", source, std::slice::from_ref(&diagnostic), ALL)
                            .expect("renders");
                    assert_eq!(
                        text,
                        whole_lines(source, &diagnostic),
                        "{start}..{end} {label:?}"
                    );
                }
            }
        }
    }

    /// On a line of thousands of characters (multi-byte ones among them), labels anywhere, one
    /// line or several, render without panicking, each shown line at most a few windows wide.
    #[test]
    fn long_lines_render_in_windows() {
        let long = "mov.u32 %r1, é€𝔸;\t".repeat(200);
        let source = format!("short\n{long}\n{long}\r\nend");
        let boundaries: Vec<usize> = (0..=source.len())
            .filter(|at| source.is_char_boundary(*at))
            .collect();
        let widest = |text: &str| text.lines().map(|line| line.chars().count()).max();
        for (step, &start) in boundaries.iter().enumerate().step_by(13) {
            for &end in boundaries[step..].iter().step_by(311) {
                for label in [None, Some((8, 12)), Some((end, source.len()))] {
                    let diagnostic = diagnostic(start, end, label);
                    let text =
                        render_text("test.ptx", &source, std::slice::from_ref(&diagnostic), ALL)
                            .expect("renders");
                    // Four windows of 121 characters, three ellipses, gutter, tabs as 4 spaces.
                    assert!(
                        widest(&text).is_some_and(|widest| widest <= 700),
                        "{start}..{end} {label:?}:\n{text}"
                    );
                }
            }
        }
        // An empty source, a span past its end.
        let text = render_text("test.ptx", "", &[diagnostic(3, 9, None)], ALL).expect("renders");
        assert!(text.starts_with("error[E0000]"), "{text}");
    }

    #[test]
    fn a_large_file_read_in_pieces_is_the_file() {
        let dir = tempfile::Builder::new()
            .prefix("ptxsim-read-")
            .tempdir()
            .expect("temporary directory");
        // A whole number of pieces, a last piece of one byte, and a small file read at once.
        for size in [5 * READ_PIECE, 5 * READ_PIECE + 1, (4 << 20) + 12_345, 100] {
            let path = dir.path().join(format!("{size}.ptx"));
            let bytes: Vec<u8> = (0..size).map(|index| (index % 251) as u8).collect();
            std::fs::write(&path, &bytes).expect("temporary file");
            assert!(read_file(&path).expect("readable") == bytes, "{size} bytes");
        }
        assert!(read_file(&dir.path().join("missing.ptx")).is_err());
    }
}
