//! The documented divergences from ptxas (docs/divergences.md, D1–D9 and D24; D10 was closed
//! in the sixth round): conformance lines on which ptxsim and ptxas differ on purpose (D1–D6:
//! ptxas accepts what the PTX ISA text rules out) or for a documented gap (D9, D24, D32; D7 was
//! closed with the seventh round). A conformance test excludes a line when some
//! [`Divergence::excludes`] it, and fails when an exclusion matches no line or an excluded line
//! starts agreeing.
//!
//! Both conformance tests include this one list with `#[path]`: `crates/isa/tests/conformance.rs`
//! (the instruction table directly) and `crates/check/tests/conformance.rs` (through the parser and
//! checker).

/// A deliberate divergence from ptxas, documented in docs/divergences.md under `id`.
pub struct Divergence {
    /// The heading in docs/divergences.md.
    pub id: &'static str,
    /// Whether a conformance line (its file, target, PTX ISA version and instruction text) is
    /// one of its lines.
    pub matches: fn(file: &str, target: &str, version: &str, instruction: &str) -> bool,
    /// ptxas's verdict on its lines: `true` where ptxas accepts what ptxsim rejects (D1-D6),
    /// `false` where ptxas rejects what ptxsim accepts (D9, D32).
    pub ptxas_accepts: bool,
}

impl Divergence {
    /// Whether a line with ptxas's verdict `expected` ("accept"/"reject") is one of its lines.
    pub fn excludes(
        &self,
        file: &str,
        target: &str,
        version: &str,
        instruction: &str,
        expected: &str,
    ) -> bool {
        self.ptxas_accepts == (expected == "accept")
            && (self.matches)(file, target, version, instruction)
    }
}

/// `mov.b32 %r, {%h, _};`: a sink in a source (not destination) vector.
fn source_vector_has_sink(instruction: &str) -> bool {
    let Some((_, rest)) = instruction.split_once(' ') else {
        return false;
    };
    // The comma between `d` and `a`: the first one outside braces.
    let mut depth = 0;
    let Some(comma) = rest.find(|c| {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => return true,
            _ => {}
        }
        false
    }) else {
        return false;
    };
    let source = rest[comma + 1..].trim();
    source.starts_with('{')
        && source
            .trim_end_matches(';')
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .any(|e| e.trim() == "_")
}

/// The number of a `.target` (`sm_90a` -> 90; 0 for anything else).
fn sm_number(target: &str) -> u32 {
    target
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0)
}

