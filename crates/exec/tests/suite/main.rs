//! The executor's integration tests, as one test binary: each module was a binary of its own,
//! and linking 26 of them was minutes of a clean CI run on two cores. `cargo test -p
//! ptxsim-exec --test suite MODULE::` runs one module's tests.

/// The golden-table reader shared with `ptxsim-softfloat`'s tests ([`common::read_golden`]
/// decompresses `tests/golden/*.txt.xz`).
#[path = "../../../softfloat/tests/common/mod.rs"]
mod common;

mod alu;
mod api;
mod approx;
mod async_stores;
mod atom_b128;
mod barriers;
mod budget;
mod cluster_launch_control;
mod cooperative;
mod cutlass;
mod device_runtime;
mod dynamic_parallelism;
mod f32x2;
mod files;
mod golden;
mod graph_set_conditional;
mod hardware;
mod indirect_calls;
mod kernels;
mod launch;
mod library;
mod matrix;
mod matrix_sm100;
mod mixed_precision;
mod mma;
mod mma_f64_rounding;
mod mma_integer;
mod mma_kernels;
mod mma_sim;
mod mma_sparse;
mod oob;
mod recursion;
mod sample_traces;
mod samples;
mod scalar;
mod tcgen05;
mod tcgen05_ld_red;
mod tcgen05_sparse;
mod texture;
mod tma;
mod tma_im2col_w;
mod tma_sm100;
mod triton_corpus;
mod video;
mod warp;
mod wgmma;
mod wgmma_sparse;
mod wmma;
