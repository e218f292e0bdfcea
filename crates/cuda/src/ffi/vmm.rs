//! Virtual memory management (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`,
//! `cuMemSetAccess` and the rest): the C structures, read and written here, and the calls of
//! [`driver::vmm`]. An exported POSIX file descriptor is a `memfd` of this process, named
//! after the allocation's handle.

use std::ffi::{CString, c_int, c_uchar, c_ulonglong, c_ushort, c_void};

use super::{CUdeviceptr, CUresult, CallResult, guard, null_argument, put};
use crate::driver::vmm::{self, AccessRequest, AllocationProperties};
use crate::status::{CudaError, Failure};

/// `CUmemLocation`: a type and an id.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Location {
    kind: c_int,
    id: c_int,
}

/// `CUmemAllocationProp` (cuda.h's layout: 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AllocationProp {
    kind: c_int,
    requested_handle_types: c_int,
    location: Location,
    win32_handle_meta_data: *mut c_void,
    compression_type: c_uchar,
    gpu_direct_rdma_capable: c_uchar,
    usage: c_ushort,
    reserved: [c_uchar; 4],
}

/// `CUmemAccessDesc` (12 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AccessDesc {
    location: Location,
    flags: c_int,
}

// The sizes and offsets of cuda.h (CUDA 13.5, x86-64).
const _: () = assert!(std::mem::size_of::<AllocationProp>() == 32);
const _: () = assert!(std::mem::offset_of!(AllocationProp, location) == 8);
const _: () = assert!(std::mem::offset_of!(AllocationProp, win32_handle_meta_data) == 16);
const _: () = assert!(std::mem::offset_of!(AllocationProp, compression_type) == 24);
const _: () = assert!(std::mem::offset_of!(AllocationProp, usage) == 26);
const _: () = assert!(std::mem::size_of::<AccessDesc>() == 12);
const _: () = assert!(std::mem::offset_of!(AccessDesc, flags) == 8);

impl From<&AllocationProp> for AllocationProperties {
    fn from(prop: &AllocationProp) -> Self {
        AllocationProperties {
            kind: prop.kind,
            handle_types: prop.requested_handle_types,
            location_kind: prop.location.kind,
            device: prop.location.id,
            compression: prop.compression_type,
            rdma: prop.gpu_direct_rdma_capable,
            usage: prop.usage,
        }
    }
}

impl From<AllocationProperties> for AllocationProp {
    fn from(properties: AllocationProperties) -> Self {
        AllocationProp {
            kind: properties.kind,
            requested_handle_types: properties.handle_types,
            location: Location {
                kind: properties.location_kind,
                id: properties.device,
            },
            win32_handle_meta_data: std::ptr::null_mut(),
            compression_type: properties.compression,
            gpu_direct_rdma_capable: properties.rdma,
            usage: properties.usage,
            reserved: [0; 4],
        }
    }
}

/// The properties at `prop`.
///
/// # Safety
/// `prop` is NULL (an error) or points to a readable `CUmemAllocationProp`.
unsafe fn read_properties(prop: *const AllocationProp) -> CallResult<AllocationProperties> {
    if prop.is_null() {
        return Err(null_argument("prop"));
    }
    // SAFETY: not NULL and, by the caller's contract, a readable CUmemAllocationProp.
    Ok(AllocationProperties::from(&unsafe {
        prop.read_unaligned()
    }))
}

/// Where `/proc/self/fd/FD` links to (to tell a descriptor from a later one of its number).
fn descriptor_link(fd: c_int) -> Option<String> {
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .ok()
        .map(|path| path.to_string_lossy().into_owned())
}

/// A new file descriptor standing for allocation `handle`: a `memfd` named after it.
fn make_descriptor(handle: u64) -> CallResult<(i32, String)> {
    let name = CString::new(format!("ptxsim-vmm-{handle:#x}"))
        .map_err(|_| Failure::from(CudaError::Unknown))?;
    // SAFETY: `name` is a NUL-terminated string that outlives the call.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Failure::new(
            CudaError::OutOfMemory,
            format!("memfd_create failed: {}", std::io::Error::last_os_error()),
        ));
    }
    let link = descriptor_link(fd).unwrap_or_default();
    Ok((fd, link))
}

