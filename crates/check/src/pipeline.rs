//! Checking a module straight from its text, piece by piece, without holding its syntax tree.
//!
//! The text is cut into pieces of about [`PIECE_SIZE`] bytes between top-level items
//! ([`ptxsim_syntax::piece_bounds`]), the first one small: the calling thread reads the header
//! from it while the other threads start on the next pieces. Each worker thread (the calling
//! thread is one) claims the next piece, parses it, publishes the module-scope names its items
//! declare, and checks it with its own resolver ([`ItemStream`]) as soon as the names of every
//! earlier piece are published, then drops it. The tree of a large module is thus never built whole, and each piece is checked and
//! freed by the core that built it while it is still in that core's cache.
//!
//! The result is exactly that of [`crate::parse_and_check_with`]: when every piece parses
//! without a diagnostic, its elements in order are the module's (see
//! [`ptxsim_syntax::parse_piece`]), and the header diagnostics come from [`ptxsim_syntax::fold`]
//! of the same elements. A function's checks depend on the items before it only through the
//! module-scope names declared so far (as for the threads of [`crate::names::resolve`]), so a
//! worker's resolver, having declared those of the earlier pieces it did not check (silently:
//! their diagnostics are the other workers'), checks a piece as the sequential walk would; the
//! hints that depend on names declared further down are worded at the end, when every name is
//! known, and the pieces' diagnostics are put together in source order. Whenever that argument
//! does not apply (a piece with a syntax error, a `.version` / `.target` / `.address_size` after
//! the first item, which would change how earlier items are checked, or a first piece without an
//! item, after which the header might go on), the caller falls back to the whole-module path.

use crate::Options;
use crate::limits::ItemSummary;
use crate::names::{CheckedPiece, ItemStream, ModuleDeclaration};
use crate::rules::{self, ModuleSetting, SharedForms};
use ptxsim_syntax::ast::{Item, Module};
use ptxsim_syntax::{Diagnostic, Spanned, Text, TopLevel};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The size in bytes of the pieces a module is parsed in.
pub const PIECE_SIZE: usize = 64 << 10;

/// The size in bytes of the first piece, parsed before the other threads start.
const FIRST_PIECE_SIZE: usize = 4 << 10;

/// How many parsed pieces a worker keeps while an earlier piece is still being parsed.
const MAX_WAITING: usize = 3;

/// The header directives at the start of a module, and what the checker makes of them.
struct Header {
    module: Module,
    setting: ModuleSetting,
}

/// What checking one piece gave.
struct PieceResult {
    checked: CheckedPiece,
    /// What the size limits need of its items ([`crate::limits`]).
    limits: Vec<ItemSummary>,
    /// Stand-ins for the piece's first two items (see [`summary`]).
    stand_ins: Vec<TopLevel>,
}

/// The module-scope names the items of `elements` declare, in order.
fn declarations(elements: &[TopLevel]) -> Vec<ModuleDeclaration> {
    let mut declarations = Vec::new();
    for element in elements {
        if let TopLevel::Item(item) = element {
            crate::names::module_declarations(item, &mut declarations);
        }
    }
    declarations
}

/// An item with the span of `item` and nothing else.
fn stand_in(item: &Item) -> TopLevel {
    TopLevel::Item(Item::Pragma(Spanned::new(Text::default(), item.span())))
}

/// One worker's checker: a resolver that has seen the module-scope declarations of every piece
/// before `position`.
struct Worker<'h> {
    stream: ItemStream<'h>,
    position: usize,
}

impl Worker<'_> {
    /// Checks the items of one piece (its module-scope names declared before as the sequential
    /// walk would have); `None` if an element is a header directive, which can only follow an
    /// item here.
    fn piece(&mut self, elements: &[TopLevel]) -> Option<PieceResult> {
        let mut stand_ins = Vec::new();
        let mut limits = Vec::new();
        for element in elements {
            let TopLevel::Item(item) = element else {
                return None;
            };
            self.stream.item(item);
            crate::limits::summarize(item, &mut limits);
            if stand_ins.len() < 2 {
                stand_ins.push(stand_in(item));
            }
        }
        Some(PieceResult {
            checked: self.stream.take_piece(),
            limits,
            stand_ins,
        })
    }
}

