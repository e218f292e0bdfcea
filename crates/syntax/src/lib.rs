//! The PTX front end: lexer, parser, syntax tree, printer and diagnostics.
//!
//! ```
//! let (module, diagnostics) = ptxsim_syntax::parse(".version 8.5\n.target sm_90\n.address_size 64\n");
//! assert!(diagnostics.is_empty());
//! assert_eq!(module.version.map(|v| (v.major, v.minor)), Some((8, 5)));
//! ```
//!
//! Data flows one way: text → [`lexer`] tokens → [`parse`] → [`ast::Module`]. The checker
//! (`ptxsim-check`) resolves names over the tree and reuses [`diag::Diagnostic`].

pub mod ast;
pub mod diag;
mod fast_lane;
#[cfg(test)]
mod fast_lane_tests;
mod ignored;
pub mod input;
mod items;
pub mod lexer;
mod parser;
mod print;
pub mod span;
mod strip;
pub mod synth;

pub use diag::{Diagnostic, Severity};
pub use ignored::IGNORED_MODIFIERS;
pub use parser::{
    PARALLEL_THRESHOLD, TopLevel, default_chunks, fold, parse, parse_in_chunks, parse_piece,
    piece_bounds,
};
pub use span::{Span, Spanned, Text};
