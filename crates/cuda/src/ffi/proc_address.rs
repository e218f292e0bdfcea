//! `cuGetProcAddress` and `cuGetExportTable`: how the CUDA runtime finds this library's calls.
//!
//! A symbol is found in this library's own dynamic symbol table (`dlsym` on the handle of the
//! library that holds this code), so every exported call, implemented or not, can be handed out
//! without a second list of them. Which symbol a plain name means at a CUDA version is
//! [`crate::entry_points::resolve`]'s answer.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::LazyLock;

use super::{CUresult, guard, put, text};
use crate::entry_points::{self, Resolution};
use crate::status::{CudaError, Failure};

/// `CU_GET_PROC_ADDRESS_SUCCESS`, `_SYMBOL_NOT_FOUND`, `_VERSION_NOT_SUFFICIENT`.
const PROC_SUCCESS: c_int = 0;
const PROC_SYMBOL_NOT_FOUND: c_int = 1;
const PROC_VERSION_NOT_SUFFICIENT: c_int = 2;

/// The `dlopen` handle of the shared object this code is in, as a number (0 when it is not in
/// one: the crate's own tests link it statically).
static OWN_HANDLE: LazyLock<usize> = LazyLock::new(|| {
    // SAFETY: `dladdr` only reads the address (of a function of this library) and writes the
    // `Dl_info` it is given; `dli_fname` is then NULL or a NUL-terminated path that lives as
    // long as the library, which `dlopen` with RTLD_NOLOAD only reads (it loads nothing: the
    // library is loaded, since this code runs).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let probe = proc_address_v2 as *const c_void;
        if libc::dladdr(probe, &mut info) == 0 || info.dli_fname.is_null() {
            return 0;
        }
        libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NOLOAD) as usize
    }
});

/// The address of this library's exported `symbol`, if it has one.
fn own_symbol(symbol: &str) -> Option<*mut c_void> {
    let handle = *OWN_HANDLE;
    if handle == 0 {
        return None;
    }
    let name = CString::new(symbol).ok()?;
    // SAFETY: `handle` came from `dlopen` and the library stays loaded while its code runs;
    // `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle as *mut c_void, name.as_ptr()) };
    (!address.is_null()).then_some(address)
}

/// What `cuGetProcAddress` answers for `symbol` at `version`: the address, or the status.
fn lookup(symbol: &str, version: c_int) -> Result<*mut c_void, c_int> {
    match entry_points::resolve(symbol, version) {
        Resolution::Symbol(exported) => own_symbol(exported).ok_or(PROC_SYMBOL_NOT_FOUND),
        Resolution::VersionNotSufficient => Err(PROC_VERSION_NOT_SUFFICIENT),
        Resolution::NotFound => Err(PROC_SYMBOL_NOT_FOUND),
    }
}

/// Answers a request: writes the address (NULL when there is none) and the status.
///
/// # Safety
/// `symbol` is NULL or NUL-terminated; `pfn` is NULL or writable; `status` is NULL or writable.
unsafe fn answer(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    status: *mut c_int,
) -> Result<(), Failure> {
    let name = unsafe { text(symbol, "symbol") }?;
    if pfn.is_null() {
        return Err(super::null_argument("pfn"));
    }
    let found = lookup(name, version);
    super::log_detail(|| match found {
        Ok(_) => format!("cuGetProcAddress({name}, {version}): found"),
        Err(PROC_VERSION_NOT_SUFFICIENT) => {
            format!("cuGetProcAddress({name}, {version}): version not sufficient")
        }
        Err(_) => format!("cuGetProcAddress({name}, {version}): not found"),
    });
    let (address, code) = match found {
        Ok(address) => (address, PROC_SUCCESS),
        Err(code) => (std::ptr::null_mut(), code),
    };
    unsafe { put(pfn, address, "pfn") }?;
    if !status.is_null() {
        unsafe { put(status, code, "symbolStatus") }?;
    }
    match code {
        PROC_SUCCESS => Ok(()),
        // NVIDIA's driver: CUDA_ERROR_NOT_FOUND for both; the caller reads symbolStatus.
        _ => Err(Failure::quiet(CudaError::NotFound)),
    }
}

/// `cuGetProcAddress_v2` (CUDA 12.0 and later; `cuGetProcAddress` in `cuda.h` from 12.0): the
/// address of the driver call `symbol` means for a caller built for CUDA `cudaVersion`.
///
/// # Safety
/// `symbol` is NULL or NUL-terminated; `pfn` and `symbolStatus` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
) -> CUresult {
    unsafe { proc_address_v2(symbol, pfn, cudaVersion, flags, symbolStatus) }
}

/// `cuGetProcAddress_v2_ptsz`: the same (see [`crate::entry_points`] on per-thread streams).
///
/// # Safety
/// As `cuGetProcAddress_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2_ptsz(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
    symbolStatus: *mut c_int,
) -> CUresult {
    unsafe { proc_address_v2(symbol, pfn, cudaVersion, flags, symbolStatus) }
}

/// `cuGetProcAddress` (CUDA 11.3's, without the status): what CUDA 11.x runtimes call.
///
/// # Safety
/// `symbol` is NULL or NUL-terminated; `pfn` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: u64,
) -> CUresult {
    let _ = flags;
    guard("cuGetProcAddress", || unsafe {
        answer(symbol, pfn, cudaVersion, std::ptr::null_mut())
    })
}

/// The body of `cuGetProcAddress_v2`. `flags` (`CU_GET_PROC_ADDRESS_LEGACY_STREAM`,
/// `_PER_THREAD_DEFAULT_STREAM`) choose the same functions.
///
/// # Safety
/// As `cuGetProcAddress_v2`.
unsafe extern "C" fn proc_address_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    let _ = flags;
    guard("cuGetProcAddress_v2", || unsafe {
        answer(symbol, pfn, version, status)
    })
}

/// `CUuuid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uuid {
    bytes: [u8; 16],
}

/// `cuGetExportTable`: the private tables the CUDA runtime asks for.
///
/// # Safety
/// `table` is NULL or writable; `id` is NULL or points to a readable `CUuuid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const Uuid) -> CUresult {
    guard("cuGetExportTable", || {
        if id.is_null() {
            return Err(super::null_argument("pExportTableId"));
        }
        let id = unsafe { id.read_unaligned() };
        let found = super::export_table::find(&id.bytes);
        super::log_detail(|| {
            format!(
                "cuGetExportTable({}): {}",
                uuid_text(&id.bytes),
                if found.is_some() {
                    "found"
                } else {
                    "not found"
                }
            )
        });
        match found {
            Some(address) => unsafe { put(table, address, "ppExportTable") },
            // The runtime asks for tables it can do without (logged with PTXSIM_LOG=calls).
            None => Err(Failure::quiet(CudaError::NotFound)),
        }
    })
}

/// A UUID as `cuda.h`'s byte order prints it (`6bd5fb6c-5bf4-e74a-8987-d93912fd9df9`).
fn uuid_text(bytes: &[u8; 16]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        hex[0..4].concat(),
        hex[4..6].concat(),
        hex[6..8].concat(),
        hex[8..10].concat(),
        hex[10..16].concat()
    )
}
