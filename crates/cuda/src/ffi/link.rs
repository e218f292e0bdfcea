//! The JIT linker's calls (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`,
//! `cuLinkComplete`, `cuLinkDestroy`, each also under its `_v2` name): the C side of
//! [`crate::link`], which collects and links the inputs' PTX.
//!
//! Beyond the module's general invariants (the caller's pointers keep the driver API's
//! contract), one more: `cuLinkCreate`'s option values. `cuda.h` says they "must remain valid
//! for the life of the CUlinkState if output options are used": the log buffers and the
//! value slots of `CU_JIT_WALL_TIME` and the log sizes are kept as numbers
//! ([`link::JitOutputs`]) and written by the later calls of the same state (the error log when
//! an input or the link fails, the info log, the sizes written and the wall time when the
//! link completes). Every other option is accepted and has no effect (ptxsim compiles
//! nothing); the options of `cuLinkAddData`/`cuLinkAddFile` (compiler options only) too.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::{CUresult, CudaError, Failure, Handle, guard, handle, host_bytes, number, put, text};
use crate::driver::CallResult;
use crate::link::{self, InputKind, JitOutputs};

/// `CU_JIT_WALL_TIME`, `CU_JIT_INFO_LOG_BUFFER`, `CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES`,
/// `CU_JIT_ERROR_LOG_BUFFER`, `CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES`, `CU_JIT_LOG_VERBOSE`
/// (`cuda.h`, `CUjit_option`).
const JIT_WALL_TIME: c_int = 2;
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
const JIT_LOG_VERBOSE: c_int = 12;

/// The output options among `count` options and their values.
///
/// # Safety
/// `options` and `values` are NULL or have `count` readable entries.
unsafe fn jit_outputs(count: c_uint, options: *mut c_int, values: *mut *mut c_void) -> JitOutputs {
    let mut outputs = JitOutputs::default();
    if count == 0 || options.is_null() || values.is_null() {
        return outputs;
    }
    let (mut error_buffer, mut error_size, mut info_buffer, mut info_size) = (0, 0, 0, 0);
    for index in 0..count as usize {
        // SAFETY: by the contract, `count` readable options and values.
        let (option, value) = unsafe { (options.add(index).read(), values.add(index).read()) };
        let slot = values.wrapping_add(index) as usize;
        // A number option's value is the number itself, in the pointer's place.
        let number = value as usize & 0xffff_ffff;
        match option {
            JIT_WALL_TIME => outputs.wall_time_slot = Some(slot),
            JIT_INFO_LOG_BUFFER => info_buffer = value as usize,
            JIT_INFO_LOG_BUFFER_SIZE_BYTES => {
                info_size = number;
                outputs.info_size_slot = Some(slot);
            }
            JIT_ERROR_LOG_BUFFER => error_buffer = value as usize,
            JIT_ERROR_LOG_BUFFER_SIZE_BYTES => {
                error_size = number;
                outputs.error_size_slot = Some(slot);
            }
            JIT_LOG_VERBOSE => outputs.verbose = number != 0,
            _ => {}
        }
    }
    outputs.error_log =
        (error_buffer != 0 && error_size != 0).then_some((error_buffer, error_size));
    outputs.info_log = (info_buffer != 0 && info_size != 0).then_some((info_buffer, info_size));
    outputs
}

/// Writes `message` (cut to the buffer, NUL-terminated) into a log buffer and the bytes
/// written, the NUL included, into its size slot.
///
/// # Safety
/// The buffer (address, size) has `size` writable bytes and the slot is a writable
/// `void *`, both still valid (the module documentation).
unsafe fn write_log(log: Option<(usize, usize)>, slot: Option<usize>, message: &str) {
    let Some((buffer, size)) = log else {
        return;
    };
    let take = message.len().min(size - 1);
    let buffer = std::ptr::with_exposed_provenance_mut::<u8>(buffer);
    // SAFETY: `size` > `take` writable bytes (`jit_outputs` keeps only sizes above 0).
    unsafe {
        std::ptr::copy_nonoverlapping(message.as_ptr(), buffer, take);
        buffer.add(take).write(0);
    }
    if let Some(slot) = slot {
        // SAFETY: the size option's value slot, writable.
        unsafe { std::ptr::with_exposed_provenance_mut::<usize>(slot).write_unaligned(take + 1) };
    }
}

/// Writes the milliseconds spent into the `CU_JIT_WALL_TIME` slot (a `float` in the slot's
/// first bytes, the rest 0).
///
/// # Safety
/// The slot is a writable `void *`, still valid.
unsafe fn write_wall_time(outputs: &JitOutputs, milliseconds: f32) {
    if let Some(slot) = outputs.wall_time_slot {
        let bits = milliseconds.to_bits() as usize;
        // SAFETY: the option's value slot, writable.
        unsafe { std::ptr::with_exposed_provenance_mut::<usize>(slot).write_unaligned(bits) };
    }
}

