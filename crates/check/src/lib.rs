//! Semantic checks over the PTX syntax tree.
//!
//! [`check`] resolves every name in a module the way ptxas does and reports all problems at once
//! (it never stops at the first error):
//!
//! * module-scope variables and functions must be declared before they are used; a function may
//!   be declared (`.func f(...);`) and defined later;
//! * registers, local variables and parameters are visible from their declaration to the end of
//!   the enclosing `{ }` block, including nested blocks, which may redeclare (shadow) them;
//! * `.reg .b32 %r<N>;` declares `%r0` to `%r{N-1}`;
//! * labels are visible in their whole block (forward references are fine) and in nested blocks,
//!   but not outside the block that contains them;
//! * labels, registers and variables share one namespace per scope: duplicates are errors;
//! * special registers (`%tid.x`, `%laneid`, `%clock64`, ...) need no declaration.
//!
//! Each rule above was checked against ptxas 13.x; the test inputs under `tests/broken/` record
//! ptxas's message for each error kind.
//!
//! [`rules`] applies the instruction table of `ptxsim-isa` to every instruction it describes
//! (modifiers, operand shapes and register types, target and version requirements) and checks
//! the `.version` / `.target` pair; `tests/check/` and `tests/conformance/` record ptxas's
//! verdicts.
//!
//! [`compile`] also gives, for a module without errors, the [`Checked`] module from which
//! [`program`] builds the typed program the executor runs, with this crate's resolver.

pub mod declarations;
mod hash;
pub mod limits;
mod names;
mod pipeline;
pub mod program;
pub mod rules;
mod spaces;

pub use pipeline::PIECE_SIZE;
pub use program::{BuildError, Checked, Program};

use ptxsim_isa::Target;
use ptxsim_syntax::Diagnostic;
use ptxsim_syntax::ast::Module;

/// How to check a module.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Check the module as if its `.target` were this architecture (`ptxsim check --target`);
    /// its `.version` stays.
    pub target: Option<Target>,
}

/// Checks a parsed module and returns every diagnostic found, sorted by position.
pub fn check(module: &Module) -> Vec<Diagnostic> {
    check_with(module, &Options::default())
}

/// Checks a parsed module with options (e.g. a target override) and returns every diagnostic
/// found, sorted by position.
///
/// A large module is checked on several threads (see [`ptxsim_syntax::default_chunks`]); the
/// diagnostics are the same as with one.
pub fn check_with(module: &Module, options: &Options) -> Vec<Diagnostic> {
    check_in_chunks(
        module,
        options,
        ptxsim_syntax::default_chunks(module.span.len()),
    )
}

/// [`check_with`] on at most `chunks` threads, each checking a run of top-level items. The
/// diagnostics do not depend on `chunks`.
pub fn check_in_chunks(module: &Module, options: &Options, chunks: usize) -> Vec<Diagnostic> {
    let setting = rules::ModuleSetting::new(module, options.target);
    let mut diagnostics = names::resolve(module, &setting, chunks);
    rules::check_module(&setting, module, module.items.is_empty(), &mut diagnostics);
    let mut summaries = Vec::new();
    for item in &module.items {
        limits::summarize(item, &mut summaries);
    }
    limits::finish(&summaries, &setting, &mut diagnostics);
    diagnostics.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    diagnostics
}

/// Parses and checks `source`: the syntax diagnostics followed by the semantic ones (the checker
/// runs on whatever the parser could build, so it also reports errors in files with syntax
/// errors).
pub fn parse_and_check(source: &str) -> (Module, Vec<Diagnostic>) {
    parse_and_check_with(source, &Options::default())
}

/// [`parse_and_check`] with options.
pub fn parse_and_check_with(source: &str, options: &Options) -> (Module, Vec<Diagnostic>) {
    parse_and_check_in_chunks(source, options, ptxsim_syntax::default_chunks(source.len()))
}

/// [`parse_and_check_with`] on at most `chunks` threads (see [`ptxsim_syntax::parse_in_chunks`]
/// and [`check_in_chunks`]). The result does not depend on `chunks`.
pub fn parse_and_check_in_chunks(
    source: &str,
    options: &Options,
    chunks: usize,
) -> (Module, Vec<Diagnostic>) {
    let (module, mut diagnostics) = ptxsim_syntax::parse_in_chunks(source, chunks);
    diagnostics.extend(check_in_chunks(&module, options, chunks));
    diagnostics.sort_by_key(|diagnostic| (diagnostic.span.start, diagnostic.span.end));
    (module, diagnostics)
}

/// Parses and checks `source` ([`parse_and_check_with`]) and, when there is no error, gives
/// the [`Checked`] module, from which [`Checked::program`] builds the typed program of any of
/// its kernels: the only input of the executor. The diagnostics (with warnings) come either
/// way.
///
/// ```
/// let source = ".version 9.1\n.target sm_90\n.address_size 64\n\
///               .entry k() { .reg .b32 %r<2>; add.s32 %r1, %r0, 1; ret; }";
/// let (checked, diagnostics) = ptxsim_check::compile(source, &Default::default());
/// assert!(diagnostics.is_empty());
/// let program = checked.unwrap().program(None).unwrap();
/// assert_eq!(program.registers.len(), 2);
/// assert_eq!(program.instructions.len(), 2);
/// ```
pub fn compile<'s>(source: &'s str, options: &Options) -> (Option<Checked<'s>>, Vec<Diagnostic>) {
    let (module, diagnostics) = parse_and_check_with(source, options);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return (None, diagnostics);
    }
    let setting = rules::ModuleSetting::new(&module, options.target);
    let checked = Checked {
        source,
        module,
        setting,
        summaries: std::sync::OnceLock::new(),
    };
    (Some(checked), diagnostics)
}

/// The diagnostics of [`parse_and_check_with`], without the syntax tree: for a large module,
/// parsing and checking run together on several threads, piece by piece (see
/// [`check_source_in_pieces`]), and the tree is never held whole.
pub fn check_source(source: &str, options: &Options) -> Vec<Diagnostic> {
    check_source_in_pieces(
        source,
        options,
        PIECE_SIZE,
        ptxsim_syntax::default_chunks(source.len()),
    )
}

/// [`check_source`] with the text cut into pieces of about `piece_size` bytes, parsed on at most
/// `threads` threads while one checker takes the items in source order. Where that cannot give
/// the diagnostics of [`parse_and_check_with`] (a syntax error, or a header directive after the
/// first item), the module is parsed and checked whole instead. The result depends on neither
/// `piece_size` nor `threads`.
pub fn check_source_in_pieces(
    source: &str,
    options: &Options,
    piece_size: usize,
    threads: usize,
) -> Vec<Diagnostic> {
    pipeline::check(source, options, piece_size, threads)
        .unwrap_or_else(|| parse_and_check_in_chunks(source, options, threads).1)
}
