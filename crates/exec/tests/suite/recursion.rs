//! Recursive device functions (`recursion_data/recursion.cu`, compiled by nvcc 13.5 with
//! `nvcc -ptx -arch sm_90 recursion.cu`, into `recursion_data/recursion.sm_90.ptx`; PTX allows
//! recursion in `.func`, and ptxas accepts the module, warning only that the stack size
//! "cannot be statically determined"): each invocation keeps its own registers, parameters and
//! `.local` array across the recursive calls. The expected values are those of the C++
//! definitions in the source, computed here by hand; a runaway recursion is a located trap.

use std::path::Path;

use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};

fn module() -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/suite/recursion_data/recursion.sm_90.ptx");
    let text = std::fs::read_to_string(path).expect("the sample is there");
    Module::load(&text, &Options::default()).expect("the sample loads")
}

fn fib(n: i32) -> i32 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

/// `local_sum(n, pick)`: the sum over k = 1..=n of `(k * k + k * (pick & 7)) % 7`.
fn local_sum(n: i32, pick: i32) -> i32 {
    (1..=n).map(|k| (k * k + k * (pick & 7)) % 7).sum()
}

#[test]
fn recursive_functions_keep_each_invocations_registers_and_locals() {
    let threads = 20;
    let mut out = vec![0u8; threads * 3 * 4];
    module()
        .launch(
            "recursion",
            [1, 1, 1],
            [threads as u32, 1, 1],
            &mut [Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .expect("the launch runs");
    let words: Vec<i32> = out
        .chunks_exact(4)
        .map(|w| i32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    for t in 0..threads as i32 {
        let at = 3 * t as usize;
        assert_eq!(
            (words[at], words[at + 1], words[at + 2]),
            (fib(t), i32::from(t % 2 == 0), local_sum(t, t)),
            "thread {t}"
        );
    }
}

#[test]
fn a_runaway_recursion_traps_at_the_call() {
    // `down` calls itself with no base case.
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .func (.param .b32 r) down(.param .b32 n)\n{\n.reg .b32 %r<4>;\n\
        ld.param.b32 %r1, [n];\nadd.s32 %r2, %r1, -1;\n\
        {\n.param .b32 a;\nst.param.b32 [a], %r2;\n.param .b32 v;\n\
        call (v), down, (a);\nld.param.b32 %r3, [v];\n}\n\
        st.param.b32 [r], %r3;\nret;\n}\n\
        .visible .entry k()\n{\n.reg .b32 %r<2>;\n\
        {\n.param .b32 a;\nst.param.b32 [a], 5;\n.param .b32 v;\n\
        call (v), down, (a);\nld.param.b32 %r1, [v];\n}\nret;\n}\n";
    let module = Module::load(text, &Options::default()).expect("checks");
    let error = module
        .launch(
            "k",
            [1, 1, 1],
            [1, 1, 1],
            &mut [],
            &LaunchOptions::default(),
        )
        .expect_err("an endless recursion fails");
    let Error::Run {
        message, location, ..
    } = &error
    else {
        unreachable!("a run error, not {error:?}");
    };
    assert!(message.contains("deeper than 4096 calls"), "{message}");
    let call_line = text
        .lines()
        .position(|line| line.starts_with("call (v), down"))
        .map(|index| index + 1);
    assert_eq!(
        Some(location.line as usize),
        call_line,
        "the recursive call's line"
    );
}
