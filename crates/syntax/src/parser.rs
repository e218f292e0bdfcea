//! The entry point [`parse`] and the helpers the grammar's actions call to decode literals.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::fast_lane::{Token, TokenStream};
use crate::lexer::{LexError, Lexer, Tok};
use crate::span::{Span, Spanned, Text};
use lalrpop_util::ParseError;

#[allow(
    clippy::all,
    unused_qualifications,
    unused_parens,
    missing_debug_implementations,
    unreachable_pub,
    missing_docs,
    dead_code
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/ptx.rs"));
}

/// A module-level element as the parser reads it, before the header directives are folded into
/// [`Module`] (see [`fold`]).
#[derive(Debug)]
pub enum TopLevel {
    /// `.version major.minor`.
    Version(Version),
    /// `.target` and its list.
    Target(Spanned<Vec<Spanned<Text>>>),
    /// `.address_size` with its value and the span of the whole directive.
    AddressSize(Spanned<u32>, Span),
    /// Any other module-scope item.
    Item(Item),
}

/// Parses a complete PTX module.
///
/// Never fails and never panics: the returned module holds everything that could be parsed
/// (statements with syntax errors are dropped), and the diagnostics list every lexical and
/// syntax error, in source order.
///
/// A large module (see [`PARALLEL_THRESHOLD`]) is split between top-level functions and the
/// pieces are parsed on as many threads as the machine has cores; see [`parse_in_chunks`].
pub fn parse(source: &str) -> (Module, Vec<Diagnostic>) {
    parse_in_chunks(source, default_chunks(source.len()))
}

/// Modules smaller than this many bytes are parsed on one thread by [`parse`].
pub const PARALLEL_THRESHOLD: usize = 1 << 20;

/// How many threads [`parse`] (and the checker) use for a module of `len` bytes: one below
/// [`PARALLEL_THRESHOLD`], else the number of cores (at most 16).
pub fn default_chunks(len: usize) -> usize {
    if len < PARALLEL_THRESHOLD {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |cores| cores.get().min(16))
}

/// [`parse`], with the module split into at most `chunks` pieces parsed on their own threads.
///
/// The pieces end after a `}` alone on its line, which normally closes a function body at
/// module scope. Each piece is parsed as a sequence of top-level items (spans stay offsets into
/// all of `source`) and the items are put together in order. The grammar is unambiguous and a
/// module is a sequence of items, so when every piece parses without any diagnostic this is the
/// tree the sequential parse builds. If any piece reports anything (which includes every split
/// that does not fall between two items), the whole module is parsed again on one thread, so
/// the result is always exactly that of the sequential parse.
pub fn parse_in_chunks(source: &str, chunks: usize) -> (Module, Vec<Diagnostic>) {
    let bounds = chunk_bounds(source, chunks);
    if bounds.len() > 2 {
        let pieces: Vec<Option<Vec<TopLevel>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = bounds[1..]
                .windows(2)
                .map(|range| {
                    let (start, end) = (range[0], range[1]);
                    scope.spawn(move || crate::items::parse_piece(source, start, end))
                })
                .collect();
            let mut pieces = vec![crate::items::parse_piece(source, bounds[0], bounds[1])];
            pieces.extend(
                handles
                    .into_iter()
                    .map(|handle| handle.join().ok().flatten()),
            );
            pieces
        });
        if pieces.iter().all(Option::is_some) {
            let top_level: Vec<TopLevel> = pieces.into_iter().flatten().flatten().collect();
            return fold(source, top_level);
        }
    }
    parse_with(source, true)
}

/// Where to cut `source` into at most `chunks` pieces: `0`, the cut points, `source.len()`.
/// Each cut follows a line that is just `}` that ends an item ([`cut_after`]), the first such
/// line after an even share of the text.
pub(crate) fn chunk_bounds(source: &str, chunks: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    for piece in 1..chunks.max(1) {
        let target = (source.len() / chunks * piece).max(bounds[bounds.len() - 1]);
        let Some(cut) = cut_after(source, target) else {
            break;
        };
        if cut < source.len() {
            bounds.push(cut);
        }
    }
    bounds.push(source.len());
    bounds.dedup();
    bounds
}

/// The first place at or after byte `from` to cut `source` between two items: after a line
/// that is just `}` and before what can only start a module-scope item (`.visible`, `.entry`,
/// `.func`, `.global`, ...), with blank lines and `//` comments between; `None` if there is
/// none. A `}` alone on its line can also close a block inside a function (nvcc copies inline
/// assembly such as `{mul.f16x2 %r1,%r2,%r3;\n}` as written): a cut there would make both
/// pieces fail to parse, and the whole module would be parsed again on one thread.
fn cut_after(source: &str, from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        while at < source.len() && !source.is_char_boundary(at) {
            at += 1;
        }
        let cut = at + source.get(at..)?.find("\n}\n")? + 3;
        if item_follows(source.get(cut..)?) {
            return Some(cut);
        }
        // The `\n` that ends this line may start the next match.
        at = cut - 1;
    }
}

