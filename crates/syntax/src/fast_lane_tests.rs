//! The fast lane changes nothing but speed: on every `.ptx` file of the repository and on many
//! deterministic random mutations of them, parsing with the fast lane off and on gives the same
//! tree (spans included) and the same diagnostics. The same holds for parsing in chunks on
//! several threads.

use crate::ast::Item;
use crate::parser::{chunk_bounds, parse_chunk, parse_in_chunks, parse_with};
use std::path::{Path, PathBuf};

fn collect_ptx(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_ptx(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "ptx") {
            out.push(path);
        }
    }
}

fn inputs() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["ptx-samples", "tests/parse", "tests/broken", "tests/exec"] {
        collect_ptx(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some((path, text))
        })
        .collect()
}

/// Whether parsing `source` reports a syntax error (after which [`parse_with`] parses again
/// without the fast lane, so that only mutants without one test the fast lane's own output).
fn has_syntax_error(source: &str) -> bool {
    parse_with(source, false)
        .1
        .iter()
        .any(|diagnostic| matches!(diagnostic.code, "P0004" | "P0005"))
}

/// Parses `source` both ways; returns a description of the first difference.
fn difference(source: &str) -> Option<String> {
    let (slow_module, slow_diagnostics) = parse_with(source, false);
    let (fast_module, fast_diagnostics) = parse_with(source, true);
    if slow_diagnostics != fast_diagnostics {
        return Some(format!(
            "diagnostics differ:\nwithout fast lane: {slow_diagnostics:#?}\nwith fast lane: {fast_diagnostics:#?}"
        ));
    }
    if slow_module != fast_module {
        let slow = format!("{slow_module:#?}");
        let fast = format!("{fast_module:#?}");
        let line = slow
            .lines()
            .zip(fast.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let excerpt = |text: &str| {
            text.lines()
                .skip(line.saturating_sub(20))
                .take(30)
                .collect::<Vec<_>>()
                .join("\n")
        };
        return Some(format!(
            "trees differ near line {line} of their debug output:\nwithout fast lane:\n{}\nwith fast lane:\n{}",
            excerpt(&slow),
            excerpt(&fast)
        ));
    }
    None
}

#[test]
fn fast_lane_is_invisible_on_repository_files() {
    let files = inputs();
    assert!(files.len() > 50, "found only {} .ptx files", files.len());
    for (path, text) in &files {
        if let Some(difference) = difference(text) {
            panic!("{}: {difference}", path.display());
        }
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// Text inserted by mutations: punctuation, keywords and literals that move the parser between
/// contexts or make the helpers report diagnostics.
const SNIPPETS: &[&str] = &[
    ";",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "@",
    "!",
    "-",
    "+",
    "|",
    "=",
    "<",
    ">",
    "_",
    ".global",
    ".param",
    ".reg",
    ".loc 1 2 3",
    ".loc",
    ".pragma \"x\";",
    ".entry",
    ".func",
    ".section",
    ".x",
    ".q",
    ".u32",
    ".v4",
    "%r1",
    "%p1",
    "foo:",
    "mov.u32",
    "bra",
    "@%p1",
    "@!%p1",
    "0f3F800000",
    "0f3F8",
    "0d3FF0000000000000",
    "1.5",
    "99999999999999999999",
    "0x",
    "08",
    "0b102",
    "-1",
    "+-4",
    "{%r1, %r2}",
    "[%rd1+4]",
    "[%rd1-4]",
    "[1, 2]",
    "%tid.w",
    "\"str\"",
    "\"open",
    "/*",
    "*/",
    "//",
    "$",
    "#",
    "\n",
    " ",
    "call (%r1), f, (%r2);",
    ".callprototype",
    ".branchtargets",
    "%r<4>",
    "= {1, 2}",
];

/// Whole statements inserted at line starts: mostly valid, so that many mutants reach the end
/// without a syntax error and test the fast lane's own output.
const STATEMENTS: &[&str] = &[
    "\tmov.u32 %r1, %tid.x;\n",
    "\t@!%p1 ld.global.nc.v2.f32 {%f1, %f2}, [%rd1+-8];\n",
    "\t@%p2 bra $L__BB0_1;\n",
    "\tst.shared.b32 [%r1], 0f3F800000;\n",
    "\tst.global.b64 [12], 0d3FF0000000000000;\n",
    "$L__x: add.s32 %r1, %r2, -5;\n",
    "\tsetp.ne.s32 %p1|%p2, %r1, 0;\n",
    "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];\n",
    "\tmov.b32 %r1, 1.5;\n",
    "\tmov.b32 %r1, -0x10U;\n",
    "\tmov.b32 %r1, 017;\n",
    "\tmov.b32 %r1, 0b101;\n",
    "\tselp.b32 %r1, %r2, _, !%p1;\n",
    "\tld.param.u64 %rd1, [p_in+0];\n",
    "\tld.global.u32 %r1, [%rd1+-0];\n",
    "\tcall (%r1), f, (%r2);\n",
    "\tret;\n",
    "\tbar.sync 0;\n",
    "\t.reg .b32 %q<3>;\n",
    "\t{ mov.u32 %r1, 1; }\n",
    "\t.loc 1 2 3\n",
    "\t.loc 1 2 3, function_name $L__info\n",
    "\tmov.u32 %r1, %envreg3;\n",
    "\tld.shared.v4.b32 {%r1, _, %r3, %r4}, [%r5+16];\n",
    "\tcp.async.bulk.tensor.2d.global.shared::cta [%rd1, {%r1, %r2}], [%r3];\n",
    "\tmov.u32 %r1, %pm8_64;\n",
    "\tld.global.L1::evict_last.u32 %r1, [%rd1];\n",
    "\t.local .align 8 .b8 __local_depot0[16];\n",
    "\t.shared .align 4 .f32 smem[32][];\n",
    "\t.reg .pred %p<2>, %q;\n",
    "\t.reg .b32 %x<99999999999>;\n",
    "\t.reg .v4 .f32 %v;\n",
    "\t.shared .u32 s = 5;\n",
    "\t.visible .global .u32 g;\n",
    "L1: L2: ret;\n",
    "L3:\n",
    "t: .branchtargets L1, L2;\n",
];

fn line_start_at_or_before(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |newline| newline + 1)
}

fn boundary_at_or_before(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut out = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let at = boundary_at_or_before(&out, rng.below(out.len() + 1));
        match rng.below(8) {
            5 | 6 => {
                let line = line_start_at_or_before(&out, at);
                out.insert_str(line, STATEMENTS[rng.below(STATEMENTS.len())]);
            }
            7 => {
                // Duplicate the line at `at`.
                let line = line_start_at_or_before(&out, at);
                let end = out[at..]
                    .find('\n')
                    .map_or(out.len(), |newline| at + newline + 1);
                let copy = out[line..end].to_string();
                out.insert_str(line, &copy);
            }
            0 | 1 => {
                let snippet = SNIPPETS[rng.below(SNIPPETS.len())];
                out.insert_str(at, snippet);
            }
            2 => {
                let end = boundary_at_or_before(&out, (at + 1 + rng.below(12)).min(out.len()));
                out.replace_range(at..end, "");
            }
            3 => {
                // Delete one punctuation character near `at`.
                if let Some(offset) = out[at..].find([';', '{', '}', '[', ']', ',', '(', ')']) {
                    out.remove(at + offset);
                }
            }
            _ => {
                // Duplicate a short stretch.
                let end = boundary_at_or_before(&out, (at + rng.below(40)).min(out.len()));
                let copy = out[at..end].to_string();
                out.insert_str(end, &copy);
            }
        }
    }
    out
}

/// A window of a large file around a random point, so that mutation tests stay fast.
fn window(text: &str, rng: &mut Rng) -> String {
    const SIZE: usize = 6000;
    if text.len() <= SIZE {
        return text.to_string();
    }
    let start = boundary_at_or_before(text, rng.below(text.len() - SIZE));
    let end = boundary_at_or_before(text, start + SIZE);
    // Keep the header so the window looks like a module, then a stretch from inside.
    let header_end = boundary_at_or_before(text, 200.min(text.len()));
    format!("{}\n{}", &text[..header_end], &text[start..end])
}

#[test]
fn fast_lane_is_invisible_on_mutated_files() {
    let files = inputs();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut cases = 0;
    let mut without_syntax_errors = 0;
    for (path, text) in &files {
        for _ in 0..40 {
            let base = window(text, &mut rng);
            let mutant = mutate(&base, &mut rng);
            cases += 1;
            without_syntax_errors += usize::from(!has_syntax_error(&mutant));
            if let Some(difference) = difference(&mutant) {
                panic!(
                    "mutation of {} differs:\n--- input ---\n{mutant}\n--- end ---\n{difference}",
                    path.display()
                );
            }
        }
    }
    assert!(cases > 4000, "only {cases} mutants");
    assert!(
        without_syntax_errors > cases / 5,
        "only {without_syntax_errors} of {cases} mutants are free of syntax errors"
    );
}

/// Parses `source` on one thread and in 2 and 3 chunks; returns a description of a difference.
fn chunk_difference(source: &str) -> Option<String> {
    let sequential = parse_with(source, true);
    for chunks in [2, 3] {
        if parse_in_chunks(source, chunks) != sequential {
            return Some(format!("parsing in {chunks} chunks differs"));
        }
    }
    None
}

#[test]
fn chunked_parse_is_invisible_on_repository_and_mutated_files() {
    let files = inputs();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (path, text) in &files {
        if let Some(difference) = chunk_difference(text) {
            panic!("{}: {difference}", path.display());
        }
        for _ in 0..10 {
            let mutant = mutate(text, &mut rng);
            if let Some(difference) = chunk_difference(&mutant) {
                panic!(
                    "mutation of {} differs:\n--- input ---\n{mutant}\n--- end ---\n{difference}",
                    path.display()
                );
            }
        }
    }
}

/// The chunked path is really taken for a module of several functions (rather than its
/// fallback, the sequential parse).
#[test]
fn chunked_parse_splits_between_functions() {
    let mut source = String::from(".version 8.5\n.target sm_90\n.address_size 64\n");
    for index in 0..6 {
        source.push_str(&format!(
            ".visible .entry k{index}()\n{{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, {index};\n\tret;\n}}\n"
        ));
    }
    let bounds = chunk_bounds(&source, 3);
    assert_eq!(bounds.len(), 4, "{bounds:?}");
    for range in bounds.windows(2) {
        assert!(parse_chunk(&source, range[0], range[1]).is_some());
    }
    let (module, diagnostics) = parse_in_chunks(&source, 3);
    assert!(diagnostics.is_empty());
    assert_eq!(module.items.len(), 6);
    assert!((module, diagnostics) == parse_with(&source, true));
}

/// Inline assembly as nvcc copies it puts `}` alone on a line inside a function: pieces and
/// chunks are never cut there, but only where an item starts (after comments), so that each
/// piece parses on its own.
#[test]
fn pieces_are_not_cut_inside_inline_assembly() {
    let mut source = String::from(".version 8.5\n.target sm_90\n.address_size 64\n");
    for index in 0..6 {
        source.push_str(&format!(
            "\t// .globl\tk{index}\n.visible .entry k{index}()\n{{\n\t.reg .b32 %r<9>;\n\
             \t// begin inline asm\n\t{{mul.f16x2 %r6,%r7,%r8;\n}}\n\t// end inline asm\n\
             \t{{.reg .f16 low,high;\n  mov.b32 {{low,high}},%r8;}}\n\
             \tret;\n}}\n"
        ));
    }
    source.push_str(".global .u32 last;\n");
    for size in [1, 40, 200, 1000] {
        let bounds = crate::parser::piece_bounds(&source, size);
        assert!(bounds.len() > 2, "{size}: {bounds:?}");
        for range in bounds.windows(2) {
            assert!(
                parse_chunk(&source, range[0], range[1]).is_some(),
                "piece {range:?} of size {size} does not parse:\n{}",
                &source[range[0]..range[1]]
            );
        }
    }
    let bounds = chunk_bounds(&source, 4);
    assert_eq!(bounds.len(), 5, "{bounds:?}");
    for range in bounds.windows(2) {
        assert!(
            parse_chunk(&source, range[0], range[1]).is_some(),
            "{range:?}"
        );
    }
}

/// Lexes `source` with the hand lexer ([`Lexer::fill_fast`], a token at a time) and with the
/// generated automaton alone; returns the first difference in tokens or diagnostics.
fn lexer_difference(source: &str) -> Option<String> {
    let mut slow = crate::lexer::Lexer::new(source);
    let mut fast = crate::lexer::Lexer::new(source);
    loop {
        let (expected, got) = (slow.next(), fast.next_fast().map(Ok));
        if expected != got {
            return Some(format!("automaton: {expected:?}, by hand: {got:?}"));
        }
        if expected.is_none() {
            break;
        }
    }
    let (expected, got) = (slow.take_diagnostics(), fast.take_diagnostics());
    (expected != got).then(|| format!("diagnostics differ: {expected:?} vs {got:?}"))
}

#[test]
fn hand_lexing_is_invisible() {
    let mut sources: Vec<String> = inputs().into_iter().map(|(_, text)| text).collect();
    for tricky in [
        ".reg .regs .reg::x .a:: .a::b::c .a::$ . .5 .version9 %tid.x %",
        "a/b //c\n/* d */ e /* f",
        "{{{(([[ ]])) }}} ]])) x",
        "0x1F 0f3F800000 1.5e3 -2 \"s\" \"t",
        "12 12U 12u 12abc 12.5 12. 12e3 12E-3 12$ 12_ 0 00 007 0b101 4,5;6]7)8}9>1<2+3-4:5|6",
        "[%rd1+16]; @%p1 bra $L__BB0_2; 42",
        "mov.u32 %r1, %r2;\u{b}\u{c}x\ty\r\nz £ é",
        "",
        "   ",
        "// only a comment",
    ] {
        sources.push(tricky.to_string());
    }
    // Deeper than the nesting limit.
    sources.push("{".repeat(300) + &"}".repeat(300));
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let texts = sources.clone();
    for text in &texts {
        // A few mutants of each: a cut at a random place and a random byte inserted.
        for _ in 0..4 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut at = (rng % (text.len() as u64 + 1)) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let choices = b"/*\"{}[]().:;%$_0aZ \n";
            let inserted = char::from(choices[(rng >> 40) as usize % choices.len()]);
            sources.push(format!("{}{inserted}{}", &text[..at], &text[at..]));
            sources.push(text[at..].to_string());
        }
    }
    for source in &sources {
        if let Some(difference) = lexer_difference(source) {
            panic!("{difference}\nin:\n{source}");
        }
    }
}

