//! `Display` for the syntax tree: prints valid PTX that parses back to the same tree (spans
//! aside). Formatting is canonical (tabs, one statement per line), not the original layout.

use crate::ast::*;
use std::fmt::{self, Display, Formatter, Write};

fn comma_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn indent(f: &mut Formatter<'_>, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        f.write_char('\t')?;
    }
    Ok(())
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(version) = &self.version {
            writeln!(f, ".version {}.{}", version.major, version.minor)?;
        }
        if let Some(target) = &self.target {
            f.write_str(".target ")?;
            comma_list(f, &target.value)?;
            f.write_char('\n')?;
        }
        if let Some(size) = &self.address_size {
            writeln!(f, ".address_size {size}")?;
        }
        for item in &self.items {
            writeln!(f)?;
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::Function(function) => write!(f, "{function}"),
            Item::Variable(variable) => writeln!(f, "{variable};"),
            Item::File(file) => {
                write!(f, ".file {} \"{}\"", file.index, file.path)?;
                for extra in &file.extra {
                    write!(f, ", {extra}")?;
                }
                writeln!(f)
            }
            Item::Section(section) => {
                writeln!(f, ".section {}", section.name)?;
                writeln!(f, "{{")?;
                for entry in &section.entries {
                    match entry {
                        SectionEntry::Label(label) => writeln!(f, "{label}:")?,
                        SectionEntry::Data { ty, values, .. } => {
                            write!(f, ".{ty} ")?;
                            comma_list(f, values)?;
                            writeln!(f)?;
                        }
                    }
                }
                writeln!(f, "}}")
            }
            Item::Pragma(text) => writeln!(f, ".pragma \"{text}\";"),
            Item::Alias(alias) => writeln!(f, ".alias {}, {};", alias.alias, alias.aliasee),
        }
    }
}

impl Display for SectionValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SectionValue::Integer(value) => write!(f, "{value}"),
            SectionValue::String(text) => write!(f, "\"{text}\""),
            SectionValue::Symbol { name, offset, .. } => {
                write!(f, "{name}")?;
                write_offset(f, offset.as_ref().map(|offset| offset.value))
            }
        }
    }
}

fn write_offset(f: &mut Formatter<'_>, offset: Option<i64>) -> fmt::Result {
    match offset {
        None => Ok(()),
        Some(value) if value < 0 => write!(f, "+-{}", value.unsigned_abs()),
        Some(value) => write!(f, "+{value}"),
    }
}

impl Display for VariableDeclaration {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for linkage in &self.linkage {
            write!(f, ".{} ", linkage.value.as_str())?;
        }
        write!(f, ".{}", self.space.value.as_str())?;
        for qualifier in &self.qualifiers {
            match qualifier {
                Qualifier::Align(value) => write!(f, " .align {value}")?,
                Qualifier::Word(word) => write!(f, " .{word}")?,
                Qualifier::Attribute(name) => write!(f, " .attribute(.{name})")?,
            }
        }
        f.write_char(' ')?;
        comma_list(f, &self.declarators)
    }
}

impl Display for Declarator {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(range) = &self.range {
            write!(f, "<{range}>")?;
        }
        for dimension in &self.dimensions {
            match dimension {
                Some(size) => write!(f, "[{size}]")?,
                None => f.write_str("[]")?,
            }
        }
        if let Some(initializer) = &self.initializer {
            write!(f, " = {initializer}")?;
        }
        Ok(())
    }
}

impl Display for Initializer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Immediate(immediate) => write!(f, "{immediate}"),
            Initializer::Address {
                name,
                generic,
                offset,
                ..
            } => {
                if *generic {
                    write!(f, "generic({name})")?;
                } else {
                    write!(f, "{name}")?;
                }
                write_offset(f, offset.as_ref().map(|offset| offset.value))
            }
            Initializer::List(items) => {
                f.write_char('{')?;
                comma_list(f, &items.value)?;
                f.write_char('}')
            }
            Initializer::Property { key, value, .. } => write!(f, "{key} = {value}"),
            Initializer::Mask { mask, value, .. } => write!(f, "{mask}({value})"),
        }
    }
}

fn write_parameters(
    f: &mut Formatter<'_>,
    params: &[VariableDeclaration],
    multiline: bool,
) -> fmt::Result {
    if params.is_empty() {
        return f.write_str("()");
    }
    f.write_char('(')?;
    for (index, param) in params.iter().enumerate() {
        if index > 0 {
            f.write_char(',')?;
            if !multiline {
                f.write_char(' ')?;
            }
        }
        if multiline {
            f.write_str("\n\t")?;
        }
        write!(f, "{param}")?;
    }
    if multiline {
        f.write_char('\n')?;
    }
    f.write_char(')')
}

impl Display for FunctionDirective {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FunctionDirective::Performance { name, values, .. } => {
                write!(f, ".{name}")?;
                if !values.is_empty() {
                    f.write_char(' ')?;
                    comma_list(f, values)?;
                }
                Ok(())
            }
            FunctionDirective::Pragma(text) => write!(f, ".pragma \"{text}\";"),
        }
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for linkage in &self.linkage {
            write!(f, ".{} ", linkage.value.as_str())?;
        }
        f.write_str(match self.kind.value {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        })?;
        if let Some(returns) = &self.returns {
            write_parameters(f, returns, false)?;
            f.write_char(' ')?;
        }
        write!(f, "{}", self.name)?;
        if let Some(params) = &self.params {
            write_parameters(f, params, true)?;
        }
        for directive in &self.directives {
            write!(f, "\n{directive}")?;
        }
        match &self.body {
            None => f.write_str(";\n"),
            Some(body) => {
                f.write_char('\n')?;
                write_block(f, body, 0)?;
                f.write_char('\n')
            }
        }
    }
}