/// Whether `rest`, after blank lines and `//` comments, is empty or starts with a directive
/// that only begins a module-scope item.
fn item_follows(mut rest: &str) -> bool {
    const ITEM_STARTS: [&str; 12] = [
        ".visible",
        ".entry",
        ".func",
        ".weak",
        ".extern",
        ".common",
        ".global",
        ".file",
        ".section",
        ".version",
        ".target",
        ".address_size",
    ];
    loop {
        rest = rest.trim_start();
        match rest.strip_prefix("//") {
            Some(comment) => rest = comment.split_once('\n').map_or("", |(_, after)| after),
            None => break,
        }
    }
    rest.is_empty()
        || ITEM_STARTS.iter().any(|start| {
            rest.strip_prefix(start).is_some_and(|after| {
                !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            })
        })
}

/// Cuts `source` into pieces of about `size` bytes for [`parse_piece`]: returns `0`, the cut
/// points and `source.len()`. Each cut follows a line that is just `}` and comes before the
/// start of an item (see [`cut_after`]).
pub fn piece_bounds(source: &str, size: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut target = size.max(1);
    while let Some(cut) = cut_after(source, target) {
        if cut >= source.len() {
            break;
        }
        bounds.push(cut);
        target = cut + size.max(1);
    }
    bounds.push(source.len());
    bounds.dedup();
    bounds
}

/// Parses `source[start..end]` (a piece from [`piece_bounds`]) as a sequence of top-level
/// elements, with spans into all of `source`. Returns `None` if that reports any diagnostic
/// (then only the whole module parsed by [`parse`] says what is wrong).
///
/// When every piece of a module parses, the elements of the pieces in order are exactly those
/// [`parse`] folds into its module (the grammar is unambiguous and a module is a sequence of
/// elements), and [`fold`] gives its module and diagnostics.
pub fn parse_piece(source: &str, start: usize, end: usize) -> Option<Vec<TopLevel>> {
    crate::items::parse_piece(source, start, end)
}

/// Folds the elements of a module (from [`parse_piece`]) into a [`Module`]: the first
/// `.version`, `.target` and `.address_size`, and the items in order. Returns the diagnostics
/// about the header directives (missing, duplicate, misplaced, bad address size) in source
/// order, as [`parse`] reports them. They depend on the items only through their spans.
pub fn fold(source: &str, top_level: Vec<TopLevel>) -> (Module, Vec<Diagnostic>) {
    let mut all = Vec::new();
    let module = fold_module(source, top_level, &mut all);
    all.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    all.dedup_by(|a, b| a.span.start == b.span.start && a.code == b.code);
    (module, all)
}

/// Parses `source[start..end]` as a sequence of top-level items with the grammar; `None` if that
/// reports any diagnostic.
pub(crate) fn parse_chunk(source: &str, start: usize, end: usize) -> Option<Vec<TopLevel>> {
    let text = source.get(..end)?;
    let mut tokens = TokenStream::new(Lexer::starting_at(text, start), true);
    let mut diagnostics = Vec::new();
    let mut recovered = Vec::new();
    let top_level = generated::ModuleParser::new()
        .parse(&mut diagnostics, &mut recovered, &mut tokens)
        .ok()?;
    let clean =
        diagnostics.is_empty() && recovered.is_empty() && tokens.take_diagnostics().is_empty();
    clean.then_some(top_level)
}

