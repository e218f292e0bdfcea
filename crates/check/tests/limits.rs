//! Declared sizes beyond ptxas's limits (`crates/check/src/limits.rs`), and the checker's work on
//! inputs that once took quadratic time.
//!
//! Every verdict below is ptxas 13.5's (`ptxas -arch sm_90 x.ptx`, the module being the header
//! of [`module`] and the line given), quoted beside each case; sizes in the messages are
//! ptxas's. Each case is checked on both paths (the whole tree, and piece by piece straight
//! from the text), which must agree.

use ptxsim_check::{Options, check_source_in_pieces, parse_and_check_in_chunks};
use ptxsim_syntax::Diagnostic;

/// A module with `.version` `version` and `body`, for sm_90 (sm_80 below PTX ISA 7.8, which
/// introduced sm_90).
fn module(version: &str, body: &str) -> String {
    let target = if version.starts_with("7.") {
        "sm_80"
    } else {
        "sm_90"
    };
    format!(".version {version}\n.target {target}\n.address_size 64\n{body}\n")
}

/// The diagnostics of `source`, the same on both paths (small pieces, two threads).
fn diagnostics(source: &str) -> Vec<Diagnostic> {
    let options = Options::default();
    let (_, whole) = parse_and_check_in_chunks(source, &options, 1);
    let pieces = check_source_in_pieces(source, &options, 64, 2);
    let render = |list: &[Diagnostic]| format!("{list:?}");
    assert_eq!(render(&whole), render(&pieces), "{source}");
    whole
}

/// `(code, message)` of every error of `body` under `.version` `version`.
fn errors(version: &str, body: &str) -> Vec<(&'static str, String)> {
    diagnostics(&module(version, body))
        .into_iter()
        .filter(Diagnostic::is_error)
        .map(|diagnostic| (diagnostic.code, diagnostic.message))
        .collect()
}

/// `body` passes (as with ptxas).
fn passes(body: &str) {
    assert_eq!(errors("8.7", body), Vec::new(), "{body}");
}

/// `body` gives one error, `code` with `message`.
fn fails(version: &str, body: &str, code: &str, message: &str) {
    assert_eq!(
        errors(version, body),
        vec![(code_static(code), message.to_string())],
        "{body}"
    );
}

fn code_static(code: &str) -> &'static str {
    match code {
        "E0205" => "E0205",
        "E0206" => "E0206",
        "E0207" => "E0207",
        "E0210" => "E0210",
        _ => "other",
    }
}

/// ptxas: "Entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)" for 49,153
/// bytes declared in the kernel, in a function it calls, or at module scope and named by either;
/// 49,152 bytes, an unused module-scope variable, a function no kernel calls and `.extern`
/// arrays pass.
#[test]
fn static_shared_memory_per_kernel() {
    let too_much = "entry function `k` uses too much shared data (0xc001 bytes, 0xc000 max)";
    passes(".entry k() { .shared .b8 sh[49152]; ret; }");
    fails(
        "8.7",
        ".entry k() { .shared .b8 sh[49153]; ret; }",
        "E0205",
        too_much,
    );
    fails(
        "8.7",
        ".shared .b8 sh[49153];\n.entry k() { .reg .u64 %rd1; mov.u64 %rd1, sh; ret; }",
        "E0205",
        too_much,
    );
    fails(
        "8.7",
        ".shared .b8 sh[49153];\n.func f() { .reg .u64 %rd1; mov.u64 %rd1, sh; ret; }\n\
         .entry k() { call f; ret; }",
        "E0205",
        too_much,
    );
    fails(
        "8.7",
        ".func f() { .shared .b8 sh[49153]; ret; }\n.entry k() { call f; ret; }",
        "E0205",
        too_much,
    );
    // ptxas: "(0xea60 bytes, 0xc000 max)" for two arrays of 30,000 bytes.
    fails(
        "8.7",
        ".entry k() { .shared .b8 sh[30000]; .shared .b8 sh2[30000]; ret; }",
        "E0205",
        "entry function `k` uses too much shared data (0xea60 bytes, 0xc000 max)",
    );
    fails(
        "8.7",
        ".shared .b8 sh[30000];\n.shared .b8 sh2[30000];\n\
         .entry k() { .reg .u64 %rd1; mov.u64 %rd1, sh; mov.u64 %rd1, sh2; ret; }",
        "E0205",
        "entry function `k` uses too much shared data (0xea60 bytes, 0xc000 max)",
    );
    passes(".shared .b8 sh[49153];\n.entry k() { ret; }");
    passes(".func f() { .shared .b8 sh[49153]; ret; }\n.entry k() { ret; }");
    passes(".extern .shared .align 16 .b8 dyn[];\n.entry k() { .shared .b8 sh[49152]; ret; }");
}