/// The item parser gives what the grammar gives for a whole piece (or gives up where it does),
/// including where its guess at the end of an item it hands to the grammar is wrong.
#[test]
fn item_parser_is_invisible() {
    let mut sources: Vec<String> = inputs().into_iter().map(|(_, text)| text).collect();
    let header = ".version 8.5\n.target sm_90\n.address_size 64\n";
    for tricky in [
        // The guess ends after `}` of an initializer that a second declarator follows.
        ".global .u32 a[2] = {1, 2}, b;\n.visible .entry k()\n{\n\tret;\n}\n",
        // A `.file` without `;`, a pragma in a body, a prototype and branch targets.
        ".file 1 \"a.cu\"\n.func f()\n{\n\t.pragma \"nounroll\";\n\tret;\n}\n",
        ".entry k()\n{\n\tp: .callprototype ()_ (.param .b32 _);\n\tt: .branchtargets l;\nl:\n\tret;\n}\n",
        // Items the item parser leaves to the grammar, and a syntax error in the last one.
        ".extern .func (.param .b32 r) g(.param .b32 x);\n.global .align 8 .b8 t[4] = {1,2,3,4};\n",
        ".entry k()\n{\n\tmov.u32 %r1 %r2;\n}\n",
        ".entry k() .maxntid 32, 1, 1 .noreturn\n{\n\t{\n\t\tret;\n\t}\n}\n.reg .b32 r;\n",
        // Initializers: properties, `generic(name)` and names with offsets, nested lists, and
        // those the grammar reports something about (`-4`, another word than `generic`).
        ".global .samplerref s = { filter_mode = nearest, addr_mode_0 = wrap, x = -1.5 };\n",
        ".global .u64 p = generic(t)+8, q = t+-4, r[2] = {t, generic(t)};\n.global .u32 t;\n",
        ".global .u32 m[2][2] = {{1, 0x2}, {-3, 4U}}, f = 0f3F800000;\n",
        ".global .u64 bad = t-4;\n.global .u64 odd = other(t);\n.global .u32 t;\n",
        ".global .u32 deep = {{{{{{{{{{1}}}}}}}}}};\n.global .u32 e = {};\n",
        ".entry k()\n{\n\t.local .u32 l = 5;\n\t.reg .b32 r = {1, 2};\n\tret;\n}\n",
        // Pragmas: at module scope, among a function's directives, in its body and in a block;
        // with linkage, a syntax error.
        ".pragma \"abi\";\n.entry k() .maxntid 32 .pragma \"nounroll\";\n{\n\t.pragma \"nounroll\";\n\t{\n\t\t.pragma \"x\";\n\t}\n\tret;\n}\n",
        ".visible .pragma \"x\";\n",
        // `.loc` attributes (`-lineinfo` builds), an unknown one, and one cut short.
        ".func f()\n{\n\t.loc 2 308 13, function_name $L__info_string0, inlined_at 1 13 9\n\tret;\n}\n",
        ".func f()\n{\n\t.loc 1 2 3, inlined_at 1 4 5, function_name g\n\t.loc 1 2 3, foo bar\n\tret;\n}\n",
        ".func f()\n{\n\t.loc 1 2 3, inlined_at 1 4\n\tret;\n}\n",
        // `.file` with the timestamp and size of `-lineinfo` builds, an escaped quote, and
        // a value out of range.
        ".file 1 \"/tmp/a.cu\", 1700000000, 1234\n.file 2 \"b\\\"c.h\"\n.func f()\n{\n\tret;\n}\n",
        ".file 1 \"a.cu\", 99999999999999999999\n",
        // Debug sections: labels, numbers (one hexadecimal), strings, symbols with offsets,
        // and one offset the grammar reports (`-4`).
        ".section .debug_info\n{\n$L__info: \n.b32 57 // length\n.b8 2, 0x1F\n.b32 .debug_abbrev\n.b64 $L__func_begin0+-8\n.b8 \"text\"\n.b32 .debug_loc+2554\n}\n.section\t.debug_macinfo\t{\t}\n",
        ".section .debug_info\n{\n.b32 .debug_loc-4\n}\n",
    ] {
        sources.push(format!("{header}{tricky}"));
    }
    for source in &sources {
        let by_items = crate::items::parse_piece(source, 0, source.len())
            .map(|elements| crate::parser::fold(source, elements));
        let by_grammar = parse_chunk(source, 0, source.len())
            .map(|elements| crate::parser::fold(source, elements));
        assert_eq!(by_items, by_grammar, "in:\n{source}");
    }
}