calls! {
    /// `cuMemGetAllocationGranularity`: 2 MiB (an H100's), minimum and recommended.
    fn cuMemGetAllocationGranularity(granularity: *mut usize, prop: *const AllocationProp, option: c_int) {
        let properties = unsafe { read_properties(prop) }?;
        let value = vmm::granularity(&properties, option)?;
        unsafe { put(granularity, value as usize, "granularity") }
    }

    /// `cuMemAddressReserve`: addresses that hold no memory until mapped.
    fn cuMemAddressReserve(ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: c_ulonglong) {
        if ptr.is_null() {
            return Err(null_argument("ptr"));
        }
        let start = vmm::address_reserve(size as u64, alignment as u64, addr, flags)?;
        unsafe { put(ptr, start, "ptr") }
    }

    /// `cuMemAddressFree`.
    fn cuMemAddressFree(ptr: CUdeviceptr, size: usize) {
        vmm::address_free(ptr, size as u64)
    }

    /// `cuMemCreate`: a zeroed physical allocation on a device.
    fn cuMemCreate(handle: *mut c_ulonglong, size: usize, prop: *const AllocationProp, flags: c_ulonglong) {
        if handle.is_null() {
            return Err(null_argument("handle"));
        }
        let properties = unsafe { read_properties(prop) }?;
        let value = vmm::create(size as u64, &properties, flags)?;
        unsafe { put(handle, value, "handle") }
    }

    /// `cuMemRelease`.
    fn cuMemRelease(handle: c_ulonglong) {
        vmm::release(handle)
    }

    /// `cuMemMap`.
    fn cuMemMap(ptr: CUdeviceptr, size: usize, offset: usize, handle: c_ulonglong, flags: c_ulonglong) {
        vmm::map(ptr, size as u64, offset as u64, handle, flags)
    }

    /// `cuMemUnmap`.
    fn cuMemUnmap(ptr: CUdeviceptr, size: usize) {
        vmm::unmap(ptr, size as u64)
    }

    /// `cuMemSetAccess`: `count` descriptors at `desc`.
    fn cuMemSetAccess(ptr: CUdeviceptr, size: usize, desc: *const AccessDesc, count: usize) {
        if desc.is_null() && count > 0 {
            return Err(null_argument("desc"));
        }
        let requests: Vec<AccessRequest> = (0..count)
            .map(|i| {
                // SAFETY: by the caller's contract, `desc` points to `count` readable
                // CUmemAccessDesc.
                let one = unsafe { desc.add(i).read_unaligned() };
                AccessRequest {
                    location_kind: one.location.kind,
                    device: one.location.id,
                    flags: u64::try_from(one.flags).unwrap_or(u64::MAX),
                }
            })
            .collect();
        vmm::set_access(ptr, size as u64, &requests)
    }

    /// `cuMemGetAccess`.
    fn cuMemGetAccess(flags: *mut c_ulonglong, location: *const Location, ptr: CUdeviceptr) {
        if location.is_null() {
            return Err(null_argument("location"));
        }
        // SAFETY: not NULL and, by the caller's contract, a readable CUmemLocation.
        let location = unsafe { location.read_unaligned() };
        let value = vmm::get_access(location.kind, location.id, ptr)?;
        unsafe { put(flags, value, "flags") }
    }

    /// `cuMemGetAllocationPropertiesFromHandle`: the properties it was created with.
    fn cuMemGetAllocationPropertiesFromHandle(prop: *mut AllocationProp, handle: c_ulonglong) {
        if prop.is_null() {
            return Err(null_argument("prop"));
        }
        let properties = vmm::properties(handle)?;
        unsafe { put(prop, AllocationProp::from(properties), "prop") }
    }

    /// `cuMemRetainAllocationHandle`: the handle mapped at `addr`, retained.
    fn cuMemRetainAllocationHandle(handle: *mut c_ulonglong, addr: *mut c_void) {
        if handle.is_null() {
            return Err(null_argument("handle"));
        }
        let value = vmm::retain(addr as u64)?;
        unsafe { put(handle, value, "handle") }
    }

    /// `cuMemExportToShareableHandle`: a POSIX file descriptor (an `int` at
    /// `shareableHandle`) for use in this process.
    fn cuMemExportToShareableHandle(shareable: *mut c_void, handle: c_ulonglong, handle_type: c_int, flags: c_ulonglong) {
        if shareable.is_null() {
            return Err(null_argument("shareableHandle"));
        }
        let fd = vmm::export(handle, handle_type, flags, make_descriptor)?;
        unsafe { put(shareable.cast::<c_int>(), fd, "shareableHandle") }
    }

    /// `cuMemImportFromShareableHandle`: a descriptor that `cuMemExportToShareableHandle`
    /// made (passed as the value of `osHandle`, as for POSIX file descriptors).
    fn cuMemImportFromShareableHandle(handle: *mut c_ulonglong, os_handle: *mut c_void, handle_type: c_int) {
        if handle.is_null() {
            return Err(null_argument("handle"));
        }
        let fd = c_int::try_from(os_handle as usize).map_err(|_| {
            Failure::new(CudaError::InvalidValue, "osHandle is not a file descriptor")
        })?;
        let value = vmm::import(fd, descriptor_link(fd), handle_type)?;
        unsafe { put(handle, value, "handle") }
    }
}
