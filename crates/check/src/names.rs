//! Name resolution: declarations, scopes, labels and every name an instruction mentions.

use crate::hash::{FxHashMap, FxHashSet, le_word};
use crate::program::{BuildError, Builder, Uses};
use crate::rules::{
    DeclaredRegister, FormCache, InstructionContext, ModuleSetting, SharedForms, check_instruction,
};
use crate::spaces::{Home, Naming};
use ptxsim_isa::{
    Element as IsaElement, Opcode, Operand as IsaOperand, SymbolKind, Type, TypeKind,
};
use ptxsim_syntax::ast::*;
use ptxsim_syntax::{Diagnostic, Span, Spanned, Text};
use std::cell::OnceCell;
use std::sync::Arc;

/// Resolves every name in `module` and runs the per-instruction rules; returns the diagnostics
/// (unsorted).
///
/// With `chunks > 1`, the items are split into that many runs of about equal size in bytes,
/// checked on their own threads. A function's checks depend on the module before it only
/// through the module-scope names declared so far, so each thread first declares the names of
/// the items before its run (silently), then checks its run. The diagnostics come back in the
/// order the sequential walk produces them.
pub(crate) fn resolve(module: &Module, setting: &ModuleSetting, chunks: usize) -> Vec<Diagnostic> {
    let everywhere = collect_module_names(module);
    let forms = Arc::<SharedForms>::default();
    let runs = item_runs(module, chunks);
    if runs.len() <= 1 {
        return resolve_run(module, setting, &everywhere, &forms, 0..module.items.len());
    }
    std::thread::scope(|scope| {
        let (everywhere, forms) = (&everywhere, &forms);
        let handles: Vec<_> = runs[1..]
            .iter()
            .map(|run| {
                let run = run.clone();
                scope.spawn(move || resolve_run(module, setting, everywhere, forms, run))
            })
            .collect();
        let mut diagnostics = resolve_run(module, setting, everywhere, forms, runs[0].clone());
        for handle in handles {
            match handle.join() {
                Ok(mut more) => diagnostics.append(&mut more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        diagnostics
    })
}

/// Splits the items of `module` into at most `chunks` runs of about equal size in bytes.
fn item_runs(module: &Module, chunks: usize) -> Vec<std::ops::Range<usize>> {
    let items = &module.items;
    let total: usize = items.iter().map(|item| item.span().len()).sum();
    let mut runs = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (index, item) in items.iter().enumerate() {
        size += item.span().len();
        if runs.len() + 1 < chunks && size * chunks >= total * (runs.len() + 1) {
            runs.push(start..index + 1);
            start = index + 1;
        }
    }
    if start < items.len() || runs.is_empty() {
        runs.push(start..items.len());
    }
    runs
}

/// Checks the items `run` of `module`, after declaring the module-scope names of the items
/// before it.
fn resolve_run(
    module: &Module,
    setting: &ModuleSetting,
    everywhere: &FxHashMap<&str, Span>,
    forms: &Arc<SharedForms>,
    run: std::ops::Range<usize>,
) -> Vec<Diagnostic> {
    let mut resolver = Resolver::new(module, setting, Some(everywhere), Arc::clone(forms));
    for item in module.items.get(..run.start).unwrap_or_default() {
        resolver.declare_item(item);
    }
    resolver.diagnostics.clear();
    for item in module.items.get(run).unwrap_or_default() {
        resolver.item(item);
    }
    resolver.diagnostics
}

/// Builds the program of `kernel` and of the device functions it calls (see
/// [`crate::program`]): the module-scope variables in source order, then the kernel, then each
/// device function in the order of its first call, each walked by a [`FunctionChecker`] that
/// hands what the names resolve to to `builder`.
pub(crate) fn build<'m>(
    module: &'m Module,
    setting: &'m ModuleSetting,
    builder: &mut Builder<'m>,
    kernel: &'m Function,
    reach: &crate::limits::KernelReach,
) -> Result<(), BuildError> {
    let mut resolver = Resolver::new(module, setting, None, Arc::default());
    for item in &module.items {
        resolver.declare_item(item);
    }
    builder.declare_functions(module);
    builder.set_module_names(Some(reach.names.clone()));
    for item in &module.items {
        if let Item::Variable(variable) = item {
            let mut uses = Uses::new();
            for declarator in &variable.declarators {
                if let Some(initializer) = &declarator.initializer {
                    resolver.module_initializer_uses(initializer, &mut uses);
                }
            }
            builder.module_variable(variable, uses);
        }
    }
    builder.set_module_names(None);
    builder.place_dynamic_shared(crate::program::function_shared(module, &reach.functions));
    builder.kernel(kernel);
    build_function(&mut resolver, builder, kernel)?;
    while let Some(callee) = builder.next_callee() {
        builder.callee(callee);
        build_function(&mut resolver, builder, callee)?;
    }
    Ok(())
}

/// Walks the body of `function` for `builder`.
fn build_function<'m>(
    resolver: &mut Resolver<'m>,
    builder: &mut Builder<'m>,
    function: &'m Function,
) -> Result<(), BuildError> {
    let Some(body) = &function.body else {
        return Ok(());
    };
    let mut checker = FunctionChecker::new(resolver, function);
    checker.builder = Some(&mut *builder);
    checker.function_body(function, body);
    if let Some(error) = checker.build_error.take() {
        return Err(error);
    }
    builder.end_function(function);
    Ok(())
}

/// Every module-scope name with its first declaration, for "declared later" hints.
fn collect_module_names(module: &Module) -> FxHashMap<&str, Span> {
    let mut everywhere = FxHashMap::default();
    for item in &module.items {
        for name in module_names(item) {
            everywhere.entry(name.as_str()).or_insert(name.span);
        }
    }
    everywhere
}

/// The module-scope names an item declares, in source order.
fn module_names(item: &Item) -> impl Iterator<Item = &Spanned<Text>> {
    let (function, variable) = match item {
        Item::Function(function) => (Some(&function.name), None),
        Item::Variable(variable) => (None, Some(&variable.declarators)),
        Item::File(_) | Item::Section(_) | Item::Pragma(_) | Item::Alias(_) => (None, None),
    };
    function.into_iter().chain(
        variable
            .into_iter()
            .flatten()
            .map(|declarator| &declarator.name),
    )
}

/// Checks a module one item at a time, in source order, without holding the items: each item
/// may be dropped once [`ItemStream::item`] returns. Several streams can share the items of one
/// module: each checks a run of items after declaring ([`ItemStream::declare`]) the module-scope
/// names of the items before it that the others checked. Hints that name a module-scope
/// declaration further down ("used before its declaration") wait until [`finish_pieces`], when
/// every name is known. The diagnostics are those of [`resolve`] on the whole module.
pub(crate) struct ItemStream<'m> {
    resolver: Resolver<'m>,
}

impl<'m> ItemStream<'m> {
    /// A stream for a module whose header (`.version`, `.target`) is `header`; its items are
    /// ignored.
    pub(crate) fn new(
        header: &'m Module,
        setting: &'m ModuleSetting,
        forms: Arc<SharedForms>,
    ) -> Self {
        ItemStream {
            resolver: Resolver::new(header, setting, None, forms),
        }
    }

    /// Checks the next item.
    pub(crate) fn item(&mut self, item: &Item) {
        self.resolver.item(item);
    }

    /// Declares module-scope names of items another stream checks, as [`ItemStream::item`]
    /// would, without their diagnostics.
    pub(crate) fn declare(&mut self, declarations: &[ModuleDeclaration]) {
        let reported = self.resolver.diagnostics.len();
        for declaration in declarations {
            self.resolver.declare_signature(declaration);
            self.resolver
                .declare_module(&declaration.name, declaration.symbol);
        }
        self.resolver.diagnostics.truncate(reported);
    }

    /// The diagnostics of the items checked since the last call, with the hints that wait for
    /// every module-scope name ([`finish_pieces`] words them).
    pub(crate) fn take_piece(&mut self) -> CheckedPiece {
        CheckedPiece {
            diagnostics: std::mem::take(&mut self.resolver.diagnostics),
            pending: std::mem::take(&mut self.resolver.pending),
        }
    }
}

/// What [`ItemStream::take_piece`] gives: the diagnostics of some items, and by index into them
/// the hints that wait for every module-scope name.
#[derive(Debug)]
pub(crate) struct CheckedPiece {
    diagnostics: Vec<Diagnostic>,
    pending: Vec<(usize, Hint)>,
}

/// The diagnostics of pieces checked by several [`ItemStream`]s, in source order, given every
/// module-scope declaration of the module in source order; as [`ItemStream::finish`] gives
/// them for one stream that checked every item. The declarations are only looked at if a
/// hint waits for them.
pub(crate) fn finish_pieces(
    pieces: Vec<CheckedPiece>,
    declarations: impl IntoIterator<Item = ModuleDeclaration>,
) -> Vec<Diagnostic> {
    let mut everywhere: FxHashMap<Text, Span> = FxHashMap::default();
    if pieces.iter().any(|piece| !piece.pending.is_empty()) {
        for declaration in declarations {
            everywhere
                .entry(declaration.name.value)
                .or_insert(declaration.name.span);
        }
    }
    let mut diagnostics = Vec::new();
    for piece in pieces {
        let offset = diagnostics.len();
        diagnostics.extend(piece.diagnostics);
        for (index, hint) in piece.pending {
            let later = everywhere.get(hint.name()).copied();
            if let Some(slot) = diagnostics.get_mut(offset + index) {
                *slot = hint.diagnostic(later);
            }
        }
    }
    diagnostics
}

/// A module-scope name an item declares, and what it is.
#[derive(Clone, Debug)]
pub(crate) struct ModuleDeclaration {
    name: Spanned<Text>,
    symbol: ModuleSymbol,
    /// A function's parameters, for the calls of other pieces.
    signature: Option<Arc<Signature>>,
}

/// Appends the module-scope names `item` declares, in the order [`Resolver::item`] declares
/// them.
pub(crate) fn module_declarations(item: &Item, out: &mut Vec<ModuleDeclaration>) {
    let symbol = match item {
        Item::Variable(variable) => ModuleSymbol::Variable {
            external: variable
                .linkage
                .iter()
                .any(|linkage| linkage.value == Linkage::Extern),
            home: variable_home(variable),
        },
        Item::Function(function) => ModuleSymbol::Function {
            entry: function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry,
            defined: function.body.is_some(),
            arity: Arity::of(function),
            linkage: function.linkage.first().map(|linkage| linkage.value),
        },
        Item::File(_) | Item::Section(_) | Item::Pragma(_) | Item::Alias(_) => return,
    };
    let signature = match item {
        Item::Function(function) => Some(Arc::new(signature(function))),
        _ => None,
    };
    out.extend(module_names(item).map(|name| ModuleDeclaration {
        name: name.clone(),
        symbol,
        signature: signature.clone(),
    }));
}

/// What a module-scope name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ModuleSymbol {
    Variable {
        external: bool,
        home: Option<Home>,
    },
    Function {
        /// A kernel (`.entry`).
        entry: bool,
        defined: bool,
        arity: Arity,
        linkage: Option<Linkage>,
    },
}

/// The return and input parameters of a function: name and shape.
type Signature = (Vec<ParameterShape>, Vec<ParameterShape>);

/// A parameter's name and, if known, its shape.
type ParameterShape = (Text, Option<crate::declarations::Shape>);

/// The [`Signature`] of `function`.
fn signature(function: &Function) -> Signature {
    signature_of(&function.returns, &function.params)
}

/// The [`Signature`] of these return and input parameter lists.
fn signature_of(
    returns: &Option<Vec<VariableDeclaration>>,
    params: &Option<Vec<VariableDeclaration>>,
) -> Signature {
    let shapes = |list: &Option<Vec<VariableDeclaration>>| {
        list.iter()
            .flatten()
            .flat_map(|declaration| {
                declaration.declarators.iter().map(move |declarator| {
                    (
                        declarator.name.value.clone(),
                        crate::declarations::shape(declaration, declarator),
                    )
                })
            })
            .collect()
    };
    (shapes(returns), shapes(params))
}

/// How many return and input parameters a function declares (saturated at `u16::MAX`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Arity {
    returns: u16,
    params: u16,
    /// The last input parameter is an array without elements, which a call may leave out
    /// (ptxas 13.5 takes `call f, ();` of `.func f(.param .b8 p[])`).
    optional_last: bool,
}

impl Arity {
    fn of(function: &Function) -> Arity {
        let count = |list: &Option<Vec<VariableDeclaration>>| {
            u16::try_from(list.as_ref().map_or(0, Vec::len)).unwrap_or(u16::MAX)
        };
        Arity {
            returns: count(&function.returns),
            params: count(&function.params),
            optional_last: function
                .params
                .as_ref()
                .and_then(|params| params.last())
                .is_some_and(crate::declarations::is_incomplete_array),
        }
    }
}

impl ModuleSymbol {
    /// What a use of the name declared at `span` resolves to.
    fn found(self, span: Span) -> Found {
        let (symbol, home) = match self {
            ModuleSymbol::Variable { home, .. } => (SymbolKind::Variable, home),
            ModuleSymbol::Function { .. } => (SymbolKind::Function, Some(Home::Function)),
        };
        Found {
            span,
            ty: None,
            symbol: Some(symbol),
            home,
        }
    }
}

/// A `.param::func` address in a kernel.
fn kernel_func_param(span: Span) -> Diagnostic {
    Diagnostic::error(
        "E0331",
        "`.param::func` addresses the parameters of a function; in a kernel, only a `.param` \
         variable of the body",
        span,
    )
    .with_help("use `.param` (or `.param::entry` for the kernel's parameters)")
}

/// Where the variables of a declaration live ([`Home::of`]).
fn variable_home(declaration: &VariableDeclaration) -> Option<Home> {
    Home::of(
        declaration.space.value,
        declaration.words().map(|word| word.value.as_str()),
    )
}

/// The role a name plays where it is used; it only changes the wording of diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A branch target or call prototype.
    Label,
    /// The callee of `call`.
    Function,
    /// A predicate guard.
    Predicate,
    /// Any other operand.
    Value,
}

/// A diagnostic about an unknown name whose wording depends on whether the module declares the
/// name further down.
#[derive(Debug)]
enum Hint {
    /// A name in a module-scope initializer.
    Initializer { name: String, span: Span },
    /// A name used in a function body, not declared in the function.
    Use {
        name: String,
        span: Span,
        role: Role,
    },
}

impl Hint {
    fn name(&self) -> &str {
        match self {
            Hint::Initializer { name, .. } | Hint::Use { name, .. } => name,
        }
    }

    /// The diagnostic, given the first module-scope declaration of the name, if any.
    fn diagnostic(&self, later: Option<Span>) -> Diagnostic {
        match *self {
            Hint::Initializer { ref name, span } => undeclared_module_symbol(name, span, later),
            Hint::Use {
                ref name,
                span,
                role,
            } => undeclared_use(name, span, role, later),
        }
    }
}