/// Runs `body` on `state`'s link; a failure's message goes to the state's error log too.
///
/// # Safety
/// The state's output buffers are still valid.
unsafe fn logging_errors<T>(state: u64, body: impl FnOnce() -> CallResult<T>) -> CallResult<T> {
    let result = body();
    if let Err(failure) = &result
        && let Ok(outputs) = link::outputs(state)
    {
        let message = failure.message.as_deref().unwrap_or_default();
        // SAFETY: the caller's promise.
        unsafe { write_log(outputs.error_log, outputs.error_size_slot, message) };
    }
    result
}

/// `cuLinkAddData` on the bytes of an input.
///
/// # Safety
/// The state's output buffers are still valid.
unsafe fn add(state: Handle, kind: c_int, data: &[u8], name: &str) -> CallResult<()> {
    let state = number(state);
    // SAFETY: the caller's promise.
    let milliseconds = unsafe {
        logging_errors(state, || {
            let kind = InputKind::from_raw(u32::try_from(kind).unwrap_or(u32::MAX))?;
            link::add(state, kind, data, name)
        })
    }?;
    let outputs = link::outputs(state)?;
    // SAFETY: the caller's promise.
    unsafe { write_wall_time(&outputs, milliseconds) };
    Ok(())
}

calls! {
    /// `cuLinkCreate_v2`: a pending link; of the options, the log buffers, their sizes,
    /// `CU_JIT_WALL_TIME` and `CU_JIT_LOG_VERBOSE` are used (module documentation).
    fn cuLinkCreate_v2(
        count: c_uint,
        options: *mut c_int,
        values: *mut *mut c_void,
        state: *mut Handle,
    ) {
        if state.is_null() {
            return Err(super::null_argument("stateOut"));
        }
        let outputs = unsafe { jit_outputs(count, options, values) };
        let value = link::create(outputs)?;
        unsafe { put(state, handle(value), "stateOut") }
    }

    /// `cuLinkAddData_v2`: an input (`CUjitInputType`) of `size` bytes; PTX up to its NUL.
    fn cuLinkAddData_v2(
        state: Handle,
        kind: c_int,
        data: *mut c_void,
        size: usize,
        name: *const c_char,
        _count: c_uint,
        _options: *mut c_int,
        _values: *mut *mut c_void,
    ) {
        if data.is_null() || size == 0 {
            return Err(Failure::new(CudaError::InvalidValue, "data is NULL or size is 0"));
        }
        let data = unsafe { host_bytes(data, size, "data") }?;
        let name = if name.is_null() { "" } else { unsafe { text(name, "name") }? };
        unsafe { add(state, kind, data, name) }
    }

    /// `cuLinkAddFile_v2`: the contents of the file at `path`, as `cuLinkAddData`.
    fn cuLinkAddFile_v2(
        state: Handle,
        kind: c_int,
        path: *const c_char,
        _count: c_uint,
        _options: *mut c_int,
        _values: *mut *mut c_void,
    ) {
        let path = unsafe { text(path, "path") }?;
        let data = unsafe {
            logging_errors(number(state), || crate::driver::read_image(path))
        }?;
        unsafe { add(state, kind, &data, path) }
    }

    /// `cuLinkComplete`: the linked PTX, NUL-terminated, which `cuModuleLoadData` takes; it
    /// belongs to the state (until `cuLinkDestroy`). `sizeOut` may be NULL.
    fn cuLinkComplete(state: Handle, image: *mut *mut c_void, size: *mut usize) {
        if image.is_null() {
            return Err(super::null_argument("cubinOut"));
        }
        let link = number(state);
        let (address, bytes, info, milliseconds) =
            unsafe { logging_errors(link, || link::complete(link)) }?;
        let outputs = link::outputs(link)?;
        let info = if outputs.verbose { info.as_str() } else { "" };
        unsafe {
            write_log(outputs.info_log, outputs.info_size_slot, info);
            write_log(outputs.error_log, outputs.error_size_slot, "");
            write_wall_time(&outputs, milliseconds);
        }
        unsafe { put(image, std::ptr::with_exposed_provenance_mut(address), "cubinOut") }?;
        if !size.is_null() {
            unsafe { put(size, bytes, "sizeOut") }?;
        }
        Ok(())
    }

    /// `cuLinkDestroy`: the state and its image.
    fn cuLinkDestroy(state: Handle) {
        link::destroy(number(state))
    }
}

plain_names! {
    cuLinkCreate => cuLinkCreate_v2(
        count: c_uint, options: *mut c_int, values: *mut *mut c_void, state: *mut Handle);
    cuLinkAddData => cuLinkAddData_v2(
        state: Handle, kind: c_int, data: *mut c_void, size: usize, name: *const c_char,
        count: c_uint, options: *mut c_int, values: *mut *mut c_void);
    cuLinkAddFile => cuLinkAddFile_v2(
        state: Handle, kind: c_int, path: *const c_char,
        count: c_uint, options: *mut c_int, values: *mut *mut c_void);
}