/// The issue's reproducer: `sh[9223372036854775807]` passed `check` and was cut to 1 GiB at
/// run time. ptxas sums shared sizes in 32 bits and accepts it (and 2^31 bytes or more in
/// general, a wrap-around: docs/divergences.md); the checker reports the true size.
#[test]
fn a_shared_array_of_eight_exbibytes_is_an_error() {
    fails(
        "8.7",
        ".entry k() { .shared .b8 sh[9223372036854775807]; ret; }",
        "E0205",
        "entry function `k` uses too much shared data (0x7fffffffffffffff bytes, 0xc000 max)",
    );
    // ptxas: "(0x7fffffff bytes, 0xc000 max)".
    fails(
        "8.7",
        ".entry k() { .shared .b8 sh[2147483647]; ret; }",
        "E0205",
        "entry function `k` uses too much shared data (0x7fffffff bytes, 0xc000 max)",
    );
}

/// ptxas: "Entry function 'k' uses too much parameter space (0x7ffd bytes, 0x7ffc max)." from
/// PTX ISA 8.1; before it "(0x1101 bytes, 0x1100 max)" and "Feature 'Kernel parameter size
/// larger than 4352 bytes' requires PTX ISA .version 8.1 or later". Parameters are laid out at
/// their alignments: a `.u32` then an `.align 8` array of 32,760 bytes is 0x8000 bytes.
#[test]
fn kernel_parameter_space() {
    passes(".entry k(.param .align 8 .b8 a[32764]) { ret; }");
    passes(".entry k(.param .u32 x, .param .align 8 .b8 a[32756]) { ret; }");
    fails(
        "8.7",
        ".entry k(.param .align 8 .b8 a[32765]) { ret; }",
        "E0206",
        "entry function `k` uses too much parameter space (0x7ffd bytes, 0x7ffc max)",
    );
    fails(
        "8.7",
        ".entry k(.param .b8 a[16000], .param .b8 b[16765]) { ret; }",
        "E0206",
        "entry function `k` uses too much parameter space (0x7ffd bytes, 0x7ffc max)",
    );
    fails(
        "8.7",
        ".entry k(.param .u32 x, .param .align 8 .b8 a[32760]) { ret; }",
        "E0206",
        "entry function `k` uses too much parameter space (0x8000 bytes, 0x7ffc max)",
    );
    fails(
        "8.7",
        ".entry k(.param .align 8 .b8 a[4000000000]) { ret; }",
        "E0206",
        "entry function `k` uses too much parameter space (0xee6b2800 bytes, 0x7ffc max)",
    );
    assert_eq!(
        errors("7.0", ".entry k(.param .align 8 .b8 a[4352]) { ret; }"),
        Vec::new()
    );
    fails(
        "7.0",
        ".entry k(.param .align 8 .b8 a[4353]) { ret; }",
        "E0206",
        "entry function `k` uses too much parameter space (0x1101 bytes, 0x1100 max)",
    );
    assert_eq!(
        errors("8.1", ".entry k(.param .align 8 .b8 a[4353]) { ret; }"),
        Vec::new()
    );
    // A device function's parameters have no such limit in ptxas.
    passes(".func f(.param .b8 a[1000000000]) { ret; }\n.entry k() { ret; }");
}

/// ptxas: "File uses too much global constant data (0x10001 bytes, 0x10000 max)": the module's
/// `.const` variables together, used or not.
#[test]
fn constant_bank() {
    passes(".const .b8 c[65536];\n.entry k() { ret; }");
    fails(
        "8.7",
        ".const .b8 c[65537];\n.entry k() { ret; }",
        "E0207",
        "the module uses too much constant memory (0x10001 bytes with this variable, 0x10000 max)",
    );
    // ptxas: "(0x13880 bytes, 0x10000 max)".
    fails(
        "8.7",
        ".const .b8 c[40000];\n.const .b8 d[40000];\n.entry k() { ret; }",
        "E0207",
        "the module uses too much constant memory (0x13880 bytes with this variable, 0x10000 max)",
    );
    // ptxas: "(0x100000000 bytes, 0x10000 max)".
    fails(
        "8.7",
        ".const .b8 c[4294967296];\n.entry k() { ret; }",
        "E0207",
        "the module uses too much constant memory (0x100000000 bytes with this variable, \
         0x10000 max)",
    );
}

/// ptxas accepts any `.global` size (`g[18446744073709551615]`, three arrays of 4 GB); the
/// executor's memory budget refuses them at run time (crates/exec/tests/suite/budget.rs).
#[test]
fn global_arrays_have_no_check_limit() {
    passes(".global .b8 g[18446744073709551615];\n.entry k() { ret; }");
    passes(
        ".global .b8 g[4000000000];\n.global .b8 g2[4000000000];\n.global .b8 g3[4000000000];\n\
         .entry k() { ret; }",
    );
}

