//! Gives the cdylib the SONAME of NVIDIA's driver library, `libcuda.so.1`, so that a program
//! linked with `-lcuda` against it asks the dynamic loader for `libcuda.so.1`, as it would for
//! the real one.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