/// What the workers share.
struct Work<'s> {
    source: &'s str,
    bounds: Vec<usize>,
    /// The next piece no worker has claimed yet.
    next_parse: AtomicUsize,
    /// Per piece, once parsed: the module-scope names it declares, in order, for the other
    /// workers' resolvers.
    declarations: Vec<OnceLock<Vec<ModuleDeclaration>>>,
    /// Per piece, once checked: what it gave.
    results: Vec<OnceLock<PieceResult>>,
    /// The module's header, once read from the first piece.
    header: OnceLock<Header>,
    /// The mnemonics decoded so far, for every worker's checker.
    forms: Arc<SharedForms>,
    /// Set when the pipeline cannot give the exact result.
    failed: AtomicBool,
}

impl Work<'_> {
    fn pieces(&self) -> usize {
        self.bounds.len() - 1
    }

    fn parse(&self, piece: usize) -> Option<Vec<TopLevel>> {
        ptxsim_syntax::parse_piece(self.source, self.bounds[piece], self.bounds[piece + 1])
    }

    fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// A worker: parses the next piece no one has claimed and publishes its module-scope
    /// names; checks and drops its parsed pieces, in order, as soon as the names of every
    /// earlier piece are published; until no piece is left. Each piece is thus checked and freed
    /// by the thread that built it, soon enough to be still in that core's cache. A worker
    /// whose next piece waits for an earlier one that another worker is still parsing parses
    /// another piece meanwhile (up to [`MAX_WAITING`] pieces).
    fn run<'w>(&'w self, worker: &mut Option<Worker<'w>>) {
        let _stop_others = StopOnPanic(&self.failed);
        let mut waiting: VecDeque<(usize, Vec<TopLevel>)> = VecDeque::new();
        while !self.failed.load(Ordering::Relaxed) {
            if let Some((piece, _)) = waiting.front()
                && let Some(worker) = self.worker(worker)
                && self.catch_up(worker, *piece)
                && let Some((piece, elements)) = waiting.pop_front()
            {
                let Some(result) = worker.piece(&elements) else {
                    return self.fail();
                };
                drop(elements);
                worker.position = piece + 1;
                let _ = self.results[piece].set(result);
                continue;
            }
            if waiting.len() < MAX_WAITING {
                let piece = self.next_parse.fetch_add(1, Ordering::Relaxed);
                if piece < self.pieces() {
                    let Some(elements) = self.parse(piece) else {
                        return self.fail();
                    };
                    let _ = self.declarations[piece].set(declarations(&elements));
                    waiting.push_back((piece, elements));
                    continue;
                }
            }
            if waiting.is_empty() {
                return;
            }
            // The worker that claimed the piece waited for is parsing it (it publishes the
            // names of a piece as soon as it has parsed it), or the header is still being read.
            std::thread::yield_now();
        }
    }

    /// The checker of a worker thread, made when the header is known; `None` before.
    fn worker<'a, 'w>(&'w self, slot: &'a mut Option<Worker<'w>>) -> Option<&'a mut Worker<'w>> {
        if slot.is_none() {
            let header = self.header.get()?;
            *slot = Some(Worker {
                stream: ItemStream::new(&header.module, &header.setting, Arc::clone(&self.forms)),
                position: 0,
            });
        }
        slot.as_mut()
    }

    /// Parses the first piece, sets the header from the elements before its first item,
    /// publishes the module-scope names of its items and returns them, and the header's
    /// elements in `leading`. `None` if the piece does not parse, or has no item although
    /// more pieces follow (then the header might go on in pieces other threads are parsing).
    fn first_piece(&self, options: &Options, leading: &mut Vec<TopLevel>) -> Option<Vec<TopLevel>> {
        let mut rest = Vec::new();
        if self.pieces() > 0 {
            let mut elements = self.parse(0)?.into_iter();
            for element in elements.by_ref() {
                if let TopLevel::Item(_) = element {
                    rest.push(element);
                    break;
                }
                leading.push(element);
            }
            rest.extend(elements);
            if rest.is_empty() && self.pieces() > 1 {
                return None;
            }
        }
        let (module, _) =
            ptxsim_syntax::fold(self.source, leading.iter().map(clone_header).collect());
        let _ = self.header.set(Header {
            setting: ModuleSetting::new(&module, options.target),
            module,
        });
        if let Some(first) = self.declarations.first() {
            let _ = first.set(declarations(&rest));
        }
        Some(rest)
    }

    /// Declares in `worker`'s resolver the module-scope names of the pieces between its
    /// position and `piece` that are published; `true` if they all are.
    fn catch_up(&self, worker: &mut Worker<'_>, piece: usize) -> bool {
        while worker.position < piece {
            let Some(declarations) = self.declarations[worker.position].get() else {
                return false;
            };
            worker.stream.declare(declarations);
            worker.position += 1;
        }
        true
    }
}

