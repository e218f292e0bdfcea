//! `cudaGraphSetConditional(handle, value)` (CUDA Runtime API, "Graph Management"), which
//! kernels of conditional graph nodes call: a built-in of the device-side runtime
//! (docs/executor.md, "Device-side runtime") that stores the 32-bit value at the handle, which
//! ptxsim's driver makes the device address of the handle's value. The kernel is nvcc 13.5's
//! PTX (`nvcc -arch=compute_90 -ptx`) of
//! `__global__ void k(char *d, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *d & 1); }`.

use ptxsim_exec::api::{Arg, LaunchOptions, Module, Options};

const KERNEL: &str = r#"
.version 9.5
.target sm_90
.address_size 64

.extern .func cudaGraphSetConditional
(
	.param .b64 cudaGraphSetConditional_param_0,
	.param .b32 cudaGraphSetConditional_param_1
)
;

.visible .entry _Z1kPcy(
	.param .u64 _Z1kPcy_param_0,
	.param .u64 _Z1kPcy_param_1
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<4>;


	ld.param.u64 	%rd1, [_Z1kPcy_param_0];
	ld.param.u64 	%rd2, [_Z1kPcy_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	ld.global.u8 	%r1, [%rd3];
	and.b32  	%r2, %r1, 1;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd2;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r2;
	call.uni 
	cudaGraphSetConditional, 
	(
	param0, 
	param1
	);
	} // callseq 0
	ret;

}
"#;

#[test]
fn the_value_is_stored_at_the_handle() {
    let module = Module::load(KERNEL, &Options::default()).expect("the kernel loads");
    for (input, expected) in [(7u8, 1u32), (4, 0)] {
        let mut data = [input];
        // The cell starts as neither value, so a store of either shows.
        let mut cell = 0xdead_beef_u32.to_le_bytes();
        module
            .launch(
                "_Z1kPcy",
                [1, 1, 1],
                [1, 1, 1],
                &mut [Arg::Buffer(&mut data), Arg::Buffer(&mut cell)],
                &LaunchOptions::default(),
            )
            .expect("the launch runs");
        assert_eq!(u32::from_le_bytes(cell), expected, "*d = {input}");
    }
}

#[test]
fn a_handle_that_is_no_address_faults() {
    let module = Module::load(KERNEL, &Options::default()).expect("the kernel loads");
    let mut data = [1u8];
    let error = module
        .launch(
            "_Z1kPcy",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::Buffer(&mut data), Arg::U64(0x10)],
            &LaunchOptions::default(),
        )
        .unwrap_err();
    assert!(error.to_string().contains("address"), "{error}");
}