/// `.attribute(.managed)` on a variable parses (both ways, the same tree): ptxas 13.5 takes
/// `.global .attribute(.managed) .align 4 .u32 mv = 5;`. An unknown attribute
/// (`.attribute(.bogus)`: ptxas "Parsing error near '.bogus'"), `.managed` with arguments or
/// another word before the parentheses is P0009.
#[test]
fn variable_attributes() {
    let header = ".version 8.0\n.target sm_90\n.address_size 64\n";
    let good = format!("{header}.global .attribute(.managed) .align 4 .u32 mv = 5;\n");
    let (module, diagnostics) = parse_with(&good, false);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(difference(&good), None);
    let managed = module.items.iter().any(|item| {
        matches!(item, Item::Variable(declaration) if declaration.is_managed()
            && declaration.align() == Some(4))
    });
    assert!(managed, "{module:#?}");
    for bad in [
        ".global .attribute(.bogus) .u32 mv;\n",
        ".global .attribute(.managed(1, 2)) .u32 mv;\n",
        ".global .attr(.managed) .u32 mv;\n",
    ] {
        let (_, diagnostics) = parse_with(&format!("{header}{bad}"), false);
        assert!(
            diagnostics.iter().any(|d| d.code == "P0009"),
            "{bad}: {diagnostics:#?}"
        );
    }
}
