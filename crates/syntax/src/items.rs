//! A hand-written parser for the common shapes of whole top-level items, used on the pieces of
//! a large module before the grammar.
//!
//! Most of a module is header directives, plain variable declarations and functions whose bodies
//! hold only what the fast lane ([`crate::fast_lane`]) builds: instructions, labels, plain
//! declarations and nested blocks. For such an item, running every statement through the
//! generated LR driver costs more than building the item directly, so [`parse_piece`] reads
//! items straight from the lexer. Each method follows one rule of `grammar/ptx.lalrpop` and
//! builds the node that rule's action builds; it gives up (`None`) on anything else, and on
//! anything that would produce a diagnostic. The item it gave up on, up to its end, is then
//! parsed by the grammar ([`crate::parser::parse_chunk`]), and the fast parser goes on after it.
//!
//! Each piece of text is thus covered by consecutive runs of items that parsed without any
//! diagnostic, each by the fast parser or the grammar. Since the grammar is unambiguous and a
//! module is a sequence of items, that is the parse the grammar gives the whole piece.

use crate::ast::*;
use crate::fast_lane::{Direct, Lane};
use crate::lexer::{Lexer, Tok};
use crate::parser::{self as b, TopLevel, parse_chunk};
use crate::span::{Span, Spanned, Text};

/// Parses `source[start..end]` as a sequence of top-level elements, like
/// [`parse_chunk`]: `None` if that reports any diagnostic.
pub(crate) fn parse_piece(source: &str, start: usize, end: usize) -> Option<Vec<TopLevel>> {
    let text = source.get(..end)?;
    let mut modifiers = Vec::new();
    let mut operands = Vec::new();
    let mut statements = Vec::new();
    let mut elements = Vec::new();
    let mut at = start;
    loop {
        let mut lane = Lane {
            tokens: Direct::new(Lexer::starting_at(text, at)),
            modifiers: &mut modifiers,
            operands: &mut operands,
        };
        loop {
            let Some((item_start, _, _)) = lane.peek() else {
                // The end of the piece (or of what the lexer could read).
                let clean = lane.tokens.lexer.take_diagnostics().is_empty()
                    && lane.tokens.lexer.next().is_none();
                return clean.then_some(elements);
            };
            statements.clear();
            if let Some(element) = item(&mut lane, &mut statements) {
                elements.push(element);
                continue;
            }
            // Over to the grammar for this item (or, if the guess of its end is wrong, for the
            // rest of the piece).
            let item_end = item_end(text, item_start);
            let (parsed, item_end) = match parse_chunk(source, item_start, item_end) {
                Some(parsed) => (parsed, item_end),
                None => (parse_chunk(source, item_start, end)?, end),
            };
            elements.extend(parsed);
            at = item_end;
            break;
        }
        if at >= end {
            return Some(elements);
        }
    }
}

/// A guess at the end of the item that starts at `start`: after the first `;` outside brackets,
/// or after the `}` that closes the first bracket opened (with a `;` right after it).
fn item_end(text: &str, start: usize) -> usize {
    let mut lexer = Lexer::starting_at(text, start);
    let mut depth = 0u32;
    while let Some(Ok((_, token, end))) = lexer.next() {
        match token {
            Tok::LBrace | Tok::LParen | Tok::LBracket => depth += 1,
            Tok::RParen | Tok::RBracket => depth = depth.saturating_sub(1),
            Tok::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return match lexer.next() {
                        Some(Ok((_, Tok::Semicolon, after))) => after,
                        _ => end,
                    };
                }
            }
            Tok::Semicolon if depth == 0 => return end,
            _ => {}
        }
    }
    text.len()
}

/// One top-level element: `TopLevel` of the grammar, for header directives, variables without
/// initializers and functions.
fn item(lane: &mut Lane<'_, Direct<'_>>, statements: &mut Vec<Statement>) -> Option<TopLevel> {
    let (start, first, _) = lane.peek()?;
    match first {
        Tok::Version => {
            lane.bump();
            let (_, Tok::Decimal(text), end) = lane.bump()? else {
                return None;
            };
            let mut diags = Vec::new();
            let version = b::version(text, Span::new(start, end), &mut diags);
            diags.is_empty().then_some(version)
        }
        Tok::Target => {
            lane.bump();
            let mut list = vec![lane.ident()?];
            while lane.peek_token() == Some(Tok::Comma) {
                lane.bump();
                list.push(lane.ident()?);
            }
            Some(TopLevel::Target(Spanned::new(list, start..lane.end())))
        }
        Tok::AddressSize => {
            lane.bump();
            let size = lane.integer(b::u32_literal)?;
            Some(TopLevel::AddressSize(size, Span::new(start, lane.end())))
        }
        Tok::Section => section(lane).map(|section| TopLevel::Item(Item::Section(section))),
        Tok::File => file(lane).map(|file| TopLevel::Item(Item::File(file))),
        _ => {
            let mut linkage = Vec::new();
            loop {
                let (at, token, end) = lane.peek()?;
                let kind = match token {
                    Tok::Visible => Linkage::Visible,
                    Tok::Extern => Linkage::Extern,
                    Tok::Weak => Linkage::Weak,
                    Tok::Common => Linkage::Common,
                    _ => break,
                };
                lane.bump();
                linkage.push(Spanned::new(kind, at..end));
            }
            match lane.peek_token()? {
                Tok::Pragma if linkage.is_empty() => {
                    pragma(lane).map(|text| TopLevel::Item(Item::Pragma(text)))
                }
                Tok::Entry | Tok::Func => function(lane, start, linkage, statements)
                    .map(|f| TopLevel::Item(Item::Function(f))),
                Tok::Reg | Tok::Param => None,
                Tok::Global | Tok::Const | Tok::Shared | Tok::Local => {
                    let declaration = lane.declaration_body(start, linkage, false)?;
                    lane.expect(Tok::Semicolon)?;
                    Some(TopLevel::Item(Item::Variable(declaration)))
                }
                _ => None,
            }
        }
    }
}

