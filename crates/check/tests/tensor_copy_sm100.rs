//! The sm_100 forms of `cp.async.bulk.tensor` in the checker: `.tile::gather4`,
//! `.tile::scatter4`, `.cta_group`, `.im2col::w` and `.im2col::w::128`; and `cp.async.bulk.prefetch.tensor`'s `.tile::gather4`,
//! `.im2col::w` and `.im2col::w::128`. Each case is a kernel with one instruction and the
//! verdict of ptxas 13.5 (`/work/main/.nv/nvidia/cu13/bin/ptxas -arch <target>`, CUDA 13) with
//! its message; ptxsim's verdict must equal it (the last column is text ptxsim's error holds).
//! (The number of coordinates, five for the four-row modes, is checked when the program is
//! built: `crates/exec/tests/suite/tma_sm100.rs`.)

mod common;

use common::Case;

/// (target, .version, instruction, ptxas accepts, ptxas's message, text ptxsim's error holds).
fn cases() -> Vec<Case> {
    let gather = |dst: &str| {
        format!(
            "cp.async.bulk.tensor.2d.shared::{dst}.global.tile::gather4.mbarrier::complete_tx::bytes \
             [s], [%rd0, {{%r0, %r1, %r2, %r3, %r4}}], [mb];"
        )
    };
    let scatter = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group \
                   [%rd0, {%r0, %r1, %r2, %r3, %r4}], [s];"
        .to_string();
    let pair = |group: u32| {
        format!(
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\
             .cta_group::{group} [s], [%rd0, {{%r0}}], [mb];"
        )
    };
    // `.im2col::w` / `.im2col::w::128` (`mode` `w` / `w::128`) of a `dims`-d tensor.
    let wide = |dst: &str, mode: &str, dims: usize| {
        let coordinates = (0..dims)
            .map(|i| format!("%r{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "cp.async.bulk.tensor.{dims}d.shared::{dst}.global.im2col::{mode}.mbarrier::complete_tx::bytes \
             [s], [%rd0, {{{coordinates}}}], [mb], {{%h0, %h1}};"
        )
    };
    vec![
        ("sm_100a", "8.6", gather("cluster"), true, "", ""),
        ("sm_100a", "8.6", gather("cta"), true, "", ""),
        ("sm_100", "8.7", gather("cta"), true, "", ""),
        ("sm_103f", "8.8", gather("cluster"), true, "", ""),
        ("sm_100", "8.8", gather("cluster"), false, "Feature '.tile::gather4 with destination state space as .shared::cluster' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_120a", "8.8", gather("cluster"), false, "Feature '.tile::gather4 with destination state space as .shared::cluster' not supported on .target 'sm_120a'", "sm_100a"),
        ("sm_90a", "8.8", gather("cta"), false, "Feature '.tile::gather4 with destination state space as .shared::cta' requires .target sm_100 or higher", "sm_100 or higher"),
        ("sm_100a", "8.5", gather("cta"), false, "Feature '.tile::gather4' requires PTX ISA .version 8.6 or later", "8.6"),
        ("sm_100a", "8.7", "cp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1, %r2, %r3, %r4}], [mb];".to_string(), false, "Modifier '.3d' cannot be combined with modifier '.tile::gather4'", "2D"),
        ("sm_100a", "8.7", "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [s], [%rd0, {%r0, %r1, %r2, %r3, %r4}], [mb], %h0;".to_string(), true, "", ""),
        ("sm_100a", "8.7", scatter.clone(), true, "", ""),
        ("sm_103f", "8.8", scatter.clone(), true, "", ""),
        ("sm_100", "8.7", scatter.clone(), false, "Feature '.tile::scatter4' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_100a", "8.7", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::scatter4.bulk_group [%rd0, {%r0, %r1, %r2, %r3, %r4}], [s];".to_string(), true, "", ""),
        ("sm_100a", "8.7", "cp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1, %r2, %r3, %r4}], [mb];".to_string(), false, "Illegal modifier '.tile::scatter4' for instruction 'cp.async.bulk.tensor'", "tile::scatter4"),
        ("sm_100a", "8.6", pair(2), true, "", ""),
        ("sm_100a", "8.6", pair(1), true, "", ""),
        ("sm_100", "8.8", pair(2), false, "Feature '.cta_group::2' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_120a", "8.8", pair(1), false, "Feature '.cta_group::1' not supported on .target 'sm_120a'", "sm_100a"),
        ("sm_100a", "8.7", "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group.cta_group::1 [%rd0, {%r0}], [s];".to_string(), false, "Arguments mismatch for instruction 'cp.async.bulk.tensor'", "cta_group"),
        // .im2col::w and .im2col::w::128 loads with {wHalo, wOffset}.
        ("sm_100a", "8.6", wide("cta", "w", 3), true, "", ""),
        ("sm_100a", "8.6", wide("cluster", "w", 3), true, "", ""),
        ("sm_100", "8.8", wide("cta", "w", 4), true, "", ""),
        ("sm_120a", "8.8", wide("cta", "w", 3), true, "", ""),
        ("sm_100f", "8.8", wide("cluster", "w", 3), true, "", ""),
        ("sm_100", "8.8", wide("cluster", "w", 3), false, "Feature '.im2col::w with destination state space as .shared::cluster' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_120a", "8.8", wide("cluster", "w", 3), false, "Feature '.im2col::w with destination state space as .shared::cluster' not supported on .target 'sm_120a'", "sm_100a"),
        ("sm_90a", "8.8", wide("cta", "w", 3), false, "Feature '.im2col::w with destination state space as .shared::cta' requires .target sm_100 or higher", "sm_100 or higher"),
        ("sm_100a", "8.5", wide("cta", "w", 3), false, "Feature '.im2col::w' requires PTX ISA .version 8.6 or later", "8.6"),
        ("sm_100a", "8.6", wide("cta", "w::128", 5), true, "", ""),
        ("sm_103f", "8.8", wide("cluster", "w::128", 3), true, "", ""),
        ("sm_100f", "8.8", wide("cta", "w::128", 4), true, "", ""),
        ("sm_100", "8.8", wide("cta", "w::128", 3), false, "Feature '.im2col::w::128' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_120a", "8.8", wide("cta", "w::128", 3), false, "Feature '.im2col::w::128' not supported on .target 'sm_120a'", "sm_100a"),
        ("sm_90a", "8.8", wide("cluster", "w::128", 3), false, "Feature '.im2col::w::128' not supported on .target 'sm_90a'", "sm_100a"),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [s], [%rd0, {%r0, %r1, %r2, %r3}], [mb], {%h0, %h1}, %h2, %rd1;".to_string(), true, "", ""),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.2d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1}], [mb], {%h0, %h1};".to_string(), false, "Modifier '.2d' cannot be combined with modifier '.im2col::w'", "3 dimensions"),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1, %r2, %r3}], [mb], {%h0, %h1, %h2};".to_string(), false, "Argument 4 of instruction 'cp.async.bulk.tensor': Argument vector size mismatch", "im2colInfo"),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1, %r2, %r3}], [mb];".to_string(), false, "Arguments mismatch for instruction 'cp.async.bulk.tensor'", "operand"),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.im2col.mbarrier::complete_tx::bytes [s], [%rd0, {%r0, %r1, %r2}], [mb], {%h0, %h1};".to_string(), false, "Multiple .load_mode modifiers specified", "mode"),
        ("sm_100a", "8.8", "cp.async.bulk.tensor.4d.global.shared::cta.im2col::w.bulk_group [%rd0, {%r0, %r1, %r2, %r3}], [s];".to_string(), false, "Illegal modifier '.im2col::w' for instruction 'cp.async.bulk.tensor'", "im2col::w"),
        ("sm_100a", "8.8", "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col::w.bulk_group [%rd0, {%r0, %r1, %r2}], [s];".to_string(), false, "Illegal modifier '.im2col::w' for instruction 'cp.reduce.async.bulk.tensor'", "im2col::w"),
        // tensormap.replace of the sm_100 swizzles.
        ("sm_100a", "8.6", "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [s], 2;".to_string(), true, "", ""),
        ("sm_103a", "8.8", "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [s], 4;".to_string(), true, "", ""),
        ("sm_100a", "8.8", "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [s], 4;".to_string(), false, "Argument 1 of instruction 'tensormap.replace': value '4' expected to be in range [0..3] when .swizzle_mode modifier is used.", "sm_103a only"),
        ("sm_103f", "8.8", "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [s], 4;".to_string(), false, "Argument 1 of instruction 'tensormap.replace': value '4' expected to be in range [0..3] when .swizzle_mode modifier is used.", "sm_103a only"),
        ("sm_120a", "8.8", "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [s], 3;".to_string(), true, "", ""),
        ("sm_90a", "8.7", "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [s], 1;".to_string(), false, "Instruction 'tensormap.replace.swizzle_atomicity' not supported on .target 'sm_90a'", "sm_100a"),
        ("sm_100", "8.8", "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [s], 2;".to_string(), false, "Instruction 'tensormap.replace.swizzle_atomicity' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_100a", "8.8", "tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [s], 4;".to_string(), false, "Argument 1 of instruction 'tensormap.replace': value '4' expected to be in range [0..3] when .swizzle_atomicity modifier is used.", "0..=3"),
        // cp.async.bulk.prefetch.tensor (a hint; nothing runs).
        ("sm_100a", "8.6", "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd0, {%r0, %r1, %r2, %r3, %r4}];".to_string(), true, "", ""),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4.L2::cache_hint [%rd0, {%r0, %r1, %r2, %r3, %r4}], %rd1;".to_string(), true, "", ""),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd0, {%r0, %r1, %r2}], {%h0, %h1};".to_string(), true, "", ""),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w::128 [%rd0, {%r0, %r1, %r2}], {%h0, %h1};".to_string(), true, "", ""),
        ("sm_100", "8.8", "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd0, {%r0, %r1, %r2, %r3, %r4}];".to_string(), false, "Feature '.tile::gather4 with cp.async.bulk.prefetch.tensor' not supported on .target 'sm_100'", "sm_100a"),
        ("sm_90a", "8.8", "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd0, {%r0, %r1, %r2}], {%h0, %h1};".to_string(), false, "Feature '.im2col::w with cp.async.bulk.prefetch.tensor' not supported on .target 'sm_90a'", "sm_100a"),
        ("sm_100a", "8.5", "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd0, {%r0, %r1, %r2, %r3, %r4}];".to_string(), false, "Feature '.tile::gather4' requires PTX ISA .version 8.6 or later", "8.6"),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.3d.L2.global.tile::gather4 [%rd0, {%r0, %r1, %r2, %r3, %r4}];".to_string(), false, "Modifier '.3d' cannot be combined with modifier '.tile::gather4'", "2D"),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.2d.L2.global.im2col::w [%rd0, {%r0, %r1}], {%h0, %h1};".to_string(), false, "Modifier '.2d' cannot be combined with modifier '.im2col::w'", "3 dimensions"),
        ("sm_100a", "8.8", "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w::128 [%rd0, {%r0, %r1, %r2}];".to_string(), false, "Arguments mismatch for instruction 'cp.async.bulk.prefetch.tensor'", "operand"),
    ]
}

#[test]
fn sm_100_tensor_copy_verdicts_equal_ptxas() {
    common::assert_verdicts_equal_ptxas(
        cases(),
        ".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .b16 %h<4>;\n.shared .align 128 .b8 s[1024];\n.shared .align 8 .b64 mb;",
    );
}
