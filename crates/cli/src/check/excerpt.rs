//! Source excerpts of bounded width for the text diagnostics.
//!
//! codespan-reporting prints every source line a diagnostic labels, whole. On a long line that
//! carries many diagnostics (deeply nested input written on one line, a minified module) the
//! output grows with the number of diagnostics times the length of the line: quadratic. An
//! [`Excerpt`] is the [`Files`] codespan renders one diagnostic from: the lines the diagnostic
//! shows, each line longer than [`MAX_WIDTH`] characters cut to windows of [`CONTEXT`]
//! characters around the label ends on it, with `…` where text was cut. The line and column
//! numbers it reports are those of the real source (from a [`LineIndex`] made once per file),
//! so a diagnostic costs time and output independent of the length of its lines. Lines of at
//! most [`MAX_WIDTH`] characters are the source's own text: they render exactly as from a
//! `SimpleFile`.

use codespan_reporting::files::{Error, Files};
use ptxsim_syntax::diag::LineIndex;
use std::collections::BTreeMap;
use std::ops::Range;

/// A line of at most this many characters is shown whole.
pub(super) const MAX_WIDTH: usize = 200;

/// How many characters a longer line keeps before and after each start and end of a label.
pub(super) const CONTEXT: usize = 60;

/// Cut text is replaced by this.
const ELLIPSIS: &str = "…";

/// Text between two windows, or between a window and the end of its line, that is at most this
/// many bytes long is kept rather than replaced by [`ELLIPSIS`].
const SMALL_GAP: usize = 8;

/// How many lines after the start of a multi-line label, and before its end, codespan shows
/// (`term::Config::default()`: `start_context_lines`, `end_context_lines`), each plus the one
/// line it shows to fill a gap of one line.
const START_CONTEXT_LINES: usize = 3 + 1;
const END_CONTEXT_LINES: usize = 1 + 1;

/// One real source line in an [`Excerpt`].
#[derive(Debug)]
struct ExcerptLine {
    /// The 0-based index of the line in the real source.
    line: usize,
    /// Where the line's (possibly cut) text lies in [`Excerpt::text`].
    text: Range<usize>,
    /// The pieces of the real line that are shown: where each starts in [`Excerpt::text`], and
    /// the real byte range it shows. In order; [`ELLIPSIS`] stands between pieces that are not
    /// adjacent.
    pieces: Vec<(usize, Range<usize>)>,
}

/// The source a diagnostic is rendered from: see the module documentation.
#[derive(Debug)]
pub(super) struct Excerpt<'s> {
    name: &'s str,
    source: &'s str,
    index: &'s LineIndex,
    /// The shown lines, one after another, each ending in its line terminator (the last line of
    /// a source without one excepted).
    text: String,
    /// By real line index.
    lines: Vec<ExcerptLine>,
}

impl<'s> Excerpt<'s> {
    /// The excerpt of `source` (named `name`, indexed by `index`) that shows the byte ranges
    /// `labels` (each on character boundaries).
    pub(super) fn new(
        name: &'s str,
        source: &'s str,
        index: &'s LineIndex,
        labels: &[Range<usize>],
    ) -> Self {
        // The lines to show, each with the offsets that must stay visible on it.
        let mut shown: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for label in labels {
            let (first, last) = (index.line(label.start), index.line(label.end));
            if first == last {
                shown
                    .entry(first)
                    .or_default()
                    .extend([label.start, label.end]);
            } else {
                shown.entry(first).or_default().push(label.start);
                shown.entry(last).or_default().push(label.end);
                let context = (first + 1..=last.min(first + START_CONTEXT_LINES))
                    .chain(last.saturating_sub(END_CONTEXT_LINES).max(first + 1)..last);
                for line in context {
                    shown.entry(line).or_default();
                }
            }
        }
        // codespan shows a line between two shown lines rather than a break.
        let gaps: Vec<usize> = shown
            .keys()
            .zip(shown.keys().skip(1))
            .filter(|(line, next)| **next == **line + 2)
            .map(|(line, _)| line + 1)
            .collect();
        for line in gaps {
            shown.entry(line).or_default();
        }
        let mut excerpt = Excerpt {
            name,
            source,
            index,
            text: String::new(),
            lines: Vec::with_capacity(shown.len()),
        };
        for (line, points) in shown {
            if let Some(range) = index.line_range(source, line) {
                excerpt.push_line(line, range, &points);
            }
        }
        excerpt
    }

    /// Appends real line `line` (byte range `range`, its terminator included), cut to windows
    /// around `points` if it is long.
    fn push_line(&mut self, line: usize, range: Range<usize>, points: &[usize]) {
        let source = self.source;
        let start = self.text.len();
        // Without its terminator, `\n` or `\r\n` (trimming every `\r` would scan a line of them).
        let text = &source[range.clone()];
        let text = text.strip_suffix('\n').unwrap_or(text);
        let content_end = range.start + text.strip_suffix('\r').unwrap_or(text).len();
        let windows = windows(source, range.start..content_end, points);
        let pieces = if windows.len() == 1 && windows[0] == (range.start..content_end) {
            // Short (or shown whole): the line as it is, terminator included.
            self.text.push_str(&source[range.clone()]);
            vec![(start, range)]
        } else {
            let mut pieces = Vec::with_capacity(windows.len());
            let mut previous_end = range.start;
            for window in windows {
                if window.start > previous_end {
                    self.text.push_str(ELLIPSIS);
                }
                previous_end = window.end;
                pieces.push((self.text.len(), window.clone()));
                self.text.push_str(&source[window]);
            }
            if previous_end < content_end {
                self.text.push_str(ELLIPSIS);
            }
            self.text.push('\n');
            pieces
        };
        self.lines.push(ExcerptLine {
            line,
            text: start..self.text.len(),
            pieces,
        });
    }

