//! The token stream the parser reads, with a fast lane for simple statements.
//!
//! Most of a real module is instructions of one simple shape: an optional guard, an opcode,
//! dotted modifiers and operands made of registers, immediates, vectors and addresses. Running
//! each of their tokens through the generated LR driver costs far more than building the
//! [`Instruction`] directly, so [`TokenStream`] sits between the [`Lexer`] and the parser: at
//! the start of a statement inside a function body it tries a small hand-written parser on the
//! tokens up to the next `;`. If the statement has the simple shape and produces no diagnostic,
//! the stream hands the parser one token carrying the finished node ([`Token::Instruction`]; also
//! [`Token::Declaration`] for `.reg .b32 %r<9>;`-style declarations and [`Token::Label`] for
//! `name:`), which the grammar's `Statement` rules accept; otherwise it replays the raw tokens,
//! and the grammar parses them as usual.
//!
//! The grammar stays the one description of PTX structure: each fast-lane token stands for one
//! derivation of `Statement` that the grammar would build from the same raw tokens. Because the
//! grammar has no conflicts, a parse without syntax errors is therefore the parse the grammar
//! alone gives. After a syntax error, error recovery could resynchronise inside text the fast
//! lane folded into one token, so [`crate::parser`] parses such a module again without the fast
//! lane. `fast_lane_tests.rs` checks the equivalence on every sample and many mutations.
//!
//! The stream tracks just enough context (brace frames, function headers, statement starts) to
//! know where a statement can begin; where it is unsure it stays off, which is always safe.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{LexError, Lexer, Tok};
use crate::parser as b;
use crate::span::{self, Span, Spanned, Text};
use std::collections::VecDeque;
use std::fmt;

/// A token as the parser sees it: a lexer token, or an instruction built by the fast lane.
#[derive(Clone, Debug, PartialEq, Eq)]
// The instruction is carried unboxed: the parser's symbol type holds instructions anyway, and a
// box would cost an allocation and a free per instruction.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Token<'input> {
    /// A token of the lexer.
    Raw(Tok<'input>),
    /// A whole instruction statement (guard, opcode, modifiers, operands and `;`).
    Instruction(Instruction),
    /// A whole declaration statement without linkage or initializer, with its `;`.
    Declaration(VariableDeclaration),
    /// `name:` followed by neither a dotted word nor `.callprototype`.
    Label(Spanned<Text>),
    /// A `{` that opens no block of statements: a vector operand, an initializer list, a
    /// section's body. The grammar tells it from a block's `{` so that error recovery after a
    /// syntax error inside an instruction resumes at the instruction's `;`, never at a vector's
    /// `}`, which would end the function body (docs/divergences.md D57, closed).
    ListOpen,
    /// The `}` that closes a [`Token::ListOpen`].
    ListClose,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Raw(token) => token.fmt(f),
            Token::Instruction(instruction) => match &instruction.guard {
                Some(_) => f.write_str("@"),
                None => f.write_str(&instruction.opcode.value),
            },
            Token::Declaration(declaration) => write!(f, ".{}", declaration.space.value.as_str()),
            Token::Label(name) => f.write_str(&name.value),
            Token::ListOpen => f.write_str("{"),
            Token::ListClose => f.write_str("}"),
        }
    }
}

/// What an open bracket started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// A function body or a nested block: statements.
    Code,
    /// Any other `{`: a section, an initializer, a vector operand.
    OtherBrace,
    /// `(`.
    Paren,
    /// `[`.
    Bracket,
}

/// One raw token with its location.
type Triple<'input> = (usize, Tok<'input>, usize);

/// The token stream handed to the generated parser.
#[derive(Debug)]
pub(crate) struct TokenStream<'input> {
    lexer: Lexer<'input>,
    /// Tokens read from the lexer but not yet handed on.
    pending: VecDeque<Triple<'input>>,
    /// Whether the fast lane is tried at all (off only in the equivalence test).
    enabled: bool,
    /// Set after a bracket mismatch: the context is unknown from then on.
    lost: bool,
    frames: Vec<Frame>,
    /// At depth 0, after `.entry` / `.func` and only header tokens since.
    function_header: bool,
    /// In a `.func` header at depth 0: `Some(None)` before its name, `Some(Some(end))` after
    /// it, with the end of its last token. See [`TokenStream::unterminated_declaration`].
    func_header: Option<Option<usize>>,
    /// In a code frame, at the start of a statement.
    statement_start: bool,
    /// The previous token was an identifier at the start of a statement (a label, if `:` follows).
    label: bool,
    /// Progress through `.loc file line column` at the start of a statement: 1 after `.loc`, up
    /// to 4 after the column.
    loc: u8,
    /// Progress through the attributes after `.loc file line column` (`, function_name name,
    /// inlined_at 1 2 3`): 1 after a `,`, 2 after an attribute's name, 3 and 4 after the first
    /// and second number of a position, 5 after a whole attribute. See [`Self::opens_block`].
    loc_attribute: u8,
    /// In a function header at depth 0, after `.pragma` (and its string): its `;` keeps the
    /// header going (`.entry k .pragma "nounroll"; { ... }`).
    header_pragma: bool,
    /// The `}` being handed on is a stray one inside a statement ([`Self::stray_close`]).
    stray: bool,
    /// With the fast lane off: where each statement of a code frame starts and where each
    /// block brace is, in order ([`TokenStream::take_boundaries`]).
    boundaries: Vec<usize>,
    /// Scratch space for an instruction's modifiers and operands, so that the vectors in the tree
    /// are allocated once, at their final size.
    modifiers: Vec<Spanned<Text>>,
    operands: Vec<Operand>,
    /// Where the fast lane puts the statement it builds.
    statement: Vec<Statement>,
}

