//! Diagnostics shared by every front-end layer (lexer, parser, checker).
//!
//! A [`Diagnostic`] always has a primary [`Span`], a stable [`code`](Diagnostic::code) (listed in
//! `docs/diagnostics.md`), a one-line message, optional secondary labels, and where possible a
//! `help` text and a machine-applicable [`Fix`].

use crate::span::Span;
use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The input is not valid PTX; ptxas would reject it.
    Error,
    /// The input is accepted but suspicious.
    Warning,
}

impl Severity {
    /// The lower-case name used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location attached to a diagnostic ("first declared here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The location.
    pub span: Span,
    /// What the location has to do with the diagnostic.
    pub message: String,
}

/// A machine-applicable suggestion: replace the text at `span` by `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The text to replace (empty for an insertion).
    pub span: Span,
    /// The new text.
    pub replacement: String,
}

/// One problem found in a PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code such as `P0004` (syntax) or `E0101` (names); see `docs/diagnostics.md`.
    pub code: &'static str,
    /// One-line description, starting in lower case, without a trailing period.
    pub message: String,
    /// The main location of the problem.
    pub span: Span,
    /// Related locations.
    pub labels: Vec<Label>,
    /// A hint for fixing the problem.
    pub help: Option<String>,
    /// A concrete edit that fixes the problem.
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// An error with `code` and `message` at `span`.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Self {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
            fix: None,
        }
    }

    /// A warning with `code` and `message` at `span`.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(code, message, span)
        }
    }

    /// Adds a secondary label.
    #[must_use]
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Sets the help text.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Sets the suggested fix.
    #[must_use]
    pub fn with_fix(mut self, span: Span, replacement: impl Into<String>) -> Self {
        self.fix = Some(Fix {
            span,
            replacement: replacement.into(),
        });
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

/// Maps byte offsets to 1-based line and column numbers (columns count characters).
///
/// Locating an offset takes time independent of the length of its line, so that locating one
/// diagnostic per token of a long line stays linear: a column is counted directly within
/// [`COLUMN_BLOCK`] bytes of its line's start, and otherwise from a count of the characters
/// before every multiple of [`COLUMN_BLOCK`] bytes, made once for the whole source on the first
/// such lookup.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// Entry `i`: how many characters start before byte `i * COLUMN_BLOCK`.
    block_chars: std::sync::OnceLock<Vec<usize>>,
}

/// See [`LineIndex`].
const COLUMN_BLOCK: usize = 4096;

/// How many bytes of `bytes` start a character (all but UTF-8 continuation bytes).
fn char_starts(bytes: &[u8]) -> usize {
    #[cfg(test)]
    tests::SCANNED.with(|scanned| scanned.set(scanned.get() + bytes.len()));
    bytes.iter().filter(|byte| (**byte & 0xC0) != 0x80).count()
}

impl LineIndex {
    /// Indexes the line starts of `source`.
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        Self {
            line_starts,
            block_chars: std::sync::OnceLock::new(),
        }
    }

    /// The 0-based index of the line that holds byte `offset` (a line's terminating `\n` belongs
    /// to it; offsets past the end belong to the last line).
    pub fn line(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// The byte range of the 0-based line `line` of `source` (the source this index was made
    /// from), its `\n` included; `None` past the last line.
    pub fn line_range(&self, source: &str, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.line_starts.get(line)?;
        let end = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(source.len());
        Some(start.min(end)..end)
    }

    /// The 1-based `(line, column)` of byte `offset` in `source`; the column counts characters.
    /// Offsets past the end or inside a character are clamped.
    pub fn line_column(&self, source: &str, offset: usize) -> (usize, usize) {
        let bytes = source.as_bytes();
        let offset = offset.min(bytes.len());
        let line = self.line(offset);
        let start = self.line_starts.get(line).copied().unwrap_or(0).min(offset);
        let column = if offset - start <= COLUMN_BLOCK {
            char_starts(&bytes[start..offset])
        } else {
            self.chars_before(bytes, offset) - self.chars_before(bytes, start)
        };
        (line + 1, column + 1)
    }

    /// How many characters start before byte `offset` of `bytes` (at most `bytes.len()`).
    fn chars_before(&self, bytes: &[u8], offset: usize) -> usize {
        let blocks = self.block_chars.get_or_init(|| {
            let mut before = 0;
            let mut blocks = vec![0];
            for block in bytes.chunks(COLUMN_BLOCK) {
                before += char_starts(block);
                blocks.push(before);
            }
            blocks
        });
        let block = offset / COLUMN_BLOCK;
        blocks[block] + char_starts(&bytes[block * COLUMN_BLOCK..offset])
    }
}

/// Decodes raw file contents as UTF-8. Invalid sequences are replaced by U+FFFD and reported
/// once, as a warning (code `P0010`), at the first invalid byte, so that parsing can still go on.
/// ptxas accepts such bytes inside comments; anywhere else the lexer reports the replacement
/// character as an unexpected character (`P0001`).
pub fn decode_source(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, Option<Diagnostic>) {
    let (text, diagnostic) = decode_utf8(bytes);
    (bare_carriage_returns_as_newlines(text), diagnostic)
}

