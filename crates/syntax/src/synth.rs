//! Synthetic large modules for throughput benchmarks (the divan bench and
//! `scripts/bench-vs-ptxas.sh`): real functions copied many times under fresh names.

use crate::ast::*;
use crate::span::Text;
use std::collections::HashSet;

/// Builds a module of at least `target_bytes` bytes from the functions and module variables of
/// `seeds` (PTX sources that parse without errors; the others are skipped). Copy `n` of every
/// module-scope symbol `s` is named `s_cN`, and references inside the copy are renamed with it,
/// so the result has no duplicate definitions. Debug sections, `.file` and `.loc` are dropped.
/// Only seeds for 64-bit addressing and targets up to `sm_100` are used, so that the header
/// `.version` (the newest seed version) / `.target sm_100a` / `.address_size 64` fits all of
/// them. Returns an empty string when no seed is usable.
pub fn large_module(seeds: &[&str], target_bytes: usize) -> String {
    let mut templates = Vec::new();
    let mut version = (7, 0);
    for seed in seeds {
        let (module, diagnostics) = crate::parse(seed);
        if diagnostics.iter().any(|diagnostic| diagnostic.is_error()) {
            continue;
        }
        let targets_fit = module
            .target
            .as_ref()
            .is_some_and(|target| target.value.iter().all(|name| fits_sm_100a(&name.value)));
        if !targets_fit {
            continue;
        }
        if let Some(seed_version) = &module.version {
            version = version.max((seed_version.major, seed_version.minor));
        }
        if module.address_size.is_some_and(|size| size.value != 64) {
            continue;
        }
        let items: Vec<Item> = module
            .items
            .into_iter()
            .filter_map(|item| match item {
                Item::Function(mut function) => {
                    if let Some(body) = &mut function.body {
                        strip_locs(body);
                    }
                    Some(Item::Function(function))
                }
                Item::Variable(variable) => Some(Item::Variable(variable)),
                Item::Alias(alias) => Some(Item::Alias(alias)),
                Item::File(_) | Item::Section(_) | Item::Pragma(_) => None,
            })
            .collect();
        if !items.is_empty() {
            templates.push(items);
        }
    }
    if templates.is_empty() {
        return String::new();
    }
    let mut out = format!(
        ".version {}.{}\n.target sm_100a\n.address_size 64\n",
        version.0, version.1
    );
    let mut copy = 0usize;
    while out.len() < target_bytes {
        for template in &templates {
            let symbols: HashSet<Text> = template
                .iter()
                .flat_map(|item| match item {
                    Item::Function(function) => vec![function.name.value.clone()],
                    Item::Variable(variable) => variable
                        .declarators
                        .iter()
                        .map(|declarator| declarator.name.value.clone())
                        .collect(),
                    _ => Vec::new(),
                })
                .collect();
            let suffix = format!("_c{copy}");
            for item in template {
                let mut item = item.clone();
                rename_item(&mut item, &symbols, &suffix);
                out.push('\n');
                out.push_str(&item.to_string());
            }
            copy += 1;
        }
    }
    out
}

/// Whether code for target `name` also assembles for `sm_100a`.
fn fits_sm_100a(name: &str) -> bool {
    let digits = name
        .strip_prefix("sm_")
        .or_else(|| name.strip_prefix("compute_"));
    let Some(digits) = digits else { return false };
    let digits = digits.trim_end_matches(['a', 'f']);
    digits.parse::<u32>().is_ok_and(|number| number <= 100)
}

fn strip_locs(block: &mut Block) {
    block
        .statements
        .retain(|statement| !matches!(statement, Statement::Loc(_)));
    for statement in &mut block.statements {
        if let Statement::Block(inner) = statement {
            strip_locs(inner);
        }
    }
}

fn rename(name: &mut Text, symbols: &HashSet<Text>, suffix: &str) {
    if symbols.contains(name.as_str()) {
        name.push_str(suffix);
    }
}

fn rename_item(item: &mut Item, symbols: &HashSet<Text>, suffix: &str) {
    match item {
        Item::Function(function) => {
            rename(&mut function.name.value, symbols, suffix);
            if let Some(body) = &mut function.body {
                rename_block(body, symbols, suffix);
            }
        }
        Item::Variable(variable) => {
            for declarator in &mut variable.declarators {
                rename(&mut declarator.name.value, symbols, suffix);
                if let Some(initializer) = &mut declarator.initializer {
                    rename_initializer(initializer, symbols, suffix);
                }
            }
        }
        Item::Alias(alias) => {
            rename(&mut alias.alias.value, symbols, suffix);
            rename(&mut alias.aliasee.value, symbols, suffix);
        }
        Item::File(_) | Item::Section(_) | Item::Pragma(_) => {}
    }
}

fn rename_initializer(initializer: &mut Initializer, symbols: &HashSet<Text>, suffix: &str) {
    match initializer {
        Initializer::Immediate(_) | Initializer::Property { .. } => {}
        Initializer::Address { name, .. } => rename(&mut name.value, symbols, suffix),
        Initializer::List(items) => {
            for item in &mut items.value {
                rename_initializer(item, symbols, suffix);
            }
        }
        Initializer::Mask { value, .. } => rename_initializer(value, symbols, suffix),
    }
}

fn rename_block(block: &mut Block, symbols: &HashSet<Text>, suffix: &str) {
    for statement in &mut block.statements {
        match statement {
            Statement::Instruction(instruction) => {
                for operand in &mut instruction.operands {
                    rename_operand(operand, symbols, suffix);
                }
            }
            Statement::Block(inner) => rename_block(inner, symbols, suffix),
            Statement::Targets(targets) => {
                for target in &mut targets.targets {
                    rename(&mut target.value, symbols, suffix);
                }
            }
            Statement::Declaration(declaration) => {
                for declarator in &mut declaration.declarators {
                    if let Some(initializer) = &mut declarator.initializer {
                        rename_initializer(initializer, symbols, suffix);
                    }
                }
            }
            Statement::Label(_)
            | Statement::Loc(_)
            | Statement::Pragma(_)
            | Statement::Prototype(_) => {}
        }
    }
}

fn rename_operand(operand: &mut Operand, symbols: &HashSet<Text>, suffix: &str) {
    match operand {
        Operand::Name(name) => rename(&mut name.name.value, symbols, suffix),
        Operand::Negated(_, inner, _) => rename_operand(inner, symbols, suffix),
        Operand::Pair(_, first, second) => {
            rename_operand(first, symbols, suffix);
            rename_operand(second, symbols, suffix);
        }
        Operand::Vector(items) | Operand::AddressList(items) | Operand::List(items) => {
            for item in &mut items.value {
                rename_operand(item, symbols, suffix);
            }
        }
        Operand::Address(address) => {
            if let AddressBase::Name(name) = &mut address.base {
                rename(&mut name.name.value, symbols, suffix);
            }
        }
        Operand::NameOffset(offset) => rename(&mut offset.name.name.value, symbols, suffix),
        Operand::SpecialRegister(_) | Operand::Immediate(_) | Operand::Sink(_) => {}
    }
}