impl<'input> TokenStream<'input> {
    /// A stream over `lexer`; `enabled` turns the fast lane on.
    pub(crate) fn new(lexer: Lexer<'input>, enabled: bool) -> Self {
        Self {
            lexer,
            pending: VecDeque::new(),
            enabled,
            lost: false,
            frames: Vec::new(),
            function_header: false,
            func_header: None,
            statement_start: false,
            label: false,
            loc: 0,
            loc_attribute: 0,
            header_pragma: false,
            stray: false,
            boundaries: Vec::new(),
            modifiers: Vec::new(),
            operands: Vec::new(),
            statement: Vec::with_capacity(1),
        }
    }

    /// The lexer's diagnostics.
    pub(crate) fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        self.lexer.take_diagnostics()
    }

    /// With the fast lane off, the offsets where the statements of code frames start and where
    /// block braces (not a vector's) are, in source order: what error recovery needs to tell
    /// a statement from the rest of a broken one (`crate::parser`).
    pub(crate) fn take_boundaries(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.boundaries)
    }

    /// In a code frame, between two statements: where a block may open or close (after a `;`,
    /// a label, a block, or a whole `.loc` line).
    fn between_statements(&self) -> bool {
        self.statement_start || self.loc == 4 || self.loc_attribute == 5
    }

    /// Whether a `{` handed on now opens a block of statements (a function body, a nested
    /// block) rather than a vector, an initializer or a section.
    fn opens_block(&self) -> bool {
        match self.frames.last() {
            None => self.function_header,
            Some(Frame::Code) => self.between_statements(),
            // `.entry k( {`: the header's `(` was never closed; the body starts here.
            Some(Frame::Paren) => self.function_header && self.frames.len() == 1,
            Some(_) => false,
        }
    }

    /// The token the parser gets for the raw `token` handed on now: braces that open or close
    /// no block become [`Token::ListOpen`] / [`Token::ListClose`]; so does a stray `}` inside
    /// a statement ([`Self::stray_close`]). `end` is where `token` ends. Call before
    /// [`Self::observe`].
    fn classify(&mut self, token: Tok<'input>, end: usize) -> Token<'input> {
        self.stray = false;
        match token {
            Tok::LBrace if !self.opens_block() => Token::ListOpen,
            Tok::RBrace => match self.frames.last().copied() {
                Some(Frame::OtherBrace) => Token::ListClose,
                Some(Frame::Code) if !self.between_statements() && self.stray_close(end) => {
                    self.stray = true;
                    Token::ListClose
                }
                _ => Token::Raw(token),
            },
            _ => Token::Raw(token),
        }
    }

    /// Whether a `}` (ending at `end`) met inside a statement of a code frame is a stray one
    /// (`mov.b64 d, {a, b}};`) rather than the end of the block after a statement that lacks
    /// its `;` (`ret }`, `{ add.u32 a, b, c }`): stray if a `;` follows on the same line before
    /// any token that could follow the end of a block (a brace, a directive that only starts a
    /// module-scope item), within [`STRAY_LOOKAHEAD`] tokens. A stray `}` is an error of its
    /// own statement, and the block it would have closed goes on.
    fn stray_close(&mut self, end: usize) -> bool {
        let source = self.lexer.source();
        for index in 0..STRAY_LOOKAHEAD {
            let (start, token) = match self.pending.get(index) {
                Some(&(start, token, _)) => (start, token),
                None => match self.lexer.next() {
                    Some(Ok(triple)) => {
                        self.pending.push_back(triple);
                        (triple.0, triple.1)
                    }
                    Some(Err(LexError::Never)) | None => return false,
                },
            };
            if source
                .get(end..start)
                .is_none_or(|between| between.contains('\n'))
            {
                return false;
            }
            match token {
                Tok::Semicolon => return true,
                Tok::LBrace
                | Tok::RBrace
                | Tok::Visible
                | Tok::Entry
                | Tok::Func
                | Tok::Extern
                | Tok::Version
                | Tok::Target
                | Tok::AddressSize
                | Tok::File
                | Tok::Section => return false,
                _ => {}
            }
        }
        false
    }

    /// Updates the context after `token` is handed to the parser.
    fn observe(&mut self, token: Tok<'input>) {
        let code = self.opens_block();
        let between = self.between_statements();
        let was_label = self.label;
        let loc = self.loc;
        let loc_attribute = self.loc_attribute;
        let header_pragma = self.header_pragma;
        self.statement_start = false;
        self.label = false;
        self.loc = 0;
        self.loc_attribute = 0;
        self.header_pragma = false;
        let top = self.frames.last().copied();
        match token {
            Tok::LBrace => {
                if code {
                    self.frames.retain(|&frame| frame == Frame::Code);
                }
                self.function_header = false;
                self.frames
                    .push(if code { Frame::Code } else { Frame::OtherBrace });
                self.statement_start = code;
            }
            Tok::LParen => self.frames.push(Frame::Paren),
            Tok::LBracket => self.frames.push(Frame::Bracket),
            // A stray `}` closes nothing; a stray `)` or `]` does not close a code frame either.
            Tok::RBrace if self.stray => {}
            Tok::RParen | Tok::RBracket if top == Some(Frame::Code) => self.lost = true,
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                let popped = self.frames.pop();
                let matches = matches!(
                    (token, popped),
                    (Tok::RBrace, Some(Frame::Code | Frame::OtherBrace))
                        | (Tok::RParen, Some(Frame::Paren))
                        | (Tok::RBracket, Some(Frame::Bracket))
                );
                if !matches {
                    self.lost = true;
                }
                if self.frames.is_empty() {
                    // `)` of a function header keeps the header going; anything else ends it.
                    self.function_header &= token == Tok::RParen;
                }
                self.statement_start =
                    popped == Some(Frame::Code) && self.frames.last() == Some(&Frame::Code);
            }
            _ if top.is_none() => {
                self.function_header = match token {
                    Tok::Entry | Tok::Func => true,
                    // A lexical error (a bracket nested too deep) leaves the header going: the
                    // parser reports it, and the body's `{` still opens a block.
                    Tok::Ident(_) | Tok::DotWord(_) | Tok::Int(_) | Tok::Comma | Tok::Error(_) => {
                        self.function_header
                    }
                    // A performance directive's `.pragma "...";` between header and body.
                    Tok::Pragma | Tok::Str(_) if self.function_header => {
                        self.header_pragma = true;
                        true
                    }
                    Tok::Semicolon => header_pragma,
                    _ => false,
                };
            }
            // A `;` ends the statement: vectors, lists and brackets left open in it are closed
            // (a syntax error of that statement, which the parser resumes after).
            Tok::Semicolon if top != Some(Frame::Code) && self.frames.contains(&Frame::Code) => {
                while self.frames.last() != Some(&Frame::Code) {
                    self.frames.pop();
                }
                self.lost = true;
                self.statement_start = true;
            }
            // `.entry` or `.func` where a statement goes: the function before lacks its `}`.
            // The parser resumes at module scope there, and so does the context.
            Tok::Entry | Tok::Func
                if (top == Some(Frame::Code) && between)
                    || (top.is_some() && !self.frames.contains(&Frame::Code)) =>
            {
                self.frames.clear();
                self.function_header = true;
            }
            _ if top == Some(Frame::Code) => match token {
                Tok::Semicolon => self.statement_start = true,
                Tok::Colon => self.statement_start = was_label,
                // A statement, label or `.loc` may follow a whole `.loc` line too.
                Tok::Ident(_) => {
                    self.label = between;
                    self.loc_attribute = match loc_attribute {
                        1 => 2,
                        2 => 5,
                        _ => 0,
                    };
                }
                Tok::Loc if between => self.loc = 1,
                Tok::Int(_) if (1..=3).contains(&loc) => self.loc = loc + 1,
                Tok::Int(_) if (2..=4).contains(&loc_attribute) => {
                    self.loc_attribute = loc_attribute + 1;
                }
                Tok::Comma if loc == 4 || loc_attribute == 5 => self.loc_attribute = 1,
                _ => {}
            },
            _ => {}
        }
    }

    /// Follows a `.func` header at depth 0 after `token` (ending at `end`) was handed on.
    fn follow_func_header(&mut self, token: Tok<'input>, end: usize) {
        if !self.function_header {
            self.func_header = None;
        } else if self.frames.is_empty() {
            self.func_header = match (token, self.func_header) {
                (Tok::Func, _) => Some(None),
                (Tok::Ident(_), Some(_)) | (_, Some(Some(_))) => Some(Some(end)),
                (_, header) => header,
            };
        }
    }

    /// Where to hand the parser a `;` that the source leaves out, before `next` (`None`: the
    /// end of the input): after a named `.func` header at depth 0 that is followed by a
    /// token that starts a module-scope item. nvopencc wrote the prototypes of PTX ISA 1.x-2.x
    /// modules that way (`.visible .func (.param .s32 r) f (.param .s32 a)` and then the next
    /// `.visible .func`), and ptxas 13.5 takes such a declaration at every `.version`; it
    /// refuses a `.entry` header without `;` or body ("Parsing error near '.entry'"), which
    /// gets no `;` here and stays a syntax error. The grammar cannot say this itself: its error
    /// recovery lets anything follow an item, so an optional `;` would conflict with a
    /// function's performance directives.
    /// Once it has answered, the header is over.
    fn unterminated_declaration(&mut self, next: Option<Tok<'input>>) -> Option<usize> {
        let Some(Some(end)) = self.func_header else {
            return None;
        };
        let starts_item = match next {
            None => true,
            Some(token) => matches!(
                token,
                Tok::Version
                    | Tok::Target
                    | Tok::AddressSize
                    | Tok::File
                    | Tok::Section
                    | Tok::Alias
                    | Tok::Entry
                    | Tok::Func
                    | Tok::Global
                    | Tok::Const
                    | Tok::Shared
                    | Tok::Local
                    | Tok::Visible
                    | Tok::Extern
                    | Tok::Weak
                    | Tok::Common
            ),
        };
        if !(starts_item && self.frames.is_empty()) {
            return None;
        }
        self.func_header = None;
        Some(end)
    }

    /// Whether the next token may start a simple instruction.
    fn at_statement_start(&self) -> bool {
        self.enabled
            && !self.lost
            && self.between_statements()
            && self.frames.last() == Some(&Frame::Code)
    }
}

