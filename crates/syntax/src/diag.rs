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
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `source`.
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        Self { line_starts }
    }

    /// The 1-based `(line, column)` of byte `offset` in `source`; the column counts characters.
    /// Offsets past the end or inside a character are clamped.
    pub fn line_column(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(source.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let prefix = source.get(start..offset).map_or_else(
            || {
                source.as_bytes()[start..offset]
                    .iter()
                    .filter(|b| (**b & 0xC0) != 0x80)
                    .count()
            },
            |text| text.chars().count(),
        );
        (line + 1, prefix + 1)
    }
}

/// Decodes raw file contents as UTF-8. Invalid sequences are replaced by U+FFFD and reported
/// once, as a warning (code `P0010`), at the first invalid byte, so that parsing can still go on.
/// ptxas accepts such bytes inside comments; anywhere else the lexer reports the replacement
/// character as an unexpected character (`P0001`).
pub fn decode_source(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, Option<Diagnostic>) {
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
