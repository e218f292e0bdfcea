//! Modifier words ptxas 13.5 reads and then ignores on instructions that do not use them.
//!
//! The PTX ISA's Syntax blocks give every instruction its modifiers; ptxas rejects any other
//! word ("Unknown modifier '.foo'", "Illegal modifier '.ftz' for instruction 'vadd'"), except a
//! few words that name operation kinds of `testp` (`.finite`, `.normal`, ...), fields of
//! `tensormap.replace` (`.box_dim`, `.elemtype`, ...), `ldmatrix`'s packed source formats
//! (`.b8x16`, `.b6x16_p32`, `.b4x16_p64`) and `multimem`'s accumulator types (`.acc::f16`,
//! `.acc::f32`): ptxas accepts those anywhere after an instruction's name and drops them
//! (`add.s32.elemtype d, a, b`, `ld.global.normal.u32 d, [a]`, `vadd.s32.s32.s32.box_dim d, a, b`
//! and `bar.sync.finite 0` all assemble, probed on every opcode of the repository's conformance
//! data, 5,689 lines). Written between the words of a compound name they are unknown words
//! there too (`cvta.elemtype.to.global`: "Unknown modifier '.to'"; `mbarrier.finite.arrive`,
//! `wmma.load.rank.a`, `mul.normal.lo`: "Unexpected instruction types specified for 'mul'").
//!
//! The parser drops such a word where ptxas does, so that every later stage sees the modifiers
//! ptxas reads; the lines that show it are in `scripts/conformance/syntax-examples.txt`.

use crate::span::{Spanned, Text};

/// The words ptxas 13.5 drops from the modifiers of an instruction that does not use them.
pub const IGNORED_MODIFIERS: &[&str] = &[
    "acc::f16",
    "acc::f32",
    "b4x16_p64",
    "b6x16_p32",
    "b8x16",
    "box_dim",
    "element_stride",
    "elemtype",
    "fill_mode",
    "finite",
    "global_address",
    "global_dim",
    "global_stride",
    "infinite",
    "interleave_layout",
    "normal",
    "notanumber",
    "number",
    "rank",
    "subnormal",
    "swizzle_atomicity",
    "swizzle_mode",
];

/// Whether `opcode` has a use for `word` (then ptxas checks it there: `testp.finite.finite`
/// is "Multiple testp operation modifiers specified").
fn used_by(opcode: &str, word: &str) -> bool {
    match opcode {
        "testp" => matches!(
            word,
            "finite" | "infinite" | "number" | "notanumber" | "normal" | "subnormal"
        ),
        "tensormap" => true,
        // `tcgen05.cp`'s source formats ("Unexpected number of 'format conversion' modifiers
        // specified" for two of them).
        "ldmatrix" | "stmatrix" | "tcgen05" => word.starts_with('b') && word.contains("x16"),
        "multimem" => word.starts_with("acc::"),
        _ => false,
    }
}

/// Whether `next`, the word after an ignored one, continues `opcode`'s compound name, so that
/// the ignored word splits it (ptxas 13.5: "Unknown modifier '.arrive'" for
/// `mbarrier.finite.arrive`, "Not a name of any known instruction: 'cp'" for
/// `cp.elemtype.async`).
fn continues_name(opcode: &str, first: bool, next: &str) -> bool {
    match opcode {
        // Every sub-operation: `tcgen05.rank.alloc`, `wgmma.rank.fence`.
        "tcgen05" | "wgmma" | "wmma" | "multimem" | "clusterlaunchcontrol" | "brx" | "cp"
            if first =>
        {
            true
        }
        "bar" | "barrier" => matches!(next, "arrive" | "red" | "warp" | "cta"),
        "clusterlaunchcontrol" => matches!(next, "query_cancel" | "try_cancel" | "async"),
        "cp" => matches!(
            next,
            "async"
                | "bulk"
                | "reduce"
                | "commit_group"
                | "wait_all"
                | "wait_group"
                | "mbarrier"
                | "arrive"
                | "tensor"
        ),
        "createpolicy" => matches!(next, "fractional" | "range" | "cvt"),
        "cvt" => next == "pack",
        "cvta" => next == "to",
        "div" => next == "full",
        "dp2a" => matches!(next, "hi" | "lo"),
        "fence" | "membar" => next == "proxy",
        "mad" | "mul" | "mad24" | "mul24" | "madc" => matches!(next, "hi" | "lo" | "wide"),
        "mbarrier" => matches!(
            next,
            "arrive"
                | "arrive_drop"
                | "complete_tx"
                | "expect_tx"
                | "init"
                | "inval"
                | "pending_count"
                | "test_wait"
                | "try_wait"
                | "parity"
        ),
        "multimem" => matches!(next, "ld_reduce" | "red" | "st"),
        "pmevent" => next == "mask",
        "setmaxnreg" => matches!(next, "inc" | "dec"),
        "shf" => matches!(next, "l" | "r"),
        "sured" | "sust" | "suld" => matches!(next, "b" | "p"),
        "txq" => next == "level",
        "wgmma" => matches!(next, "fence" | "commit_group" | "wait_group" | "mma_async"),
        "wmma" => matches!(next, "load" | "store" | "mma" | "a" | "b" | "c" | "d"),
        _ => false,
    }
}