/// [`parse`], with the fast lane for simple instructions (see [`crate::fast_lane`]) on or off.
/// The result is the same either way; turning it off is for the equivalence test.
pub(crate) fn parse_with(source: &str, fast_lane: bool) -> (Module, Vec<Diagnostic>) {
    let mut tokens = TokenStream::new(Lexer::new(source), fast_lane);
    let mut diagnostics = Vec::new();
    let mut recovered = Vec::new();
    let result =
        generated::ModuleParser::new().parse(&mut diagnostics, &mut recovered, &mut tokens);
    if fast_lane && (result.is_err() || !recovered.is_empty()) {
        // After a syntax error, error recovery may skip or regroup tokens in ways the fast lane
        // cannot foresee (it might have folded into one token text that recovery would have
        // resumed in). Parse such a module again with every token on its own. Without syntax
        // errors, the fast lane's tokens stand for derivations of `Statement` and the grammar
        // has no conflicts, so the tree is the one the grammar alone would build.
        return parse_with(source, false);
    }
    let mut syntax_errors: Vec<Diagnostic> = Vec::new();
    let boundaries = tokens.take_boundaries();
    let mut top_level = match result {
        Ok(top_level) => top_level,
        Err(error) => {
            syntax_errors.extend(error_diagnostic(source, error));
            Vec::new()
        }
    };
    let mut error_starts: Vec<usize> = recovered.iter().map(|r| error_start(&r.error)).collect();
    error_starts.sort_unstable();
    if !error_starts.is_empty() {
        drop_resumed(source, &mut top_level, &boundaries, &error_starts);
    }
    for recovery in recovered {
        syntax_errors.extend(error_diagnostic(source, recovery.error));
    }
    suppress_cascades(source, &boundaries, &mut syntax_errors);
    let mut all = tokens.take_diagnostics();
    all.append(&mut diagnostics);
    all.append(&mut syntax_errors);
    let module = fold_module(source, top_level, &mut all);
    all.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    all.dedup_by(|a, b| a.span.start == b.span.start && a.code == b.code);
    (module, all)
}

fn fold_module(source: &str, top_level: Vec<TopLevel>, diags: &mut Vec<Diagnostic>) -> Module {
    let mut module = Module {
        span: Span::new(0, source.len()),
        ..Module::default()
    };
    check_header_order(&top_level, diags);
    let mut first_version: Option<Span> = None;
    let mut first_target: Option<Span> = None;
    let mut first_address_size: Option<Span> = None;
    for element in top_level {
        match element {
            TopLevel::Version(version) => {
                if let Some(first) = first_version {
                    diags.push(duplicate_directive(".version", version.span, first));
                } else {
                    first_version = Some(version.span);
                    module.version = Some(version);
                }
            }
            TopLevel::Target(target) => {
                if let Some(first) = first_target {
                    diags.push(duplicate_directive(".target", target.span, first));
                } else {
                    first_target = Some(target.span);
                    module.target = Some(target);
                }
            }
            TopLevel::AddressSize(size, span) => {
                if let Some(first) = first_address_size {
                    diags.push(duplicate_directive(".address_size", span, first));
                } else {
                    if size.value != 32 && size.value != 64 {
                        diags.push(
                            Diagnostic::error(
                                "P0009",
                                format!("invalid address size {}", size.value),
                                size.span,
                            )
                            .with_help("`.address_size` must be 32 or 64"),
                        );
                    }
                    first_address_size = Some(span);
                    module.address_size = Some(size);
                }
            }
            TopLevel::Item(item) => module.items.push(item),
        }
    }
    module
}

/// Keeps only the first syntax error of each statement: after an error, the parser skips ahead,
/// and further errors before the next `;`, statement or block brace (`boundaries`, from
/// [`TokenStream::take_boundaries`]) are usually consequences of the first.
fn suppress_cascades(source: &str, boundaries: &[usize], errors: &mut Vec<Diagnostic>) {
    errors.sort_by_key(|diagnostic| diagnostic.span.start);
    let mut last_kept: Option<usize> = None;
    errors.retain(|diagnostic| {
        let start = diagnostic.span.range().start;
        let keep = match last_kept {
            None => true,
            Some(previous) => {
                source
                    .get(previous..start)
                    .is_none_or(|between| between.contains(';'))
                    || boundary_between(boundaries, previous, start)
            }
        };
        if keep {
            last_kept = Some(start);
        }
        keep
    });
}

/// Whether a boundary lies in `(after, at]`.
fn boundary_between(boundaries: &[usize], after: usize, at: usize) -> bool {
    let first = boundaries.partition_point(|&b| b <= after);
    boundaries.get(first).is_some_and(|&b| b <= at)
}

/// Where the token a syntax error is reported at starts.
fn error_start(error: &ParseError<usize, Token<'_>, LexError>) -> usize {
    match error {
        ParseError::InvalidToken { location } | ParseError::UnrecognizedEof { location, .. } => {
            *location
        }
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
        ParseError::User { .. } => usize::MAX,
    }
}