/// A lone `\r` (old Mac line ends) becomes `\n`, so that lines are counted as the author sees
/// them; `\r\n` stays. Byte offsets do not change.
fn bare_carriage_returns_as_newlines(text: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    // The common case, no `\r` at all, is one memchr.
    if !bytes.contains(&b'\r')
        || !bytes
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
    {
        return text;
    }
    let mut owned = text.into_owned().into_bytes();
    for i in 0..owned.len() {
        if owned[i] == b'\r' && owned.get(i + 1) != Some(&b'\n') {
            owned[i] = b'\n';
        }
    }
    // Replacing one ASCII byte by another keeps the text valid UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(owned).unwrap_or_default())
}

fn decode_utf8(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, Option<Diagnostic>) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), None),
        Err(error) => {
            let at = error.valid_up_to();
            let len = error.error_len().unwrap_or(1);
            let diagnostic = Diagnostic::warning(
                "P0010",
                "the file is not valid UTF-8; invalid bytes were replaced by U+FFFD",
                Span::new(at, at + 3),
            )
            .with_help(format!(
                "PTX is ASCII text; byte offset {at} starts an invalid sequence of {len} byte(s)"
            ));
            (String::from_utf8_lossy(bytes), Some(diagnostic))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{COLUMN_BLOCK, LineIndex, decode_source};

    #[test]
    fn bare_carriage_returns_end_lines() {
        let (text, _) = decode_source(b".version 9.0\r.target sm_90\r\nret;\r");
        assert_eq!(text, ".version 9.0\n.target sm_90\r\nret;\n");
        let index = LineIndex::new(&text);
        assert_eq!(
            index.line_column(&text, text.find("ret").unwrap_or(0)),
            (3, 1)
        );
        let (text, _) = decode_source(b"a\r\nb");
        assert!(matches!(text, std::borrow::Cow::Borrowed(_)));
    }
    use std::cell::Cell;

    thread_local! {
        /// How many bytes [`super::char_starts`] has looked at on this thread.
        pub(super) static SCANNED: Cell<usize> = const { Cell::new(0) };
    }

    /// The bytes scanned to locate the start and end of every diagnostic of `source`.
    fn locating_work(source: &str) -> usize {
        let (_, diagnostics) = crate::parse(source);
        assert!(diagnostics.len() > 100, "{} diagnostics", diagnostics.len());
        let index = LineIndex::new(source);
        SCANNED.with(|scanned| scanned.set(0));
        for diagnostic in &diagnostics {
            index.line_column(source, diagnostic.span.start as usize);
            index.line_column(source, diagnostic.span.end as usize);
        }
        SCANNED.with(Cell::get)
    }

    /// Locating the diagnostics of deeply nested input (one error per `.entry k() {`, on one
    /// line or one per line) is linear work: twice the levels, at most 2.5 times the bytes
    /// scanned. Counting each column from its line's start, as before, made it quadratic on one
    /// line (4 times the bytes).
    #[test]
    fn locating_the_diagnostics_of_nested_input_is_linear() {
        for separator in ["", "\n"] {
            let nested = |levels: usize| format!(".entry k() {{{separator}").repeat(levels);
            let (single, double) = (locating_work(&nested(2_000)), locating_work(&nested(4_000)));
            assert!(
                double * 2 <= single * 5,
                "{separator:?}: {single} bytes for 2,000 levels, {double} for 4,000"
            );
        }
    }

    /// Lines hold their `\n`; offsets past the end are on the last line.
    #[test]
    fn lines_and_their_ranges() {
        let source = "ab\n\ncd";
        let index = LineIndex::new(source);
        let lines: Vec<usize> = (0..=source.len() + 1).map(|at| index.line(at)).collect();
        assert_eq!(lines, [0, 0, 0, 1, 2, 2, 2, 2]);
        assert_eq!(index.line_range(source, 0), Some(0..3));
        assert_eq!(index.line_range(source, 1), Some(3..4));
        assert_eq!(index.line_range(source, 2), Some(4..6));
        assert_eq!(index.line_range(source, 3), None);
        assert_eq!(LineIndex::new("").line_range("", 0), Some(0..0));
    }

    /// Columns counted from the block counts are those counted character by character, on
    /// short lines and on lines of many blocks, with multi-byte characters, at every offset
    /// (offsets inside a character and past the end included).
    #[test]
    fn columns_of_long_lines_are_counted_characters() {
        let long = "é€a𝔸 ".repeat(3 * COLUMN_BLOCK / 4);
        let source = format!("ab\n{long}\n\nx€{long}{long}y\nlast");
        let index = LineIndex::new(&source);
        let bytes = source.as_bytes();
        let (mut line, mut column) = (1, 1);
        for offset in 0..=bytes.len() + 2 {
            if offset > 0 && offset <= bytes.len() {
                match bytes[offset - 1] {
                    b'\n' => (line, column) = (line + 1, 1),
                    byte if (byte & 0xC0) != 0x80 => column += 1,
                    _ => {}
                }
            }
            assert_eq!(
                index.line_column(&source, offset),
                (line, column),
                "{offset}"
            );
        }
    }
}