/// Sets a flag when the worker holding it panics, so that the others stop waiting for the piece
/// it was working on (the panic itself reaches the caller through [`std::thread::scope`]).
struct StopOnPanic<'f>(&'f AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Parses and checks `source` in pieces of about `piece_size` bytes on `threads` threads and
/// returns the diagnostics of [`crate::parse_and_check_with`], or `None` where this path cannot
/// be sure to give them (then the caller takes that path).
pub(crate) fn check(
    source: &str,
    options: &Options,
    piece_size: usize,
    threads: usize,
) -> Option<Vec<Diagnostic>> {
    let mut bounds = ptxsim_syntax::piece_bounds(source, piece_size);
    // A small first piece: the header is read from it while the other threads start.
    if let Some(&first) = bounds.get(1) {
        let mut head = ptxsim_syntax::piece_bounds(&source[..first], FIRST_PIECE_SIZE);
        head.pop();
        bounds.splice(..1, head);
    }
    let work = Work {
        source,
        // The first piece is this thread's: the header is read from it.
        next_parse: AtomicUsize::new(1),
        declarations: (1..bounds.len()).map(|_| OnceLock::new()).collect(),
        results: (1..bounds.len()).map(|_| OnceLock::new()).collect(),
        header: OnceLock::new(),
        forms: Arc::default(),
        bounds,
        failed: AtomicBool::new(false),
    };
    let mut leading = Vec::new();
    std::thread::scope(|scope| {
        // The other threads parse the next pieces while this one reads the header.
        if work.pieces() > 1 {
            for _ in 1..threads.max(1) {
                let work = &work;
                scope.spawn(move || work.run(&mut None));
            }
        }
        // The other threads wait for the header: if reading it panics, they must stop.
        let _stop_others = StopOnPanic(&work.failed);
        let Some(rest) = work.first_piece(options, &mut leading) else {
            return work.fail();
        };
        let mut slot = None;
        let Some(worker) = work.worker(&mut slot) else {
            return work.fail();
        };
        match (worker.piece(&rest), work.results.first()) {
            (Some(result), Some(first)) => {
                let _ = first.set(result);
            }
            (Some(_), None) => {}
            (None, _) => return work.fail(),
        }
        drop(rest);
        worker.position = 1;
        work.run(&mut slot);
    });
    if work.failed.load(Ordering::Relaxed) {
        return None;
    }
    let Work {
        declarations,
        results,
        header,
        ..
    } = work;
    let header = header.into_inner()?;
    let mut summary = leading;
    let mut pieces = Vec::new();
    let mut limits = Vec::new();
    let mut header_only = true;
    for result in results {
        let Some(result) = result.into_inner() else {
            continue;
        };
        header_only &= result.stand_ins.is_empty();
        let room = 2usize.saturating_sub(summary.len());
        summary.extend(result.stand_ins.into_iter().take(room));
        pieces.push(result.checked);
        limits.extend(result.limits);
    }
    let (_, mut diagnostics) = ptxsim_syntax::fold(source, summary);
    let all_declarations = declarations
        .into_iter()
        .flat_map(|declarations| declarations.into_inner().unwrap_or_default());
    let mut checked = crate::names::finish_pieces(pieces, all_declarations);
    rules::check_module(&header.setting, &header.module, header_only, &mut checked);
    crate::limits::finish(&limits, &header.setting, &mut checked);
    checked.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    diagnostics.append(&mut checked);
    diagnostics.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    Some(diagnostics)
}

/// A copy of a header directive (items are never passed here).
fn clone_header(element: &TopLevel) -> TopLevel {
    match element {
        TopLevel::Version(version) => TopLevel::Version(version.clone()),
        TopLevel::Target(target) => TopLevel::Target(target.clone()),
        TopLevel::AddressSize(size, span) => TopLevel::AddressSize(size.clone(), *span),
        TopLevel::Item(item) => stand_in(item),
    }
}