/// Drops the statements that error recovery built from the rest of a broken statement: after a
/// syntax error the parser resumes at the first token that can start a statement, which may
/// lie inside the broken one (`c` of `vset2.u32.s32.ne d, a, {2.hxy, 2.hxy}, c;`). A statement
/// that is no statement start or block brace of the token stream (`boundaries`, sorted) is
/// such a remnant if an error (`errors`, sorted) lies between the last boundary and it, or
/// at it on the broken statement's line (`%r3` of `mov.u32 %r1, %r2 %r3;`); on a later line it
/// is the next statement after a missing `;`. ptxas reports the line once (docs/divergences.md
/// D57).
fn drop_resumed(source: &str, top_level: &mut [TopLevel], boundaries: &[usize], errors: &[usize]) {
    let remnant = |start: usize| {
        if boundaries.binary_search(&start).is_ok() {
            return false;
        }
        let last = boundaries.partition_point(|&b| b < start);
        let from = if last == 0 { 0 } else { boundaries[last - 1] };
        let first_error = errors.partition_point(|&e| e < from);
        errors.get(first_error).is_some_and(|&e| {
            e < start
                || (e == start
                    && source
                        .get(from..start)
                        .is_some_and(|line| !line.contains('\n')))
        })
    };
    for element in top_level {
        if let TopLevel::Item(Item::Function(function)) = element
            && let Some(body) = &mut function.body
        {
            drop_in_block(body, &remnant);
        }
    }
}

fn drop_in_block(block: &mut Block, remnant: &impl Fn(usize) -> bool) {
    block.statements.retain_mut(|statement| {
        let start = match statement {
            Statement::Instruction(instruction) => instruction.span.start,
            Statement::Label(name) => name.span.start,
            Statement::Declaration(declaration) => declaration.span.start,
            Statement::Targets(targets) => targets.span.start,
            Statement::Prototype(prototype) => prototype.span.start,
            Statement::Block(inner) => {
                drop_in_block(inner, remnant);
                return true;
            }
            _ => return true,
        };
        !remnant(start as usize)
    });
}

impl TopLevel {
    /// The span of the element.
    pub fn span(&self) -> Span {
        match self {
            TopLevel::Version(version) => version.span,
            TopLevel::Target(target) => target.span,
            TopLevel::AddressSize(_, span) => *span,
            TopLevel::Item(item) => item.span(),
        }
    }

    fn header_name(&self) -> Option<&'static str> {
        match self {
            TopLevel::Version(_) => Some(".version"),
            TopLevel::Target(_) => Some(".target"),
            TopLevel::AddressSize(..) => Some(".address_size"),
            TopLevel::Item(_) => None,
        }
    }
}

/// ptxas wants `.version` first, `.target` second, and every header directive before the first
/// other item.
fn check_header_order(top_level: &[TopLevel], diags: &mut Vec<Diagnostic>) {
    match top_level.first() {
        Some(TopLevel::Version(_)) => match top_level.get(1) {
            Some(TopLevel::Target(_)) => {}
            other => {
                let span = other.map_or_else(|| top_level[0].span(), TopLevel::span);
                diags.push(
                    Diagnostic::error(
                        "P0016",
                        "missing `.target` directive after `.version`",
                        span,
                    )
                    .with_help(
                        "the second directive of a module is `.target`, e.g. `.target sm_90`",
                    ),
                );
            }
        },
        other => {
            let span = other.map_or(Span::new(0, 0), TopLevel::span);
            diags.push(
                Diagnostic::error(
                    "P0015",
                    "missing `.version` directive at the start of the module",
                    span,
                )
                .with_help("a module starts with `.version`, e.g. `.version 8.5`, then `.target`"),
            );
        }
    }
    let mut seen_item = false;
    for element in top_level {
        match element.header_name() {
            None => seen_item = true,
            Some(name) if seen_item => diags.push(
                Diagnostic::error(
                    "P0017",
                    format!("`{name}` must come before functions and variables"),
                    element.span(),
                )
                .with_help("move the directive to the start of the module"),
            ),
            Some(_) => {}
        }
    }
}

fn duplicate_directive(name: &str, span: Span, first: Span) -> Diagnostic {
    Diagnostic::error("P0008", format!("duplicate `{name}` directive"), span)
        .with_label(first, "first given here")
        .with_help(format!("a module has at most one `{name}` directive"))
}