/// ptxas: "Greater number of elements in array initializer" (fatal) for `.u32 tab[2] =
/// {1,2,3}`, in `.global` and `.const`.
#[test]
fn more_initializers_than_elements() {
    for space in ["global", "const"] {
        let body = format!(".{space} .u32 tab[2] = {{1,2,3}};\n.entry k() {{ ret; }}");
        let found = errors("8.7", &body);
        assert_eq!(
            found,
            vec![(
                "E0204",
                "this initializer has 3 elements; `tab` has room for 2".to_string()
            )],
            "{body}"
        );
    }
}

/// Declarations of vectors: ptxas 13.5 says "Incorrect number of elements in vector
/// initializer" for a vector of the wrong length, and "Greater number of elements in array
/// initializer" for more vectors than the array has; the right shapes pass.
#[test]
fn vector_initializers() {
    let wrong = |body: &str, count: u64, vector: u64| {
        let found = errors("8.7", &format!("{body}\n.entry k() {{ ret; }}"));
        assert_eq!(
            found,
            vec![(
                "E0208",
                format!(
                    "this vector initializer has {count} elements; a .v{vector} vector has {vector}"
                )
            )],
            "{body}"
        );
    };
    wrong(".global .v2 .u32 tab[2] = {{1,2,3},{3,4}};", 3, 2);
    wrong(".global .v4 .u32 tab[1] = {{1,2}};", 2, 4);
    wrong(".global .v2 .u32 tab = {1,2,3};", 3, 2);
    for body in [
        ".global .v2 .u32 tab[1] = {{1,2},{3,4}};",
        ".global .v2 .u32 tab[1][2] = {{{1,2},{3,4}},{{1,2},{3,4}}};",
    ] {
        let found = errors("8.7", &format!("{body}\n.entry k() {{ ret; }}"));
        assert_eq!(found.len(), 1, "{body}: {found:?}");
        assert_eq!(found[0].0, "E0204", "{body}");
    }
    passes(".global .v2 .u32 tab[2] = {{1,2},{3,4}};\n.entry k() { ret; }");
    passes(".global .v2 .u32 tab = {1,2};\n.entry k() { ret; }");
}

/// Arrays without elements: ptxas 13.5 says "Non-external variable 'g' has incomplete type"
/// for a dimension of 0 or a `[]` without initializer (module scope, `.shared`, `.local` and
/// `.param` in a body), "Array of incomplete type" for `g[2][0]`, and "Parameter to entry
/// function cannot be an incomplete array." for a kernel parameter; `.extern` arrays, `[]` with
/// an initializer and a device function's `.param .b8 a[0]` pass.
#[test]
fn arrays_without_elements() {
    let codes = |body: &str| -> Vec<&'static str> {
        errors("8.7", body)
            .into_iter()
            .map(|(code, _)| code)
            .collect()
    };
    for body in [
        ".global .b8 g[0];\n.entry k() { ret; }",
        ".global .b8 g[];\n.entry k() { ret; }",
        ".global .b8 g[2][0];\n.entry k() { ret; }",
        ".const .b8 c[0];\n.entry k() { ret; }",
        ".entry k() { .shared .b8 s[0]; ret; }",
        ".entry k() { .shared .b8 s[]; ret; }",
        ".entry k() { .local .b8 s[0]; ret; }",
        ".entry k() { .param .b8 s[0]; ret; }",
        ".entry k(.param .b8 a[0]) { ret; }",
    ] {
        assert_eq!(codes(body), vec!["E0209"], "{body}");
    }
    assert_eq!(
        errors("8.7", ".entry k(.param .b8 a[0]) { ret; }")[0].1,
        "kernel parameter `a` is an array without elements"
    );
    passes(".extern .shared .align 16 .b8 dyn[];\n.entry k() { ret; }");
    passes(".global .u32 tab[] = {1, 2, 3};\n.entry k() { ret; }");
    passes(".func f(.param .b8 a[0]) { ret; }\n.entry k() { ret; }");
}

/// A file with bare CR line endings: each CR ends a line (`decode_source`, as `ptxsim check`
/// reads files), so an error on the sixth line is reported there (not on line 1).
#[test]
fn bare_carriage_returns_end_lines() {
    let bytes = b".version 8.7\r.target sm_90\r.address_size 64\r.entry k() {\r  .reg .u32 %r1;\r  mov.u32 %r1, %x;\r  ret;\r}\r";
    let (source, _) = ptxsim_syntax::diag::decode_source(bytes);
    let source = &*source;
    let found = diagnostics(source);
    assert_eq!(found.len(), 1, "{found:?}");
    let index = ptxsim_syntax::diag::LineIndex::new(source);
    let (line, column) = index.line_column(source, found[0].span.range().start);
    assert_eq!((line, column), (6, 16));
}

