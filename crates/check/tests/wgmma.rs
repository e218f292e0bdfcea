//! `wgmma` in the checker: each case is a kernel with one instruction, with the verdict of
//! ptxas 13.5 (`/work/main/.nv/nvidia/cu13/bin/ptxas -arch sm_90a` or `sm_90`, CUDA 13) and
//! its message, which ptxsim's verdict must equal (the message part ptxsim's diagnostic must
//! contain is the last column).

mod common;

use common::Case;

const D4: &str = "{%r0, %r1, %r2, %r3}";

/// (target, .version, instruction, ptxas accepts, ptxas's message, text ptxsim's error holds).
fn cases() -> Vec<Case> {
    let f16 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
    let sp16 = "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16";
    vec![
        ("sm_90a", "8.0", format!("{f16} {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), true, "", ""),
        // ptxas: "Instruction 'wgmma.mma_async with floating point types' not supported on
        // .target 'sm_90'".
        ("sm_90", "8.0", format!("{f16} {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, "not supported on .target 'sm_90'", "sm_90a"),
        ("sm_90", "8.0", "wgmma.fence.sync.aligned;".to_string(), false, "Instruction 'wgmma.fence' not supported on .target 'sm_90'", "sm_90a"),
        ("sm_90a", "8.0", "wgmma.fence.sync.aligned; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0;".to_string(), true, "", ""),
        ("sm_90a", "8.0", "wgmma.wait_group.sync.aligned %r0;".to_string(), false, "Arguments mismatch for instruction 'wgmma.wait_group'", "constant"),
        // scale-d may be a constant.
        ("sm_90a", "8.0", format!("{f16} {D4}, %rd0, %rd1, 1, 1, 1, 0, 0;"), true, "", ""),
        ("sm_90a", "8.0", format!("{f16} {D4}, %rd0, %rd1, %p0, 2, 1, 0, 0;"), false, "Argument 4 of instruction 'wgmma.mma_async with floating point types': unexpected value '2', expected to be -1 or 1", "imm-scale-a must be -1 or 1"),
        ("sm_90a", "8.0", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%r0, %r1, %r2, %r3}, %rd0, %rd1, %p0, 1, 1, 1, 2;".to_string(), false, "Argument 7 ...: unexpected value '2', expected to be 0 or 1", "imm-trans-b must be 0 or 1"),
        // No imm-trans for .tf32 ("Arguments mismatch for instruction 'wgmma.mma_async with
        // floating point types'").
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch", "operands"),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {D4}, %rd0, %rd1, %p0, -1, 1;"), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async with FP8 types'", "operands"),
        // A in registers: no imm-trans-a.
        ("sm_90a", "8.0", format!("{f16} {D4}, {{%r4, %r5, %r6, %r7}}, %rd1, %p0, 1, 1, 0;"), true, "", ""),
        ("sm_90a", "8.0", format!("{f16} {D4}, {{%r4, %r5, %r6, %r7}}, %rd1, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "operands"),
        ("sm_90a", "8.0", format!("{f16} {D4}, %rd0, %rd1, %p0, 1, 1, %r5, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "imm-trans-a"),
        ("sm_90a", "8.0", format!("{f16} {D4}, %r9, %rd1, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "a-desc"),
        ("sm_90a", "8.0", format!("{f16} {{%r0, %r1}}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, "Argument vector size mismatch", "d"),
        ("sm_90a", "8.0", "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%r0, %r1}, %rd0, %rd1, %p0, 1, 1, 0, 0;".to_string(), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.aligned.m64n8k16.f32.f16.f16 {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, ".sync modifier required for instruction 'wgmma.mma_async'", ".sync"),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16 {D4}, %rd0, %rd1, %p0, 1, 1, 0, 0;"), false, "Unexpected instruction types specified for 'wgmma.mma_async'", "not a form"),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8 {D4}, %rd0, %rd1, %p0;"), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite {D4}, %rd0, %rd1, %p0;"), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8 {D4}, %rd0, %rd1, %p0;"), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {D4}, %rd0, %rd1, %p0;"), false, "Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4 or later", "8.4"),
        ("sm_90a", "8.4", format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {D4}, %rd0, %rd1, %p0;"), true, "", ""),
        ("sm_90a", "8.0", format!("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {D4}, %rd0, %rd1, %p0, 1, 1;"), false, "Arguments mismatch", "operands"),
        ("sm_90a", "8.0", "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, %rd0, %rd1, %p0;".to_string(), false, "Illegal matrix shape '.m64n40k32' for instruction 'wgmma.mma_async with integer types'", "not a form"),
        // wgmma.mma_async.sp (9.7.15.6.3): `sp-meta, sp-sel` before scale-d.
        ("sm_90a", "8.2", format!("{sp16} {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), true, "", ""),
        ("sm_90a", "8.2", format!("{sp16} {D4}, {{%r4, %r5, %r6, %r7}}, %rd1, %r8, 1, %p0, 1, -1, 1;"), true, "", ""),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sync.aligned.sp.m64n8k32.f32.f16.f16 {D4}, %rd0, %rd1, %r8, 1, 1, 1, 1, 0, 0;"), true, "", ""),
        ("sm_90a", "8.7", format!("{sp16} {D4}, %rd0, %rd1, 5, 0, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "sp-meta"),
        ("sm_90a", "8.1", format!("{sp16} {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Feature 'Sparse WGMMA with floating point types' requires PTX ISA .version 8.2 or later", "8.2"),
        ("sm_90", "8.2", format!("{sp16} {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Instruction 'Sparse wgmma.mma_async with floating point types' not supported on .target 'sm_90'", "sm_90a"),
        ("sm_90a", "8.7", format!("{sp16} {D4}, %rd0, %rd1, %r8, 2, %p0, 1, 1, 0, 0;"), false, "Argument 4 of instruction 'Sparse wgmma.mma_async with floating point types': unexpected value '2', expected to be 0 or 1", "sp-sel must be 0 or 1"),
        ("sm_90a", "8.7", format!("{sp16} {D4}, %rd0, %rd1, %r8, %r9, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "sp-sel"),
        ("sm_90a", "8.7", format!("{sp16} {D4}, %rd0, %rd1, %rd2, 0, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "sp-meta"),
        ("sm_90a", "8.7", format!("{sp16} {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 2, 0;"), false, "Argument 8 ...: unexpected value '2', expected to be 0 or 1", "imm-trans-a must be 0 or 1"),
        ("sm_90a", "8.7", format!("{sp16} {D4}, {{%r4, %r5, %r6, %r7}}, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "operands"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.sp.m64n8k32.f32.f16.f16 {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Multiple sparsity modifiers specified", "sparsity"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Illegal instruction types specified for 'Sparse wgmma.mma_async with floating point types' with shape '.m64n8k16'", "not a form"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k32.satfinite.f32.f16.f16 {D4}, %rd0, %rd1, %r8, 0, %p0, 1, 1, 0, 0;"), false, "Illegal modifier '.satfinite' for instruction 'Sparse wgmma.mma_async with floating point types'", "not a form"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {D4}, %rd0, %rd1, %r8, 1, %p0, 1, -1;"), true, "", ""),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {D4}, %rd0, %rd1, %r8, 1, %p0, 1, -1, 0, 0;"), false, "Arguments mismatch for instruction 'wgmma.mma_async'", "operands"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2 {D4}, %rd0, %rd1, %r8, 0, %p0, 1, -1;"), true, "", ""),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2 {D4}, %rd0, %rd1, %r8, 1, %p0, 1, -1;"), false, "Argument 4 of instruction 'Sparse wgmma.mma_async with FP8 types': unexpected value '1', expected to be 0", "sp-sel must be 0"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.e4m3.e4m3 {D4}, %rd0, %rd1, %r8, 0, %p0, 1, -1;"), false, "Illegal matrix shape '.m64n8k32' for instruction 'Sparse wgmma.mma_async with FP8 types'", "not a form"),
        ("sm_90a", "8.2", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {D4}, %rd0, %rd1, %r8, 0, %p0;"), true, "", ""),
        ("sm_90a", "8.1", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {D4}, %rd0, %rd1, %r8, 0, %p0;"), false, "Feature 'Sparse WGMMA with integer types' requires PTX ISA .version 8.2 or later", "8.2"),
        ("sm_90a", "8.3", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {D4}, %rd0, %rd1, %r8, 0, %p0;"), false, "Feature 'Sparse WGMMA with mixed integer types' requires PTX ISA .version 8.4 or later", "8.4"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.u8.u8 {D4}, {{%r4, %r5, %r6, %r7}}, %rd1, %r8, 0, 1;"), true, "", ""),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {D4}, %rd0, %rd1, %r8, 1, %p0;"), false, "Argument 4 of instruction 'Sparse wgmma.mma_async with integer types': unexpected value '1', expected to be 0", "sp-sel must be 0"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {D4}, {{%r4, %r5, %r6}}, %rd1, %r8, 0, %p0;"), false, "Argument vector size mismatch for instruction 'Sparse wgmma.mma_async with integer types'", "a"),
        ("sm_90a", "8.7", "wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.s8.s8 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, %rd0, %rd1, %r30, 0, %p0;".to_string(), false, "Illegal matrix shape '.m64n40k64' for instruction 'Sparse wgmma.mma_async with integer types'", "not a form"),
        ("sm_90a", "8.7", format!("wgmma.mma_async.sp.sync.aligned.m64n8k512.s32.b1.b1.and.popc {D4}, %rd0, %rd1, %r8, 0, %p0;"), false, "Unknown modifier '.m64n8k512'", "not a form"),
    ]
}

#[test]
fn wgmma_verdicts_equal_ptxas() {
    common::assert_verdicts_equal_ptxas(
        cases(),
        ".reg .b32 %r<40>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;",
    );
}