/// The kind of an ignored word: ptxas 13.5 takes at most one word of the `testp` operations,
/// of the `tensormap.replace` fields and of the accumulator precisions ("Multiple testp
/// operation modifiers specified" for `add.s32.finite.normal`, "Multiple .box_dim modifiers
/// specified" for `.rank.box_dim`, "Multiple accumulation precision modifiers specified"), and
/// any number of `ldmatrix` formats (`add.s32.b8x16.b8x16` assembles).
fn group(word: &str) -> Option<u8> {
    match word {
        "finite" | "infinite" | "number" | "notanumber" | "normal" | "subnormal" => Some(0),
        "acc::f16" | "acc::f32" => Some(1),
        "b4x16_p64" | "b6x16_p32" | "b8x16" => None,
        _ => Some(2),
    }
}

/// The type words of the reference and predicate types (PTX ISA 5.3, "Texture Sampler and
/// Surface Types": `.texref`, `.samplerref`, `.surfref`; 5.2.1 `.pred`) that ptxas 13.5 reads
/// as an extra instruction type and drops on the instructions of [`takes_reference_types`],
/// anywhere after the name and any number of times, as long as another type word is written
/// (`add.pred.s32 d, a, b`, `setp.eq.u32.texref p, a, b`, `fma.rn.f32.pred.pred`,
/// `atom.pred.global.add.u32` assemble; `add.pred d, a, b` is "Unexpected instruction types
/// specified for 'add'"). Probed on one `.pred` and one `.samplerref` after every accepted
/// line of `ops-forms.tsv` and `fuzz-forms.tsv` (7,326 lines); every other instruction rejects
/// them ("Unexpected instruction types specified for 'mul.lo'", "... for 'ld'").
pub const REFERENCE_TYPE_WORDS: &[&str] = &["pred", "texref", "samplerref", "surfref"];

/// Whether ptxas 13.5 drops the [`REFERENCE_TYPE_WORDS`] on an instruction with this name and
/// these modifiers: the arithmetic that has floating-point forms (`add`, `sub`, `mul` without
/// `.lo`/`.hi`/`.wide`, `fma`, `neg`, `abs`, `min`, `max`, `rcp`, `sqrt`, `rsqrt`, `ex2`,
/// `lg2`, `sin`, `cos`, `tanh`), the comparisons `setp` and `set`, `cvt` and `cvt.pack`,
/// `atom`, `red` (not `red.async`), `multimem`, `ldmatrix`, and `cp.reduce.async.bulk`
/// (not its `.tensor` form). Not `mad`, `div`, `copysign`, `testp`, `mov`, `ld`, `st`, the
/// logic and shift instructions, `selp`, `mma`, ...
fn takes_reference_types(opcode: &str, modifiers: &[Spanned<Text>]) -> bool {
    let has = |word: &str| modifiers.iter().any(|m| m.value.as_str() == word);
    match opcode {
        "add" | "sub" | "fma" | "neg" | "abs" | "min" | "max" | "rcp" | "sqrt" | "rsqrt"
        | "ex2" | "lg2" | "sin" | "cos" | "tanh" | "setp" | "set" | "cvt" | "atom" | "multimem"
        | "ldmatrix" => true,
        "mul" => !(has("lo") || has("hi") || has("wide")),
        "red" => !has("async"),
        "cp" => has("reduce") && !has("tensor"),
        _ => false,
    }
}