impl<'input> Iterator for TokenStream<'input> {
    type Item = Result<(usize, Token<'input>, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at_statement_start() {
            self.modifiers.clear();
            self.operands.clear();
            let mut lane = Lane {
                tokens: Replay {
                    lexer: &mut self.lexer,
                    pending: &mut self.pending,
                    at: 0,
                    end: 0,
                },
                modifiers: &mut self.modifiers,
                operands: &mut self.operands,
            };
            let built = lane.statement(&mut self.statement);
            if let (Some(start), Some(statement)) = (built, self.statement.pop()) {
                let (consumed, end) = (lane.tokens.at, lane.tokens.end);
                self.pending.drain(..consumed);
                let token = match statement {
                    Statement::Instruction(instruction) => Token::Instruction(instruction),
                    Statement::Declaration(declaration) => Token::Declaration(declaration),
                    Statement::Label(label) => Token::Label(label),
                    // The lane builds no other statements.
                    _ => return None,
                };
                // After a statement's `;` or a label's `:`, the next statement starts.
                self.statement_start = true;
                self.label = false;
                self.loc = 0;
                return Some(Ok((start, token, end)));
            }
        }
        let (start, token, end) = match self.pending.pop_front() {
            Some(triple) => triple,
            None => match self.lexer.next() {
                Some(Ok(triple)) => triple,
                Some(Err(error)) => return Some(Err(error)),
                None => {
                    let at = self.unterminated_declaration(None)?;
                    self.observe(Tok::Semicolon);
                    return Some(Ok((at, Token::Raw(Tok::Semicolon), at)));
                }
            },
        };
        if let Some(at) = self.unterminated_declaration(Some(token)) {
            self.pending.push_front((start, token, end));
            self.observe(Tok::Semicolon);
            return Some(Ok((at, Token::Raw(Tok::Semicolon), at)));
        }
        let classified = self.classify(token, end);
        // A brace nested too deep arrives as an error token (`Lexer`'s nesting limit): a
        // boundary too.
        let too_deep = matches!(token, Tok::Error(text) if text.starts_with(['{', '}']));
        if !self.enabled
            && (matches!(classified, Token::Raw(Tok::LBrace | Tok::RBrace))
                || too_deep
                || (self.frames.last() == Some(&Frame::Code) && self.between_statements()))
        {
            self.boundaries.push(start);
        }
        self.observe(token);
        self.follow_func_header(token, end);
        Some(Ok((start, classified, end)))
    }
}

