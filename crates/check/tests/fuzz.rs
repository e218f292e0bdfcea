//! Random truncations and byte mutations of real modules never make the parser or checker panic,
//! and every diagnostic span lies inside the input. Deterministic (fixed seed) and bounded.

use std::path::{Path, PathBuf};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }
}

fn seeds() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parse/nvcc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    files.retain(|path| path.extension().is_some_and(|ext| ext == "ptx"));
    files.sort();
    files
}

fn exercise(bytes: &[u8]) {
    let (source, _) = ptxsim_syntax::diag::decode_source(bytes);
    let (module, diagnostics) = ptxsim_check::parse_and_check(&source);
    for diagnostic in &diagnostics {
        let range = diagnostic.span.range();
        assert!(range.start <= range.end && range.end <= source.len() + 1);
    }
    // Printing whatever was recovered must not panic either, and a module without syntax errors
    // must survive printing and parsing again.
    let printed = module.to_string();
    if !diagnostics
        .iter()
        .any(|diagnostic| diagnostic.code.starts_with('P'))
    {
        let (reparsed, rediagnostics) = ptxsim_syntax::parse(&printed);
        assert!(rediagnostics.is_empty(), "{rediagnostics:?}\n{printed}");
        assert!(
            reparsed.without_spans() == module.without_spans(),
            "round trip changed the tree:\n{printed}"
        );
    }
}

const PIECES: &[&[u8]] = &[
    b"{", b"}", b";", b"[", b"]", b"(", b")", b"<", b">", b"%r", b"@", b"!", b",", b".reg", b"0f",
    b"/*", b"\"", b"\xff", b"_", b":",
];

#[test]
fn truncations_and_mutations_never_panic() {
    // `PTXSIM_FUZZ_SCALE=N` runs N times as many cases with other seeds (default 1).
    let scale: u64 = std::env::var("PTXSIM_FUZZ_SCALE")
        .ok()
        .and_then(|scale| scale.parse().ok())
        .unwrap_or(1);
    for round in 0..scale.max(1) {
        fuzz_round(0x005E_ED0F_F00D + round);
    }
}

fn fuzz_round(seed: u64) {
    let mut rng = Rng(seed);
    let files = seeds();
    assert!(!files.is_empty());
    for path in files {
        let original = std::fs::read(&path).expect("seed files are readable");
        for _ in 0..40 {
            let cut = rng.below(original.len() + 1);
            exercise(&original[..cut]);
        }
        for _ in 0..60 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                match rng.below(3) {
                    0 => bytes[at] = rng.next() as u8,
                    1 => {
                        bytes.remove(at.min(bytes.len().saturating_sub(1)));
                    }
                    _ => {
                        let piece = PIECES[rng.below(PIECES.len())];
                        bytes.splice(at..at, piece.iter().copied());
                    }
                }
            }
            exercise(&bytes);
        }
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let header = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n";
    for (opener, count) in [
        ("{", 200_000),
        ("(", 200_000),
        ("[", 200_000),
        ("{ mov.b32 %r1, {", 2_000),
    ] {
        let mut source = String::from(header);
        source.push_str(&opener.repeat(count));
        exercise(source.as_bytes());
    }
    let mut balanced = String::from(header);
    balanced.push_str(&"{".repeat(100_000));
    balanced.push_str(&"}".repeat(100_000));
    exercise(balanced.as_bytes());
}
