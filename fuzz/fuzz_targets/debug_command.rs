#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(script) = std::str::from_utf8(data) {
        ptxsim_fuzz::debug(script);
    }
});
