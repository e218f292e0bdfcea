//! The harness of the tests that hold ptxsim's verdicts against ptxas's: each case is one
//! instruction in a kernel, with the verdict of ptxas 13.5 and its message.

use ptxsim_check::{Options, compile};

/// One case: (target, .version, instruction, ptxas accepts, ptxas's message, text ptxsim's
/// error must hold when ptxas rejects).
pub type Case = (
    &'static str,
    &'static str,
    String,
    bool,
    &'static str,
    &'static str,
);

/// Checks each case's instruction in a kernel `k` whose body starts with `declarations`;
/// panics with every case whose verdict differs from ptxas's, or whose error does not name
/// what the case expects.
pub fn assert_verdicts_equal_ptxas(cases: Vec<Case>, declarations: &str) {
    let mut failures = Vec::new();
    for (target, version, instruction, accepted, ptxas, ours) in cases {
        let source = format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             {declarations}\n{instruction}\nret;\n}}\n"
        );
        let (_, diagnostics) = compile(&source, &Options::default());
        let errors: Vec<String> = diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect();
        let verdict = errors.is_empty();
        let mentions = errors.iter().any(|m| m.contains(ours));
        if verdict != accepted || (!accepted && !mentions) {
            failures.push(format!(
                "{target} {version} `{instruction}`: ptxas {} ({ptxas}), ptxsim {errors:?}",
                if accepted { "accepts" } else { "rejects" }
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
