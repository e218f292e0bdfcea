//! Span erasure, for comparing trees regardless of layout (`parse(print(m))` against `m`).

use crate::ast::*;
use crate::span::{Span, Spanned};

impl Module {
    /// A copy of the module with every span set to [`Span::DUMMY`].
    pub fn without_spans(&self) -> Module {
        let mut copy = self.clone();
        copy.clear_spans();
        copy
    }
}

trait ClearSpans {
    fn clear_spans(&mut self);
}

impl ClearSpans for Span {
    fn clear_spans(&mut self) {
        *self = Span::DUMMY;
    }
}

impl<T: ClearSpans> ClearSpans for Spanned<T> {
    fn clear_spans(&mut self) {
        self.span = Span::DUMMY;
        self.value.clear_spans();
    }
}

impl<T: ClearSpans> ClearSpans for Vec<T> {
    fn clear_spans(&mut self) {
        self.iter_mut().for_each(ClearSpans::clear_spans);
    }
}

impl<T: ClearSpans> ClearSpans for Option<T> {
    fn clear_spans(&mut self) {
        if let Some(value) = self {
            value.clear_spans();
        }
    }
}

impl<T: ClearSpans> ClearSpans for Box<T> {
    fn clear_spans(&mut self) {
        (**self).clear_spans();
    }
}

macro_rules! leaf {
    ($($ty:ty),*) => {
        $(impl ClearSpans for $ty {
            fn clear_spans(&mut self) {}
        })*
    };
}

leaf!(
    String,
    crate::span::Text,
    Component,
    VideoSelector,
    u32,
    u64,
    i64,
    Linkage,
    StateSpace,
    FunctionKind,
    Immediate
);

impl ClearSpans for Module {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        if let Some(version) = &mut self.version {
            version.span.clear_spans();
        }
        self.target.clear_spans();
        self.address_size.clear_spans();
        self.items.clear_spans();
    }
}

impl ClearSpans for Item {
    fn clear_spans(&mut self) {
        match self {
            Item::Function(function) => function.clear_spans(),
            Item::Variable(variable) => variable.clear_spans(),
            Item::File(file) => {
                file.span.clear_spans();
                file.index.clear_spans();
                file.path.clear_spans();
                file.extra.clear_spans();
            }
            Item::Section(section) => {
                section.span.clear_spans();
                section.name.clear_spans();
                section.entries.clear_spans();
            }
            Item::Pragma(text) => text.clear_spans(),
            Item::Alias(alias) => {
                alias.span.clear_spans();
                alias.alias.clear_spans();
                alias.aliasee.clear_spans();
            }
        }
    }
}

impl ClearSpans for SectionEntry {
    fn clear_spans(&mut self) {
        match self {
            SectionEntry::Label(label) => label.clear_spans(),
            SectionEntry::Data { span, ty, values } => {
                span.clear_spans();
                ty.clear_spans();
                values.clear_spans();
            }
        }
    }
}

impl ClearSpans for SectionValue {
    fn clear_spans(&mut self) {
        match self {
            SectionValue::Integer(value) => value.clear_spans(),
            SectionValue::String(text) => text.clear_spans(),
            SectionValue::Symbol { span, name, offset } => {
                span.clear_spans();
                name.clear_spans();
                offset.clear_spans();
            }
        }
    }
}

impl ClearSpans for VariableDeclaration {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        self.linkage.clear_spans();
        self.space.clear_spans();
        self.qualifiers.clear_spans();
        self.declarators.clear_spans();
    }
}

impl ClearSpans for Qualifier {
    fn clear_spans(&mut self) {
        match self {
            Qualifier::Align(value) => value.clear_spans(),
            Qualifier::Word(word) | Qualifier::Attribute(word) => word.clear_spans(),
        }
    }
}

impl ClearSpans for Declarator {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        self.name.clear_spans();
        self.range.clear_spans();
        self.dimensions.clear_spans();
        self.initializer.clear_spans();
    }
}