    /// Where real byte `offset` is shown in [`Self::text`]: in the piece of its line that holds
    /// it, else at the nearest piece boundary after it (or the end of the line's last piece).
    /// `offset`'s line must be one of the excerpt's (the end of the text otherwise).
    pub(super) fn text_offset(&self, offset: usize) -> usize {
        let line = self.index.line(offset);
        let Ok(at) = self.lines.binary_search_by_key(&line, |shown| shown.line) else {
            return self.text.len();
        };
        let shown = &self.lines[at];
        for (start, real) in &shown.pieces {
            if offset <= real.end {
                return start + offset.saturating_sub(real.start);
            }
        }
        shown
            .pieces
            .last()
            .map_or(shown.text.start, |(start, real)| start + real.len())
    }

    /// The real byte offset shown at byte `offset` of [`Self::text`] (an offset in an ellipsis:
    /// the end of the piece before it).
    fn real_offset(&self, offset: usize) -> usize {
        let at = self
            .lines
            .partition_point(|shown| shown.text.start <= offset)
            .saturating_sub(1);
        let Some(shown) = self.lines.get(at) else {
            return 0;
        };
        let at = shown
            .pieces
            .partition_point(|(start, _)| *start <= offset)
            .saturating_sub(1);
        shown.pieces.get(at).map_or(0, |(start, real)| {
            real.start + offset.saturating_sub(*start).min(real.len())
        })
    }
}

/// The byte ranges of line `content` (its terminator excluded) to show so that every offset
/// of `points` is visible with [`CONTEXT`] characters on either side: the whole line if it has
/// at most [`MAX_WIDTH`] characters, else merged windows, in order (a line without points shows
/// its start). Work and result are bounded by the number of points, not the line's length.
fn windows(source: &str, content: Range<usize>, points: &[usize]) -> Vec<Range<usize>> {
    let line = &source[content.clone()];
    if line.len() <= MAX_WIDTH || line.char_indices().nth(MAX_WIDTH).is_none() {
        return vec![content];
    }
    let mut wanted: Vec<Range<usize>> = if points.is_empty() {
        let start = content.start..forward(source, content.start, content.end, 2 * CONTEXT);
        vec![start]
    } else {
        points
            .iter()
            .map(|point| {
                let point = floor_boundary(source, (*point).clamp(content.start, content.end));
                back(source, content.start, point, CONTEXT)
                    ..forward(source, point, content.end, CONTEXT)
            })
            .collect()
    };
    wanted.sort_by_key(|window| (window.start, window.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(wanted.len());
    for window in wanted {
        match merged.last_mut() {
            Some(last) if window.start <= last.end + SMALL_GAP => {
                last.end = last.end.max(window.end)
            }
            _ => merged.push(window),
        }
    }
    if let Some(first) = merged.first_mut() {
        if first.start <= content.start + SMALL_GAP {
            first.start = content.start;
        }
    }
    if let Some(last) = merged.last_mut() {
        if last.end + SMALL_GAP >= content.end {
            last.end = content.end;
        }
    }
    merged
}

/// The largest character boundary of `source` at or before `offset`.
fn floor_boundary(source: &str, mut offset: usize) -> usize {
    offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The offset `count` characters before `offset` (a character boundary), but not before
/// `floor`.
fn back(source: &str, floor: usize, offset: usize, count: usize) -> usize {
    source[floor..offset]
        .char_indices()
        .rev()
        .take(count)
        .last()
        .map_or(offset, |(at, _)| floor + at)
}

/// The offset `count` characters after `offset` (a character boundary), but not after
/// `ceiling`.
fn forward(source: &str, offset: usize, ceiling: usize, count: usize) -> usize {
    source[offset..ceiling]
        .char_indices()
        .nth(count)
        .map_or(ceiling, |(at, _)| offset + at)
}

impl<'a, 's: 'a> Files<'a> for Excerpt<'s> {
    type FileId = ();
    type Name = &'s str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'s str, Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    /// The real index of the line shown at `byte_index` of the excerpt.
    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        let at = self
            .lines
            .partition_point(|shown| shown.text.start <= byte_index)
            .saturating_sub(1);
        Ok(self.lines.get(at).map_or(0, |shown| shown.line))
    }

    /// The real column of the character shown at `byte_index` of the excerpt.
    fn column_number(
        &'a self,
        (): (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        Ok(self
            .index
            .line_column(self.source, self.real_offset(byte_index))
            .1)
    }

    /// Where real line `line_index` is in the excerpt; a line of the source that the excerpt
    /// does not show (inside a multi-line label, never rendered) is empty.
    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        match self
            .lines
            .binary_search_by_key(&line_index, |shown| shown.line)
        {
            Ok(at) => Ok(self.lines[at].text.clone()),
            Err(_) if self.index.line_range(self.source, line_index).is_some() => {
                Ok(self.text.len()..self.text.len())
            }
            Err(_) => Err(Error::LineTooLarge {
                given: line_index,
                max: self.lines.last().map_or(0, |shown| shown.line),
            }),
        }
    }
}

/// `text` if it has at most [`MAX_WIDTH`] characters, else its first and last [`CONTEXT`]
/// characters around an ellipsis (for source text quoted in a note).
pub(super) fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_WIDTH || text.char_indices().nth(MAX_WIDTH).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let head = forward(text, 0, text.len(), CONTEXT);
    let tail = back(text, head, text.len(), CONTEXT);
    std::borrow::Cow::Owned(format!("{}{ELLIPSIS}{}", &text[..head], &text[tail..]))
}