/// `Function` after its linkage.
fn function(
    lane: &mut Lane<'_, Direct<'_>>,
    start: usize,
    linkage: Vec<Spanned<Linkage>>,
    statements: &mut Vec<Statement>,
) -> Option<Box<Function>> {
    let (at, token, end) = lane.bump()?;
    let kind = match token {
        Tok::Entry => FunctionKind::Entry,
        Tok::Func => FunctionKind::Func,
        _ => return None,
    };
    let kind = Spanned::new(kind, at..end);
    let returns = if lane.peek_is(Tok::LParen)? {
        Some(parameter_list(lane)?)
    } else {
        None
    };
    let name = lane.ident()?;
    let params = if lane.peek_is(Tok::LParen)? {
        Some(parameter_list(lane)?)
    } else {
        None
    };
    let mut directives = Vec::new();
    loop {
        let (at, text, end) = match lane.peek()? {
            (_, Tok::Pragma, _) => {
                directives.push(FunctionDirective::Pragma(pragma(lane)?));
                continue;
            }
            (at, Tok::DotWord(text), end) => (at, text, end),
            _ => break,
        };
        lane.bump();
        let name = Spanned::new(Text::from(&text[1..]), at..end);
        let mut values = Vec::new();
        if let Tok::Int(_) = lane.peek_token()? {
            values.push(lane.integer(b::u64_literal)?);
            while lane.peek_is(Tok::Comma)? {
                lane.bump();
                values.push(lane.integer(b::u64_literal)?);
            }
        }
        directives.push(FunctionDirective::Performance {
            span: Span::new(at, lane.end()),
            name,
            values,
        });
    }
    let body = match lane.peek_token()? {
        Tok::LBrace => Some(block(lane, statements)?),
        Tok::Semicolon => {
            lane.bump();
            None
        }
        _ => return None,
    };
    Some(Box::new(Function {
        span: Span::new(start, lane.end()),
        linkage,
        kind,
        returns,
        name,
        params,
        directives,
        body,
    }))
}

/// `.pragma "text";`, wherever it occurs: the text (`Str`).
fn pragma(lane: &mut Lane<'_, Direct<'_>>) -> Option<Spanned<Text>> {
    lane.expect(Tok::Pragma)?;
    let text = string(lane)?;
    lane.expect(Tok::Semicolon)?;
    Some(text)
}

/// `.file index "path"`, with the timestamp and size that `-lineinfo` and `-G` builds write.
fn file(lane: &mut Lane<'_, Direct<'_>>) -> Option<FileDirective> {
    let (start, _, _) = lane.expect(Tok::File)?;
    let index = lane.integer(b::u32_literal)?;
    let path = string(lane)?;
    let mut extra = Vec::new();
    while lane.peek_is(Tok::Comma)? {
        lane.bump();
        extra.push(lane.integer(b::u64_literal)?);
    }
    Some(FileDirective {
        span: Span::new(start, lane.end()),
        index,
        path,
        extra,
    })
}

/// `.section .name { entries }`: the debug data of `-lineinfo` and `-G` builds.
fn section(lane: &mut Lane<'_, Direct<'_>>) -> Option<Section> {
    let (start, _, _) = lane.expect(Tok::Section)?;
    let (at, Tok::DotWord(name), end) = lane.bump()? else {
        return None;
    };
    let name = Spanned::new(Text::from(name), at..end);
    lane.expect(Tok::LBrace)?;
    let mut entries = Vec::new();
    loop {
        match lane.peek()? {
            (_, Tok::RBrace, _) => {
                lane.bump();
                break;
            }
            (_, Tok::Ident(_), _) => {
                let label = lane.ident()?;
                lane.expect(Tok::Colon)?;
                entries.push(SectionEntry::Label(label));
            }
            (at, Tok::DotWord(ty), end) => {
                lane.bump();
                let ty = Spanned::new(Text::from(&ty[1..]), at..end);
                let mut values = vec![section_value(lane)?];
                while lane.peek_is(Tok::Comma)? {
                    lane.bump();
                    values.push(section_value(lane)?);
                }
                entries.push(SectionEntry::Data {
                    span: Span::new(at, lane.end()),
                    ty,
                    values,
                });
            }
            _ => return None,
        }
    }
    Some(Section {
        span: Span::new(start, lane.end()),
        name,
        entries,
    })
}