/// Turns a LALRPOP error into a diagnostic; errors at [`Tok::Error`] tokens are dropped because
/// the lexer already reported them.
fn error_diagnostic(
    source: &str,
    error: ParseError<usize, Token<'_>, LexError>,
) -> Option<Diagnostic> {
    match error {
        ParseError::InvalidToken { location } => Some(Diagnostic::error(
            "P0004",
            "invalid token",
            Span::new(location, location + 1),
        )),
        ParseError::UnrecognizedEof {
            location,
            mut expected,
        } => {
            hide_fast_lane_terminal(&mut expected);
            let at = location.min(source.len());
            let mut diagnostic = Diagnostic::error(
                "P0005",
                format!("unexpected end of file{}", expected_suffix(&expected)),
                Span::new(at, at),
            );
            if expected.iter().any(|e| e == "\"}\"") {
                diagnostic = diagnostic.with_help("a `{` block is not closed");
            }
            Some(diagnostic)
        }
        ParseError::UnrecognizedToken {
            token: (start, token, end),
            mut expected,
        } => {
            hide_fast_lane_terminal(&mut expected);
            if matches!(token, Token::Raw(Tok::Error(_))) {
                return None;
            }
            let mut diagnostic = Diagnostic::error(
                "P0004",
                format!("unexpected `{token}`{}", expected_suffix(&expected)),
                Span::new(start, end),
            );
            if expected.len() <= 5 && expected.iter().any(|e| e == "\";\"") {
                let at = previous_token_end(source, start);
                // Point at where the `;` goes: the end of the previous statement, usually on
                // the line before the token that showed it missing.
                let last = source
                    .get(..at)
                    .and_then(|before| before.char_indices().next_back())
                    .map_or(at, |(index, _)| index);
                diagnostic = diagnostic
                    .with_label(Span::new(last, at), "`;` missing after this")
                    .with_help("statements and declarations end with `;`")
                    .with_fix(Span::new(at, at), ";");
            }
            Some(diagnostic)
        }
        ParseError::ExtraToken {
            token: (start, token, end),
        } => Some(Diagnostic::error(
            "P0004",
            format!("unexpected `{token}`"),
            Span::new(start, end),
        )),
        ParseError::User { error } => match error {
            LexError::Never => None,
        },
    }
}

/// Removes the fast lane's terminals from a list of expected terminals: each stands for a whole
/// statement, whose first token is listed as well.
fn hide_fast_lane_terminal(expected: &mut Vec<String>) {
    expected.retain(|name| {
        !matches!(
            name.as_str(),
            "\"instruction\"" | "\"declaration\"" | "\"label\""
        )
    });
    // After an operand name, `[` would only open an array index (`a[1]`, PTX ISA 6.4.2);
    // offering it where a `;` is missing hides the likelier fix.
    if expected.iter().any(|name| name == "\";\"") {
        expected.retain(|name| name != "\"[\"");
    }
}

/// The end of the last non-blank, non-comment text before `offset` (for "insert `;` here").
fn previous_token_end(source: &str, offset: usize) -> usize {
    let before = source.get(..offset).unwrap_or(source);
    let mut end = before.trim_end().len();
    // Skip a trailing line comment on the previous line.
    if let Some(line_start) = before[..end].rfind('\n').map(|at| at + 1)
        && let Some(comment) = before[line_start..end].find("//")
    {
        end = before[..line_start + comment].trim_end().len();
    }
    end
}

fn expected_suffix(expected: &[String]) -> String {
    let mut names: Vec<String> = Vec::with_capacity(expected.len());
    for name in expected.iter().map(|name| describe_terminal(name)) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    match names.len() {
        0 => String::new(),
        1 => format!(", expected {}", names[0]),
        2..=5 => format!(", expected one of {}", names.join(", ")),
        _ => String::new(),
    }
}

fn describe_terminal(name: &str) -> String {
    let bare = name.trim_matches('"');
    match bare {
        "ident" => "an identifier".to_string(),
        "dotword" => "a directive or modifier".to_string(),
        "int" => "an integer".to_string(),
        "floatbits" | "decimal" => "a number".to_string(),
        "string" => "a string".to_string(),
        // A vector's, initializer's or section's brace (`Token::ListOpen`, `Token::ListClose`).
        "list{" => "`{`".to_string(),
        "list}" => "`}`".to_string(),
        other => format!("`{other}`"),
    }
}

// ------------------------------------------------------------------ helpers for the grammar

/// Parses an integer literal's text: decimal, `0x` hex, `0b` binary, octal (leading `0`), with an
/// optional `U` suffix. Returns the magnitude, radix and suffix, or a message.
pub(crate) fn integer_value(text: &str) -> Result<(u64, Radix, bool), String> {
    // Most literals are short decimal numbers (offsets, counts, small constants): read them
    // directly (18 digits cannot overflow 64 bits; a leading 0 is octal).
    let bytes = text.as_bytes();
    if (1..=18).contains(&bytes.len())
        && (bytes.len() == 1 || bytes[0] != b'0')
        && bytes.iter().all(u8::is_ascii_digit)
    {
        let value = bytes
            .iter()
            .fold(0u64, |value, &digit| value * 10 + u64::from(digit - b'0'));
        return Ok((value, Radix::Decimal, false));
    }
    let (body, unsigned) = match text.strip_suffix('U') {
        Some(body) => (body, true),
        None => (text, false),
    };
    let (digits, radix, base) =
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (hex, Radix::Hexadecimal, 16)
        } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (bin, Radix::Binary, 2)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], Radix::Octal, 8)
        } else {
            (body, Radix::Decimal, 10)
        };
    match u64::from_str_radix(digits, base) {
        Ok(value) => Ok((value, radix, unsigned)),
        Err(error) => match error.kind() {
            std::num::IntErrorKind::PosOverflow => match wrapped_value(digits, base) {
                Some(value) => Ok((value, radix, unsigned)),
                None => Err(format!("integer literal `{text}` does not fit in 64 bits")),
            },
            _ => Err(format!(
                "invalid digit in {} literal `{text}`",
                radix_name(radix)
            )),
        },
    }
}

