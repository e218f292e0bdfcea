//! Where things are in the source: the functions of the module (to name the function an
//! instruction belongs to) and their labels (for `break LABEL`).
//!
//! The [`Program`] knows instructions by index and location only, so the debugger
//! parses the module again (it was already checked without errors) and maps labels and function
//! bodies to line and column ranges.

use ptxsim_exec::Program;
use ptxsim_syntax::ast::{Block, Item, Statement};
use ptxsim_syntax::diag::LineIndex;

/// A 1-based `(line, column)` position.
pub(crate) type Position = (u32, u32);

/// A function with a body: its name and the positions of its first and last characters.
#[derive(Debug)]
struct Function {
    name: String,
    start: Position,
    end: Position,
}

/// A label: its name, the function it is in, and where it is written.
#[derive(Debug)]
struct Label {
    name: String,
    function: usize,
    at: Position,
}

/// The functions and labels of a module.
#[derive(Debug)]
pub(crate) struct SourceMap {
    functions: Vec<Function>,
    labels: Vec<Label>,
}

fn position(index: &LineIndex, source: &str, offset: u32) -> Position {
    let (line, column) = index.line_column(source, offset as usize);
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

fn collect_labels(
    block: &Block,
    function: usize,
    index: &LineIndex,
    source: &str,
    out: &mut Vec<Label>,
) {
    for statement in &block.statements {
        match statement {
            Statement::Label(label) => out.push(Label {
                name: label.value.to_string(),
                function,
                at: position(index, source, label.span.start),
            }),
            Statement::Block(inner) => collect_labels(inner, function, index, source, out),
            _ => {}
        }
    }
}

impl SourceMap {
    /// Parses `source` and records its function bodies and labels.
    pub(crate) fn new(source: &str) -> Self {
        let (module, _) = ptxsim_syntax::parse(source);
        let index = LineIndex::new(source);
        let mut functions = Vec::new();
        let mut labels = Vec::new();
        for item in &module.items {
            let Item::Function(function) = item else {
                continue;
            };
            let Some(body) = &function.body else {
                continue;
            };
            let number = functions.len();
            functions.push(Function {
                name: function.name.value.to_string(),
                start: position(&index, source, function.span.start),
                end: position(&index, source, function.span.end.saturating_sub(1)),
            });
            collect_labels(body, number, &index, source, &mut labels);
        }
        Self { functions, labels }
    }

    fn function_at(&self, at: Position) -> Option<usize> {
        self.functions
            .iter()
            .position(|f| f.start <= at && at <= f.end)
    }

    /// The name of the function holding instruction `pc`.
    pub(crate) fn function_of(&self, program: &Program, pc: usize) -> Option<&str> {
        let location = program.instructions.get(pc)?.location;
        let function = self.function_at((location.line, location.column))?;
        Some(self.functions[function].name.as_str())
    }

    /// The first instruction of function `name`, if the program has it.
    pub(crate) fn function_start(&self, program: &Program, name: &str) -> Option<usize> {
        let function = self.functions.iter().find(|f| f.name == name)?;
        program
            .instructions
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                let at = (i.location.line, i.location.column);
                function.start <= at && at <= function.end
            })
            .min_by_key(|(_, i)| (i.location.line, i.location.column))
            .map(|(pc, _)| pc)
    }

    /// The instructions a label stands for: per label of that name in a function of the
    /// program, the first instruction written after it in the same function. Also returns the
    /// labels' lines. Empty when no such label exists.
    pub(crate) fn label_targets(&self, program: &Program, name: &str) -> (Vec<usize>, Vec<u32>) {
        let mut pcs = Vec::new();
        let mut lines = Vec::new();
        for label in self.labels.iter().filter(|l| l.name == name) {
            let function = &self.functions[label.function];
            let target = program
                .instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| {
                    let at = (i.location.line, i.location.column);
                    at > label.at && at <= function.end
                })
                .min_by_key(|(_, i)| (i.location.line, i.location.column))
                .map(|(pc, _)| pc);
            if let Some(pc) = target {
                if !pcs.contains(&pc) {
                    pcs.push(pc);
                    lines.push(label.at.0);
                }
            }
        }
        (pcs, lines)
    }
}
