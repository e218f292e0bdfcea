//! A CUDA driver API library on ptxsim: `libcuda.so.1` for programs that load NVIDIA's driver
//! library (by path, through `LD_LIBRARY_PATH`, or linked with `-lcuda`), running their PTX
//! modules on the simulator. `docs/driver-api.md` lists the calls, the environment variables
//! and the error mapping.
//!
//! - [`driver`]: the state (contexts, modules, kernels, device memory, streams, events) and
//!   the calls on it, in safe Rust.
//! - [`fatbin`]: fatbin containers (what nvcc embeds in a program): their entries and the
//!   PTX for a device.
//! - [`status`]: the `CUresult` codes.
//! - [`ffi`]: the exported C functions; the one module with `unsafe` code (it reads and
//!   writes the memory the caller's pointers give), its invariants written there.
#![warn(missing_docs)]

pub mod array_copy;
pub mod debug;
pub mod driver;
pub mod entry_points;
pub mod fatbin;
pub mod ffi;
pub mod link;
pub mod status;
pub mod texture;
