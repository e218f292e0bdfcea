//! What the program builder makes of two things LLVM's NVPTX back end writes (docs/conformance.md,
//! "The tenth round"): `.alias fAlias, fAliasee;` (PTX ISA 9.0, 11.6.5: "fAlias is an alias to
//! function symbol fAliasee") and the mask operator in initializers (5.4.4: `0xFF00(p)` is the
//! byte of `p`'s address that the mask selects).

use ptxsim_check::program::InstructionKind;

#[test]
fn a_call_of_an_alias_runs_the_aliasee() {
    let source = ".version 6.3\n.target sm_70\n.address_size 64\n\
        .visible .func (.param .b32 r) b(.param .b32 x);\n\
        .visible .func (.param .b32 r) a(.param .b32 x)\n\
        { .reg .b32 %v; ld.param.b32 %v, [x]; add.s32 %v, %v, 1; st.param.b32 [r], %v; ret; }\n\
        .alias b, a;\n\
        .visible .entry k()\n\
        { .reg .b32 %q; { .param .b32 in; .param .b32 out; st.param.b32 [in], 41;\n\
          call (out), b, (in); ld.param.b32 %q, [out]; } ret; }\n";
    let (checked, diagnostics) = ptxsim_check::compile(source, &Default::default());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let program = checked.expect("checks").program(Some("k")).expect("builds");
    let (target, callee) = program
        .instructions
        .iter()
        .find_map(|i| match &i.kind {
            InstructionKind::Call { target, callee, .. } => Some((*target, callee.clone())),
            _ => None,
        })
        .expect("a call");
    assert_eq!(callee, "a");
    // The target is `a`'s body: its first instruction loads the parameter.
    let first = &program.instructions[target];
    assert!(first.text.starts_with("ld.param.b32"), "{}", first.text);
}

#[test]
fn a_mask_operator_stores_the_selected_byte() {
    let source = ".version 7.2\n.target sm_80\n.address_size 64\n\
        .visible .global .align 4 .u32 t[64];\n\
        .visible .global .align 1 .u8 s[5] = {0xFF(t), 0xFF00(t+256), 0xFF0000(generic(t)), \
        0xFF00(0x1234), 0xFF(0x1234)};\n\
        .visible .entry k() { ret; }\n";
    let (checked, diagnostics) = ptxsim_check::compile(source, &Default::default());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let program = checked.expect("checks").program(Some("k")).expect("builds");
    let global = |name: &str| {
        program
            .globals
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("{name} is a global"))
    };
    let t = global("t").address;
    let s = &global("s").bytes;
    // ptxsim maps the global space into the generic one unchanged (`program::address::
    // to_generic`), so `generic(t)` is `t`'s address.
    let byte = |value: u64, k: u32| ((value >> (8 * k)) & 0xFF) as u8;
    assert_eq!(
        s[..5],
        [byte(t, 0), byte(t + 256, 1), byte(t, 2), 0x12, 0x34]
    );
}
