//! Libraries (`cuLibraryLoadData`) as CUDA libraries built on the runtime load them: every
//! fatbin they carry at start-up, some of them without PTX, and some PTX modules that hold
//! only `__device__` variables (cuBLAS 13: `cublas::internal::deviceConstants`, 144 bytes in a
//! module without kernels, whose address the runtime asks for).

use cuda::driver;
use cuda::status::CudaError;

fn setup() {
    driver::init(0).expect("cuInit");
    let context = driver::context_create(0, 0).expect("a context");
    driver::context_set_current(context).expect("current");
}

/// `tests/fatbin/add.sass.fatbin` (`scripts/fatbin/regen.sh`): nvcc's fatbin of `add.cu` with
/// an sm_90 cubin only.
fn sass_only() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fatbin/add.sass.fatbin"
    );
    std::fs::read(path).expect("the sample fatbin")
}

#[test]
fn a_fatbin_without_ptx_loads_and_fails_where_its_code_is_used() {
    setup();
    // Loading succeeds (as under lazy loading on a GPU)...
    let library = driver::library_load(&sass_only()).expect("the library loads");
    assert_eq!(
        driver::library_kernel_names(library).expect("names"),
        Vec::<String>::new()
    );
    // ...and asking for its kernel says why it cannot run.
    let failure = driver::library_get_kernel(library, "add").expect_err("no PTX");
    assert_eq!(failure.error, CudaError::NoBinaryForGpu);
    let message = failure.message.unwrap_or_default();
    assert!(message.contains("ptxsim runs PTX only"), "{message}");
    let failure = driver::library_get_global(library, "anything").expect_err("no PTX");
    assert_eq!(failure.error, CudaError::NoBinaryForGpu);
    driver::library_unload(library).expect("unload");
}

#[test]
fn variables_of_a_module_without_kernels_have_addresses_and_values() {
    setup();
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
               .global .align 16 .b8 constants[12] = {0, 0, 128, 63, 0, 0, 0, 64, 1, 2, 3, 4};\n\
               .visible .global .align 4 .u32 counter = 7;\n";
    let library = driver::library_load(ptx.as_bytes()).expect("loads");
    let (address, size) = driver::library_get_global(library, "constants").expect("found");
    assert_eq!(size, 12);
    let mut bytes = [0u8; 12];
    driver::copy_from_device(&mut bytes, address).expect("readable");
    // The initializer, byte for byte: 1.0f, 2.0f, then 1, 2, 3, 4.
    assert_eq!(bytes, [0, 0, 128, 63, 0, 0, 0, 64, 1, 2, 3, 4]);
    let (address, size) = driver::library_get_global(library, "counter").expect("found");
    assert_eq!(size, 4);
    let mut word = [0u8; 4];
    driver::copy_from_device(&mut word, address).expect("readable");
    assert_eq!(u32::from_le_bytes(word), 7);
    let failure = driver::library_get_global(library, "missing").expect_err("absent");
    assert_eq!(failure.error, CudaError::NotFound);
}