/// D1–D9 and D24 of docs/divergences.md.
pub const DIVERGENCES: &[Divergence] = &[
    Divergence {
        id: "D1 relu e2m1x2.bf16x2 source register",
        matches: |_, _, _, i| {
            i.starts_with("cvt.rn.satfinite.relu.e2m1x2.bf16x2 %b8_0, %") && !i.contains(", %b32_")
        },
        ptxas_accepts: true,
    },
    Divergence {
        id: "D2 s2f6x2 destination register",
        matches: |_, _, _, i| {
            i.starts_with("cvt.")
                && i.contains(".s2f6x2.")
                && ["%u16_", "%s16_", "%f16_"]
                    .iter()
                    .any(|r| i.contains(&format!(" {r}")))
        },
        ptxas_accepts: true,
    },
    Divergence {
        id: "D3 mov.pred with .f16x2",
        matches: |_, _, _, i| i.starts_with("mov.pred ") && i.contains("%f16x2_"),
        ptxas_accepts: true,
    },
    Divergence {
        id: "D4 mov sink in a source vector",
        matches: |_, _, _, i| i.starts_with("mov.") && source_vector_has_sink(i),
        ptxas_accepts: true,
    },
    Divergence {
        id: "D6 atom with an extra operand",
        matches: |_, _, _, i| {
            let mnemonic = i.split(' ').next().unwrap_or(i);
            // Three commas outside braces: four operands (a vector `atom`'s elements are not
            // operands of their own).
            let mut depth = 0i32;
            let commas = i
                .chars()
                .filter(|&c| {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    c == ',' && depth == 0
                })
                .count();
            i.starts_with("atom.")
                && !i.contains("cache_hint")
                && commas == 3
                && !mnemonic.split('.').any(|m| m == "cas")
        },
        ptxas_accepts: true,
    },
    Divergence {
        id: "D9 cp.async ignore-src below PTX 7.5",
        // Below sm_80 ptxas rejects cp.async itself, as ptxsim does.
        matches: |_, t, _, i| {
            let number = sm_number(t);
            number >= 80 && i.starts_with("cp.async.") && i.ends_with("%pred_2;")
        },
        ptxas_accepts: false,
    },
    Divergence {
        id: "D37 operands of the tex forms ptxsim does not run",
        // `.f16` results (9.7.10.3) are checked by their modifiers only: ptxas 13.5 also wants
        // 16-bit registers in `d` ("Arguments mismatch for instruction 'tex'"). The
        // multi-sample geometries' four coordinates are checked since the twelfth round
        // (`texture::coordinate_violation`).
        matches: |f, _, _, i| f == "texture-forms.tsv" && i.contains(".v4.f16.f32 {%b32_0"),
        ptxas_accepts: false,
    },
    Divergence {
        id: "D32 clusterlaunchcontrol.query_cancel vector of mixed register types",
        // ptxas 13.5: "Vector with elements of different types are not allowed in
        // clusterlaunchcontrol.query_cancel instruction"; the Syntax-block table checks each
        // element against `.b32` alone.
        matches: |f, t, v, i| {
            f == "clusterlaunchcontrol.tsv"
                && v == "8.7"
                && sm_number(t) >= 100
                && i.contains("{%u32_0, %s32_1, %f32_2, _}")
        },
        ptxas_accepts: false,
    },
    Divergence {
        id: "D24 tcgen05 tensor-memory address in a 64-bit register",
        // `[taddr]` of tcgen05.ld/st in a `.b64` register: ptxas 13.5 "Use a 32-bit integer
        // or bit register only"; the operand model does not carry an address's register type.
        // (`tcgen05.shift`'s is checked by the front end since the sixteenth round.)
        matches: |f, _, _, i| {
            f == "tcgen05.tsv"
                && (i.starts_with("tcgen05.ld.") || i.starts_with("tcgen05.st."))
                && i.contains("[%b64_")
        },
        ptxas_accepts: false,
    },
];

/// The tally of a conformance run over the committed verdicts.
#[derive(Default)]
pub struct Tally {
    /// Lines read.
    pub total: usize,
    /// Lines whose verdict is ptxas's.
    pub agree: usize,
    /// Lines excluded per divergence id.
    pub excluded: std::collections::BTreeMap<&'static str, usize>,
    /// One report per line that disagrees.
    pub disagreements: Vec<String>,
    /// Excluded lines on which ptxsim now agrees with ptxas.
    pub stale: Vec<String>,
}

impl Tally {
    /// Prints the numbers under `label` and fails on any disagreement, stale exclusion, or
    /// divergence that matches no line.
    pub fn assert_agreement(&self, label: &str) {
        println!(
            "{label}: {} lines, {} agree, {} excluded as divergences {:?}, {} disagree",
            self.total,
            self.agree,
            self.total - self.agree - self.disagreements.len(),
            self.excluded,
            self.disagreements.len()
        );
        for d in self.disagreements.iter().take(200) {
            println!("{d}");
        }
        // Every disagreement, for working through them: PTXSIM_DISAGREEMENTS=/tmp/d.txt.
        if let Some(path) = std::env::var_os("PTXSIM_DISAGREEMENTS") {
            let _ = std::fs::write(path, self.disagreements.join("\n"));
        }
        assert!(
            self.disagreements.is_empty(),
            "{} lines disagree with ptxas",
            self.disagreements.len()
        );
        assert!(
            self.stale.is_empty(),
            "stale divergence exclusions: {:#?}",
            self.stale
        );
        for d in DIVERGENCES {
            assert!(
                self.excluded.contains_key(d.id),
                "divergence {} matches no line",
                d.id
            );
        }
    }
}
