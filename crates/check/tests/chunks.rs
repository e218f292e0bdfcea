//! Parsing and checking a module on several threads gives exactly the tree and diagnostics of
//! one thread: on every `.ptx` file of the repository, on modules made of many of them (with
//! duplicate and out-of-order definitions across the pieces), and on deterministic mutations.
//! The same holds for checking straight from the text in pieces ([`check_source_in_pieces`]).

use ptxsim_check::{Options, check_source_in_pieces, parse_and_check_in_chunks};
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
    for dir in [
        "ptx-samples",
        "tests/parse",
        "tests/broken",
        "tests/check",
        "tests/exec",
    ] {
        collect_ptx(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
        .collect()
}

/// `files` without the deliberately broken inputs.
fn without_broken(files: &[(PathBuf, String)]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .filter(|(path, _)| !path.to_string_lossy().contains("broken"))
        .cloned()
        .collect()
}

/// Checks `source` on one thread and on 2, 3 and 7, and in pieces of several sizes on 1 to 3
/// threads; panics with `what` on a difference.
fn assert_same(what: &str, source: &str) {
    assert_same_with(what, source, &Options::default());
}

fn assert_same_with(what: &str, source: &str, options: &Options) {
    let (module, diagnostics) = parse_and_check_in_chunks(source, options, 1);
    for (piece_size, threads) in [(1, 3), (300, 2), (4096, 1), (1 << 16, 2)] {
        assert_eq!(
            diagnostics,
            check_source_in_pieces(source, options, piece_size, threads),
            "{what}: diagnostics differ in pieces of {piece_size} bytes on {threads} threads"
        );
    }
    for chunks in [2, 3, 7] {
        let (chunked_module, chunked_diagnostics) =
            parse_and_check_in_chunks(source, options, chunks);
        assert_eq!(
            diagnostics, chunked_diagnostics,
            "{what}: diagnostics differ with {chunks} chunks"
        );
        assert!(
            module == chunked_module,
            "{what}: trees differ with {chunks} chunks"
        );
    }
}

/// One module made of the functions of many files: the first file's header, then every file
/// without its `.version`, `.target` and `.address_size` lines.
fn combined(files: &[(PathBuf, String)]) -> String {
    let mut out = String::new();
    for (index, (_, text)) in files.iter().enumerate() {
        for line in text.lines() {
            let header = [".version", ".target", ".address_size"]
                .iter()
                .any(|directive| line.trim_start().starts_with(directive));
            if index == 0 || !header {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
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

/// Deletes, duplicates or moves whole lines, or inserts a character: mostly still free of syntax
/// errors, so that the chunked path (not its fallback) is compared, with semantic errors
/// (undeclared, duplicate, used-before-declaration names) that cross chunk boundaries.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let at = rng.below(lines.len());
        match rng.below(4) {
            0 => {
                lines.remove(at);
            }
            1 => lines.insert(at, lines[at]),
            2 => {
                let line = lines.remove(at);
                let to = rng.below(lines.len() + 1);
                lines.insert(to, line);
            }
            _ => lines.insert(at, ["}", "{", ";", "/*", "*/", "\"", ""][rng.below(7)]),
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[test]
fn chunks_are_invisible_on_repository_files() {
    let files = inputs();
    assert!(files.len() > 50, "found only {} .ptx files", files.len());
    for (path, text) in &files {
        assert_same(&path.display().to_string(), text);
    }
}

#[test]
fn chunks_are_invisible_on_combined_modules() {
    let files = inputs();
    let valid = without_broken(&files);
    assert_same("all valid files", &combined(&valid));
    assert_same("all files", &combined(&files));
    let mut reversed = valid.clone();
    reversed.reverse();
    assert_same("all valid files, reversed", &combined(&reversed));
}

#[test]
fn chunks_are_invisible_on_mutated_modules() {
    let files = inputs();
    let valid = without_broken(&files);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut clean = 0;
    let cases = 120;
    for case in 0..cases {
        // A handful of files, so that each mutant holds several functions.
        let start = rng.below(valid.len());
        let count = 2 + rng.below(6);
        let picked: Vec<_> = valid
            .iter()
            .cycle()
            .skip(start)
            .take(count)
            .cloned()
            .collect();
        let mutant = mutate(&combined(&picked), &mut rng);
        let (_, diagnostics) = parse_and_check_in_chunks(&mutant, &Options::default(), 1);
        clean += usize::from(!diagnostics.iter().any(|d| d.code.starts_with('P')));
        assert_same(&format!("mutant {case}:\n{mutant}"), &mutant);
    }
    assert!(
        clean > cases / 4,
        "only {clean} of {cases} mutants parse cleanly"
    );
}

/// Modules where checking in pieces must hand over to the whole-module path, or where hints
/// name declarations further down: header directives after functions, syntax errors in several
/// functions (the first one decides, as in ptxas), names used before their module-scope
/// declaration, and a `--target` override.
#[test]
fn pieces_are_invisible_on_special_modules() {
    let files = inputs();
    let valid = without_broken(&files);
    let module = combined(&valid);
    let late_header = format!("{module}.target sm_80\n");
    assert_same("a .target after the functions", &late_header);
    let late_version = module.replacen("\n}\n", "\n}\n.version 8.0\n", 3);
    assert_same("a .version between functions", &late_version);
    let mut broken = String::new();
    for (index, piece) in module.split("\n}\n").enumerate() {
        broken.push_str(piece);
        broken.push_str(match index % 7 {
            3 => "\n\tmov.u32 %r1 %r2;\n}\n",
            5 => "\n\tadd.s32 %r1, , %r2;\n}\n",
            _ => "\n}\n",
        });
    }
    assert_same("syntax errors in several functions", &broken);
    let forward = format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .global .u64 early = later;\n\
         .visible .entry k()\n{{\n\tmov.u64 %rd1, later;\n\tcall callee;\n\tbra.uni nowhere;\n}}\n\
         {module}\n.global .u64 later;\n.func callee()\n{{\n\tret;\n}}\n"
    );
    assert_same("names declared further down", &forward);
    let target = ptxsim_isa::Target::parse("sm_80").ok();
    assert_same_with("--target sm_80", &module, &Options { target });
    assert_same("an empty module", "");
    assert_same("only a header", ".version 8.5\n.target sm_90\n");
}