fn write_block(f: &mut Formatter<'_>, block: &Block, depth: usize) -> fmt::Result {
    f.write_str("{\n")?;
    for statement in &block.statements {
        write_statement(f, statement, depth + 1)?;
    }
    indent(f, depth)?;
    f.write_char('}')
}

fn write_statement(f: &mut Formatter<'_>, statement: &Statement, depth: usize) -> fmt::Result {
    match statement {
        Statement::Label(label) => return writeln!(f, "{label}:"),
        Statement::Block(block) => {
            indent(f, depth)?;
            write_block(f, block, depth)?;
        }
        Statement::Instruction(instruction) => {
            indent(f, depth)?;
            write!(f, "{instruction};")?;
        }
        Statement::Declaration(declaration) => {
            indent(f, depth)?;
            write!(f, "{declaration};")?;
        }
        Statement::Loc(loc) => {
            indent(f, depth)?;
            write!(f, "{loc}")?;
        }
        Statement::Pragma(text) => {
            indent(f, depth)?;
            write!(f, ".pragma \"{text}\";")?;
        }
        Statement::Prototype(prototype) => {
            write!(f, "{}: .callprototype ", prototype.label)?;
            if let Some(returns) = &prototype.returns {
                write_parameters(f, returns, false)?;
                f.write_char(' ')?;
            }
            write!(f, "{}", prototype.name)?;
            if let Some(params) = &prototype.params {
                f.write_char(' ')?;
                write_parameters(f, params, false)?;
            }
            for directive in &prototype.directives {
                write!(f, " {directive}")?;
            }
            f.write_char(';')?;
        }
        Statement::Targets(targets) => {
            write!(f, "{}: .{} ", targets.label, targets.kind)?;
            comma_list(f, &targets.targets)?;
            f.write_char(';')?;
        }
    }
    f.write_char('\n')
}

impl Display for Block {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_block(f, self, 0)
    }
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_statement(f, self, 0)
    }
}

impl Display for Loc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".loc {} {} {}", self.file, self.line, self.column)?;
        if let Some(name) = &self.function_name {
            write!(f, ", function_name {name}")?;
        }
        if let Some((file, line, column)) = &self.inlined_at {
            write!(f, ", inlined_at {file} {line} {column}")?;
        }
        Ok(())
    }
}

impl Display for Instruction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(guard) = &self.guard {
            write!(f, "{guard} ")?;
        }
        write!(f, "{}", self.opcode)?;
        for modifier in &self.modifiers {
            write!(f, ".{modifier}")?;
        }
        if !self.operands.is_empty() {
            f.write_char(' ')?;
            comma_list(f, &self.operands)?;
        }
        Ok(())
    }
}

impl Display for Guard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let bang = if self.negated { "!" } else { "" };
        write!(f, "@{bang}{}", self.predicate)
    }
}

impl Display for NameRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(component) = &self.component {
            write!(f, ".{component}")?;
        }
        if let Some(selector) = &self.selector {
            write!(f, ".{}", selector.value)?;
        }
        Ok(())
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Name(name) | Operand::SpecialRegister(name) => write!(f, "{name}"),
            Operand::Immediate(immediate) => write!(f, "{immediate}"),
            Operand::Sink(_) => f.write_char('_'),
            Operand::Negated(_, inner, Negation::Not) => write!(f, "!{inner}"),
            Operand::Negated(_, inner, Negation::Minus) => write!(f, "-{inner}"),
            Operand::Pair(_, first, second) => write!(f, "{first}|{second}"),
            Operand::Vector(items) => {
                f.write_char('{')?;
                comma_list(f, &items.value)?;
                f.write_char('}')
            }
            Operand::Address(address) => write!(f, "{address}"),
            Operand::NameOffset(offset) if offset.indexed => {
                write!(f, "{}[{}]", offset.name, offset.offset.value)
            }
            Operand::NameOffset(offset) => write!(f, "{}+{}", offset.name, offset.offset.value),
            Operand::AddressList(items) => {
                f.write_char('[')?;
                comma_list(f, &items.value)?;
                f.write_char(']')
            }
            Operand::List(items) => {
                f.write_char('(')?;
                comma_list(f, &items.value)?;
                f.write_char(')')
            }
        }
    }
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.base {
            AddressBase::Name(name) => write!(f, "{name}")?,
            AddressBase::Immediate(value) => write!(f, "{value}")?,
        }
        write_offset(f, self.offset.as_ref().map(|offset| offset.value))?;
        f.write_char(']')?;
        if self.unified {
            f.write_str(".unified")?;
        }
        Ok(())
    }
}

impl Display for Immediate {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_char('-')?;
        }
        match &self.value {
            ImmediateValue::Integer {
                value,
                radix,
                unsigned,
            } => {
                match radix {
                    Radix::Decimal => write!(f, "{value}")?,
                    Radix::Hexadecimal => write!(f, "0x{value:X}")?,
                    Radix::Octal => write!(f, "0{value:o}")?,
                    Radix::Binary => write!(f, "0b{value:b}")?,
                }
                if *unsigned {
                    f.write_char('U')?;
                }
                Ok(())
            }
            ImmediateValue::F32Bits(bits) => write!(f, "0f{bits:08X}"),
            ImmediateValue::F64Bits(bits) => write!(f, "0d{bits:016X}"),
            ImmediateValue::Decimal(text) => f.write_str(text),
        }
    }
}