struct Resolver<'m> {
    module: &'m Module,
    /// The module's `.target` and `.version` as the rules see them.
    setting: &'m ModuleSetting,
    /// Decoding and gating results per mnemonic, shared with the other threads checking the
    /// module.
    forms: FormCache,
    /// Reused buffers for the operands of the instruction being checked.
    operands: Vec<IsaOperand>,
    registers: Vec<DeclaredRegister>,
    /// Module-scope names declared so far (ptxas requires declaration before use).
    declared: FxHashMap<Box<str>, (ModuleSymbol, Span)>,
    /// The shapes of the return and input parameters of the functions declared so far (by
    /// this checker: in pieces, a function of another piece has none here), each by its first
    /// declaration; `None` for a parameter whose shape is unknown.
    signatures: FxHashMap<Box<str>, Arc<Signature>>,
    /// Every module-scope name with its first declaration, for "declared later" hints; `None`
    /// while the module is read item by item ([`ItemStream`]).
    everywhere: Option<&'m FxHashMap<&'m str, Span>>,
    /// Without `everywhere`: the diagnostics that need it, by index into `diagnostics` (which
    /// holds a placeholder there).
    pending: Vec<(usize, Hint)>,
    diagnostics: Vec<Diagnostic>,
    /// Names of up to eight bytes resolved since the scopes of the function being checked last
    /// changed (registers, mostly, each used several times), by [`le_word`]: a hit skips the scope
    /// lookups. Kept from one function to the next ([`RECENT_NAMES`] slots, allocated once).
    recent: Vec<RecentName>,
    /// Bumped at each function and whenever its scopes change; entries of older generations
    /// are stale.
    generation: u64,
}

impl<'m> Resolver<'m> {
    fn new(
        module: &'m Module,
        setting: &'m ModuleSetting,
        everywhere: Option<&'m FxHashMap<&'m str, Span>>,
        forms: Arc<SharedForms>,
    ) -> Self {
        Resolver {
            module,
            setting,
            forms: FormCache::sharing(forms),
            operands: Vec::new(),
            registers: Vec::new(),
            declared: FxHashMap::default(),
            signatures: FxHashMap::default(),
            everywhere,
            pending: Vec::new(),
            diagnostics: Vec::new(),
            recent: vec![RecentName::default(); RECENT_NAMES],
            generation: 1,
        }
    }

    /// Reports `hint` now if every module-scope name is known, else leaves a placeholder.
    fn report(&mut self, hint: Hint) {
        match self.everywhere {
            Some(everywhere) => {
                let later = everywhere.get(hint.name()).copied();
                self.diagnostics.push(hint.diagnostic(later));
            }
            None => {
                let placeholder = hint.diagnostic(None);
                self.pending.push((self.diagnostics.len(), hint));
                self.diagnostics.push(placeholder);
            }
        }
    }

    /// Declares the module-scope names of `item` as [`Resolver::item`] does, without checking
    /// initializers or bodies.
    fn declare_item(&mut self, item: &Item) {
        let mut declarations = Vec::new();
        module_declarations(item, &mut declarations);
        for declaration in &declarations {
            self.declare_signature(declaration);
            self.declare_module(&declaration.name, declaration.symbol);
        }
    }

    /// Keeps a function's [`Signature`] for the calls to it (its first declaration's).
    fn declare_signature(&mut self, declaration: &ModuleDeclaration) {
        if let Some(signature) = &declaration.signature
            && !self.signatures.contains_key(declaration.name.as_str())
        {
            self.signatures
                .insert(declaration.name.as_str().into(), Arc::clone(signature));
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Variable(variable) => {
                crate::rules::check_declaration(self.setting, variable, &mut self.diagnostics);
                crate::rules::check_complete_type(variable, false, &mut self.diagnostics);
                crate::declarations::check_form(
                    self.setting,
                    variable,
                    crate::declarations::Scope::Module,
                    &mut self.diagnostics,
                );
                let external = variable
                    .linkage
                    .iter()
                    .any(|linkage| linkage.value == Linkage::Extern);
                for declarator in &variable.declarators {
                    if let Some(initializer) = &declarator.initializer {
                        self.module_initializer(initializer);
                    }
                    self.declare_module(
                        &declarator.name,
                        ModuleSymbol::Variable {
                            external,
                            home: variable_home(variable),
                        },
                    );
                }
            }
            Item::Function(function) => {
                if !self.signatures.contains_key(function.name.as_str()) {
                    self.signatures
                        .insert(function.name.as_str().into(), Arc::new(signature(function)));
                }
                self.declare_module(
                    &function.name,
                    ModuleSymbol::Function {
                        entry: function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry,
                        defined: function.body.is_some(),
                        arity: Arity::of(function),
                        linkage: function.linkage.first().map(|linkage| linkage.value),
                    },
                );
                // ptxas 13.5 takes a `.b128` parameter of a prototype without a body on any
                // target (`.extern .entry k(.param .b128 p);` on sm_52).
                for parameter in function
                    .returns
                    .iter()
                    .chain(function.params.iter())
                    .flatten()
                    .filter(|_| function.body.is_some())
                {
                    crate::rules::check_declaration(self.setting, parameter, &mut self.diagnostics);
                }
                {
                    use crate::declarations::{Scope, check_form};
                    let entry = function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry;
                    for parameter in function.returns.iter().flatten() {
                        check_form(
                            self.setting,
                            parameter,
                            Scope::FunctionReturn,
                            &mut self.diagnostics,
                        );
                        if function.body.is_some() {
                            crate::declarations::check_param_alignment(
                                parameter,
                                &mut self.diagnostics,
                            );
                        }
                    }
                    let scope = match (entry, function.body.is_some()) {
                        (true, true) => Scope::EntryParameter,
                        (false, true) => Scope::FunctionParameter,
                        (entry, false) => Scope::PrototypeParameter { entry },
                    };
                    for parameter in function.params.iter().flatten() {
                        check_form(self.setting, parameter, scope, &mut self.diagnostics);
                    }
                    crate::declarations::check_function(function, &mut self.diagnostics);
                }
                crate::rules::check_function_directives(
                    self.setting,
                    function,
                    &mut self.diagnostics,
                );
                if function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry {
                    for parameter in function.params.iter().flatten() {
                        crate::rules::check_complete_type(parameter, true, &mut self.diagnostics);
                    }
                }
                if let Some(body) = &function.body {
                    let mut checker = FunctionChecker::new(self, function);
                    checker.function_body(function, body);
                }
            }
            Item::Pragma(text) => {
                crate::declarations::check_module_pragma(text, &mut self.diagnostics)
            }
            Item::Section(section) => {
                crate::rules::check_section(self.setting, section, &mut self.diagnostics);
            }
            Item::File(_) => {}
            Item::Alias(alias) => self.alias(alias),
        }
    }

    /// `.alias fAlias, fAliasee;` (PTX ISA 9.0, 11.6.5 ".alias": "fAlias is an alias to
    /// function symbol fAliasee"; PTX ISA 6.3, sm_30). As ptxas 13.5 has it: both names are
    /// declared before the directive (E0103, "Unknown symbol 'b'"), both are device functions
    /// ("Cannot define alias to variable object 'b'", "Cannot define alias to entry function
    /// 'b'"), the alias has no body and is aliased once ("Illegal redefinition of function 'b'
    /// as alias", "'b' is already aliased to 'a' and cannot be redefined"), and the two take
    /// the same parameters ("Mismatch in prototype of alias 'b' and aliasee 'a'") — E0230.
    /// An aliasee without a body is whole-program linking's (D27).
    fn alias(&mut self, alias: &ptxsim_syntax::ast::Alias) {
        crate::rules::check_alias_gate(self.setting, alias.span, &mut self.diagnostics);
        let mut defined = [false, false];
        for (index, name) in [&alias.alias, &alias.aliasee].into_iter().enumerate() {
            let problem = match self.declared.get(name.as_str()) {
                None => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0103",
                            format!("unknown function `{}` in .alias", name.value),
                            name.span,
                        )
                        .with_help("declare the function before the .alias directive"),
                    );
                    continue;
                }
                Some((ModuleSymbol::Variable { .. }, _)) => "is a variable",
                Some((ModuleSymbol::Function { entry: true, .. }, _)) => "is a kernel",
                Some(&(ModuleSymbol::Function { defined: yes, .. }, _)) => {
                    defined[index] = yes;
                    continue;
                }
            };
            self.diagnostics.push(
                Diagnostic::error(
                    "E0230",
                    format!("`{}` {problem}; .alias names device functions", name.value),
                    name.span,
                )
                .with_help("ptxas: Cannot define alias to variable object / entry function"),
            );
        }
        if defined[0] {
            self.diagnostics.push(
                Diagnostic::error(
                    "E0230",
                    format!(
                        "`{}` is already defined or aliased; an alias is a prototype without a \
                         body",
                        alias.alias.value
                    ),
                    alias.alias.span,
                )
                .with_help("ptxas: Illegal redefinition of function as alias"),
            );
        }
        let shapes = |name: &str| {
            self.signatures.get(name).map(|signature| {
                let shapes = |list: &Vec<ParameterShape>| {
                    list.iter().map(|(_, shape)| *shape).collect::<Vec<_>>()
                };
                (shapes(&signature.0), shapes(&signature.1))
            })
        };
        if let (Some(first), Some(second)) =
            (shapes(alias.alias.as_str()), shapes(alias.aliasee.as_str()))
            && first != second
        {
            self.diagnostics.push(
                Diagnostic::error(
                    "E0230",
                    format!(
                        "`{}` and `{}` take different parameters",
                        alias.alias.value, alias.aliasee.value
                    ),
                    alias.span,
                )
                .with_help("ptxas: Mismatch in prototype of alias and aliasee"),
            );
        }
        // The alias names a defined function from here on: a second `.alias` of it, or a
        // definition, is a redefinition.
        if let Some((ModuleSymbol::Function { defined, .. }, _)) =
            self.declared.get_mut(alias.alias.as_str())
        {
            *defined = true;
        }
    }

    fn declare_module(&mut self, name: &Spanned<Text>, symbol: ModuleSymbol) {
        let Some(&(previous, first)) = self.declared.get(name.as_str()) else {
            self.declared
                .insert(name.as_str().into(), (symbol, name.span));
            return;
        };
        match (previous, symbol) {
            (
                ModuleSymbol::Function { defined: true, .. },
                ModuleSymbol::Function { defined: true, .. },
            ) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        "E0203",
                        format!("duplicate definition of function `{}`", name.value),
                        name.span,
                    )
                    .with_label(first, "first defined here")
                    .with_help("rename one of the functions"),
                );
            }
            (
                ModuleSymbol::Function {
                    entry: first_entry,
                    defined: first_defined,
                    arity,
                    linkage: first_linkage,
                },
                ModuleSymbol::Function {
                    defined, linkage, ..
                },
            ) => {
                if let Some(diagnostic) =
                    redeclaration(name, first, first_defined, first_linkage, defined, linkage)
                {
                    self.diagnostics.push(diagnostic);
                }
                if let Some(entry) = self.declared.get_mut(name.as_str()) {
                    *entry = (
                        ModuleSymbol::Function {
                            entry: first_entry,
                            defined: first_defined || defined,
                            arity,
                            linkage: first_linkage,
                        },
                        first,
                    );
                }
            }
            (ModuleSymbol::Variable { external: true, .. }, ModuleSymbol::Variable { .. })
            | (ModuleSymbol::Variable { .. }, ModuleSymbol::Variable { external: true, .. }) => {}
            _ => self.diagnostics.push(
                Diagnostic::error(
                    "E0201",
                    format!("duplicate definition of `{}`", name.value),
                    name.span,
                )
                .with_label(first, "first declared here")
                .with_help(
                    "module-scope variables and functions share one namespace; rename one of them",
                ),
            ),
        }
    }

    /// Records what the names in a module-scope initializer are (when building).
    fn module_initializer_uses(&self, initializer: &Initializer, uses: &mut Uses) {
        match initializer {
            Initializer::Immediate(_) | Initializer::Property { .. } => {}
            Initializer::Address { name, .. } => {
                if let Some(&(symbol, span)) = self.declared.get(name.as_str()) {
                    uses.push((name.span.start, symbol.found(span)));
                }
            }
            Initializer::List(items) => {
                for item in &items.value {
                    self.module_initializer_uses(item, uses);
                }
            }
            Initializer::Mask { value, .. } => self.module_initializer_uses(value, uses),
        }
    }

    /// Names in module-scope initializers must be declared earlier in the module.
    fn module_initializer(&mut self, initializer: &Initializer) {
        match initializer {
            Initializer::Immediate(_) => {}
            Initializer::Address { name, .. } => {
                if !self.declared.contains_key(name.as_str()) {
                    self.report(Hint::Initializer {
                        name: name.value.to_string(),
                        span: name.span,
                    });
                }
            }
            Initializer::List(items) => {
                for item in &items.value {
                    self.module_initializer(item);
                }
            }
            Initializer::Mask { value, .. } => self.module_initializer(value),
            // Sampler properties (`filter_mode = nearest`) name enumerators, not symbols.
            Initializer::Property { .. } => {}
        }
    }
}

/// An unknown name in a module-scope initializer; `later` is its declaration further down.
fn undeclared_module_symbol(name: &str, span: Span, later: Option<Span>) -> Diagnostic {
    let what = "initializer";
    match later {
        Some(later) => Diagnostic::error(
            "E0106",
            format!("`{name}` is used in an {what} before its declaration"),
            span,
        )
        .with_label(later, "declared here")
        .with_help("move the declaration above its first use"),
        None => Diagnostic::error("E0103", format!("unknown symbol `{name}` in {what}"), span)
            .with_help("declare the variable or function before this point"),
    }
}

/// A `%r<N>` declaration.
#[derive(Clone, Copy, Debug)]
struct RegisterRange<'a> {
    prefix: &'a str,
    /// The [`le_word`] of the prefix, and the mask of its bytes in a head.
    head: u64,
    mask: u64,
    count: u32,
    /// The declared type, for `.reg` declarations of a scalar type.
    ty: Option<Type>,
    span: Span,
    count_span: Span,
    /// Whether a label or a declared name of the same scope is one of the range's registers
    /// (then [`Scope::lookup`] must look at the entries first).
    shadowed: bool,
    /// For a range outside `.reg` (`.const .b32 %c<4>` declares variables, which ptxas 13.5
    /// takes, and refuses as registers: "Argument 0 of instruction 'mov': must be register"):
    /// what its names are and where they live.
    symbol: Option<SymbolKind>,
    home: Option<Home>,
}

impl<'a> RegisterRange<'a> {
    fn new(prefix: &'a str, count: u32, ty: Option<Type>, span: Span, count_span: Span) -> Self {
        let length = prefix.len().min(8);
        RegisterRange {
            prefix,
            head: le_word(prefix.as_bytes()),
            mask: u64::MAX >> (64 - 8 * length),
            count,
            ty,
            span,
            count_span,
            shadowed: false,
            symbol: None,
            home: None,
        }
    }