/// The value ptxas 13.5 gives an integer literal beyond 64 bits: it reads the digits into 64
/// bits, dropping what overflows, and reports "Constant overflow" only when the number read so
/// far has its top bit set before another digit is read (`18446744073709551616` is 0,
/// `0x1FFFFFFFFFFFFFFFF` is all ones and `bar.sync 18446744073709551631` is barrier 15, while
/// `99999999999999999999`, `0x80000000000000000` and a 65-digit binary `0b1000...0` overflow;
/// 92 literals of 17 to 24 digits in every radix probed). `None` for an overflow.
fn wrapped_value(digits: &str, base: u32) -> Option<u64> {
    let mut value = 0u64;
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && value >> 63 == 1 {
            return None;
        }
        value = value
            .wrapping_mul(u64::from(base))
            .wrapping_add(u64::from(digit.to_digit(base)?));
    }
    Some(value)
}

fn radix_name(radix: Radix) -> &'static str {
    match radix {
        Radix::Decimal => "decimal",
        Radix::Hexadecimal => "hexadecimal",
        Radix::Octal => "octal",
        Radix::Binary => "binary",
    }
}

fn bad_immediate(message: String, span: Span) -> Diagnostic {
    Diagnostic::error("P0006", message, span)
}

pub(crate) fn u64_literal(text: &str, span: Span, diags: &mut Vec<Diagnostic>) -> Spanned<u64> {
    match integer_value(text) {
        Ok((value, _, _)) => Spanned::new(value, span),
        Err(message) => {
            diags.push(bad_immediate(message, span));
            Spanned::new(0, span)
        }
    }
}

/// `.attribute(.managed)` or `.attribute(.unified(uuid1, uuid2))` among a variable's
/// qualifiers (PTX ISA 5.4.8: "`.attribute(attr-list)`", "`.managed`", "`.unified(uuid1,
/// uuid2)`"); another word before the parentheses or another attribute is P0009.
pub(crate) fn attribute(
    word: Spanned<Text>,
    name: Spanned<Text>,
    arguments: Option<Vec<Spanned<u64>>>,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> Qualifier {
    if word.value != "attribute" {
        diags.push(Diagnostic::error(
            "P0009",
            format!(
                "`.{}(...)`: only `.attribute(...)` takes parentheses here",
                word.value
            ),
            span,
        ));
    } else {
        let expected = match name.value.as_str() {
            "managed" => Some(0),
            "unified" => Some(2),
            _ => None,
        };
        match expected {
            None => diags.push(Diagnostic::error(
                "P0009",
                format!(
                    "unknown variable attribute `.{}` (PTX ISA 5.4.8: `.managed`, `.unified`)",
                    name.value
                ),
                name.span,
            )),
            Some(count) if arguments.as_ref().map_or(0, Vec::len) != count => {
                diags.push(Diagnostic::error(
                    "P0009",
                    format!(
                        "`.{}` takes {count} arguments (`.managed`, `.unified(uuid1, uuid2)`)",
                        name.value
                    ),
                    name.span,
                ));
            }
            Some(_) => {}
        }
    }
    Qualifier::Attribute(name)
}

pub(crate) fn u32_literal(text: &str, span: Span, diags: &mut Vec<Diagnostic>) -> Spanned<u32> {
    let wide = u64_literal(text, span, diags);
    match u32::try_from(wide.value) {
        Ok(value) => Spanned::new(value, span),
        Err(_) => {
            diags.push(bad_immediate(
                format!("`{text}` does not fit in 32 bits"),
                span,
            ));
            Spanned::new(0, span)
        }
    }
}

/// `name+a+b...` outside brackets: one [`NameOffset`] with the terms summed (wrapping, as
/// addresses do).
pub(crate) fn name_offset(name: NameRef, terms: Vec<Spanned<i64>>, span: Span) -> Operand {
    let value = terms
        .iter()
        .fold(0i64, |sum, term| sum.wrapping_add(term.value));
    let mut offset_span = span;
    if let (Some(first), Some(last)) = (terms.first(), terms.last()) {
        offset_span.start = first.span.start;
        offset_span.end = last.span.end;
    }
    Operand::NameOffset(Box::new(NameOffset {
        span,
        name,
        offset: Spanned::new(value, offset_span),
        indexed: false,
    }))
}

/// `name[N]` (PTX ISA 6.4.2): the address of element `N` of the array `name`.
pub(crate) fn name_index(name: NameRef, index: Spanned<u64>, span: Span) -> Operand {
    Operand::NameOffset(Box::new(NameOffset {
        span,
        name,
        offset: Spanned::new(i64::try_from(index.value).unwrap_or(i64::MAX), index.span),
        indexed: true,
    }))
}

pub(crate) fn offset_literal(
    negative: bool,
    text: &str,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> Spanned<i64> {
    let magnitude = u64_literal(text, span, diags).value;
    let value = if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    };
    match value {
        Some(value) => Spanned::new(value, span),
        None => {
            diags.push(bad_immediate(
                format!("offset `{text}` does not fit in 64 bits"),
                span,
            ));
            Spanned::new(0, span)
        }
    }
}

/// `[%rd1-4]`: ptxas only accepts `[%rd1+-4]`.
pub(crate) fn bare_minus_offset(text: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        "P0012",
        format!("negative offsets are written `+-{text}`"),
        span,
    )
    .with_help("ptxas rejects `-` between a base and its offset")
    .with_fix(Span::new(span.range().start, span.range().start + 1), "+-")
}

