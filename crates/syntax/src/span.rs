//! Byte ranges into the source text.

use std::fmt;
use std::ops::Range;

/// A half-open byte range `start..end` into the source text of a module.
///
/// Offsets are stored as `u32` to keep the syntax tree small: sources are limited to 4 GiB
/// (larger offsets saturate).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// Creates the span `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        let clamp = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        Self {
            start: clamp(start),
            end: clamp(end),
        }
    }

    /// The empty span, used when spans are cleared for comparisons.
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start) as usize
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The span as a standard range.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Self {
        Span::new(range.start, range.end)
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A value together with the span of source text it came from.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where the value was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Pairs `value` with `span`.
    pub fn new(value: T, span: impl Into<Span>) -> Self {
        Self {
            value,
            span: span.into(),
        }
    }
}

/// The text of a name, opcode, modifier or other word in the syntax tree. Words of up to 24
/// bytes (nearly all PTX names) are stored inline, so building the tree allocates nothing for
/// them; it dereferences to `&str` like a `String`.
pub type Text = compact_str::CompactString;

/// `Text::from(word)`, faster for the short words of PTX: dispatching on the length first makes
/// it a constant in each arm, so the inline copy is a few moves of known size instead of a call
/// to `memcpy` whose byte-wise stores the following word-wise loads would wait for.
#[inline(always)]
pub fn text(word: &str) -> Text {
    macro_rules! by_length {
        ($($length:literal)*) => {
            match word.len() {
                $($length => Text::new(&word[..$length]),)*
                _ => Text::new(word),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
}

impl Spanned<Text> {
    /// The string value as `&str`.
    pub fn as_str(&self) -> &str {
        &self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}@{:?}", self.value, self.span)
    }
}

impl<T: fmt::Display> fmt::Display for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_the_word_at_every_length() {
        let mut words: Vec<String> = (0..=30).map(|length| "x".repeat(length)).collect();
        words.extend(
            [
                "%r1",
                ".u32",
                "ü",
                "%envreg31",
                "ñame_with_ünicode_bytes",
                "é".repeat(13).as_str(),
            ]
            .map(str::to_string),
        );
        words.push("%reserved_smem_offset_begin".to_string());
        for word in &words {
            assert_eq!(text(word).as_str(), word.as_str(), "{word:?}");
            assert_eq!(text(word).len(), word.len(), "{word:?}");
        }
    }
}