    /// The range with its names being variables of `home`.
    fn of_variables(self, symbol: Option<SymbolKind>, home: Option<Home>) -> Self {
        RegisterRange {
            symbol,
            home,
            ..self
        }
    }

    /// Splits `name` into this range's prefix and an index, if it has that form.
    fn index_of(&self, name: &str) -> Option<u64> {
        self.index_in(name.as_bytes(), le_word(name.as_bytes()))
    }

    /// [`RegisterRange::index_of`] given the [`le_word`] of the name: the prefix test is one
    /// comparison of words for prefixes of up to eight bytes (all but odd ones), which is most
    /// of the cost of resolving a register.
    #[inline]
    fn index_in(&self, name: &[u8], name_head: u64) -> Option<u64> {
        let prefix = self.prefix.as_bytes();
        if name.len() <= prefix.len()
            || name_head & self.mask != self.head
            || name.get(8..prefix.len()) != prefix.get(8..)
        {
            return None;
        }
        let mut index = 0u64;
        for &byte in &name[prefix.len()..] {
            if !byte.is_ascii_digit() {
                return None;
            }
            index = index
                .saturating_mul(10)
                .saturating_add(u64::from(byte - b'0'));
        }
        Some(index)
    }

    fn contains(&self, name: &str) -> bool {
        self.contains_head(name.as_bytes(), le_word(name.as_bytes()))
    }

    #[inline]
    fn contains_head(&self, name: &[u8], name_head: u64) -> bool {
        self.index_in(name, name_head)
            .is_some_and(|index| index < u64::from(self.count))
    }
}

/// One `{ }` scope.
#[derive(Default)]
struct Scope<'a> {
    /// Declared names and labels (one table, so that a lookup hashes the name once).
    entries: FxHashMap<&'a str, Entry>,
    ranges: Vec<RegisterRange<'a>>,
    /// The `.param` variables and the `.reg` registers (not of ranges) declared here, with their
    /// shapes (the arguments of calls).
    params: Vec<(&'a str, crate::declarations::Shape)>,
    /// The `.callprototype`s declared here, by label.
    prototypes: Vec<(&'a str, Arc<Signature>)>,
}

/// A declared name: its span, register type, what symbol it is, and where it lives.
type Declared = (Span, Option<Type>, Option<SymbolKind>, Option<Home>);

/// What a scope knows about one name.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// Its declaration and, for scalar `.reg` declarations, their type.
    name: Option<Declared>,
    /// The label of that name.
    label: Option<Span>,
}

/// What a name resolved to: its declaration and, for a scalar register, its declared type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    /// The declaration's name (for `%r<N>`, the declarator), or the label.
    pub(crate) span: Span,
    ty: Option<Type>,
    /// For a variable, parameter or function: what it is (its address is the operand).
    symbol: Option<SymbolKind>,
    /// For a variable or parameter: where it lives (the state-space rules of
    /// [`crate::spaces`]).
    home: Option<Home>,
}

impl<'a> Scope<'a> {
    /// What `name`, of [`le_word`] `name_head`, is in this scope.
    fn lookup(&self, name: &str, name_head: u64) -> Option<Found> {
        let bytes = name.as_bytes();
        let range = self
            .ranges
            .iter()
            .rev()
            .find(|range| range.contains_head(bytes, name_head));
        let in_range = range.map(|range| Found {
            span: range.span,
            ty: range.ty,
            symbol: range.symbol,
            home: range.home,
        });
        // Most names are registers of a `%r<N>` range. A name in a range that no entry of this
        // scope falls in has no entry itself, and the range is the answer: no need to hash it.
        if range.is_some_and(|range| !range.shadowed) {
            return in_range;
        }
        let entry = self.entries.get(name).copied().unwrap_or_default();
        if let Some((span, ty, symbol, home)) = entry.name {
            return Some(Found {
                span,
                ty,
                symbol,
                home,
            });
        }
        if let Some(span) = entry.label {
            return Some(Found {
                span,
                ty: None,
                symbol: None,
                home: None,
            });
        }
        in_range
    }

    /// The entry of `name`, created empty if there is none.
    fn entry(&mut self, name: &'a str) -> &mut Entry {
        let entries = &mut self.entries;
        let ranges = &mut self.ranges;
        entries.entry(name).or_insert_with(|| {
            for range in ranges.iter_mut() {
                range.shadowed |= range.contains(name);
            }
            Entry::default()
        })
    }

    /// Adds a `%r<N>` declaration.
    fn push_range(&mut self, mut range: RegisterRange<'a>) {
        range.shadowed = self.entries.keys().any(|name| range.contains(name));
        self.ranges.push(range);
    }
}

/// The type of the registers a declaration declares: `.reg` with one scalar register type and
/// no vector qualifier (`.v2`, `.v4`); `None` for everything else.
fn register_type(declaration: &VariableDeclaration) -> Option<Type> {
    if declaration.space.value != StateSpace::Reg {
        return None;
    }
    let mut found = None;
    for word in declaration.words() {
        match Type::from_name(word.as_str()) {
            Some(ty) if ty.is_register_type() && found.is_none() => found = Some(ty),
            _ => return None,
        }
    }
    found
}

struct FunctionChecker<'r, 'm, 'a> {
    resolver: &'r mut Resolver<'m>,
    scopes: Vec<Scope<'a>>,
    body: Option<&'a Block>,
    /// The names declared anywhere in the body, collected when a name does not resolve.
    anywhere: OnceCell<Anywhere<'a>>,
    /// When building a program ([`build`]): the builder, which receives each declaration,
    /// label and instruction with what its names resolved to (the rules are not run again).
    builder: Option<&'r mut Builder<'a>>,
    /// The first limit the builder ran into.
    build_error: Option<BuildError>,
    /// Whether the function is a kernel (`.entry`).
    kernel: bool,
}

/// How many names [`Resolver::recent`] holds (a power of two).
const RECENT_NAMES: usize = 64;

/// A short name resolved in the current scopes.
#[derive(Clone, Copy, Default)]
struct RecentName {
    /// The [`le_word`] of the name and its length: together, the whole name.
    head: u64,
    length: usize,
    /// The [`Resolver::generation`] it was resolved in (0: never).
    generation: u64,
    found: Option<Found>,
}

/// Every name declared anywhere in a function (first declaration), for "used before its
/// declaration" and "label in another block" hints.
#[derive(Default)]
struct Anywhere<'a> {
    declared: FxHashMap<&'a str, Span>,
    labels: FxHashMap<&'a str, Span>,
    /// The labels of `.branchtargets` lists (what `brx.idx` may name).
    branch_tables: FxHashSet<&'a str>,
}

impl<'a> Anywhere<'a> {
    fn collect(&mut self, block: &'a Block) {
        for statement in &block.statements {
            match statement {
                Statement::Declaration(declaration) => {
                    for declarator in &declaration.declarators {
                        if declarator.range.is_none() {
                            self.declared
                                .entry(declarator.name.as_str())
                                .or_insert(declarator.name.span);
                        }
                    }
                }
                Statement::Label(label) => {
                    self.labels.entry(label.as_str()).or_insert(label.span);
                }
                Statement::Prototype(prototype) => {
                    self.labels
                        .entry(prototype.label.as_str())
                        .or_insert(prototype.label.span);
                }
                Statement::Targets(targets) => {
                    self.labels
                        .entry(targets.label.as_str())
                        .or_insert(targets.label.span);
                    if targets.kind.value == "branchtargets" {
                        self.branch_tables.insert(targets.label.as_str());
                    }
                }
                Statement::Block(inner) => self.collect(inner),
                Statement::Instruction(_) | Statement::Loc(_) | Statement::Pragma(_) => {}
            }
        }
    }
}

impl<'r, 'm, 'a> FunctionChecker<'r, 'm, 'a> {
    fn new(resolver: &'r mut Resolver<'m>, function: &'a Function) -> Self {
        resolver.generation += 1;
        Self {
            resolver,
            scopes: Vec::new(),
            body: function.body.as_ref(),
            anywhere: OnceCell::new(),
            builder: None,
            build_error: None,
            kernel: function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry,
        }
    }

    /// The names declared anywhere in the function (walked once, on the first unknown name:
    /// a module without errors never needs them).
    /// The callee of a direct `call` is a function (9.7.12.5, call.md: "func" the name of the
    /// function called). ptxas 13.5: "Label expected for argument 0 of instruction 'call'"
    /// for a variable or a parameter.
    fn callee_kind(&self, instruction: &'a Instruction) -> Option<Diagnostic> {
        let operands = &instruction.operands;
        let index = usize::from(matches!(operands.first(), Some(Operand::List(_))));
        let Some(Operand::Name(callee)) = operands.get(index) else {
            return None;
        };
        let name = callee.name.as_str();
        if name.starts_with('%') {
            return self.indirect_call(instruction, index);
        }
        // Only a name that resolves (an undeclared one is reported by the resolver).
        let head = le_word(name.as_bytes());
        let found = self
            .scopes
            .iter()
            .rev()
            .find_map(|scope| scope.lookup(name, head))
            .or_else(|| {
                self.resolver
                    .declared
                    .get(name)
                    .map(|&(symbol, span)| symbol.found(span))
            })?;
        if found.symbol == Some(SymbolKind::Variable) {
            return Some(
                Diagnostic::error(
                    "E0321",
                    format!("`{name}` is a variable; `call` takes a function's name"),
                    callee.span,
                )
                .with_label(found.span, "declared here"),
            );
        }
        let Some(&(ModuleSymbol::Function { arity, .. }, declared)) =
            self.resolver.declared.get(name)
        else {
            return None;
        };
        call_arity(instruction, index, name, arity, declared)
            .or_else(|| self.call_argument_shapes(instruction, index, name))
    }

    /// An indirect call through a `.callprototype` (9.7.12.5, call.md: "`fproto` is the label
    /// of a .callprototype directive"): the return and input arguments against the
    /// prototype's, as for a direct call (ptxas 13.5: "Call has wrong number of parameters",
    /// "Type of argument does not match formal parameter '_'") — E0211.
    fn indirect_call(&self, instruction: &Instruction, index: usize) -> Option<Diagnostic> {
        let Some(Operand::Name(list)) = instruction.operands.last() else {
            return None;
        };
        let label = list.name.as_str();
        // ptxas 13.5: "Call target not recognized" for a function's name in place of the
        // prototype or target list.
        if let Some((ModuleSymbol::Function { .. }, _)) = self.resolver.declared.get(label) {
            return Some(Diagnostic::error(
                "E0228",
                format!(
                    "`{label}` is a function: an indirect call ends with a `.callprototype` or \
                     `.calltargets` label, or a table of function addresses"
                ),
                list.span,
            ));
        }
        let signature = self.scopes.iter().rev().find_map(|scope| {
            scope
                .prototypes
                .iter()
                .rev()
                .find(|(name, _)| *name == label)
                .map(|(_, signature)| Arc::clone(signature))
        })?;
        let arity = Arity {
            returns: u16::try_from(signature.0.len()).unwrap_or(u16::MAX),
            params: u16::try_from(signature.1.len()).unwrap_or(u16::MAX),
            optional_last: false,
        };
        call_arity(instruction, index, label, arity, list.span)
            .or_else(|| self.argument_shapes(instruction, index, label, &signature))
    }

    /// The shape of the `.param` variable `name` of the scopes, if it is one.
    fn param_shape(&self, name: &str) -> Option<crate::declarations::Shape> {
        self.scopes.iter().rev().find_map(|scope| {
            scope
                .params
                .iter()
                .rev()
                .find(|(param, _)| *param == name)
                .map(|&(_, shape)| shape)
        })
    }

    /// Each argument of a direct call (a `.param` variable of the body) against the parameter
    /// it is passed to ([`crate::declarations::mismatch`]; 9.7.12.5, call.md: "The number and
    /// types of arguments in the call must match the function's declaration") — E0211.
    fn call_argument_shapes(
        &self,
        instruction: &Instruction,
        index: usize,
        name: &str,
    ) -> Option<Diagnostic> {
        let signature = self.resolver.signatures.get(name)?;
        self.argument_shapes(instruction, index, name, signature)
    }

    /// The arguments of a call against `signature`, the callee's or the prototype's.
    fn argument_shapes(
        &self,
        instruction: &Instruction,
        index: usize,
        name: &str,
        signature: &Signature,
    ) -> Option<Diagnostic> {
        fn list(operand: Option<&Operand>) -> &[Operand] {
            match operand {
                Some(Operand::List(list)) => list.value.as_slice(),
                _ => &[],
            }
        }
        let returns = if index == 0 {
            &[]
        } else {
            list(instruction.operands.first())
        };
        let arguments = list(instruction.operands.get(index + 1));
        for (passed, formal) in returns
            .iter()
            .zip(&signature.0)
            .chain(arguments.iter().zip(&signature.1))
        {
            let (Operand::Name(argument), (formal_name, Some(formal_shape))) = (passed, formal)
            else {
                continue;
            };
            let Some(shape) = self.param_shape(argument.name.as_str()) else {
                continue;
            };
            if let Some(message) = crate::declarations::mismatch(shape, *formal_shape) {
                return Some(
                    Diagnostic::error(
                        "E0211",
                        format!(
                            "`{}` does not fit parameter `{formal_name}` of `{name}`",
                            argument.name.value
                        ),
                        argument.span,
                    )
                    .with_help(format!("ptxas: {message} '{formal_name}'")),
                );
            }
        }
        None
    }

