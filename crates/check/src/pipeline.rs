//! Checking a module straight from its text, piece by piece, without holding its syntax tree.
//!
//! The text is cut into pieces of about [`PIECE_SIZE`] bytes between top-level items
//! ([`ptxsim_syntax::piece_bounds`]), the first one small: the header is read from it before the
//! other threads start. Worker threads parse pieces in any order; the calling thread also holds
//! the one checker, which takes the parsed pieces in source order, checks their items one by one
//! ([`ItemStream`]) and hands them back to the worker that parsed them to drop. The tree of a
//! large module is thus never built whole: memory stays small and hot in the cache, checking
//! overlaps with parsing on the other threads, and the checker's tables stay in one core's
//! cache.
//!
//! The result is exactly that of [`crate::parse_and_check_with`]: when every piece parses
//! without a diagnostic, its elements in order are the module's (see
//! [`ptxsim_syntax::parse_piece`]), the header diagnostics come from [`ptxsim_syntax::fold`] of
//! the same elements, and the items are checked in order by the same resolver. Whenever that
//! argument does not apply (a piece with a syntax error, or a `.version` / `.target` /
//! `.address_size` after the first item, which would change how earlier items are checked), the
//! caller falls back to the whole-module path.

use crate::Options;
use crate::names::ItemStream;
use crate::rules::{self, ModuleSetting};
use ptxsim_syntax::ast::{Item, Module};
use ptxsim_syntax::{Diagnostic, Spanned, Text, TopLevel};
use std::sync::Mutex;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The size in bytes of the pieces a module is parsed in.
pub const PIECE_SIZE: usize = 64 << 10;

/// The size in bytes of the first piece, parsed before the other threads start.
const FIRST_PIECE_SIZE: usize = 4 << 10;

/// The header directives at the start of a module, and what the checker makes of them.
struct Header {
    module: Module,
    setting: ModuleSetting,
}

/// The checker's state: everything that must see the elements in source order.
struct Checker<'h> {
    stream: ItemStream<'h>,
    /// The module's header directives, then items replaced by empty stand-ins of the same spans
    /// up to two elements in all: all that the header diagnostics depend on when no header
    /// directive follows an item (they name the first or second element if the module does
    /// not start with `.version` and `.target`).
    summary: Vec<TopLevel>,
    /// The index of the next piece to check.
    next: usize,
}

impl Checker<'_> {
    /// Checks the elements of one piece; `false` if one is a header directive after an item.
    fn piece(&mut self, elements: &[TopLevel]) -> bool {
        for element in elements {
            match element {
                TopLevel::Item(item) => {
                    self.stream.item(item);
                    if self.summary.len() < 2 {
                        self.summary.push(stand_in(item));
                    }
                }
                TopLevel::Version(_) | TopLevel::Target(_) | TopLevel::AddressSize(..) => {
                    return false;
                }
            }
        }
        true
    }
}

/// An item with the span of `item` and nothing else.
fn stand_in(item: &Item) -> TopLevel {
    TopLevel::Item(Item::Pragma(Spanned::new(Text::default(), item.span())))
}

/// A parsed piece: the worker that parsed it, and its elements.
type Parsed = (usize, Vec<TopLevel>);

/// What the workers share.
struct Work<'s> {
    source: &'s str,
    bounds: Vec<usize>,
    /// The next piece no worker has claimed yet.
    next_parse: AtomicUsize,
    /// Parsed pieces waiting for the checker, with the worker that parsed them.
    parsed: Vec<Mutex<Option<Parsed>>>,
    /// Per worker: checked pieces it parsed, for it to drop. Memory freed by the thread that
    /// allocated it goes straight back to that thread's free lists, to be reused for the next
    /// piece while it is still in the cache.
    garbage: Vec<Mutex<Vec<Vec<TopLevel>>>>,
    /// Set when the pipeline cannot give the exact result.
    failed: AtomicBool,
    /// Set when the checker has taken every piece.
    done: AtomicBool,
}

