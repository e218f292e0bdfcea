//! `Program::atomics_commute`: which atomics give the same memory and registers in any order
//! of the threads that run them (PTX ISA 9.7.13.5: integer arithmetic modulo 2^n and the bit
//! operations are commutative and associative; a rounded floating-point sum is not, and
//! `.inc`, `.dec`, `.exch` and `.cas` depend on the value they find).

use ptxsim_check::Options;

/// Whether the one kernel of a module with `body` has atomics, and whether they commute.
fn classify(body: &str) -> (bool, bool) {
    let source = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n.reg .pred %p<2>;\n.shared .u32 s;\n\
         ld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
    );
    let (checked, diagnostics) = ptxsim_check::compile(&source, &Options::default());
    let checked = checked.unwrap_or_else(|| panic!("{body}: {diagnostics:?}"));
    let program = checked.program(None).expect("one kernel");
    (program.has_atomics, program.atomics_commute)
}

#[test]
fn integer_atomics_whose_old_value_is_unread_commute() {
    for body in [
        "red.global.add.u32 [%rd1], 1;",
        "red.global.min.s32 [%rd1], %r1;",
        "red.shared.xor.b32 [s], %r1;",
        "red.global.add.u64 [%rd1], %rd2;",
        // nvcc's `atomicAdd(p, 1)` with its result unused.
        "atom.global.add.u32 %r3, [%rd1], 1;",
        "atom.shared.or.b32 %r3, [s], %r1;\nred.global.max.u32 [%rd1], %r2;",
    ] {
        assert_eq!(classify(body), (true, true), "{body}");
    }
}

#[test]
fn atomics_whose_results_depend_on_the_order_do_not_commute() {
    for body in [
        // The old value is read.
        "atom.global.add.u32 %r3, [%rd1], 1;\nst.global.u32 [%rd1+4], %r3;",
        // ... by the atomic itself, the next time round a loop.
        "LOOP:\natom.global.add.u32 %r3, [%rd1], %r3;\nsetp.ne.u32 %p1, %r3, 0;\n@%p1 bra LOOP;",
        // Rounded sums.
        "red.global.add.f32 [%rd1], %f1;",
        "atom.global.add.f32 %f2, [%rd1], %f1;",
        // The value found decides.
        "red.global.inc.u32 [%rd1], 7;",
        "atom.global.exch.b32 %r3, [%rd1], %r1;",
        "atom.global.cas.b32 %r3, [%rd1], %r1, %r2;",
        // One order-dependent atomic among commuting ones.
        "red.global.add.u32 [%rd1], 1;\nred.global.add.f32 [%rd1+4], %f1;",
    ] {
        assert_eq!(classify(body), (true, false), "{body}");
    }
}

#[test]
fn a_kernel_without_atomics_has_none_to_commute() {
    assert_eq!(classify("st.global.u32 [%rd1], 1;"), (false, false));
}