    /// `brx.idx{.uni} index, tlist;` (9.7.12.4, brx-idx.md): "`tlist` must be a label
    /// associated with a `.branchtargets` directive". ptxas 13.5: "Label with '.branchtargets'
    /// directive expected for argument 1 of instruction 'brx.idx'" for a plain label, a
    /// `.callprototype`, a register or a variable, "Arguments mismatch" without the list. A
    /// name declared nowhere is reported by the resolver.
    /// Operand kinds ptxas 13.5 rejects on any instruction, whatever its slots take (found by
    /// `scripts/conformance/opgen.py`, probed on every opcode of the conformance data):
    ///
    /// * a vector component (`.x`, `.y`, `.z`, `.w`, `.r`, `.g`, `.b`, `.a`) of a scalar
    ///   register ("Unknown video selector: '.x'"; PTX ISA 5.4.3: components select elements
    ///   of vector variables);
    /// * a label, `.branchtargets` or `.callprototype` name as an operand (or an address's
    ///   base) of anything but `bra`, `brx` and `call` ("Arguments mismatch for instruction
    ///   'mov'", "Illegal operand type to instruction 'ld'"; PTX ISA 5.2.5: labels are branch
    ///   and call targets);
    /// * a `d|p` pair anywhere but as the first operand of the instructions whose Syntax blocks
    ///   have one (`setp`, `shfl`, `match`, `elect`, `lop3`, `tex`, `tld4`; "Predicate output
    ///   not allowed for instruction 'add'", elsewhere "Parsing error near '|'").
    fn operand_kinds(&mut self, op: Opcode, instruction: &'a Instruction) {
        let branch = matches!(op, Opcode::Bra | Opcode::Brx | Opcode::Call);
        let takes_pair = matches!(
            op,
            Opcode::Setp
                | Opcode::Shfl
                | Opcode::Match
                | Opcode::Elect
                | Opcode::Lop3
                | Opcode::Tex
                | Opcode::Tld4
        );
        for (index, operand) in instruction.operands.iter().enumerate() {
            if let Operand::Name(name) = operand
                && let Some(component) = &name.component
                && !ptxsim_isa::syntax::is_video(op)
                && self
                    .quiet_lookup(name.name.as_str())
                    .is_some_and(|found| found.ty.is_some())
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "`{}` is a scalar register: `.{}` selects an element of a vector register",
                        name.name.as_str(),
                        component.value
                    ),
                    component.span,
                ));
            }
            let named = match operand {
                Operand::Name(name) => Some(&name.name),
                Operand::NameOffset(offset) => Some(&offset.name.name),
                Operand::Address(address) => match &address.base {
                    AddressBase::Name(name) => Some(&name.name),
                    AddressBase::Immediate(_) => None,
                },
                _ => None,
            };
            if !branch
                && let Some(name) = named
                && !name.as_str().starts_with('%')
                && self.anywhere().labels.contains_key(name.as_str())
                && self
                    .quiet_lookup(name.as_str())
                    .is_none_or(|found| found.ty.is_none() && found.symbol.is_none())
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "`{}` is a label: only `bra`, `brx.idx` and `call` take labels",
                        name.as_str()
                    ),
                    name.span,
                ));
            }
            // ptxas 13.5: "Label expected for argument 0 of instruction 'bra'" for a constant,
            // an address or a `.branchtargets` list, "Illegal expression" for a brace vector
            // of labels (tests/conformance/isagen-probes.tsv).
            if op == Opcode::Bra {
                let what = match operand {
                    Operand::Immediate(_) => Some("a constant"),
                    Operand::Vector(_) => Some("a vector"),
                    Operand::Address(_) | Operand::AddressList(_) => Some("an address"),
                    Operand::NameOffset(_) => Some("a name plus an offset"),
                    Operand::Negated(..) => Some("a negated register"),
                    Operand::Name(name)
                        if self.anywhere().branch_tables.contains(name.name.as_str()) =>
                    {
                        Some("a `.branchtargets` list")
                    }
                    _ => None,
                };
                if let Some(what) = what {
                    self.resolver.diagnostics.push(Diagnostic::error(
                        "E0321",
                        format!("`bra` takes a label, not {what}"),
                        operand.span(),
                    ));
                }
            }
            // A name plus an offset (`%r1+4`, `sym+4`) in a video instruction (ptxas 13.5
            // fails inside its own library code for it, "Parsing error", or reports "Incorrect
            // video selector"), as the handle of `txq`/`suq`/`istypep`, as `setmaxnreg`'s
            // count, `pmevent`'s event or a `createpolicy` operand ("Arguments mismatch",
            // "Address expected";
            // tests/conformance/isagen-probes.tsv).
            if let Operand::NameOffset(offset) = operand
                && (ptxsim_isa::syntax::is_video(op)
                    || matches!(
                        op,
                        Opcode::Txq
                            | Opcode::Suq
                            | Opcode::Istypep
                            | Opcode::Setmaxnreg
                            | Opcode::Pmevent
                            | Opcode::Createpolicy
                    ))
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "`{}` takes no name plus an offset here",
                        instruction.opcode.as_str()
                    ),
                    offset.span,
                ));
            }
            // A predicate register plus an offset as the first operand, a destination
            // (`setp.eq.u32 %p1+1, a, b`; ptxas 13.5: "Result register required for
            // instruction 'setp'"; the other registers plus an offset count as constants there
            // and are refused by the slot; tests/conformance/isagen-probes.tsv).
            if index == 0
                && let Operand::NameOffset(offset) = operand
                && self
                    .quiet_lookup(offset.name.name.as_str())
                    .is_some_and(|found| found.ty == Some(Type::Pred))
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    "a result is a register, not a register plus an offset",
                    offset.span,
                ));
            }
            // `!p` as the first operand, a result (ptxas 13.5: "Result register required for
            // instruction 'setp'", `or.pred !%p1, a, b`, `testp`; elsewhere "Arguments
            // mismatch"; tests/conformance/isagen-probes.tsv).
            if index == 0
                && let Operand::Negated(span, _, Negation::Not) = operand
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    "a result is a register, not a negated predicate",
                    *span,
                ));
            }
            // A vector before `|p` is `tex`'s and `tld4`'s alone (ptxas 13.5: "Arguments
            // mismatch for instruction 'setp'" for `{%p1}|%p2`).
            if let Operand::Pair(span, first, _) = operand
                && matches!(**first, Operand::Vector(_))
                && !matches!(op, Opcode::Tex | Opcode::Tld4)
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "a vector `{{...}}|p` is the first operand of `tex` and `tld4` only, not \
                         of `{}`",
                        instruction.opcode.as_str()
                    ),
                    *span,
                ));
            } else if let Operand::Pair(span, ..) = operand
                && (index > 0 || !takes_pair)
            {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "`d|p` is the first operand of `setp`, `shfl`, `match`, `elect`, `lop3`, \
                         `tex` and `tld4` only, not operand {} of `{}`",
                        index + 1,
                        instruction.opcode.as_str()
                    ),
                    *span,
                ));
            }
        }
    }

    /// An address in an 8- or 16-bit register for `createpolicy.range`,
    /// `prefetch{.space}.tensormap`, `st.async` and `tcgen05.alloc`/`.commit`/`.shift`. The ISA
    /// writes their addresses as any other (`[a]`; createpolicy.md: "the start address of the
    /// memory range"), and `ld`, `mbarrier`, `cp.async` take such a register; ptxas 13.5
    /// lowers these ones to a `mov` (an `add` for `tcgen05.shift`) of the address first and
    /// refuses a register narrower than 32 bits there: "Arguments mismatch for instruction
    /// 'mov'" (`.u8`, `.b8`, `.s8`, `.u16`, `.b16`, `.s16`; `.u32` and `.u64` are taken). D14's
    /// `prefetch.tensormap` part, closed in the sixteenth round with the others the campaign
    /// found (`scripts/conformance/campaign16-probes.txt`).
    fn narrow_address(&self, instruction: &Instruction) -> Option<Diagnostic> {
        let name = instruction
            .operands
            .iter()
            .find_map(|operand| match operand {
                Operand::Address(address) => match &address.base {
                    AddressBase::Name(name) if name.component.is_none() => Some(name),
                    _ => None,
                },
                _ => None,
            })?;
        let ty = self.quiet_lookup(name.name.as_str())?.ty?;
        // `tcgen05.shift`'s `[taddr]` is a tensor-memory address, 32 bits (D24's rule): ptxas
        // refuses a 64-bit register there too ("Arguments mismatch for instruction 'add'").
        let shift = instruction.has_modifier("shift");
        let narrow = ty.bits() < 32 || (shift && ty.bits() > 32);
        (narrow && (ty.is_integer() || ty.kind() == TypeKind::Bit)).then(|| {
            Diagnostic::error(
                "E0323",
                format!(
                    "`{}` is a `{ty}` register; `{}` takes its address in a {} register",
                    name.name.as_str(),
                    instruction.opcode.as_str(),
                    if shift { "32-bit" } else { "32- or 64-bit" }
                ),
                name.name.span,
            )
            .with_help("use a `.u64` (or `.u32`, `.b64`) register")
        })
    }

    fn brx_targets(&self, instruction: &Instruction) -> Option<Diagnostic> {
        if instruction.operands.len() != 2 {
            return Some(two_operands(
                instruction,
                "`brx.idx` takes 2 operands (an index and a `.branchtargets` list)",
            ));
        }
        // The index: a 32-bit integer register or a constant (brx.md: "brx.idx{.uni} index,
        // tlist"; ptxas 13.5: "Arguments mismatch for instruction 'brx.idx'" for a 16- or
        // 64-bit, `.f32` or `.pred` register, a variable, a special register, a vector or an
        // address).
        let index = &instruction.operands[0];
        let index_fits = match index {
            Operand::Immediate(_) | Operand::Sink(_) => true,
            Operand::Name(name) if name.name.as_str().starts_with('%') => {
                self.quiet_lookup(name.name.as_str()).is_none_or(|found| {
                    found
                        .ty
                        .is_none_or(|ty| matches!(ty, Type::U32 | Type::B32 | Type::S32))
                })
            }
            _ => false,
        };
        if !index_fits {
            return Some(Diagnostic::error(
                "E0323",
                "the index of `brx.idx` must be a `.u32`, `.b32` or `.s32` register or a constant",
                index.span(),
            ));
        }
        // ptxas 13.5: "Arguments mismatch for instruction 'brx.idx'" for a constant, an
        // address or a vector as the list (tests/conformance/isagen-probes.tsv).
        let list = match instruction.operands.get(1) {
            Some(Operand::Name(list)) => list,
            Some(other) => {
                return Some(
                    Diagnostic::error(
                        "E0321",
                        "the second operand of `brx.idx` is the label of a `.branchtargets` list",
                        other.span(),
                    )
                    .with_help(
                        "`brx.idx` takes the label of a `.branchtargets` directive: `t: \
                         .branchtargets L1, L2;`",
                    ),
                );
            }
            None => return None,
        };
        let name = list.name.as_str();
        let anywhere = self.anywhere();
        if anywhere.branch_tables.contains(name) {
            return None;
        }
        let known = name.starts_with('%')
            || anywhere.labels.contains_key(name)
            || anywhere.declared.contains_key(name)
            || self.resolver.declared.contains_key(name)
            || self.quiet_lookup(name).is_some();
        known.then(|| {
            Diagnostic::error(
                "E0321",
                format!("`{name}` is not a `.branchtargets` list"),
                list.span,
            )
            .with_help("`brx.idx` takes the label of a `.branchtargets` directive: `t: .branchtargets L1, L2;`")
        })
    }

    fn anywhere(&self) -> &Anywhere<'a> {
        self.anywhere.get_or_init(|| {
            let mut anywhere = Anywhere::default();
            if let Some(body) = self.body {
                anywhere.collect(body);
            }
            anywhere
        })
    }

    fn function_body(&mut self, function: &'a Function, body: &'a Block) {
        self.scopes.push(Scope::default());
        self.resolver.generation += 1;
        for parameter in function
            .returns
            .iter()
            .chain(function.params.iter())
            .flatten()
        {
            // `.reg` parameters of a `.func` are registers; `.param` ones are addresses.
            let (ty, symbol) = if parameter.space.value == StateSpace::Reg {
                (register_type(parameter), None)
            } else {
                (None, Some(SymbolKind::Variable))
            };
            let home = variable_home(parameter).map(|_| {
                if function.kind.value == ptxsim_syntax::ast::FunctionKind::Entry {
                    Home::KernelParam
                } else if function
                    .returns
                    .iter()
                    .flatten()
                    .any(|returned| std::ptr::eq(returned, parameter))
                {
                    Home::ReturnParam
                } else {
                    Home::FunctionParam
                }
            });
            for declarator in &parameter.declarators {
                self.declare(declarator, ty, symbol, home);
            }
        }
        self.block_contents(body);
        self.scopes.pop();
        self.resolver.generation += 1;
    }

    fn block(&mut self, block: &'a Block) {
        self.scopes.push(Scope::default());
        self.resolver.generation += 1;
        self.block_contents(block);
        self.scopes.pop();
        self.resolver.generation += 1;
    }

    /// Checks the statements of a block in the innermost scope.
    fn block_contents(&mut self, block: &'a Block) {
        for statement in &block.statements {
            let label = match statement {
                Statement::Label(label) => label,
                Statement::Prototype(prototype) => &prototype.label,
                Statement::Targets(targets) => &targets.label,
                _ => continue,
            };
            self.declare_label(label);
        }
        for statement in &block.statements {
            match statement {
                Statement::Declaration(declaration) if self.builder.is_some() => {
                    self.build_declaration(declaration);
                }
                Statement::Instruction(instruction) if self.builder.is_some() => {
                    self.build_instruction(instruction);
                }
                Statement::Label(label) => {
                    if let Some(builder) = self.builder.as_deref_mut() {
                        builder.label(label.span);
                    }
                }
                Statement::Declaration(declaration) => {
                    crate::rules::check_declaration(
                        self.resolver.setting,
                        declaration,
                        &mut self.resolver.diagnostics,
                    );
                    crate::rules::check_complete_type(
                        declaration,
                        false,
                        &mut self.resolver.diagnostics,
                    );
                    crate::declarations::check_form(
                        self.resolver.setting,
                        declaration,
                        crate::declarations::Scope::Body,
                        &mut self.resolver.diagnostics,
                    );
                    let ty = register_type(declaration);
                    let symbol = (declaration.space.value != StateSpace::Reg)
                        .then_some(SymbolKind::Variable);
                    let home = variable_home(declaration);
                    for declarator in &declaration.declarators {
                        if let Some(initializer) = &declarator.initializer {
                            self.initializer(initializer);
                        }
                        self.declare(declarator, ty, symbol, home);
                        if (declaration.space.value == StateSpace::Param
                            || (declaration.space.value == StateSpace::Reg
                                && declarator.range.is_none()))
                            && let Some(shape) = crate::declarations::shape(declaration, declarator)
                        {
                            self.current()
                                .params
                                .push((declarator.name.as_str(), shape));
                        }
                    }
                }
                Statement::Instruction(instruction) => self.instruction(instruction),
                Statement::Block(inner) => self.block(inner),
                Statement::Targets(targets) => {
                    let role = if targets.kind.value == "calltargets" {
                        Role::Function
                    } else {
                        Role::Label
                    };
                    let mut found = Vec::new();
                    for target in &targets.targets {
                        let resolved = self.resolve(target.as_str(), target.span, role);
                        // 9.7.12.4 (brx.idx): ".branchtargets" lists labels; ptxas 13.5:
                        // "Illegal branch target, label expected" for a function's name.
                        if role == Role::Label
                            && resolved
                                .as_ref()
                                .is_some_and(|found| found.symbol.is_some())
                        {
                            self.resolver.diagnostics.push(Diagnostic::error(
                                "E0228",
                                format!(
                                    "`{}` is not a label: `.branchtargets` lists labels",
                                    target.value
                                ),
                                target.span,
                            ));
                        }
                        found.push(resolved);
                    }
                    if role == Role::Label
                        && let Some(builder) = self.builder.as_deref_mut()
                    {
                        // `brx.idx` branches to the labels of the list, by their place.
                        let labels = found.iter().map(|f| f.as_ref().map(|f| f.span.start));
                        builder.branch_targets(targets.label.span.start, labels.collect());
                    }
                }
                Statement::Prototype(prototype) => {
                    crate::declarations::check_prototype(prototype, &mut self.resolver.diagnostics);
                    let signature = Arc::new(signature_of(&prototype.returns, &prototype.params));
                    self.current()
                        .prototypes
                        .push((prototype.label.as_str(), signature));
                }
                Statement::Pragma(text) => crate::rules::check_body_pragma(
                    self.resolver.setting,
                    text,
                    &mut self.resolver.diagnostics,
                ),
                Statement::Loc(loc) => {
                    if let Some(builder) = self.builder.as_deref_mut() {
                        builder.loc(loc);
                    }
                }
            }
        }
    }

    /// [`FunctionChecker::block_contents`] on a declaration when building: the builder gives
    /// it storage, then the names are declared as when checking.
    fn build_declaration(&mut self, declaration: &'a VariableDeclaration) {
        let mut uses = Uses::new();
        for declarator in &declaration.declarators {
            if let Some(initializer) = &declarator.initializer {
                self.initializer_uses(initializer, &mut uses);
            }
        }
        if let Some(builder) = self.builder.as_deref_mut()
            && let Err(error) = builder.declaration(declaration, uses)
        {
            self.build_error.get_or_insert(error);
        }
        let ty = register_type(declaration);
        let symbol = (declaration.space.value != StateSpace::Reg).then_some(SymbolKind::Variable);
        let home = variable_home(declaration);
        for declarator in &declaration.declarators {
            self.declare(declarator, ty, symbol, home);
        }
    }

    /// [`FunctionChecker::block_contents`] on an instruction when building: its names are
    /// resolved and handed to the builder with it.
    fn build_instruction(&mut self, instruction: &'a Instruction) {
        let mut uses = Uses::new();
        if let Some(guard) = &instruction.guard {
            let predicate = &guard.predicate;
            if let Some(found) = self.resolve(predicate.as_str(), predicate.span, Role::Predicate) {
                uses.push((predicate.span.start, found));
            }
        }
        for operand in &instruction.operands {
            self.operand_uses(operand, &mut uses);
        }
        if let Some(builder) = self.builder.as_deref_mut() {
            builder.instruction(instruction, uses);
        }
    }

    /// Resolves the names in an operand (as [`FunctionChecker::operand`]) and records them.
    fn operand_uses(&mut self, operand: &'a Operand, uses: &mut Uses) {
        let name = match operand {
            Operand::Name(name) => &name.name,
            Operand::Address(address) => match &address.base {
                AddressBase::Name(name) => &name.name,
                AddressBase::Immediate(_) => return,
            },
            Operand::NameOffset(offset) => &offset.name.name,
            Operand::Negated(_, inner, _) => return self.operand_uses(inner, uses),
            Operand::Pair(_, first, second) => {
                self.operand_uses(first, uses);
                return self.operand_uses(second, uses);
            }
            Operand::Vector(items) | Operand::AddressList(items) | Operand::List(items) => {
                for item in &items.value {
                    self.operand_uses(item, uses);
                }
                return;
            }
            Operand::SpecialRegister(_) | Operand::Immediate(_) | Operand::Sink(_) => return,
        };
        if let Some(found) = self.resolve(name.as_str(), name.span, Role::Value) {
            uses.push((name.span.start, found));
        }
    }

    /// Resolves the names in an initializer and records them.
    fn initializer_uses(&mut self, initializer: &'a Initializer, uses: &mut Uses) {
        match initializer {
            Initializer::Immediate(_) | Initializer::Property { .. } => {}
            Initializer::Address { name, .. } => {
                if let Some(found) = self.resolve(name.as_str(), name.span, Role::Value) {
                    uses.push((name.span.start, found));
                }
            }
            Initializer::List(items) => {
                for item in &items.value {
                    self.initializer_uses(item, uses);
                }
            }
            Initializer::Mask { value, .. } => self.initializer_uses(value, uses),
        }
    }

    /// The innermost scope, to declare something in (which makes the recent names stale).
    fn current(&mut self) -> &mut Scope<'a> {
        self.resolver.generation += 1;
        if self.scopes.is_empty() {
            self.scopes.push(Scope::default());
        }
        let last = self.scopes.len() - 1;
        &mut self.scopes[last]
    }

    fn declare_label(&mut self, label: &'a Spanned<Text>) {
        let scope = self.current();
        let entry = scope.entry(label.as_str());
        if let Some(first) = entry.label {
            let diagnostic = Diagnostic::error(
                "E0202",
                format!("duplicate definition of label `{}`", label.value),
                label.span,
            )
            .with_label(first, "first defined here")
            .with_help("labels must be unique within their block");
            self.resolver.diagnostics.push(diagnostic);
        } else {
            entry.label = Some(label.span);
        }
    }

    fn declare(
        &mut self,
        declarator: &'a Declarator,
        ty: Option<Type>,
        symbol: Option<SymbolKind>,
        home: Option<Home>,
    ) {
        let name = declarator.name.as_str();
        let span = declarator.name.span;
        let scope = self.current();
        let conflict = if let Some(range) = &declarator.range {
            let conflict = scope
                .ranges
                .iter()
                .find(|existing| existing.prefix == name)
                .map(|existing| existing.span)
                .or_else(|| scope.entries.get(name).and_then(|entry| entry.label));
            scope.push_range(
                RegisterRange::new(name, range.value, ty, declarator.span, range.span)
                    .of_variables(symbol, home),
            );
            conflict
        } else {
            let entry = scope.entries.get(name).copied().unwrap_or_default();
            let in_range = scope
                .ranges
                .iter()
                .find(|range| range.contains(name))
                .map(|range| range.span);
            let conflict = entry
                .name
                .map(|(span, _, _, _)| span)
                .or(entry.label)
                .or(in_range);
            // The first declaration stays the one uses resolve to, as in ptxas (a register of
            // an earlier `%r<N>` keeps its type).
            if entry.name.is_none() && in_range.is_none() {
                scope.entry(name).name = Some((span, ty, symbol, home));
            }
            conflict
        };
        if let Some(first) = conflict {
            let shown = match &declarator.range {
                Some(range) => format!("{name}<{}>", range.value),
                None => name.to_string(),
            };
            let (at, earlier) = if first.start > span.start {
                (first, span)
            } else {
                (span, first)
            };
            let diagnostic = Diagnostic::error(
                "E0201",
                format!("duplicate definition of `{shown}`"),
                at,
            )
            .with_label(earlier, "first declared here")
            .with_help(
                "a name can be declared once per block; an inner `{ }` block may redeclare it",
            );
            self.resolver.diagnostics.push(diagnostic);
        }
    }

    fn initializer(&mut self, initializer: &'a Initializer) {
        match initializer {
            Initializer::Immediate(_) | Initializer::Property { .. } => {}
            Initializer::Address { name, span, .. } => {
                let _ = self.resolve(name.as_str(), *span, Role::Value);
            }
            Initializer::List(items) => {
                for item in &items.value {
                    self.initializer(item);
                }
            }
            Initializer::Mask { value, .. } => self.initializer(value),
        }
    }

    fn instruction(&mut self, instruction: &'a Instruction) {
        if let Some(guard) = &instruction.guard {
            let predicate = &guard.predicate;
            let found = self.resolve(predicate.as_str(), predicate.span, Role::Predicate);
            if let Some(found) = found
                && found.ty != Some(Type::Pred)
            {
                self.resolver
                    .diagnostics
                    .push(not_a_predicate(predicate, found));
            }
        }
        crate::rules::check_negated_f32_bits(instruction, &mut self.resolver.diagnostics);
        let opcode = instruction.opcode.as_str();
        // One lookup of the name decides the path.
        let op = Opcode::from_name(opcode);
        if let Some(op) = op {
            video_selectors(op, instruction, &mut self.resolver.diagnostics);
        }
        minus_negations(op, instruction, &mut self.resolver.diagnostics);
        special_register_operands(op, instruction, &mut self.resolver.diagnostics);
        if let Some(op) = op {
            self.operand_kinds(op, instruction);
        }
        // ptxas 13.5: "Result discard mode is not allowed for instruction 'bra'"; `brx.idx`'s
        // sink is a syntax error to it.
        if matches!(op, Some(Opcode::Bra | Opcode::Brx))
            && let Some(sink) = instruction
                .operands
                .iter()
                .find(|operand| matches!(operand, Operand::Sink(_)))
        {
            self.resolver.diagnostics.push(Diagnostic::error(
                "E0324",
                "the sink `_` is no branch target or index",
                sink.span(),
            ));
        }
        // `tex`, `tld4`, `suld`, `sust` and `sured` address a texture or surface with a handle
        // and coordinates, `[a, b]` (9.7.10.3, 9.7.11); ptxas 13.5: "Arguments mismatch for
        // instruction 'suld.b'" for `[a]` alone.
        if matches!(
            op,
            Some(Opcode::Tex | Opcode::Tld4 | Opcode::Suld | Opcode::Sust | Opcode::Sured)
        ) && let Some(address) = instruction
            .operands
            .iter()
            .find(|operand| matches!(operand, Operand::Address(_)))
        {
            self.resolver.diagnostics.push(Diagnostic::error(
                "E0321",
                format!(
                    "{} addresses a texture or surface as `[handle, coordinates]`",
                    instruction.opcode.as_str()
                ),
                address.span(),
            ));
        }
        if let Some(op) = op
            && let Some(diagnostic) = self.handle_register(op, instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if let Some(op) = op
            && let Some(diagnostic) = self.indirect_handle(op, instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if matches!(op, Some(Opcode::Tex | Opcode::Tld4))
            && let Some(diagnostic) = self.texture_coordinates(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if let Some(op) = op
            && let Some(diagnostic) = self.surface_coordinates(op, instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if op == Some(Opcode::Sust)
            && instruction
                .modifiers
                .first()
                .is_some_and(|m| m.value == "p")
            && let Some(diagnostic) = self.formatted_store(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        // `tex`/`tld4` read `[a, c]` (or `[a, b, c]`) as their second operand on every form,
        // the ones ptxsim does not run included (9.7.10.3); ptxas 13.5: "Arguments mismatch
        // for instruction 'tex'" for a register or a constant there
        // (tests/conformance/isagen-probes.tsv).
        if matches!(op, Some(Opcode::Tex | Opcode::Tld4))
            && let Some(
                second @ (Operand::Name(_)
                | Operand::Immediate(_)
                | Operand::Vector(_)
                | Operand::NameOffset(_)
                | Operand::Sink(_)),
            ) = instruction.operands.get(1)
        {
            self.resolver.diagnostics.push(Diagnostic::error(
                "E0321",
                format!(
                    "{} reads its texture as `[handle, coordinates]`",
                    instruction.opcode.as_str()
                ),
                second.span(),
            ));
        }
        // `tex`/`tld4` return a vector, `d` or `d|p` (9.7.10.3: "the instruction returns a
        // two-element vector for destination type .f16x2 ... a four-element vector" for the
        // others), on every form, the ones ptxsim does not run included; ptxas 13.5: "Result
        // vector expected" for a scalar register.
        if matches!(op, Some(Opcode::Tex | Opcode::Tld4)) {
            let result = match instruction.operands.first() {
                Some(Operand::Pair(_, first, _)) => Some(first.as_ref()),
                other => other,
            };
            if let Some(result @ (Operand::Name(_) | Operand::Immediate(_) | Operand::Sink(_))) =
                result
            {
                self.resolver.diagnostics.push(
                    Diagnostic::error(
                        "E0235",
                        format!(
                            "{} returns a brace vector `{{d0, ...}}`",
                            instruction.opcode.as_str()
                        ),
                        result.span(),
                    )
                    .with_help("ptxas: Result vector expected"),
                );
            }
        }
        // `[a].unified` is `ld`'s (and `ldu`'s, `atom`'s, `multimem`'s: ptxas 13.5) (PTX ISA
        // 9.7.9.8: "The qualifiers .unified and
        // .level::cache_hint are only supported for .global state space and for generic
        // addressing"; ptxas 13.5: "Illegal use of attribute '.unified' for instruction 'st'").
        if let Some(address) = instruction
            .operands
            .iter()
            .find_map(|operand| match operand {
                Operand::Address(address) if address.unified => Some(address),
                _ => None,
            })
        {
            let spaces_ok = !instruction.modifier_names().iter().any(|m| {
                matches!(
                    m.split("::").next().unwrap_or(m),
                    "shared" | "local" | "const" | "param"
                )
            });
            // ptxas 13.5 takes it on `ldu`, `atom` and `multimem` too, and refuses it on `st`,
            // `red`, `prefetch`, `cp.async`, `mbarrier`.
            let takes = matches!(
                op,
                Some(Opcode::Ld | Opcode::Ldu | Opcode::Atom | Opcode::Multimem)
            );
            if !takes || !spaces_ok {
                self.resolver.diagnostics.push(Diagnostic::error(
                    "E0321",
                    format!(
                        "`.unified` marks the address of `ld`, `ldu`, `atom` or `multimem` in \
                         `.global` or generic memory, not of `{}` there",
                        instruction.opcode.as_str()
                    ),
                    address.span,
                ));
            }
        }
        // ptxas 13.5: "Label expected for argument 0 of instruction 'bra'" for a register.
        if op == Some(Opcode::Bra)
            && let Some(Operand::Name(name)) = instruction.operands.first()
            && self
                .quiet_lookup(name.name.as_str())
                .is_some_and(|found| found.ty.is_some())
        {
            self.resolver.diagnostics.push(Diagnostic::error(
                "E0331",
                format!("`{}` is a register; bra takes a label", name.name.as_str()),
                name.name.span,
            ));
        }
        if (op == Some(Opcode::Createpolicy)
            || (op == Some(Opcode::Prefetch) && instruction.has_modifier("tensormap"))
            || (op == Some(Opcode::St) && instruction.has_modifier("async"))
            || (op == Some(Opcode::Tcgen05)
                && ["alloc", "commit", "shift"]
                    .iter()
                    .any(|m| instruction.has_modifier(m))))
            && let Some(diagnostic) = self.narrow_address(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        match op {
            Some(op) if crate::rules::is_modelled(op) => {
                self.typed_instruction(instruction);
                self.address_spaces(instruction);
                return;
            }
            Some(_) => {}
            None => {
                let diagnostic = crate::rules::unknown_opcode(instruction);
                self.resolver.diagnostics.push(diagnostic);
            }
        }
        let is_branch = matches!(op, Some(Opcode::Bra | Opcode::Brx));
        let mut seen_callee = false;
        for operand in &instruction.operands {
            let role = if is_branch {
                Role::Label
            } else if opcode == "call" && matches!(operand, Operand::Name(_)) {
                let role = if seen_callee {
                    Role::Label
                } else {
                    Role::Function
                };
                seen_callee = true;
                role
            } else {
                Role::Value
            };
            self.operand(operand, role);
        }
        crate::rules::check_immediate_address(instruction, &mut self.resolver.diagnostics);
        if op == Some(Opcode::Call)
            && let Some(diagnostic) = call_shape(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if op == Some(Opcode::Call)
            && let Some(diagnostic) = self.callee_kind(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if op == Some(Opcode::Brx)
            && let Some(diagnostic) = self.brx_targets(instruction)
        {
            self.resolver.diagnostics.push(diagnostic);
        }
        if is_branch || op == Some(Opcode::Call) {
            // The table decodes their modifiers; their operands are labels and functions,
            // which it sees as names (`bra` takes exactly one).
            self.control_instruction(instruction);
        }
        if op != Some(Opcode::Call) {
            self.address_spaces(instruction);
        }
    }

    /// Checks the state space of each variable an operand of `instruction` names against the
    /// space the instruction addresses there ([`crate::spaces`]).
    fn address_spaces(&mut self, instruction: &'a Instruction) {
        let mut addresses = 0;
        let mut modifiers: Option<Vec<&str>> = None;
        // ptxas 13.5: "Illegal state space for address operand '::func' with instruction 'ld'"
        // in a kernel, for any address but a `.param` variable of the body.
        let func_param = self.kernel && instruction.has_modifier("param::func");
        for operand in &instruction.operands {
            let (name, naming, span) = match operand {
                Operand::Address(address) => {
                    addresses += 1;
                    match &address.base {
                        AddressBase::Name(name) if !name.name.as_str().starts_with('%') => {
                            (name, Naming::Address(addresses - 1), address.span)
                        }
                        _ => {
                            if func_param {
                                self.resolver
                                    .diagnostics
                                    .push(kernel_func_param(address.span));
                            }
                            continue;
                        }
                    }
                }
                Operand::AddressList(items) => {
                    addresses += 1;
                    match items.value.first() {
                        Some(Operand::Name(name)) => {
                            (name, Naming::Address(addresses - 1), items.span)
                        }
                        _ => continue,
                    }
                }
                Operand::Name(name) => (name, Naming::Value, name.span),
                Operand::NameOffset(offset) => (&offset.name, Naming::Value, offset.span),
                _ => continue,
            };
            let text = name.name.as_str();
            if text.starts_with('%') || name.component.is_some() {
                continue;
            }
            let Some(home) = self.quiet_lookup(text).and_then(|found| found.home) else {
                continue;
            };
            if func_param && matches!(naming, Naming::Address(_)) && home != Home::BodyParam {
                self.resolver.diagnostics.push(kernel_func_param(span));
                continue;
            }
            let modifiers = modifiers.get_or_insert_with(|| instruction.modifier_names());
            if let Some((code, message)) =
                crate::spaces::violation(instruction.opcode.as_str(), modifiers, naming, text, home)
            {
                self.resolver
                    .diagnostics
                    .push(Diagnostic::error(code, message, span));
            }
        }
    }

    /// A texture, sampler or surface handle held in a register must be a 64-bit integer or
    /// bit register, and `txq`/`suq` take it without an offset (9.7.10.3: "a .u64 register
    /// holding the handle"; ptxas 13.5: "Arguments mismatch for instruction 'tex'" for a `.b32`
    /// or `.f64` register, "Argument 1 of instruction 'txq': .texref or .u64 register
    /// expected" for `[%rd+8]`; `.s64` and `.b64` registers pass).
    fn handle_register(&self, op: Opcode, instruction: &Instruction) -> Option<Diagnostic> {
        let (index, list) = match op {
            Opcode::Tex | Opcode::Tld4 | Opcode::Suld => (1, true),
            Opcode::Sust | Opcode::Sured => (0, true),
            Opcode::Txq | Opcode::Suq => (1, false),
            Opcode::Istypep => (1, false),
            _ => return None,
        };
        let operand = instruction.operands.get(index)?;
        let name = match (operand, list) {
            (Operand::AddressList(items), true) => match items.value.first()? {
                Operand::Name(name) => name,
                _ => return None,
            },
            (Operand::Address(address), false) => {
                if let Some(offset) = &address.offset {
                    return Some(Diagnostic::error(
                        "E0321",
                        format!(
                            "{} takes its handle without an offset",
                            instruction.opcode.as_str()
                        ),
                        offset.span,
                    ));
                }
                match &address.base {
                    AddressBase::Name(name) => name,
                    AddressBase::Immediate(_) => return None,
                }
            }
            (Operand::Name(name), false) if op == Opcode::Istypep => name,
            _ => return None,
        };
        let ty = self.quiet_lookup(name.name.as_str())?.ty?;
        (!matches!(ty, Type::B64 | Type::U64 | Type::S64)).then(|| {
            Diagnostic::error(
                "E0323",
                format!(
                    "a texture, sampler or surface handle is a `.u64` register (or a \
                     `.texref`, `.samplerref`, `.surfref` variable), not a `{ty}` register"
                ),
                name.name.span,
            )
        })
    }

    /// The coordinate operand `c` of `tex`/`tld4` `[a, c]` against its geometry and `.ctype`
    /// ([`ptxsim_isa::texture::coordinate_violation`]: 9.7.10.3, "Operand c is a scalar or
    /// singleton tuple for 1d textures; is a two-element vector for 2d textures; and is a
    /// four-element vector for 3d textures"; "Coordinates may be given in either signed 32-bit
    /// integer or 32-bit floating point form"), for registers and literals of known type; a
    /// sink, an undeclared name or anything else is left to the other rules (E0234).
    fn texture_coordinates(&self, instruction: &Instruction) -> Option<Diagnostic> {
        use ptxsim_isa::texture::CoordinateElement;
        use ptxsim_syntax::ast::ImmediateValue;
        let Operand::AddressList(items) = instruction.operands.get(1)? else {
            return None;
        };
        let [_, coordinates] = items.value.as_slice() else {
            return None;
        };
        let register = |operand: &Operand| match operand {
            Operand::Name(name) if name.component.is_none() => {
                self.quiet_lookup(name.name.as_str())?.ty
            }
            _ => None,
        };
        let modifiers = instruction.modifier_names();
        let verdict = match coordinates {
            Operand::Vector(elements) => {
                let elements = elements
                    .value
                    .iter()
                    .map(|element| match element {
                        Operand::Immediate(immediate) => Some(match immediate.value.value {
                            ImmediateValue::Integer { .. } => CoordinateElement::Integer,
                            _ => CoordinateElement::Float,
                        }),
                        Operand::Sink(_) => Some(CoordinateElement::Sink),
                        other => register(other).map(CoordinateElement::Register),
                    })
                    .collect::<Option<Vec<_>>>()?;
                ptxsim_isa::texture::coordinate_violation(&modifiers, Some(&elements), None)
            }
            Operand::Immediate(_) => {
                ptxsim_isa::texture::coordinate_violation(&modifiers, None, None)
            }
            other => {
                ptxsim_isa::texture::coordinate_violation(&modifiers, None, Some(register(other)?))
            }
        };
        let message = verdict.err()?;
        Some(
            Diagnostic::error(
                "E0234",
                format!(
                    "this {} coordinate operand does not fit the geometry and coordinate type",
                    instruction.opcode.as_str()
                ),
                coordinates.span(),
            )
            .with_help(format!("ptxas: {message}")),
        )
    }

    /// The coordinates `b` of a surface instruction's `[a, b]` (`suld`, `sust`, `sured`;
    /// 9.7.11.1: "b is a scalar or singleton tuple for 1d surfaces; is a two-element vector
    /// for 2d surfaces; and is a four-element vector for 3d surfaces ... Coordinate elements
    /// are of type .s32"): ptxas 13.5 takes a 32-bit integer or bit register, or a brace
    /// vector of them and integer constants, and refuses 8-, 16- and 64-bit, float, packed
    /// and predicate registers ("Arguments mismatch for instruction 'suld.b'"), a vector mixing
    /// widths ("Incompatible elements of vector expression") and a bare constant ("Parsing
    /// error"); the vector's length it does not check (tests/conformance/isagen-probes.tsv).
    /// Undeclared names and other operands are left to the other rules (E0237).
    fn surface_coordinates(&self, op: Opcode, instruction: &Instruction) -> Option<Diagnostic> {
        let index = match op {
            Opcode::Suld => 1,
            Opcode::Sust | Opcode::Sured => 0,
            _ => return None,
        };
        let Operand::AddressList(items) = instruction.operands.get(index)? else {
            return None;
        };
        let [_, coordinates] = items.value.as_slice() else {
            return None;
        };
        // Some(true): a 32-bit integer or bit register; Some(false): another register.
        let fits = |operand: &Operand| match operand {
            Operand::Name(name) if name.component.is_none() => {
                let ty = self.quiet_lookup(name.name.as_str())?.ty?;
                Some(matches!(ty, Type::B32 | Type::U32 | Type::S32))
            }
            _ => None,
        };
        let wrong = match coordinates {
            Operand::Immediate(_) => true,
            Operand::Vector(elements) => elements.value.iter().any(|element| match element {
                Operand::Immediate(immediate) => !matches!(
                    immediate.value.value,
                    ptxsim_syntax::ast::ImmediateValue::Integer { .. }
                ),
                other => fits(other) == Some(false),
            }),
            other => fits(other) == Some(false),
        };
        wrong.then(|| {
            Diagnostic::error(
                "E0237",
                format!(
                    "the coordinates of {} are a `.b32`/`.s32`/`.u32` register or a brace \
                     vector of them",
                    instruction.opcode.as_str()
                ),
                coordinates.span(),
            )
        })
    }

    /// The operands of the formatted store `sust.p.geom{.vec}.b32.clamp [a, b], c;` (9.7.11.2,
    /// a form ptxsim checks and does not run), as ptxas 13.5 takes them
    /// (tests/conformance/isagen-probes.tsv): two operands ("Arguments mismatch"); a coordinate
    /// vector of at least the geometry's count, 2 for `.2d` and `.a1d`, 4 for `.3d` and `.a2d`
    /// ("Operand vector size doesn't match geometry"; a scalar register is taken on every
    /// geometry); `c` a constant, a register of 32 or 64 bits ("Arguments mismatch" for 8- and
    /// 16-bit ones), or a brace vector, of exactly `N` elements under `.vN` ("Argument vector
    /// size mismatch").
    fn formatted_store(&self, instruction: &Instruction) -> Option<Diagnostic> {
        let modifiers = instruction.modifier_names();
        if instruction.operands.len() != 2 {
            return Some(two_operands(
                instruction,
                "sust.p takes 2 operands (`[a, b]` and `c`)",
            ));
        }
        let needed = if modifiers.iter().any(|m| matches!(*m, "3d" | "a2d")) {
            4
        } else if modifiers.iter().any(|m| matches!(*m, "2d" | "a1d")) {
            2
        } else {
            1
        };
        if let Operand::AddressList(items) = &instruction.operands[0]
            && let [_, Operand::Vector(coordinates)] = items.value.as_slice()
            && coordinates.value.len() < needed
        {
            return Some(Diagnostic::error(
                "E0237",
                format!(
                    "this geometry needs {needed} coordinates, not {}",
                    coordinates.value.len()
                ),
                coordinates.span,
            ));
        }
        let value = &instruction.operands[1];
        let length = modifiers.iter().find_map(|m| match *m {
            "v2" => Some(2),
            "v4" => Some(4),
            _ => None,
        });
        match value {
            Operand::Vector(elements)
                if length.is_some_and(|length| elements.value.len() != length) =>
            {
                Some(Diagnostic::error(
                    "E0238",
                    format!(
                        "sust.p's `.v{}` stores a vector of {} elements, not {}",
                        length.unwrap_or_default(),
                        length.unwrap_or_default(),
                        elements.value.len()
                    ),
                    value.span(),
                ))
            }
            Operand::Name(name) if name.component.is_none() => {
                let ty = self.quiet_lookup(name.name.as_str())?.ty?;
                (ty.bits() < 32).then(|| {
                    Diagnostic::error(
                        "E0238",
                        format!("sust.p stores a 32-bit value, not a `{ty}` register"),
                        value.span(),
                    )
                })
            }
            _ => None,
        }
    }

    /// A texture or surface handle in a register (`tex.1d.v4.f32.s32 d, [%rd1, {%r1}]`,
    /// `suq.width.b32 d, [%rd1]`) below PTX ISA 3.1, which introduced "indirect texture
    /// access" and "indirect surface access" (ptxas 13.5: "Feature 'indirect texture access'
    /// requires PTX ISA .version 3.1 or later"; E0402).
    fn indirect_handle(&self, op: Opcode, instruction: &Instruction) -> Option<Diagnostic> {
        let (index, surface) = match op {
            Opcode::Tex | Opcode::Tld4 | Opcode::Txq => (1, false),
            Opcode::Suld | Opcode::Suq => (1, true),
            Opcode::Sust | Opcode::Sured => (0, true),
            _ => return None,
        };
        let version = self.resolver.setting.version?;
        if version >= ptxsim_isa::PtxVersion::new(3, 1) {
            return None;
        }
        let name = match instruction.operands.get(index)? {
            Operand::AddressList(items) => match items.value.first()? {
                Operand::Name(name) => name,
                _ => return None,
            },
            Operand::Address(address) => match &address.base {
                AddressBase::Name(name) => name,
                AddressBase::Immediate(_) => return None,
            },
            _ => return None,
        };
        let found = self.quiet_lookup(name.name.as_str())?;
        if found.symbol.is_some() || found.ty.is_none() {
            return None;
        }
        let feature = if surface { "surface" } else { "texture" };
        Some(
            Diagnostic::error(
                "E0402",
                format!(
                    "indirect {feature} access (a handle in a register) needs PTX ISA version                      3.1 or later; this module declares .version {version}"
                ),
                name.name.span,
            )
            .with_help(format!(
                "ptxas: Feature 'indirect {feature} access' requires PTX ISA .version 3.1 or later"
            )),
        )
    }

    /// What `name` resolves to here, without reporting a name that does not resolve.
    fn quiet_lookup(&self, name: &str) -> Option<Found> {
        let head = le_word(name.as_bytes());
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.lookup(name, head))
            .or_else(|| {
                self.resolver
                    .declared
                    .get(name)
                    .map(|&(symbol, span)| symbol.found(span))
            })
    }

    /// Checks a `bra`/`call` against the instruction table, each operand a name.
    fn control_instruction(&mut self, instruction: &'a Instruction) {
        let mut operands = std::mem::take(&mut self.resolver.operands);
        operands.clear();
        operands.extend(instruction.operands.iter().map(|_| IsaOperand::Other));
        let context = InstructionContext {
            module: self.resolver.module,
            setting: self.resolver.setting,
            forms: &self.resolver.forms,
            operands: &operands,
            registers: &[],
        };
        check_instruction(&context, instruction, &mut self.resolver.diagnostics);
        self.resolver.operands = operands;
    }

    /// Resolves the operands of an instruction the rules check (`cvt`, `mov`), recording each
    /// register's declared type, then runs the rules.
    fn typed_instruction(&mut self, instruction: &'a Instruction) {
        let mut operands = std::mem::take(&mut self.resolver.operands);
        let mut registers = std::mem::take(&mut self.resolver.registers);
        operands.clear();
        registers.clear();
        for (index, operand) in instruction.operands.iter().enumerate() {
            let typed = match operand {
                Operand::Vector(items) => {
                    let mut elements = Vec::with_capacity(items.value.len());
                    for (position, item) in items.value.iter().enumerate() {
                        let element = match self.typed_operand(item) {
                            (IsaOperand::Register(ty), declaration) => {
                                registers.push(DeclaredRegister {
                                    operand: index,
                                    element: Some(position),
                                    ty,
                                    declaration,
                                });
                                IsaElement::Register(ty)
                            }
                            (IsaOperand::Sink, _) => IsaElement::Sink,
                            (IsaOperand::Immediate(literal), _) => IsaElement::Immediate(literal),
                            // ptxas 13.5: "Illegal expression 'sym'" for a variable or
                            // function in a brace vector (registers, constants and the sink
                            // only).
                            (IsaOperand::Symbol(_), _) => {
                                self.resolver.diagnostics.push(Diagnostic::error(
                                    "E0321",
                                    "a vector element is a register, a constant or the sink                                      `_`, not the address of a variable or function",
                                    item.span(),
                                ));
                                IsaElement::Other
                            }
                            (
                                IsaOperand::Vector(_)
                                | IsaOperand::Special(_)
                                | IsaOperand::Address
                                | IsaOperand::PredicatePair(..)
                                | IsaOperand::Other,
                                _,
                            ) => IsaElement::Other,
                        };
                        elements.push(element);
                    }
                    IsaOperand::Vector(elements)
                }
                // A bit register plus an offset as a source: ptxas 13.5 takes `%b32+4` (and
                // `%b64+4`, `%b16+4`) in integer, floating-point and `.f16` source slots alike
                // (`add.f32 d, %b32+4, b`, `ex2.approx.f32 d, %b64+4`, `red.add.noftz.f16 [a],
                // %b16+4`), where `%u32+4` counts as an integer constant ("Arguments mismatch"
                // in a float slot); as the first operand it is no result register
                // (tests/conformance/isagen-probes.tsv).
                Operand::NameOffset(offset)
                    if index > 0
                        && self
                            .quiet_lookup(offset.name.name.as_str())
                            .and_then(|found| found.ty)
                            .is_some_and(|ty| ty.kind() == ptxsim_isa::TypeKind::Bit) =>
                {
                    IsaOperand::Other
                }
                _ => {
                    let (typed, declaration) = self.typed_operand(operand);
                    if let IsaOperand::Register(ty) = typed {
                        registers.push(DeclaredRegister {
                            operand: index,
                            element: None,
                            ty,
                            declaration,
                        });
                    }
                    typed
                }
            };
            operands.push(typed);
        }
        let context = InstructionContext {
            module: self.resolver.module,
            setting: self.resolver.setting,
            forms: &self.resolver.forms,
            operands: &operands,
            registers: &registers,
        };
        check_instruction(&context, instruction, &mut self.resolver.diagnostics);
        // Only a memory operand can be an immediate address.
        if operands.contains(&IsaOperand::Address) {
            crate::rules::check_immediate_address(instruction, &mut self.resolver.diagnostics);
        }
        self.resolver.operands = operands;
        self.resolver.registers = registers;
    }

    /// Resolves one operand (not a brace vector) and says what the rules see: a register of its
    /// declared type (with the declaration's span), an immediate, a sink, or something else.
    #[inline(always)]
    fn typed_operand(&mut self, operand: &'a Operand) -> (IsaOperand, Span) {
        match operand {
            Operand::Name(name) if is_warp_size(name) => (
                IsaOperand::Immediate(ptxsim_isa::Literal::Integer),
                Span::DUMMY,
            ),
            Operand::Name(name) => {
                let found = self.resolve(name.name.as_str(), name.name.span, Role::Value);
                match found {
                    Some(Found {
                        span, ty: Some(ty), ..
                    }) if name.component.is_none() => (IsaOperand::Register(ty), span),
                    Some(Found {
                        symbol: Some(kind), ..
                    }) if name.component.is_none() => (IsaOperand::Symbol(kind), Span::DUMMY),
                    _ => (IsaOperand::Other, Span::DUMMY),
                }
            }
            Operand::Immediate(immediate) => (
                IsaOperand::Immediate(crate::rules::literal_kind(&immediate.value)),
                Span::DUMMY,
            ),
            Operand::Address(_) | Operand::AddressList(_) => {
                self.operand(operand, Role::Value);
                (IsaOperand::Address, Span::DUMMY)
            }
            // `name+offset` is an address constant: ptxas 13.5 takes it wherever an integer
            // constant goes (`add.u32 d, sym+4, 1`, `setp.eq.u64 p, sym+4, b`, `cvt.u8.s32 d,
            // sym+4`) and refuses it in float slots ("Arguments mismatch"), while a bare
            // variable there is "must be register".
            Operand::NameOffset(offset) => {
                let name = &offset.name.name;
                let found = self.resolve(name.as_str(), name.span, Role::Value);
                match found {
                    Some(Found {
                        symbol: Some(_), ..
                    }) => (
                        IsaOperand::Immediate(ptxsim_isa::Literal::Integer),
                        Span::DUMMY,
                    ),
                    // A register plus an offset: ptxas 13.5 takes an integer or bit register
                    // of any width where an integer literal goes (`add.u32 d, %rd1+1, b`,
                    // `%rs1+1`; `add.f32 d, %r1+1, b`: "Arguments mismatch"), a packed one
                    // (`%r_f16x2+1`) in the integer slots and its own, a float register of any width where a float goes and only
                    // there (`add.f64 d, %f1+1, b` is taken, `add.u32 d, %f1+1, b`: "Arguments
                    // mismatch"), as a `0f`/`0d` literal of its width is, and a predicate
                    // register as the register alone (tests/conformance/operand-vectors.tsv).
                    Some(Found { ty: Some(ty), .. })
                        if ty.kind() == ptxsim_isa::TypeKind::Float =>
                    {
                        (
                            IsaOperand::Immediate(if ty.bits() == 64 {
                                ptxsim_isa::Literal::F64Bits
                            } else {
                                ptxsim_isa::Literal::F32Bits
                            }),
                            Span::DUMMY,
                        )
                    }
                    Some(Found {
                        span,
                        ty: Some(ty @ ptxsim_isa::Type::Pred),
                        ..
                    }) => (IsaOperand::Register(ty), span),
                    Some(Found { ty: Some(ty), .. })
                        if matches!(
                            ty.kind(),
                            ptxsim_isa::TypeKind::Signed
                                | ptxsim_isa::TypeKind::Unsigned
                                | ptxsim_isa::TypeKind::Bit
                        ) =>
                    {
                        (
                            IsaOperand::Immediate(ptxsim_isa::Literal::Integer),
                            Span::DUMMY,
                        )
                    }
                    _ => (IsaOperand::Other, Span::DUMMY),
                }
            }
            Operand::SpecialRegister(name) => {
                self.operand(operand, Role::Value);
                let width = ptxsim_isa::SpecialWidth::of(name.name.as_str());
                (
                    width.map_or(IsaOperand::Other, IsaOperand::Special),
                    Span::DUMMY,
                )
            }
            Operand::Sink(_) => (IsaOperand::Sink, Span::DUMMY),
            // `!p`: the predicate register's type for the slot (ptxas 13.5: "Arguments mismatch
            // for instruction 'add'" for `!%p` in a `.u32` slot); [`Self::operand`] checks that
            // it is a predicate.
            Operand::Negated(_, inner, Negation::Not) => {
                self.operand(operand, Role::Value);
                match &**inner {
                    Operand::Name(name) if name.component.is_none() => {
                        match self.quiet_lookup(name.name.as_str()) {
                            Some(Found {
                                span, ty: Some(ty), ..
                            }) => (IsaOperand::Register(ty), span),
                            _ => (IsaOperand::Other, Span::DUMMY),
                        }
                    }
                    _ => (IsaOperand::Other, Span::DUMMY),
                }
            }
            // `-a` of vmad: its register's type is checked ([`minus_negations`] checks where
            // a negation may stand).
            Operand::Negated(_, inner, Negation::Minus) => self.typed_operand(inner),
            Operand::Pair(_, d, p) => {
                let mut part = |operand: &'a Operand| match self.typed_operand(operand).0 {
                    IsaOperand::Register(ty) => IsaElement::Register(ty),
                    IsaOperand::Sink => IsaElement::Sink,
                    IsaOperand::Immediate(literal) => IsaElement::Immediate(literal),
                    _ => IsaElement::Other,
                };
                let d = part(d);
                let p = part(p);
                (IsaOperand::PredicatePair(d, p), Span::DUMMY)
            }
            _ => {
                self.operand(operand, Role::Value);
                (IsaOperand::Other, Span::DUMMY)
            }
        }
    }

    fn operand(&mut self, operand: &'a Operand, role: Role) {
        match operand {
            Operand::Name(name) if is_warp_size(name) => {}
            Operand::Name(name) => {
                let _ = self.resolve(name.name.as_str(), name.name.span, role);
            }
            Operand::SpecialRegister(name) => crate::rules::check_special_register(
                self.resolver.setting,
                name.name.as_str(),
                name.span,
                &mut self.resolver.diagnostics,
            ),
            Operand::Immediate(_) | Operand::Sink(_) => {}
            Operand::Negated(span, inner, Negation::Not) => match &**inner {
                // "`!` ... logical negation of a predicate" (PTX ISA 9.7.13.1 `{!}c`, setp's
                // `{!}c`, selp's `{!}c`): ptxas 13.5 rejects `!` of any other register
                // ("Illegal argument to predicate negation").
                Operand::Name(name) if name.component.is_none() => {
                    let found = self.resolve(name.name.as_str(), name.name.span, Role::Predicate);
                    if let Some(Found { ty: Some(ty), .. }) = found
                        && ty != Type::Pred
                    {
                        self.resolver.diagnostics.push(
                            Diagnostic::error(
                                "E0323",
                                format!(
                                    "`!` negates a predicate; `{}` is a `{ty}` register",
                                    name.name.as_str()
                                ),
                                *span,
                            )
                            .with_help("negate a `.pred` register"),
                        );
                    }
                }
                _ => self.operand(inner, Role::Predicate),
            },
            Operand::Negated(_, inner, Negation::Minus) => self.operand(inner, role),
            Operand::Pair(_, first, second) => {
                self.operand(first, role);
                self.operand(second, Role::Predicate);
            }
            Operand::Vector(items) | Operand::AddressList(items) | Operand::List(items) => {
                for item in &items.value {
                    self.operand(item, Role::Value);
                }
            }
            Operand::Address(address) => match &address.base {
                // A special register holding the address (`ld.u64 d, [%clock64]`,
                // `prefetch.global.L2 [%globaltimer+8]`: ptxas 13.5 takes them).
                AddressBase::Name(name)
                    if name.component.is_none()
                        && ptxsim_isa::SpecialWidth::of(name.name.as_str()).is_some()
                        && self.quiet_lookup(name.name.as_str()).is_none() =>
                {
                    crate::rules::check_special_register(
                        self.resolver.setting,
                        name.name.as_str(),
                        name.span,
                        &mut self.resolver.diagnostics,
                    );
                }
                AddressBase::Name(name) => {
                    let found = self.resolve(name.name.as_str(), name.name.span, Role::Value);
                    // An address register holds an address: ptxas 13.5 "Illegal to use symbol
                    // '%f' of type .f32 as address operand. Use integer or bit only." (also
                    // for `.pred`, `.f16x2` and `.b128` registers).
                    if let Some(Found { ty: Some(ty), .. }) = found
                        && !(ty.is_integer() || (ty.kind() == TypeKind::Bit && ty.bits() <= 64))
                    {
                        self.resolver.diagnostics.push(
                            Diagnostic::error(
                                "E0323",
                                format!(
                                    "`{}` is a `{ty}` register; an address is in an integer or \
                                     bit-size register",
                                    name.name.as_str()
                                ),
                                name.name.span,
                            )
                            .with_help("use a `.u64` (or `.u32`, `.b64`) register"),
                        );
                    }
                }
                AddressBase::Immediate(_) => {}
            },
            Operand::NameOffset(offset) => {
                let name = &offset.name.name;
                let _ = self.resolve(name.as_str(), name.span, Role::Value);
            }
        }
    }

    /// Resolves a name; reports it if it is not visible here. Returns what it resolved to
    /// (module-scope symbols have no register type).
    fn resolve(&mut self, name: &'a str, span: Span, role: Role) -> Option<Found> {
        let bytes = name.as_bytes();
        let short = bytes.len() <= 8;
        let name_head = le_word(bytes);
        let slot = (name_head.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % RECENT_NAMES;
        if short
            && let Some(recent) = self.resolver.recent.get(slot)
            && recent.generation == self.resolver.generation
            && recent.head == name_head
            && recent.length == bytes.len()
        {
            return recent.found;
        }
        let found = self.resolve_uncached(name, name_head, span, role);
        if short
            && found.is_some()
            && let Some(recent) = self.resolver.recent.get_mut(slot)
        {
            *recent = RecentName {
                head: name_head,
                length: bytes.len(),
                generation: self.resolver.generation,
                found,
            };
        }
        found
    }

    /// [`FunctionChecker::resolve`] without the recent names (`name_head` is the name's
    /// [`le_word`]).
    fn resolve_uncached(
        &mut self,
        name: &'a str,
        name_head: u64,
        span: Span,
        role: Role,
    ) -> Option<Found> {
        if let Some(found) = self
            .scopes
            .iter()
            .rev()
            .find_map(|scope| scope.lookup(name, name_head))
        {
            return Some(found);
        }
        if let Some(&(symbol, declared)) = self.resolver.declared.get(name) {
            return Some(symbol.found(declared));
        }
        match self.undeclared(name, span) {
            Some(diagnostic) => self.resolver.diagnostics.push(diagnostic),
            None => self.resolver.report(Hint::Use {
                name: name.to_string(),
                span,
                role,
            }),
        }
        None
    }

    /// The diagnostic for a name that is not visible here, if the function alone decides it
    /// (else it depends on the module-scope names: [`undeclared_use`]).
    fn undeclared(&self, name: &str, span: Span) -> Option<Diagnostic> {
        // A register just past the end of a `%r<N>` range.
        if let Some(range) = self
            .scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.ranges.iter())
            .find(|range| range.index_of(name).is_some())
        {
            let index = range.index_of(name).unwrap_or(u64::MAX);
            let last = u64::from(range.count).saturating_sub(1);
            let declared = if range.count == 0 {
                "no registers".to_string()
            } else {
                format!("`{0}0` to `{0}{last}`", range.prefix)
            };
            let mut diagnostic = Diagnostic::error(
                "E0105",
                format!(
                    "register `{name}` is outside the declared range `{}<{}>`",
                    range.prefix, range.count
                ),
                span,
            )
            .with_label(range.span, format!("this declares {declared}"));
            if let Some(needed) = index
                .checked_add(1)
                .filter(|needed| *needed <= u64::from(u32::MAX))
            {
                diagnostic = diagnostic
                    .with_help(format!(
                        "declare `{}<{needed}>` to include `{name}`",
                        range.prefix
                    ))
                    .with_fix(range.count_span, needed.to_string());
            }
            return Some(diagnostic);
        }
        if let Some(&declaration) = self.anywhere().declared.get(name) {
            if declaration.start > span.start {
                return Some(
                    Diagnostic::error(
                        "E0106",
                        format!("`{name}` is used before its declaration"),
                        span,
                    )
                    .with_label(declaration, "declared here")
                    .with_help("move the declaration above its first use"),
                );
            }
            return Some(
                Diagnostic::error(
                    "E0107",
                    format!("`{name}` is not declared in this scope"),
                    span,
                )
                .with_label(
                    declaration,
                    "declared in a block that does not enclose this use",
                )
                .with_help("declarations in a `{ }` block are visible only inside that block"),
            );
        }
        if let Some(&label) = self.anywhere().labels.get(name) {
            return Some(
                Diagnostic::error("E0107", format!("label `{name}` is not visible here"), span)
                    .with_label(label, "defined in a block that does not enclose this use")
                    .with_help(
                        "labels are visible only inside their `{ }` block and the blocks nested \
                         in it",
                    ),
            );
        }
        None
    }
}

/// A guard `@name` whose name is not a `.pred` register (ptxas: "Predicate expression
/// expected").
fn not_a_predicate(predicate: &Spanned<Text>, found: Found) -> Diagnostic {
    let what = match (found.ty, found.symbol) {
        (Some(ty), _) => format!("a `{ty}` register"),
        (None, Some(SymbolKind::Function)) => "a function".to_string(),
        (None, Some(_)) => "a variable".to_string(),
        (None, None) => "not a scalar register".to_string(),
    };
    Diagnostic::error(
        "E0108",
        format!(
            "the guard `{}` is not a predicate register",
            predicate.value
        ),
        predicate.span,
    )
    .with_label(found.span, format!("declared here: {what}"))
    .with_help("a guard `@p` or `@!p` takes a `.pred` register; set one with `setp`")
}

/// A name used in a function that the function does not declare; `later` is its module-scope
/// declaration further down, if any.
/// `WARP_SZ`, the predefined constant of PTX ISA 5.5 ("the warp size, in threads"): an integer
/// immediate 32 wherever an operand is.
pub(crate) fn is_warp_size(name: &ptxsim_syntax::ast::NameRef) -> bool {
    name.component.is_none() && name.name.as_str() == WARP_SZ_NAME
}

/// The spelling of the predefined warp-size constant.
pub(crate) const WARP_SZ_NAME: &str = "WARP_SZ";

fn undeclared_use(name: &str, span: Span, role: Role, later: Option<Span>) -> Diagnostic {
    if let Some(later) = later {
        return Diagnostic::error(
            "E0106",
            format!("`{name}` is used before its declaration"),
            span,
        )
        .with_label(later, "declared here")
        .with_help(match role {
            Role::Function => {
                "declare the function (`.func name(...);`) before the function that calls it"
            }
            _ => "move the declaration above the function that uses it",
        });
    }
    match role {
        Role::Label => Diagnostic::error("E0102", format!("undeclared label `{name}`"), span)
            .with_help("define the label (`name:`) in this block or an enclosing one"),
        Role::Function => Diagnostic::error("E0104", format!("undeclared function `{name}`"), span)
            .with_help("declare or define the function before calling it"),
        Role::Predicate | Role::Value if name.starts_with('%') => {
            let kind = if role == Role::Predicate {
                "predicate register"
            } else {
                "register"
            };
            Diagnostic::error("E0101", format!("undeclared {kind} `{name}`"), span).with_help(
                format!(
                    "declare it first, e.g. `.reg .{} {name};`",
                    if role == Role::Predicate {
                        "pred"
                    } else {
                        "b32"
                    }
                ),
            )
        }
        Role::Predicate | Role::Value => {
            Diagnostic::error("E0103", format!("unknown symbol `{name}`"), span)
                .with_help("declare the register, variable or parameter before this point")
        }
    }
}

/// A function declared again (PTX ISA 11.6, "Linking Directives"), as ptxas 13.5 takes it: a
/// prototype after the definition is "Duplicate definition of function 'f'"; a prototype
/// with a linkage other than the first prototype's (none after `.extern` included) is
/// "Inconsistent redefinition of variable 'f'", and so is a definition
/// after an `.extern` prototype, or with a linkage other than its prototype's (`.func f();`
/// then `.visible .func f() {...}`), is "Inconsistent redefinition of variable 'f'" (a
/// definition without linkage takes its prototype's) — E0222.
fn redeclaration(
    name: &Spanned<Text>,
    first: Span,
    first_defined: bool,
    first_linkage: Option<Linkage>,
    defined: bool,
    linkage: Option<Linkage>,
) -> Option<Diagnostic> {
    let message = if first_defined && !defined {
        format!("`{}` is declared again after its definition", name.value)
    } else if !first_defined
        && !defined
        && (linkage.is_some_and(|linkage| Some(linkage) != first_linkage)
            || (linkage.is_none() && first_linkage == Some(Linkage::Extern)))
    {
        format!(
            "`{}` is declared again with another linkage ({} before)",
            name.value,
            first_linkage.map_or("none", Linkage::as_str)
        )
    } else if !first_defined
        && defined
        && (first_linkage == Some(Linkage::Extern)
            || linkage.is_some_and(|linkage| Some(linkage) != first_linkage))
    {
        format!(
            "the definition of `{}` does not match its prototype's linkage ({})",
            name.value,
            first_linkage.map_or("none", Linkage::as_str)
        )
    } else {
        return None;
    };
    Some(
        Diagnostic::error("E0222", message, name.span)
            .with_label(first, "first declared here")
            .with_help(
                "ptxas: Duplicate definition of function / Inconsistent redefinition of variable",
            ),
    )
}

/// A direct call passes exactly the function's return and input parameters (9.7.12.5,
/// call.md: "The number and types of arguments in the call must match the function's
/// declaration"; ptxas 13.5: "Call has wrong number of parameters" for `call f;` of a function
/// with a return parameter or an input parameter, and for `call (r), f;` of one without).
/// `index` is the callee's operand.
fn call_arity(
    instruction: &Instruction,
    index: usize,
    name: &str,
    arity: Arity,
    declared: Span,
) -> Option<Diagnostic> {
    let count = |operand: Option<&Operand>| match operand {
        Some(Operand::List(list)) => list.value.len(),
        _ => 0,
    };
    let returns = if index == 0 {
        0
    } else {
        count(instruction.operands.first())
    };
    let params = count(instruction.operands.get(index + 1));
    let params_match = params == usize::from(arity.params)
        || (arity.optional_last && params + 1 == usize::from(arity.params));
    if returns == usize::from(arity.returns) && params_match {
        return None;
    }
    Some(
        Diagnostic::error(
            "E0211",
            format!(
                "`{name}` takes {} return and {} input parameters; this call passes {returns} \
                 and {params}",
                arity.returns, arity.params
            ),
            instruction.span,
        )
        .with_label(declared, "declared here")
        .with_help("ptxas: Call has wrong number of parameters"),
    )
}

/// The video selectors (`%r1.b0`, `%r2.h10`) of an instruction's operands, each checked
/// against [`ptxsim_isa::op_layout::video_selector_violation`] (E0321).
/// The operand shape of `call` (9.7.12.5, call.md): `call{.uni} {(ret-param),} func{,
/// (param-list)};` and, for an indirect call through a register, `call{.uni} {(ret-param),}
/// fptr{, (param-list)}, flist;` (or `fproto`), where `flist` names a `.calltargets` list or
/// a table and `fproto` a `.callprototype`. ptxas 13.5: "Parsing error near ','" for an
/// argument outside parentheses, "Label expected for argument 0 of instruction 'call'" for an
/// indirect call without its list, "Label or .u32/.u64/.u8 array expected for argument 1".
fn call_shape(instruction: &Instruction) -> Option<Diagnostic> {
    let operands = &instruction.operands;
    let mut index = usize::from(matches!(operands.first(), Some(Operand::List(_))));
    let Some(callee) = operands.get(index) else {
        return Some(Diagnostic::error(
            "E0321",
            "`call` needs the function to call",
            instruction.span,
        ));
    };
    let Operand::Name(name) = callee else {
        return Some(Diagnostic::error(
            "E0321",
            "the callee of `call` must be a function's name or a register holding its address",
            callee.span(),
        ));
    };
    let indirect = name.name.value.starts_with('%');
    index += 1;
    if matches!(operands.get(index), Some(Operand::List(_))) {
        index += 1;
    }
    match (indirect, operands.get(index), operands.get(index + 1)) {
        (false, None, _) => None,
        (true, Some(Operand::Name(list)), None) if !list.name.value.starts_with('%') => None,
        (true, None, _) => Some(Diagnostic::error(
            "E0321",
            "an indirect call needs its possible callees: a `.calltargets` list, a table of \
             function addresses or a `.callprototype` after the arguments",
            callee.span(),
        )),
        (_, Some(extra), _) => Some(Diagnostic::error(
            "E0321",
            "unexpected operand: the return value and the arguments of `call` are written in \
             parentheses, `call (r), f, (a, b);`",
            extra.span(),
        )),
    }
}

/// A special register written as an operand of its own (PTX ISA 10, "Special Registers": they
/// are read with `mov` or `cvt`): ptxas 13.5 rejects it on every other instruction ("Special
/// register argument not allowed for instruction 'add'", also as a destination; probed with one
/// source of each accepted line of `ops-forms.tsv`, `fuzz-forms.tsv` and `mov.tsv`, 1,800
/// lines: only `mov` and `cvt` took one), but takes one as an element of a brace vector
/// (`st.shared.v2.u32 [a], {%tid.x, %tid.y}`) or of a texture or surface coordinate list.
/// `mov` and `cvt` have their own rules (E0328 in the operand tables).
fn special_register_operands(
    op: Option<Opcode>,
    instruction: &Instruction,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(op) = op else {
        return;
    };
    if matches!(op, Opcode::Mov | Opcode::Cvt) {
        return;
    }
    let special = instruction.operands.iter().find(|operand| match operand {
        Operand::SpecialRegister(_) => true,
        Operand::Negated(_, inner, _) => matches!(**inner, Operand::SpecialRegister(_)),
        _ => false,
    });
    if let Some(special) = special {
        diagnostics.push(
            Diagnostic::error(
                "E0328",
                format!(
                    "a special register cannot be an operand of `{}`",
                    instruction.opcode.as_str()
                ),
                special.span(),
            )
            .with_help("read it into a register with `mov` first"),
        );
    }
}

/// Where `-reg` may stand: `vmad.dtype.atype.btype{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel},
/// {-}c;` (9.7.18.1.3, vmad.md: "The source operands support optional negation with some
/// restrictions"). ptxas 13.5: "Operand negation not allowed for instruction 'add'" for any
/// other instruction, "Operand negation limited to either (source A xor source B) or source C"
/// for `d` and for `c` with one of `a`, `b` (all three is accepted), "Conflicting use of '.po' modifier with operand
/// negation".
fn minus_negations(
    op: Option<Opcode>,
    instruction: &Instruction,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let negated: Vec<(usize, Span)> = instruction
        .operands
        .iter()
        .enumerate()
        .filter_map(|(index, operand)| match operand {
            Operand::Negated(span, _, Negation::Minus) => Some((index, *span)),
            _ => None,
        })
        .collect();
    let Some(&(_, first)) = negated.first() else {
        return;
    };
    let opcode = instruction.opcode.as_str();
    if op != Some(Opcode::Vmad) {
        diagnostics.push(Diagnostic::error(
            "E0321",
            format!("`{opcode}` takes no negated register operands"),
            first,
        ));
        return;
    }
    if instruction.modifiers.iter().any(|m| m.as_str() == "po") {
        diagnostics.push(
            Diagnostic::error("E0321", "`vmad.po` takes no negated operands", first)
                .with_help("negate the sources without `.po`"),
        );
        return;
    }
    // ptxas 13.5 takes `-a, -b, -c` (the product keeps its sign) but not `-a, b, -c`.
    let is_negated = |at: usize| negated.iter().any(|(index, _)| *index == at);
    let product_negated = is_negated(1) != is_negated(2);
    if let Some(&(_, span)) = negated
        .iter()
        .find(|(index, _)| *index == 0 || *index > 3 || (*index == 3 && product_negated))
    {
        diagnostics.push(Diagnostic::error(
            "E0321",
            "`vmad` negates either the product `a*b` (one of `-a`, `-b`) or `c`, never both \
             nor the destination",
            span,
        ));
    }
}

fn video_selectors(op: Opcode, instruction: &Instruction, diagnostics: &mut Vec<Diagnostic>) {
    for (index, operand) in instruction.operands.iter().enumerate() {
        let (Operand::Name(name) | Operand::SpecialRegister(name)) = operand else {
            continue;
        };
        // ptxas 13.5: "Unknown video selector: '.y'" for a vector component on a video
        // instruction's operand.
        if let Some(component) = &name.component
            && ptxsim_isa::syntax::is_video(op)
        {
            diagnostics.push(Diagnostic::error(
                "E0321",
                format!(
                    "`.{}` is no video selector (`.b0`..`.b3`, `.h0`, `.h1` and their lane lists)",
                    component.value
                ),
                component.span,
            ));
            continue;
        }
        let Some(selector) = &name.selector else {
            continue;
        };
        let value = selector.value;
        // The scalar video instructions take `d.dsel` only in their form with `c` and without
        // a secondary operation (9.7.10.1: `vop.dtype.atype.btype{.sat} d.dsel, a{.asel},
        // b{.bsel}, c;`; vmad has none). ptxas 13.5: "Video selector is not allowed on
        // destination for instruction 'vadd'", "Video instruction cannot have destination
        // selector and secondary operation".
        let scalar_dsel = index == 0
            && matches!(
                op,
                Opcode::Vadd
                    | Opcode::Vsub
                    | Opcode::Vabsdiff
                    | Opcode::Vmin
                    | Opcode::Vmax
                    | Opcode::Vshl
                    | Opcode::Vshr
                    | Opcode::Vset
                    | Opcode::Vmad
            );
        let secondary = instruction
            .modifiers
            .iter()
            .any(|m| matches!(m.value.as_str(), "add" | "min" | "max"));
        let dsel_reason = (scalar_dsel
            && (op == Opcode::Vmad || instruction.operands.len() != 4 || secondary))
            .then_some(
                "a selector on the destination needs the form with `c` and no secondary \
                 operation (`vop.dtype.atype.btype d.dsel, a, b, c`)",
            );
        if let Some(reason) = dsel_reason.map(str::to_string).or_else(|| {
            ptxsim_isa::op_layout::video_selector_violation(op, index, value.half, value.digits())
        }) {
            diagnostics.push(Diagnostic::error(
                "E0321",
                format!("`.{value}`: {reason}"),
                selector.span,
            ));
        }
    }
}

/// E0320 for an instruction that takes two operands: `what` says which, the message adds how
/// many it has.
fn two_operands(instruction: &Instruction, what: &str) -> Diagnostic {
    Diagnostic::error(
        "E0320",
        format!("{what}, not {}", instruction.operands.len()),
        instruction.span,
    )
}