impl ClearSpans for Initializer {
    fn clear_spans(&mut self) {
        match self {
            Initializer::Immediate(immediate) => immediate.clear_spans(),
            Initializer::Address {
                span, name, offset, ..
            } => {
                span.clear_spans();
                name.clear_spans();
                offset.clear_spans();
            }
            Initializer::List(items) => items.clear_spans(),
            Initializer::Property { span, key, value } => {
                span.clear_spans();
                key.clear_spans();
                value.clear_spans();
            }
            Initializer::Mask { span, mask, value } => {
                span.clear_spans();
                mask.clear_spans();
                value.clear_spans();
            }
        }
    }
}

impl ClearSpans for Function {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        self.linkage.clear_spans();
        self.kind.clear_spans();
        self.returns.clear_spans();
        self.name.clear_spans();
        self.params.clear_spans();
        self.directives.clear_spans();
        self.body.clear_spans();
    }
}

impl ClearSpans for FunctionDirective {
    fn clear_spans(&mut self) {
        match self {
            FunctionDirective::Performance { span, name, values } => {
                span.clear_spans();
                name.clear_spans();
                values.clear_spans();
            }
            FunctionDirective::Pragma(text) => text.clear_spans(),
        }
    }
}

impl ClearSpans for Block {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        self.statements.clear_spans();
    }
}

impl ClearSpans for Statement {
    fn clear_spans(&mut self) {
        match self {
            Statement::Instruction(instruction) => instruction.clear_spans(),
            Statement::Label(label) => label.clear_spans(),
            Statement::Declaration(declaration) => declaration.clear_spans(),
            Statement::Block(block) => block.clear_spans(),
            Statement::Loc(loc) => {
                loc.span.clear_spans();
                loc.file.clear_spans();
                loc.line.clear_spans();
                loc.column.clear_spans();
                loc.function_name.clear_spans();
                if let Some((file, line, column)) = &mut loc.inlined_at {
                    file.clear_spans();
                    line.clear_spans();
                    column.clear_spans();
                }
            }
            Statement::Pragma(text) => text.clear_spans(),
            Statement::Prototype(prototype) => {
                prototype.span.clear_spans();
                prototype.label.clear_spans();
                prototype.returns.clear_spans();
                prototype.name.clear_spans();
                prototype.params.clear_spans();
                prototype.directives.clear_spans();
            }
            Statement::Targets(targets) => {
                targets.span.clear_spans();
                targets.label.clear_spans();
                targets.kind.clear_spans();
                targets.targets.clear_spans();
            }
        }
    }
}

impl ClearSpans for Instruction {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        if let Some(guard) = &mut self.guard {
            guard.span.clear_spans();
            guard.predicate.clear_spans();
        }
        self.opcode.clear_spans();
        self.modifiers.clear_spans();
        self.operands.clear_spans();
    }
}

impl ClearSpans for NameRef {
    fn clear_spans(&mut self) {
        self.span.clear_spans();
        self.name.clear_spans();
        self.component.clear_spans();
        self.selector.clear_spans();
    }
}

impl ClearSpans for Operand {
    fn clear_spans(&mut self) {
        match self {
            Operand::Name(name) | Operand::SpecialRegister(name) => name.clear_spans(),
            Operand::Immediate(immediate) => immediate.clear_spans(),
            Operand::Sink(span) => span.clear_spans(),
            Operand::Negated(span, inner, _) => {
                span.clear_spans();
                inner.clear_spans();
            }
            Operand::Pair(span, first, second) => {
                span.clear_spans();
                first.clear_spans();
                second.clear_spans();
            }
            Operand::Vector(items) | Operand::AddressList(items) | Operand::List(items) => {
                items.clear_spans()
            }
            Operand::NameOffset(offset) => {
                offset.span.clear_spans();
                offset.name.clear_spans();
                offset.offset.clear_spans();
            }
            Operand::Address(address) => {
                address.span.clear_spans();
                match &mut address.base {
                    AddressBase::Name(name) => name.clear_spans(),
                    AddressBase::Immediate(value) => value.clear_spans(),
                }
                address.offset.clear_spans();
            }
        }
    }
}