#[inline(always)]
pub(crate) fn immediate(
    negative: bool,
    token: Tok<'_>,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> Spanned<Immediate> {
    let value = match token {
        Tok::Int(text) => match integer_value(text) {
            Ok((value, radix, unsigned)) => ImmediateValue::Integer {
                value,
                radix,
                unsigned,
            },
            Err(message) => {
                diags.push(bad_immediate(message, span));
                ImmediateValue::Integer {
                    value: 0,
                    radix: Radix::Decimal,
                    unsigned: false,
                }
            }
        },
        Tok::FloatBits(text) => {
            let digits = &text[2..];
            let double = text
                .as_bytes()
                .get(1)
                .is_some_and(|b| b.eq_ignore_ascii_case(&b'd'));
            let expected = if double { 16 } else { 8 };
            if digits.len() != expected {
                diags.push(
                    Diagnostic::error(
                        "P0007",
                        format!("`{text}` needs exactly {expected} hexadecimal digits"),
                        span,
                    )
                    .with_help(if double {
                        "`0d` literals give the 64 bits of an f64, e.g. `0d3FF0000000000000` is 1.0"
                    } else {
                        "`0f` literals give the 32 bits of an f32, e.g. `0f3F800000` is 1.0"
                    }),
                );
            }
            let bits = u64::from_str_radix(digits, 16).unwrap_or(0);
            if double {
                ImmediateValue::F64Bits(bits)
            } else {
                ImmediateValue::F32Bits(u32::try_from(bits).unwrap_or(0))
            }
        }
        Tok::Decimal(text) => ImmediateValue::Decimal(text.to_string()),
        other => {
            diags.push(bad_immediate(format!("`{other}` is not a number"), span));
            ImmediateValue::Integer {
                value: 0,
                radix: Radix::Decimal,
                unsigned: false,
            }
        }
    };
    Spanned::new(Immediate { negative, value }, span)
}

pub(crate) fn version(text: &str, span: Span, diags: &mut Vec<Diagnostic>) -> TopLevel {
    let parsed = text
        .split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    let (major, minor) = parsed.unwrap_or_else(|| {
        diags.push(
            Diagnostic::error("P0009", format!("invalid PTX version `{text}`"), span)
                .with_help("write the version as `major.minor`, e.g. `.version 8.5`"),
        );
        (0, 0)
    });
    TopLevel::Version(Version { span, major, minor })
}

pub(crate) fn body_declaration(
    declaration: VariableDeclaration,
    diags: &mut Vec<Diagnostic>,
) -> Statement {
    if let Some(linkage) = declaration.linkage.first() {
        diags.push(
            Diagnostic::error(
                "P0018",
                format!(
                    "`.{}` is not allowed inside a function",
                    linkage.value.as_str()
                ),
                linkage.span,
            )
            .with_help("declare variables with linkage at module scope")
            .with_fix(
                Span::new(linkage.span.range().start, linkage.span.range().end + 1),
                "",
            ),
        );
    }
    Statement::Declaration(declaration)
}