/// How far [`TokenStream::stray_close`] looks for the `;` of a statement with a stray `}`.
const STRAY_LOOKAHEAD: usize = 64;

/// The deepest nesting of vectors and address lists the fast lane handles itself.
const MAX_LANE_DEPTH: u32 = 8;

/// Where the fast lane reads its tokens.
pub(crate) trait Tokens<'input> {
    /// The next token, without consuming it.
    fn peek(&mut self) -> Option<Triple<'input>>;
    /// Marks the token [`Tokens::peek`] gave, which ends at `end`, as consumed.
    fn advance(&mut self, end: usize);
    /// The end of the last consumed token.
    fn end(&self) -> usize;

    /// Consumes the next token.
    #[inline]
    fn bump(&mut self) -> Option<Triple<'input>> {
        let triple = self.peek()?;
        self.advance(triple.2);
        Some(triple)
    }
}

/// The tokens of [`TokenStream`]: read from `pending` (from index `at`), pulling more from the
/// lexer as needed, so that they can be replayed to the parser if the lane gives up.
struct Replay<'a, 'input> {
    lexer: &'a mut Lexer<'input>,
    pending: &'a mut VecDeque<Triple<'input>>,
    /// Tokens of `pending` consumed so far.
    at: usize,
    /// The end of the last consumed token.
    end: usize,
}

impl<'input> Tokens<'input> for Replay<'_, 'input> {
    fn peek(&mut self) -> Option<Triple<'input>> {
        if let Some(triple) = self.pending.get(self.at) {
            return Some(*triple);
        }
        let triple = self.lexer.next()?.ok()?;
        self.pending.push_back(triple);
        Some(triple)
    }

    fn advance(&mut self, end: usize) {
        self.at += 1;
        self.end = end;
    }

    fn end(&self) -> usize {
        self.end
    }
}

