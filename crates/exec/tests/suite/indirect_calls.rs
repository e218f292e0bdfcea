//! Indirect calls (PTX ISA 9.7.12.3 `call`: "an indirect call ... through a register holding
//! the function's address", with a `.callprototype` or a list of targets), as nvcc emits them
//! for C++ virtual functions (a vtable in `.global` memory initialized with function names) and
//! for function pointers (`mov.u64 %rd, f;`, here with a `.calltargets` list); ptxas 13.5
//! accepts the module. The expected values are those of the functions'
//! definitions, computed here by hand.

use ptxsim_exec::grid::{self, GridOptions};
use ptxsim_exec::{Argument, Outcome};

/// A module with two functions of one signature, a table of their addresses (as a vtable
/// holds them: two words of other data first), and kernel `k`, which calls through
/// `table[2 + tid % 2]` (lanes diverge between the two targets) and through `mov.u64` of
/// `times10`, storing both results.
const MODULE: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .func (.param .b32 r) plus1(.param .b32 x)\n{\n.reg .b32 %r<3>;\n\
    ld.param.b32 %r1, [x];\nadd.s32 %r2, %r1, 1;\nst.param.b32 [r], %r2;\nret;\n}\n\
    .func (.param .b32 r) times10(.param .b32 x)\n{\n.reg .b32 %r<3>;\n\
    ld.param.b32 %r1, [x];\nmul.lo.s32 %r2, %r1, 10;\nst.param.b32 [r], %r2;\nret;\n}\n\
    .global .align 8 .u64 table[4] = {0, 0, plus1, times10};\n\
    .visible .entry k(.param .u64 out, .param .u64 bad)\n{\n\
    .reg .b32 %r<8>;\n.reg .b64 %rd<12>;\n.reg .pred %p<2>;\n\
    ld.param.u64 %rd1, [out];\n\
    mov.u32 %r1, %tid.x;\n\
    and.b32 %r2, %r1, 1;\n\
    mul.wide.u32 %rd2, %r2, 8;\n\
    mov.u64 %rd3, table;\n\
    add.s64 %rd4, %rd3, %rd2;\n\
    ld.global.u64 %rd5, [%rd4+16];\n\
    {\n.param .b32 a;\nst.param.b32 [a], %r1;\n.param .b32 v;\n\
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);\n\
    call (v), %rd5, (a), proto;\nld.param.b32 %r3, [v];\n}\n\
    mov.u64 %rd6, times10;\n\
    {\n.param .b32 a;\nst.param.b32 [a], %r1;\n.param .b32 v;\n\
    targets : .calltargets plus1, times10;\n\
    call (v), %rd6, (a), targets;\nld.param.b32 %r4, [v];\n}\n\
    mul.wide.u32 %rd7, %r1, 8;\n\
    add.s64 %rd8, %rd1, %rd7;\n\
    st.global.v2.u32 [%rd8], {%r3, %r4};\n\
    ld.param.u64 %rd9, [bad];\n\
    setp.ne.u64 %p1, %rd9, 0;\n\
    @!%p1 ret;\n\
    {\n.param .b32 a;\nst.param.b32 [a], %r1;\n.param .b32 v;\n\
    proto2 : .callprototype (.param .b32 _) _ (.param .b32 _);\n\
    call (v), %rd9, (a), proto2;\n}\n\
    ret;\n}\n";

#[test]
fn virtual_calls_and_function_pointers_reach_their_functions() {
    let program = ptxsim_exec::load(MODULE, Some("k")).expect("checks");
    let (device, addresses) = grid::prepare(
        &program,
        [1, 1, 1],
        [8, 1, 1],
        10_000,
        vec![
            Argument::Buffer(vec![0; 8 * 8]),
            Argument::Scalar {
                ty: ptxsim_isa::Type::U64,
                bits: 0,
            },
        ],
    )
    .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    assert!(run.failure.is_none(), "{:?}", run.failure);
    let out = device
        .global
        .buffer_at(addresses[0].expect("a buffer"))
        .expect("the buffer")
        .contents();
    for tid in 0..8i32 {
        let at = tid as usize * 8;
        let virtual_call = i32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        let pointer_call = i32::from_le_bytes(out[at + 4..at + 8].try_into().unwrap());
        let expected = if tid % 2 == 0 { tid + 1 } else { tid * 10 };
        assert_eq!(
            (virtual_call, pointer_call),
            (expected, tid * 10),
            "thread {tid}"
        );
    }
}

#[test]
fn a_call_through_an_address_that_is_no_function_traps() {
    let program = ptxsim_exec::load(MODULE, Some("k")).expect("checks");
    let (device, _) = grid::prepare(
        &program,
        [1, 1, 1],
        [1, 1, 1],
        10_000,
        vec![
            Argument::Buffer(vec![0; 8]),
            Argument::Scalar {
                ty: ptxsim_isa::Type::U64,
                bits: 0x1234,
            },
        ],
    )
    .expect("valid launch");
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    let failure = run.failure.expect("a trap");
    match failure.outcome {
        Ok(Outcome::Trapped { message, .. }) => {
            assert!(message.contains("indirect call to 0x1234"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