/// Whether `word` names a fundamental type (`.u32`, `.f16x2`, `.bf16`, `.e4m3`, `.ue8m0`, ...),
/// by its spelling: a type letter followed by a width.
fn is_type_word(word: &str) -> bool {
    let rest = ["bf", "tf", "ue", "b", "s", "u", "f", "e"]
        .iter()
        .find_map(|prefix| word.strip_prefix(prefix));
    rest.is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Removes the [`REFERENCE_TYPE_WORDS`] ptxas 13.5 drops (see there): on the instructions of
/// [`takes_reference_types`], when a type word stays, and not inside a compound name.
fn drop_reference_types(opcode: &str, modifiers: &mut Vec<Spanned<Text>>) {
    let reference = |m: &Spanned<Text>| REFERENCE_TYPE_WORDS.contains(&m.value.as_str());
    if !modifiers.iter().any(reference)
        || !modifiers.iter().any(|m| is_type_word(m.value.as_str()))
        || !takes_reference_types(opcode, modifiers)
    {
        return;
    }
    drop_outside_names(opcode, modifiers, reference);
}

/// Removes the modifiers `dropped` picks, except where one continues a compound name with the
/// modifier after it ([`continues_name`]).
fn drop_outside_names(
    opcode: &str,
    modifiers: &mut Vec<Spanned<Text>>,
    dropped: impl Fn(&Spanned<Text>) -> bool,
) {
    let keep: Vec<bool> = modifiers
        .iter()
        .enumerate()
        .map(|(i, m)| {
            !dropped(m)
                || modifiers
                    .get(i + 1)
                    .is_some_and(|next| continues_name(opcode, i == 0, next.value.as_str()))
        })
        .collect();
    let mut index = 0;
    modifiers.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

/// Removes `.b2`, which ptxas 13.5 reads as a type and drops on every instruction that does
/// not drop the [`REFERENCE_TYPE_WORDS`] (`or.b2.b32`, `mov.b2.u32`, `ld.global.b2.u32`,
/// `mul.lo.b2.u32`, `exit.b2`, `membar.b2.gl` assemble), anywhere but inside a compound name;
/// on those it takes the reference types it refuses it ("Unexpected instruction types
/// specified for 'add'" for `add.b2.u32`, also `cvt`, `setp`, `fma`, `atom`, ...), and alone
/// it is no type (`mov.b2 d, a`: the same words). Probed on 606 lines: `.b2` after the name
/// and at the end of two or three accepted lines of each opcode of `isagen-lines.tsv.xz`
/// (docs/conformance.md, "The fourteenth round").
fn drop_b2(opcode: &str, modifiers: &mut Vec<Spanned<Text>>) {
    if !modifiers.iter().any(|m| m.value.as_str() == "b2")
        || takes_reference_types(opcode, modifiers)
    {
        return;
    }
    drop_outside_names(opcode, modifiers, |m| m.value.as_str() == "b2");
}

/// Removes from `modifiers` the [`IGNORED_MODIFIERS`] ptxas 13.5 drops on `opcode` (see the
/// module documentation), the [`REFERENCE_TYPE_WORDS`] it drops and `.b2` ([`drop_b2`]); two
/// of one [`group`] stay, for the checker to reject. Almost every instruction has none: one
/// pass over its modifiers.
pub(crate) fn drop_ignored(opcode: &str, modifiers: &mut Vec<Spanned<Text>>) {
    drop_reference_types(opcode, modifiers);
    drop_b2(opcode, modifiers);
    let count = |g: u8| {
        modifiers
            .iter()
            .filter(|m| {
                let word = m.value.as_str();
                IGNORED_MODIFIERS.contains(&word) && group(word) == Some(g)
            })
            .count()
    };
    let ignored = |i: usize, word: &str| {
        IGNORED_MODIFIERS.contains(&word)
            && !used_by(opcode, word)
            && group(word).is_none_or(|g| count(g) < 2)
            && !modifiers
                .get(i + 1)
                .is_some_and(|next| continues_name(opcode, i == 0, next.value.as_str()))
    };
    if !modifiers
        .iter()
        .enumerate()
        .any(|(i, m)| ignored(i, m.value.as_str()))
    {
        return;
    }
    let keep: Vec<bool> = modifiers
        .iter()
        .enumerate()
        .map(|(i, m)| !ignored(i, m.value.as_str()))
        .collect();
    let mut index = 0;
    modifiers.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}