/// Tokens straight from the lexer, with no way back (for [`crate::items`], which starts over
/// with the grammar when it gives up). The lexer fills a small buffer at a time
/// ([`Lexer::fill_fast`]), which keeps its state in registers across tokens; the tokens it read
/// ahead of an item the parser gives up on are dropped with this stream.
#[derive(Debug)]
pub(crate) struct Direct<'input> {
    pub(crate) lexer: Lexer<'input>,
    buffer: Vec<Triple<'input>>,
    /// The next token of `buffer`.
    at: usize,
    end: usize,
}

/// How many tokens [`Direct`] reads at a time.
const DIRECT_BUFFER: usize = 256;

impl<'input> Direct<'input> {
    pub(crate) fn new(lexer: Lexer<'input>) -> Self {
        Direct {
            lexer,
            buffer: Vec::with_capacity(DIRECT_BUFFER),
            at: 0,
            end: 0,
        }
    }
}

impl<'input> Tokens<'input> for Direct<'input> {
    #[inline]
    fn peek(&mut self) -> Option<Triple<'input>> {
        if self.at == self.buffer.len() {
            self.buffer.clear();
            self.at = 0;
            self.lexer.fill_fast(&mut self.buffer, DIRECT_BUFFER);
        }
        self.buffer.get(self.at).copied()
    }

    #[inline]
    fn advance(&mut self, end: usize) {
        self.at += 1;
        self.end = end;
    }

    fn end(&self) -> usize {
        self.end
    }
}

/// One attempt of the fast lane on `tokens`. Every method returns `None` when the text is not of
/// the simple shape or would produce a diagnostic.
pub(crate) struct Lane<'a, T> {
    pub(crate) tokens: T,
    pub(crate) modifiers: &'a mut Vec<Spanned<Text>>,
    pub(crate) operands: &'a mut Vec<Operand>,
}

