//! The executor's API at its boundaries: load errors, fuel, outcomes, register preloads and the
//! value printers.

use ptxsim_exec::{BuildError, ExecError, LoadError, Machine, Outcome, report};
use ptxsim_isa::Type;

fn kernel(body: &str) -> String {
    format!(
        ".version 9.1\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
    )
}

fn diagnostics(source: &str) -> Vec<(String, String)> {
    match ptxsim_exec::load(source, None) {
        Err(LoadError::Diagnostics(list)) => list
            .into_iter()
            .map(|d| (d.code.to_string(), d.message))
            .collect(),
        other => panic!("expected diagnostics, got {other:?}"),
    }
}

#[test]
fn invalid_forms_are_diagnostics_before_running() {
    // cvt.md: "Rounding modifier is mandatory ... All int-to-float conversions". The checker
    // reports it (E03xx) when the module is loaded.
    let source = kernel(".reg .f32 %f; .reg .s32 %i; cvt.f32.s32 %f, %i;");
    let found = diagnostics(&source);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("rounding modifier is mandatory"));
    // cvt.md: "When converting to .e2m1x2 data formats, the destination operand d has .b8 type".
    let found = diagnostics(&kernel(
        ".reg .b16 %h; .reg .f32 %f; cvt.rn.satfinite.e2m1x2.f32 %h, %f, %f;",
    ));
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn a_guard_must_be_a_predicate() {
    // ptxas 13.5 on this kernel: "Predicate expression expected".
    let found = diagnostics(&kernel(".reg .b32 %r; @%r mov.b32 %r, 1;"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "E0108");
    assert!(found[0].1.contains("`%r` is not a predicate register"));
}

#[test]
fn entry_selection_errors() {
    let two =
        ".version 9.1\n.target sm_90\n.address_size 64\n.entry a() { ret; }\n.entry b() { ret; }\n";
    assert_eq!(
        ptxsim_exec::load(two, None),
        Err(LoadError::Build(BuildError::SeveralEntries(vec![
            "a".to_string(),
            "b".to_string()
        ])))
    );
    assert!(matches!(
        ptxsim_exec::load(two, Some("c")),
        Err(LoadError::Build(BuildError::EntryNotFound { .. }))
    ));
    let none = ".version 9.1\n.target sm_90\n.address_size 64\n.func f() { ret; }\n";
    assert_eq!(
        ptxsim_exec::load(none, None),
        Err(LoadError::Build(BuildError::NoEntry))
    );
}

#[test]
fn zero_fuel_runs_nothing_and_finished_machines_stay_finished() {
    let program = ptxsim_exec::load(&kernel(".reg .b32 %r; mov.b32 %r, 1; ret;"), None).unwrap();
    let mut machine = Machine::new(&program, 0);
    assert_eq!(machine.step(), Ok(Outcome::OutOfFuel));
    assert_eq!(machine.steps(), 0);
    assert_eq!(machine.registers(), &[0]);
    let mut machine = Machine::new(&program, 10);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.step(), Ok(Outcome::Exited));
    assert_eq!(machine.steps(), 2);
}

#[test]
fn falling_off_the_end_exits() {
    let program = ptxsim_exec::load(&kernel(".reg .b32 %r; mov.b32 %r, 1;"), None).unwrap();
    let mut machine = Machine::new(&program, 10);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers(), &[1]);
}

#[test]
fn unsupported_special_registers_stop_the_run_with_a_named_error() {
    let program = ptxsim_exec::load(
        &kernel(".reg .b32 %r; mov.u32 %r, %globaltimer_lo; ret;"),
        None,
    )
    .unwrap();
    let mut machine = Machine::new(&program, 10);
    match machine.run() {
        Err(ExecError::Unsupported {
            mnemonic,
            reason,
            line,
            column,
        }) => {
            assert_eq!(mnemonic, "mov.u32");
            assert!(reason.contains("%globaltimer_lo"), "{reason}");
            assert_eq!((line, column), (6, 15));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn preloads_are_masked_to_the_register_width() {
    let program = ptxsim_exec::load(
        &kernel(".reg .b16 %h; .reg .b32 %r; cvt.u32.u16 %r, %h; ret;"),
        None,
    )
    .unwrap();
    let mut machine = Machine::new(&program, 10);
    let h = program.register("%h").unwrap();
    machine.set_register(h, 0x1_2345);
    assert_eq!(machine.registers()[h.index()], 0x2345);
    assert_eq!(machine.run(), Ok(Outcome::Exited));
    assert_eq!(machine.registers()[1], 0x2345);
}

#[test]
fn values_print_in_hex_padded_to_width_and_decoded_by_type() {
    assert_eq!(report::hex(1, Type::Pred), "0x1");
    assert_eq!(report::hex(0xab, Type::B8), "0xab");
    assert_eq!(report::hex(0xab, Type::B16), "0x00ab");
    assert_eq!(report::hex(1, Type::B128), format!("0x{}1", "0".repeat(31)));
    assert_eq!(report::decode(0xffff_ff80, Type::S32), "-128");
    assert_eq!(report::decode(0xffff_ff80, Type::U32), "4294967168");
    assert_eq!(report::decode(0x3c00, Type::F16), "1.0");
    assert_eq!(report::decode(0x7c00, Type::F16), "inf");
    assert_eq!(report::decode(0x3c00_c000, Type::F16x2), "(1.0, -2.0)");
    assert_eq!(report::decode(0x3fb9_9999_9999_999a, Type::F64), "0.1");
    // e4m3x2 0x7e3c: lanes 448.0 (upper) and 1.5 (lower).
    let lanes = report::lanes(0x7e3c, Type::E4m3x2);
    let values: Vec<&str> = lanes.iter().map(|l| l.value.as_str()).collect();
    assert_eq!(values, ["448.0", "1.5"]);
    assert_eq!((lanes[0].high, lanes[0].low), (15, 8));
}

#[test]
fn json_strings_are_escaped() {
    assert_eq!(
        report::json_string("a\"b\\c\n\u{1}"),
        "\"a\\\"b\\\\c\\n\\u0001\""
    );
}
