#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ptxsim_fuzz::run(data);
});