pub(crate) fn module_variable(
    declaration: VariableDeclaration,
    diags: &mut Vec<Diagnostic>,
) -> Item {
    if matches!(declaration.space.value, StateSpace::Reg | StateSpace::Param) {
        diags.push(
            Diagnostic::error(
                "P0011",
                format!(
                    "`.{}` variables cannot be declared at module scope",
                    declaration.space.value.as_str()
                ),
                declaration.space.span,
            )
            .with_help("declare registers and parameters inside a function"),
        );
    }
    Item::Variable(declaration)
}

/// `.alias` inside a function body: reported as the grammar reports an unexpected token.
pub(crate) fn stray_alias(span: Span, diags: &mut Vec<Diagnostic>) -> Option<Statement> {
    diags.push(Diagnostic::error(
        "P0004",
        "unexpected `.alias`",
        Span::new(span.start as usize, span.start as usize + ".alias".len()),
    ));
    None
}

pub(crate) fn generic_initializer(
    keyword: Spanned<Text>,
    name: Spanned<Text>,
    offset: Option<Spanned<i64>>,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> Initializer {
    if keyword.value != "generic" {
        diags.push(
            Diagnostic::error(
                "P0009",
                format!("unknown initializer operator `{}`", keyword.value),
                keyword.span,
            )
            .with_help("only `generic(name)` is allowed here"),
        );
    }
    Initializer::Address {
        span,
        name,
        generic: true,
        offset,
    }
}

/// An attribute of `.loc` as parsed, before validation.
#[derive(Debug)]
pub(crate) enum LocAttribute {
    Name(Spanned<Text>, Spanned<Text>),
    Position(Spanned<Text>, Spanned<u32>, Spanned<u32>, Spanned<u32>),
}

pub(crate) fn loc(
    file: Spanned<u32>,
    line: Spanned<u32>,
    column: Spanned<u32>,
    attributes: Vec<LocAttribute>,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> Loc {
    let mut loc = Loc {
        span,
        file,
        line,
        column,
        function_name: None,
        inlined_at: None,
    };
    for attribute in attributes {
        match attribute {
            LocAttribute::Name(key, value) if key.value == "function_name" => {
                loc.function_name = Some(value)
            }
            LocAttribute::Position(key, file, line, column) if key.value == "inlined_at" => {
                loc.inlined_at = Some((file, line, column));
            }
            LocAttribute::Name(key, _) | LocAttribute::Position(key, ..) => diags.push(
                Diagnostic::error(
                    "P0009",
                    format!("unknown `.loc` attribute `{}`", key.value),
                    key.span,
                )
                .with_help(
                    "`.loc` accepts `function_name LABEL` and `inlined_at FILE LINE COLUMN`",
                ),
            ),
        }
    }
    loc
}

pub(crate) fn targets(targets: Targets, diags: &mut Vec<Diagnostic>) -> Targets {
    if !matches!(targets.kind.as_str(), "branchtargets" | "calltargets") {
        diags.push(
            Diagnostic::error(
                "P0009",
                format!("unknown directive `.{}` after a label", targets.kind.value),
                targets.kind.span,
            )
            .with_help(
                "a label can introduce `.branchtargets`, `.calltargets` or `.callprototype`",
            ),
        );
    }
    targets
}

pub(crate) fn name_ref(
    name: Spanned<Text>,
    component: Option<Spanned<Text>>,
    span: Span,
    diags: &mut Vec<Diagnostic>,
) -> NameRef {
    let mut selector = None;
    let component = component.and_then(|written| match Component::from_name(&written.value) {
        Some(component) => Some(Spanned::new(component, written.span)),
        None if VideoSelector::from_name(&written.value).is_some() => {
            selector = VideoSelector::from_name(&written.value)
                .map(|found| Spanned::new(found, written.span));
            None
        }
        None => {
            diags.push(
                Diagnostic::error(
                    "P0013",
                    format!("unknown vector component `.{}`", written.value),
                    written.span,
                )
                .with_help("components are `.x`, `.y`, `.z`, `.w` (or `.r`, `.g`, `.b`, `.a`)"),
            );
            None
        }
    });
    NameRef {
        span,
        name,
        component,
        selector,
    }
}

#[inline(always)]
pub(crate) fn name_operand(name: NameRef) -> Operand {
    if name.name.value == "_" && name.component.is_none() {
        Operand::Sink(name.span)
    } else if is_special_register(&name.name.value) {
        Operand::SpecialRegister(name)
    } else {
        Operand::Name(name)
    }
}