/// `SectionValue`: a number, a string, or a label or section name with an optional offset.
fn section_value(lane: &mut Lane<'_, Direct<'_>>) -> Option<SectionValue> {
    match lane.peek()? {
        (_, Tok::Int(_), _) => Some(SectionValue::Integer(lane.integer(b::u64_literal)?)),
        (_, Tok::Str(_), _) => Some(SectionValue::String(string(lane)?)),
        (at, Tok::Ident(symbol) | Tok::DotWord(symbol), end) => {
            lane.bump();
            let name = Spanned::new(Text::from(symbol), at..end);
            let offset = lane.signed_offset()?;
            Some(SectionValue::Symbol {
                span: Span::new(at, lane.end()),
                name,
                offset,
            })
        }
        _ => None,
    }
}

/// `Str`: a string literal without its quotes (escapes kept as written), spanning the literal.
fn string(lane: &mut Lane<'_, Direct<'_>>) -> Option<Spanned<Text>> {
    let (at, Tok::Str(string), end) = lane.bump()? else {
        return None;
    };
    let text = string.get(1..string.len().checked_sub(1)?)?;
    Some(Spanned::new(Text::from(text), at..end))
}

/// `Loc`: `.loc file line column`, with the attributes `, function_name NAME` and
/// `, inlined_at FILE LINE COLUMN` that `-lineinfo` builds write (built by the grammar's
/// `b::loc`, which reports unknown attributes: then the grammar takes the item).
fn loc(lane: &mut Lane<'_, Direct<'_>>) -> Option<Loc> {
    let (start, _, _) = lane.expect(Tok::Loc)?;
    let file = lane.integer(b::u32_literal)?;
    let line = lane.integer(b::u32_literal)?;
    let column = lane.integer(b::u32_literal)?;
    let mut attributes = Vec::new();
    while lane.peek_is(Tok::Comma)? {
        lane.bump();
        let key = lane.ident()?;
        attributes.push(match lane.peek_token()? {
            Tok::Ident(_) => b::LocAttribute::Name(key, lane.ident()?),
            _ => b::LocAttribute::Position(
                key,
                lane.integer(b::u32_literal)?,
                lane.integer(b::u32_literal)?,
                lane.integer(b::u32_literal)?,
            ),
        });
    }
    let mut diags = Vec::new();
    let loc = b::loc(
        file,
        line,
        column,
        attributes,
        Span::new(start, lane.end()),
        &mut diags,
    );
    diags.is_empty().then_some(loc)
}

/// `ParameterList`: `( )` or `( Parameter, ... )`.
fn parameter_list(lane: &mut Lane<'_, Direct<'_>>) -> Option<Vec<VariableDeclaration>> {
    lane.expect(Tok::LParen)?;
    let mut parameters = Vec::new();
    if !lane.peek_is(Tok::RParen)? {
        loop {
            let start = lane.peek()?.0;
            parameters.push(lane.declaration_body(start, Vec::new(), true)?);
            if !lane.peek_is(Tok::Comma)? {
                break;
            }
            lane.bump();
        }
    }
    lane.expect(Tok::RParen)?;
    Some(parameters)
}

/// `Block` whose statements are all fast-lane statements or blocks of them. `scratch` holds the
/// statements of the enclosing blocks; the block's own are pushed there and then moved into a
/// vector of their exact size (growing one vector per block would copy the statements again at
/// every doubling).
fn block(lane: &mut Lane<'_, Direct<'_>>, scratch: &mut Vec<Statement>) -> Option<Block> {
    let (start, _, _) = lane.expect(Tok::LBrace)?;
    let first = scratch.len();
    loop {
        match lane.peek_token()? {
            Tok::RBrace => {
                lane.bump();
                break;
            }
            Tok::LBrace => {
                let inner = block(lane, scratch)?;
                scratch.push(Statement::Block(inner));
            }
            Tok::Loc => scratch.push(Statement::Loc(Box::new(loc(lane)?))),
            Tok::Pragma => scratch.push(Statement::Pragma(pragma(lane)?)),
            _ => {
                lane.statement(scratch)?;
            }
        }
    }
    let mut statements = Vec::with_capacity(scratch.len() - first);
    statements.extend(scratch.drain(first..));
    Some(Block {
        span: Span::new(start, lane.end()),
        statements,
    })
}