/// Kernels reach the shared memory a function names through chains of calls: 300 kernels
/// each calling the head of a chain of 300 functions whose last one names a 49,153-byte
/// module-scope array all use too much.
#[test]
fn shared_memory_is_found_through_chains_of_calls() {
    let functions = 300;
    let mut body = String::from(".shared .b8 big[49153];\n");
    // The chain's last function first, so that every call names a declared function.
    for index in (0..functions).rev() {
        let next = if index + 1 < functions {
            format!("call f{};", index + 1)
        } else {
            ".reg .u64 %rd1; mov.u64 %rd1, big;".to_string()
        };
        body.push_str(&format!(".func f{index}() {{ {next} ret; }}\n"));
    }
    for index in 0..300 {
        body.push_str(&format!(".entry k{index}() {{ call f0; ret; }}\n"));
    }
    let found = diagnostics(&module("8.7", &body));
    assert_eq!(found.iter().filter(|d| d.code == "E0205").count(), 300);
    assert_eq!(found.len(), 300, "{:?}", found.first());
}

/// The static shared memory of each kernel of a module counts the module-scope `.shared`
/// variables that kernel (or a function it calls) names, and the variables of the bodies it
/// reaches, as ptxas counts it: `ptxas -v -arch sm_90` (13.5) on this module prints
/// "4220 bytes smem" for `k2` (`b`, `c` at 8-byte alignment, `f`'s `inner`), "1000 bytes smem"
/// for `k1` and no shared memory for `k3`. CUDA's occupancy calls (CUB sizes its grids with
/// them) and `cudaFuncGetAttributes` report this per kernel.
#[test]
fn static_shared_memory_is_per_kernel() {
    let source = module(
        "8.7",
        ".shared .align 4 .b8 a[1000];\n\
         .shared .align 16 .b8 b[4096];\n\
         .shared .align 8 .b8 c[24];\n\
         .func f()\n{\n.shared .align 4 .b8 inner[100];\nst.shared.u32 [c], 1;\n\
         st.shared.u32 [inner], 1;\nret;\n}\n\
         .entry k1()\n{\nst.shared.u32 [a], 1;\nret;\n}\n\
         .entry k2()\n{\nst.shared.u32 [b], 2;\ncall f, ();\nret;\n}\n\
         .entry k3()\n{\nret;\n}",
    );
    let (checked, diagnostics) = ptxsim_check::compile(&source, &Options::default());
    let checked = checked.unwrap_or_else(|| panic!("{diagnostics:?}"));
    let shared = |kernel: &str| checked.program(Some(kernel)).map(|p| p.shared_bytes);
    assert_eq!(shared("k1"), Ok(1000));
    assert_eq!(shared("k2"), Ok(4220));
    assert_eq!(shared("k3"), Ok(0));
}

/// ptxas 13.5 (`-arch sm_100a`): "Function 'k' uses single CTA(.cta_group::1) and CTA pair
/// granularity(.cta_group::2) and that is not allowed" when the kernel's tcgen05 instructions,
/// its own or those of a function it calls, use both; a function no kernel calls, and tcgen05
/// instructions without `.cta_group` (`fence`, `ld`), do not count.
#[test]
fn a_kernel_uses_one_cta_group() {
    let alloc = |group: u32| {
        format!("tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 [%r1], 32;")
    };
    let source = |kernel: &str, function: &str, call: bool| {
        let call = if call {
            "{ .param .b32 p; st.param.b32 [p], %r1; call f, (p); }"
        } else {
            ""
        };
        format!(
            ".version 8.7\n.target sm_100a\n.address_size 64\n\
             .func f(.param .b32 a)\n{{\n.reg .b32 %r<4>;\nld.param.b32 %r1, [a];\n{function}\nret;\n}}\n\
             .visible .entry k()\n{{\n.reg .b32 %r<4>;\n.shared .align 8 .b32 slot;\n\
             mov.u32 %r1, slot;\n{kernel}\n{call}\nret;\n}}\n"
        )
    };
    let codes = |source: String| -> Vec<&'static str> {
        diagnostics(&source)
            .into_iter()
            .filter(Diagnostic::is_error)
            .map(|d| d.code)
            .collect()
    };
    let both = format!("{}\n{}", alloc(1), alloc(2));
    assert_eq!(codes(source(&both, "", false)), ["E0210"]);
    assert_eq!(codes(source(&alloc(2), &alloc(1), true)), ["E0210"]);
    assert_eq!(codes(source(&alloc(1), &alloc(2), true)), ["E0210"]);
    assert!(codes(source(&alloc(2), &alloc(1), false)).is_empty());
    let unqualified = format!(
        "{}\ntcgen05.fence::before_thread_sync;\ntcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r2}}, [%r1];",
        alloc(2)
    );
    assert!(codes(source(&unqualified, &alloc(2), true)).is_empty());
}