impl Work<'_> {
    fn pieces(&self) -> usize {
        self.bounds.len() - 1
    }

    fn parse(&self, piece: usize) -> Option<Vec<TopLevel>> {
        ptxsim_syntax::parse_piece(self.source, self.bounds[piece], self.bounds[piece + 1])
    }

    /// Worker `worker`: parses the next piece until all are checked; worker 0, on the calling
    /// thread, also holds the checker and checks whatever is ready first. The checker stays on
    /// one thread so that its tables stay in one core's cache.
    fn run(&self, worker: usize, mut checker: Option<&mut Checker<'_>>) {
        let _stop_others = StopOnPanic(&self.failed);
        while !self.failed.load(Ordering::Relaxed) && !self.done.load(Ordering::Acquire) {
            if let Some(checker) = checker.as_deref_mut() {
                self.check_ready(checker);
                if self.done.load(Ordering::Acquire) {
                    break;
                }
            }
            self.collect_garbage(worker);
            let piece = self.next_parse.fetch_add(1, Ordering::Relaxed);
            if piece < self.pieces() {
                let Some(parsed) = self.parse(piece) else {
                    self.failed.store(true, Ordering::Relaxed);
                    return;
                };
                if let Ok(mut slot) = self.parsed[piece].lock() {
                    *slot = Some((worker, parsed));
                }
            } else {
                // Another worker is still parsing the next piece to check.
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }
        // Once every piece is checked, no more garbage comes.
        self.collect_garbage(worker);
    }

    /// Drops the checked pieces that worker `worker` parsed (on the worker's own thread).
    fn collect_garbage(&self, worker: usize) {
        let garbage = match self.garbage[worker].lock() {
            Ok(mut garbage) => std::mem::take(&mut *garbage),
            Err(_) => Vec::new(),
        };
        drop(garbage);
    }

    /// Checks the parsed pieces that are next in order.
    fn check_ready(&self, checker: &mut Checker<'_>) {
        while checker.next < self.pieces() {
            let ready = match self.parsed[checker.next].lock() {
                Ok(mut slot) => slot.take(),
                Err(_) => None,
            };
            let Some((parser, elements)) = ready else {
                return;
            };
            if !checker.piece(&elements) {
                self.failed.store(true, Ordering::Relaxed);
                return;
            }
            if let Ok(mut garbage) = self.garbage[parser].lock() {
                garbage.push(elements);
            }
            checker.next += 1;
        }
        self.done.store(true, Ordering::Release);
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
    // A small first piece: the header is read from it before the other threads start.
    if let Some(&first) = bounds.get(1) {
        let mut head = ptxsim_syntax::piece_bounds(&source[..first], FIRST_PIECE_SIZE);
        head.pop();
        bounds.splice(..1, head);
    }
    let work = Work {
        source,
        next_parse: AtomicUsize::new(0),
        parsed: (1..bounds.len()).map(|_| Mutex::new(None)).collect(),
        garbage: (0..threads.max(1))
            .map(|_| Mutex::new(Vec::new()))
            .collect(),
        bounds,
        failed: AtomicBool::new(false),
        done: AtomicBool::new(false),
    };
    // The header: the elements before the first item, from the first pieces.
    let mut leading = Vec::new();
    let mut rest = Vec::new();
    let mut next = 0;
    while next < work.pieces() && rest.is_empty() {
        let mut elements = work.parse(next)?.into_iter();
        next += 1;
        for element in elements.by_ref() {
            if let TopLevel::Item(_) = element {
                rest.push(element);
                break;
            }
            leading.push(element);
        }
        rest.extend(elements);
    }
    let (module, _) = ptxsim_syntax::fold(source, leading.iter().map(clone_header).collect());
    let header = Header {
        setting: ModuleSetting::new(&module, options.target),
        module,
    };
    let mut checker = Checker {
        stream: ItemStream::new(&header.module, &header.setting),
        summary: leading,
        next,
    };
    work.next_parse.store(next, Ordering::Relaxed);
    std::thread::scope(|scope| {
        if next < work.pieces() {
            for worker in 1..threads.max(1) {
                let work = &work;
                scope.spawn(move || work.run(worker, None));
            }
        }
        // The rest of the header's pieces, while the other threads parse.
        if !checker.piece(&rest) {
            work.failed.store(true, Ordering::Relaxed);
        }
        drop(rest);
        if next < work.pieces() {
            work.run(0, Some(&mut checker));
        }
    });
    if work.failed.load(Ordering::Relaxed) || checker.next < work.pieces() {
        return None;
    }
    let (_, mut diagnostics) = ptxsim_syntax::fold(source, checker.summary);
    let mut checked = checker.stream.finish();
    rules::check_module(&header.setting, &header.module, &mut checked);
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