impl<'input, T: Tokens<'input>> Lane<'_, T> {
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<Triple<'input>> {
        self.tokens.peek()
    }

    #[inline]
    pub(crate) fn peek_token(&mut self) -> Option<Tok<'input>> {
        self.peek().map(|(_, token, _)| token)
    }

    #[inline]
    pub(crate) fn bump(&mut self) -> Option<Triple<'input>> {
        self.tokens.bump()
    }

    /// The end of the last consumed token.
    #[inline]
    pub(crate) fn end(&self) -> usize {
        self.tokens.end()
    }

    /// Whether the next token is of the same kind as `kind` (compared by variant only, so
    /// meant for tokens without payload); `None` at the end of the input.
    #[inline]
    pub(crate) fn peek_is(&mut self, kind: Tok<'input>) -> Option<bool> {
        let (_, token, _) = self.peek()?;
        Some(same_kind(token, kind))
    }

    /// Consumes the next token if it is of the kind of `expected` (a token without payload).
    #[inline]
    pub(crate) fn expect(&mut self, expected: Tok<'input>) -> Option<Triple<'input>> {
        let triple = self.peek()?;
        if !same_kind(triple.1, expected) {
            return None;
        }
        self.tokens.advance(triple.2);
        Some(triple)
    }

    /// An integer literal decoded by `decode` (the grammar's action for `U32` or `U64`),
    /// without diagnostics.
    pub(crate) fn integer<U>(
        &mut self,
        decode: fn(&str, Span, &mut Vec<Diagnostic>) -> Spanned<U>,
    ) -> Option<Spanned<U>> {
        let (at, Tok::Int(text), end) = self.bump()? else {
            return None;
        };
        let mut diags = Vec::new();
        let value = decode(text, Span::new(at, end), &mut diags);
        diags.is_empty().then_some(value)
    }

    #[inline(always)]
    pub(crate) fn ident(&mut self) -> Option<Spanned<Text>> {
        match self.peek()? {
            (start, Tok::Ident(text), end) => {
                self.tokens.advance(end);
                Some(Spanned::new(span::text(text), start..end))
            }
            _ => None,
        }
    }

    /// A statement the fast lane handles: a label, a declaration or an instruction, pushed onto
    /// `out`. Returns the statement's start.
    ///
    /// The statement is built in the push rather than returned: a returned instruction, just
    /// written field by field, would be copied (twice) by wider loads that wait for those stores.
    pub(crate) fn statement(&mut self, out: &mut Vec<Statement>) -> Option<usize> {
        let (start, first, end) = self.peek()?;
        let (guard, opcode) = match first {
            Tok::Ident(name) => {
                self.tokens.advance(end);
                if self.peek_is(Tok::Colon)? {
                    self.bump();
                    // `name: .branchtargets ...` and `name: .callprototype ...` are other
                    // statements.
                    if matches!(self.peek_token()?, Tok::DotWord(_) | Tok::CallPrototype) {
                        return None;
                    }
                    out.push(Statement::Label(Spanned::new(span::text(name), start..end)));
                    return Some(start);
                }
                (None, Spanned::new(span::text(name), start..end))
            }
            Tok::At => {
                let guard = self.guard()?;
                (Some(guard), self.ident()?)
            }
            _ => {
                out.push(Statement::Declaration(self.declaration()?));
                return Some(start);
            }
        };
        let end = self.instruction_rest()?;
        let mut modifiers = take_exact(self.modifiers);
        crate::ignored::drop_ignored(opcode.value.as_str(), &mut modifiers);
        out.push(Statement::Instruction(Instruction {
            span: Span::new(start, end),
            guard,
            opcode,
            modifiers,
            operands: take_exact(self.operands),
        }));
        Some(start)
    }

    /// `.space qualifiers declarators ;` without linkage and initializers. The declaration's span
    /// ends before the `;`.
    fn declaration(&mut self) -> Option<VariableDeclaration> {
        let start = self.peek()?.0;
        let declaration = self.declaration_body(start, Vec::new(), false)?;
        self.expect(Tok::Semicolon)?;
        Some(declaration)
    }

    /// `.space qualifiers declarators` (just one declarator if `parameter`), without
    /// initializers, after `linkage`; the declaration starts at `start`.
    pub(crate) fn declaration_body(
        &mut self,
        start: usize,
        linkage: Vec<Spanned<Linkage>>,
        parameter: bool,
    ) -> Option<VariableDeclaration> {
        let (at, first, end) = self.bump()?;
        let space = match first {
            Tok::Reg => StateSpace::Reg,
            Tok::Param => StateSpace::Param,
            Tok::Global => StateSpace::Global,
            Tok::Const => StateSpace::Const,
            Tok::Shared => StateSpace::Shared,
            Tok::Local => StateSpace::Local,
            _ => return None,
        };
        let space = Spanned::new(space, at..end);
        let mut qualifiers = Vec::new();
        loop {
            let (at, token, end) = self.peek()?;
            let word = match token {
                Tok::Align => {
                    self.bump();
                    qualifiers.push(Qualifier::Align(self.integer(b::u64_literal)?));
                    continue;
                }
                Tok::DotWord(text) => &text[1..],
                Tok::Global => "global",
                Tok::Const => "const",
                Tok::Shared => "shared",
                Tok::Local => "local",
                _ => break,
            };
            self.bump();
            qualifiers.push(Qualifier::Word(Spanned::new(span::text(word), at..end)));
        }
        let mut declarators = vec![self.declarator()?];
        while !parameter && self.peek_is(Tok::Comma)? {
            self.bump();
            declarators.push(self.declarator()?);
        }
        Some(VariableDeclaration {
            span: Span::new(start, self.end()),
            linkage,
            space,
            qualifiers,
            declarators,
        })
    }

    /// `name`, `name<N>`, `name[N][]`, without an initializer.
    fn declarator(&mut self) -> Option<Declarator> {
        let name = self.ident()?;
        let start = name.span.range().start;
        let range = if self.peek_is(Tok::Less)? {
            self.bump();
            let count = self.integer(b::u32_literal)?;
            self.expect(Tok::Greater)?;
            Some(count)
        } else {
            None
        };
        let mut dimensions = Vec::new();
        while self.peek_is(Tok::LBracket)? {
            self.bump();
            if self.peek_is(Tok::RBracket)? {
                self.bump();
                dimensions.push(None);
            } else {
                dimensions.push(Some(self.integer(b::u64_literal)?));
                self.expect(Tok::RBracket)?;
            }
        }
        let initializer = if self.peek_is(Tok::Equals)? {
            self.bump();
            Some(Box::new(self.initializer(0)?))
        } else {
            None
        };
        Some(Declarator {
            span: Span::new(start, self.end()),
            name,
            range,
            dimensions,
            initializer,
        })
    }

    /// `Initializer`: a number, `name` or `generic(name)` with an optional `+offset`, a list in
    /// braces, or `key = value`.
    fn initializer(&mut self, depth: u32) -> Option<Initializer> {
        let (start, token, _) = self.peek()?;
        match token {
            Tok::LBrace if depth < MAX_LANE_DEPTH => {
                self.bump();
                let mut items = vec![self.initializer(depth + 1)?];
                while self.peek_is(Tok::Comma)? {
                    self.bump();
                    items.push(self.initializer(depth + 1)?);
                }
                self.expect(Tok::RBrace)?;
                Some(Initializer::List(Spanned::new(items, start..self.end())))
            }
            Tok::Ident(_) => {
                let name = self.ident()?;
                match self.peek_token()? {
                    Tok::Equals if depth < MAX_LANE_DEPTH => {
                        self.bump();
                        let value = self.initializer(depth + 1)?;
                        Some(Initializer::Property {
                            span: Span::new(start, self.end()),
                            key: name,
                            value: Box::new(value),
                        })
                    }
                    // Any other word before the parenthesis produces a diagnostic.
                    Tok::LParen if name.value == "generic" => {
                        self.bump();
                        let symbol = self.ident()?;
                        self.expect(Tok::RParen)?;
                        let offset = self.signed_offset()?;
                        Some(Initializer::Address {
                            span: Span::new(start, self.end()),
                            name: symbol,
                            generic: true,
                            offset,
                        })
                    }
                    Tok::Equals | Tok::LParen => None,
                    _ => {
                        let offset = self.signed_offset()?;
                        Some(Initializer::Address {
                            span: Span::new(start, self.end()),
                            name,
                            generic: false,
                            offset,
                        })
                    }
                }
            }
            _ => Some(Initializer::Immediate(self.immediate()?)),
        }
    }

    /// `SignedOffset?`: `+N` or `+-N`, if the next token is `+` (`Some(None)` if it is not);
    /// `None` where the grammar would report something (`-N`, a value out of range).
    pub(crate) fn signed_offset(&mut self) -> Option<Option<Spanned<i64>>> {
        let (plus, token, _) = self.peek()?;
        match token {
            Tok::Plus => {
                self.bump();
                let negative = self.peek_is(Tok::Minus)?;
                if negative {
                    self.bump();
                }
                let (_, Tok::Int(text), end) = self.bump()? else {
                    return None;
                };
                let mut diags = Vec::new();
                let offset = b::offset_literal(negative, text, Span::new(plus, end), &mut diags);
                diags.is_empty().then_some(Some(offset))
            }
            Tok::Minus => None,
            _ => Some(None),
        }
    }

    /// `@%p` or `@!%p`.
    fn guard(&mut self) -> Option<Box<Guard>> {
        let (start, _, _) = self.expect(Tok::At)?;
        let negated = self.peek_is(Tok::Bang)?;
        if negated {
            self.bump();
        }
        let predicate = self.ident()?;
        Some(Box::new(Guard {
            span: Span::new(start, self.end()),
            negated,
            predicate,
        }))
    }

    /// The rest of an instruction that starts at `start`, after its guard and opcode: its
    /// modifiers and operands, left in `self.modifiers` and `self.operands`, and the `;`.
    /// Returns where the instruction ends, before the `;` (an offset, which comes back in a
    /// register, where a span would be written to memory and read back).
    fn instruction_rest(&mut self) -> Option<usize> {
        // Left over from an attempt that gave up.
        self.modifiers.clear();
        self.operands.clear();
        loop {
            let (at, token, end) = self.peek()?;
            let text = match token {
                Tok::DotWord(text) => &text[1..],
                other => match keyword_modifier(other) {
                    Some(text) => text,
                    None => break,
                },
            };
            self.modifiers.push(Spanned::new(span::text(text), at..end));
            self.tokens.advance(end);
        }
        if !self.peek_is(Tok::Semicolon)? {
            loop {
                let operand = self.operand(0)?;
                self.operands.push(operand);
                if self.peek_is(Tok::Comma)? {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let end = self.end();
        self.expect(Tok::Semicolon)?;
        Some(end)
    }

    #[inline(always)]
    fn name_ref(&mut self) -> Option<NameRef> {
        let name = self.ident()?;
        let start = name.span.range().start;
        let component = match self.peek()? {
            (at, Tok::DotWord(text), end) => {
                let component = Component::from_name(&text[1..])?;
                self.bump();
                Some(Spanned::new(component, at..end))
            }
            _ => None,
        };
        Some(NameRef {
            span: Span::new(start, self.end()),
            name,
            component,
            selector: None,
        })
    }

    /// One operand. Inlined into its callers: names and immediates, most operands, are then
    /// built where they are stored instead of being moved through several stack frames (each
    /// move of a value just written costs a stall).
    #[inline(always)]
    fn operand(&mut self, depth: u32) -> Option<Operand> {
        let (start, token, _) = self.peek()?;
        match token {
            Tok::Ident(_) => {
                let first = self.name_ref()?;
                if self.peek_is(Tok::Pipe)? {
                    self.bump();
                    let second = self.name_ref()?;
                    Some(Operand::Pair(
                        Span::new(start, self.end()),
                        Box::new(b::name_operand(first)),
                        Box::new(b::name_operand(second)),
                    ))
                } else {
                    Some(b::name_operand(first))
                }
            }
            Tok::Bang => {
                self.bump();
                let name = self.name_ref()?;
                Some(Operand::Negated(
                    Span::new(start, self.end()),
                    Box::new(b::name_operand(name)),
                    Negation::Not,
                ))
            }
            Tok::Int(_) | Tok::FloatBits(_) | Tok::Decimal(_) | Tok::Minus => {
                Some(Operand::Immediate(self.immediate()?))
            }
            _ => self.group(start, token, depth),
        }
    }

    /// An operand in brackets, braces or parentheses (`token`, at `start`), or `None`.
    fn group(&mut self, start: usize, token: Tok<'input>, depth: u32) -> Option<Operand> {
        match token {
            Tok::LBrace if depth < MAX_LANE_DEPTH => {
                self.bump();
                let items = self.operand_list(depth + 1)?;
                // A vector inside a vector is a syntax error: left to the grammar.
                if items.iter().any(|item| match item {
                    Operand::Vector(_) => true,
                    Operand::Pair(_, first, _) => matches!(**first, Operand::Vector(_)),
                    _ => false,
                }) {
                    return None;
                }
                self.expect(Tok::RBrace)?;
                Some(Operand::Vector(Spanned::new(items, start..self.end())))
            }
            Tok::LBracket if depth < MAX_LANE_DEPTH => self.bracketed(start, depth),
            Tok::LParen if depth < MAX_LANE_DEPTH => {
                self.bump();
                let items = if self.peek_is(Tok::RParen)? {
                    Vec::new()
                } else {
                    self.operand_list(depth + 1)?
                };
                self.expect(Tok::RParen)?;
                Some(Operand::List(Spanned::new(items, start..self.end())))
            }
            _ => None,
        }
    }

    /// `Comma1<Operand>`.
    fn operand_list(&mut self, depth: u32) -> Option<Vec<Operand>> {
        let mut items = vec![self.operand(depth)?];
        while self.peek_is(Tok::Comma)? {
            self.bump();
            items.push(self.operand(depth)?);
        }
        Some(items)
    }

    /// `-`? literal, decoded without diagnostics.
    #[inline(always)]
    fn immediate(&mut self) -> Option<Spanned<Immediate>> {
        let (start, first, _) = self.peek()?;
        let negative = first == Tok::Minus;
        if negative {
            self.bump();
        }
        let (_, literal, end) = self.bump()?;
        if !matches!(literal, Tok::Int(_) | Tok::FloatBits(_) | Tok::Decimal(_)) {
            return None;
        }
        let mut diags = Vec::new();
        let immediate = b::immediate(negative, literal, Span::new(start, end), &mut diags);
        diags.is_empty().then_some(immediate)
    }

    /// `[base offset?]` or `[operand, operand, ...]`, after seeing `[` at `start`.
    fn bracketed(&mut self, start: usize, depth: u32) -> Option<Operand> {
        self.bump();
        let (at, token, end) = self.peek()?;
        let first = match token {
            Tok::Ident(_) => {
                let name = self.name_ref()?;
                match self.peek_token()? {
                    Tok::Plus | Tok::RBracket | Tok::Minus => {
                        return self.address(start, AddressBase::Name(name));
                    }
                    Tok::Pipe => {
                        self.bump();
                        let second = self.name_ref()?;
                        Operand::Pair(
                            Span::new(at, self.end()),
                            Box::new(b::name_operand(name)),
                            Box::new(b::name_operand(second)),
                        )
                    }
                    _ => b::name_operand(name),
                }
            }
            Tok::Int(text) => {
                self.bump();
                match self.peek_token()? {
                    Tok::Plus | Tok::RBracket | Tok::Minus => {
                        let mut diags = Vec::new();
                        let value = b::u64_literal(text, Span::new(at, end), &mut diags);
                        if !diags.is_empty() {
                            return None;
                        }
                        return self.address(start, AddressBase::Immediate(value));
                    }
                    _ => {
                        let mut diags = Vec::new();
                        let immediate = b::immediate(false, token, Span::new(at, end), &mut diags);
                        if !diags.is_empty() {
                            return None;
                        }
                        Operand::Immediate(immediate)
                    }
                }
            }
            _ => self.operand(depth + 1)?,
        };
        self.expect(Tok::Comma)?;
        let mut items = vec![first];
        items.append(&mut self.operand_list(depth + 1)?);
        self.expect(Tok::RBracket)?;
        Some(Operand::AddressList(Spanned::new(items, start..self.end())))
    }

    /// The rest of `[base offset?]`, after the base.
    fn address(&mut self, start: usize, base: AddressBase) -> Option<Operand> {
        // `[base-4]` produces a diagnostic: left to the grammar.
        let offset = self.signed_offset()?;
        self.expect(Tok::RBracket)?;
        Some(Operand::Address(Box::new(Address {
            span: Span::new(start, self.end()),
            base,
            offset,
            unified: false,
        })))
    }
}

/// Whether two tokens are of the same kind (compared by variant, not payload).
#[inline]
fn same_kind(a: Tok<'_>, b: Tok<'_>) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

/// Moves the contents of `scratch` into a new vector of exactly their size.
fn take_exact<T>(scratch: &mut Vec<T>) -> Vec<T> {
    let mut exact = Vec::with_capacity(scratch.len());
    exact.append(scratch);
    exact
}

/// The grammar's `KeywordModifier`: directive keywords that also occur as modifiers.
fn keyword_modifier(token: Tok<'_>) -> Option<&'static str> {
    Some(match token {
        Tok::Param => "param",
        Tok::Global => "global",
        Tok::Const => "const",
        Tok::Shared => "shared",
        Tok::Local => "local",
        Tok::Weak => "weak",
        Tok::Alias => "alias",
        Tok::Reg => "reg",
        Tok::Align => "align",
        Tok::Common => "common",
        Tok::Extern => "extern",
        Tok::Visible => "visible",
        Tok::Func => "func",
        Tok::Entry => "entry",
        Tok::File => "file",
        Tok::Section => "section",
        Tok::Target => "target",
        Tok::Version => "version",
        Tok::Loc => "loc",
        _ => return None,
    })
}
