//! Virtual memory management (CUDA driver API, "Virtual Memory Management"): address
//! reservations (`cuMemAddressReserve`), physical allocations (`cuMemCreate`), mappings
//! (`cuMemMap`) and their access (`cuMemSetAccess`), beside the calls of [`super`].
//!
//! Reserved addresses lie in a window of their own above every device's allocations
//! ([`VMM_BASE`]), so they never collide with `cuMemAlloc`'s. A reservation holds no memory: an
//! access there faults until memory is mapped. A physical allocation is a
//! [`PhysicalMemory`]; a mapping is a record until `cuMemSetAccess` grants a device read and
//! write access ("calling `cuMemMap` does not make the address accessible"): then the mapping
//! becomes a buffer of that device's view of the window (a [`DeviceMemory`] per device, lent to
//! the device's launches), which shares the physical allocation's bytes with every other
//! mapping of it. Mappings side by side form one range for kernels and copies. Unmapping
//! removes the buffers, so a later access faults (`CUDA_ERROR_ILLEGAL_ADDRESS` in a kernel,
//! `CUDA_ERROR_INVALID_VALUE` for a copy).
//!
//! An allocation lives while a handle to it is unreleased or a mapping of it remains ("The
//! memory allocation will be freed when all outstanding mappings to the memory are unmapped and
//! when all outstanding references to the handle ... are also released", `cuMemRelease`).
//! `cuMemRetainAllocationHandle` and `cuMemImportFromShareableHandle` return the handle the
//! allocation was created with and count one more reference to it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ptxsim_exec::memory::{ALLOCATION_BASE, DeviceMemory, PhysicalMemory};

use super::{CallResult, DEVICE_ADDRESS_SPAN, MAX_DEVICES, State, state};
use crate::status::{CudaError, Failure};

/// The granularity of physical allocations, mappings and reservations, minimum and
/// recommended (`cuMemGetAllocationGranularity`): 2 MiB, an H100's.
pub const GRANULARITY: u64 = 2 << 20;

/// Where reserved addresses start: after the address spans of the most devices ptxsim
/// simulates ([`MAX_DEVICES`]).
pub const VMM_BASE: u64 = ALLOCATION_BASE + MAX_DEVICES as u64 * DEVICE_ADDRESS_SPAN;

/// The size of the window of reserved addresses (16 TiB).
pub const VMM_SPAN: u64 = 1 << 44;

/// `CU_MEM_ALLOCATION_TYPE_PINNED`.
const ALLOCATION_TYPE_PINNED: i32 = 1;
/// `CU_MEM_LOCATION_TYPE_DEVICE`, `_HOST`, `_HOST_NUMA`, `_HOST_NUMA_CURRENT`.
const LOCATION_DEVICE: i32 = 1;
const LOCATION_HOST: i32 = 2;
const LOCATION_HOST_NUMA: i32 = 3;
const LOCATION_HOST_NUMA_CURRENT: i32 = 4;
/// `CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`: the one shareable handle type ptxsim makes.
pub const HANDLE_TYPE_POSIX_FD: i32 = 1;
/// `CU_MEM_ACCESS_FLAGS_PROT_NONE`, `_PROT_READ`, `_PROT_READWRITE`.
const ACCESS_NONE: u64 = 0;
const ACCESS_READ: u64 = 1;
const ACCESS_READWRITE: u64 = 3;

/// `CUmemAllocationProp`, the fields of it ptxsim keeps (and `cuMemGetAllocationPropertiesFromHandle`
/// returns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocationProperties {
    /// `type` (`CUmemAllocationType`).
    pub kind: i32,
    /// `requestedHandleTypes` (`CUmemAllocationHandleType` bits).
    pub handle_types: i32,
    /// `location.type`.
    pub location_kind: i32,
    /// `location.id`: the device.
    pub device: i32,
    /// `allocFlags.compressionType`: kept and reported; compression changes no value.
    pub compression: u8,
    /// `allocFlags.gpuDirectRDMACapable`.
    pub rdma: u8,
    /// `allocFlags.usage`.
    pub usage: u16,
}

/// `CUmemAccessDesc`: a location and the access it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessRequest {
    /// `location.type`.
    pub location_kind: i32,
    /// `location.id`.
    pub device: i32,
    /// `flags` (`CUmemAccess_flags`).
    pub flags: u64,
}

/// A physical allocation.
#[derive(Debug)]
struct Allocation {
    memory: PhysicalMemory,
    properties: AllocationProperties,
    /// Unreleased references to its handle (`cuMemCreate`, each retain and import).
    references: u32,
    /// Mappings of it.
    mappings: u32,
}

/// A mapping (`cuMemMap`) of an allocation.
#[derive(Debug)]
struct Mapping {
    len: u64,
    handle: u64,
    /// The devices with read and write access (`cuMemSetAccess`).
    access: BTreeSet<i32>,
}

/// The virtual memory state of the driver.
#[derive(Debug, Default)]
pub struct Vmm {
    /// The first address not yet reserved (from [`VMM_BASE`]); addresses are not reused.
    next: u64,
    /// Reservations: start and length.
    reservations: BTreeMap<u64, u64>,
    /// Physical allocations, by handle.
    allocations: HashMap<u64, Allocation>,
    /// Mappings, by start address.
    mappings: BTreeMap<u64, Mapping>,
    /// Each device's view: the mappings it may access, as buffers.
    views: Vec<DeviceMemory>,
    /// Exported POSIX file descriptors: the handle, and what `/proc/self/fd/N` links to (to
    /// tell the descriptor from a later one of the same number).
    exports: HashMap<i32, (u64, String)>,
}

impl Vmm {
    /// Device `device`'s view of the mappings (made on first use).
    fn view(&mut self, device: i32) -> &mut DeviceMemory {
        let index = usize::try_from(device).unwrap_or(0);
        while self.views.len() <= index {
            self.views
                .push(DeviceMemory::allocations_in(VMM_BASE..VMM_BASE + VMM_SPAN));
        }
        &mut self.views[index]
    }

    /// The view of `device`, for a launch on it, if it has one.
    pub fn view_of(&mut self, device: i32) -> Option<&mut DeviceMemory> {
        self.views.get_mut(usize::try_from(device).ok()?)
    }

    /// A device whose view holds all of `address..address + len` (`device` where it does):
    /// one with access to the mappings there.
    pub fn accessible_by(&self, device: i32, address: u64, len: u64) -> Option<i32> {
        let holds = |view: &DeviceMemory| view.holds(address, len);
        let first = usize::try_from(device).ok();
        let index = first
            .filter(|&d| self.views.get(d).is_some_and(holds))
            .or_else(|| self.views.iter().position(holds))?;
        i32::try_from(index).ok()
    }

    /// Whether `address` is in a reservation.
    pub fn reserved(&self, address: u64) -> bool {
        self.reservations
            .range(..=address)
            .next_back()
            .is_some_and(|(start, len)| address - start < *len)
    }

    /// The mapping holding `address`: its start, length and allocation's device.
    pub fn mapping_at(&self, address: u64) -> Option<(u64, u64, i32)> {
        let (start, mapping) = self.mappings.range(..=address).next_back()?;
        (address - start < mapping.len).then(|| {
            let device = self
                .allocations
                .get(&mapping.handle)
                .map_or(0, |a| a.properties.device);
            (*start, mapping.len, device)
        })
    }

    /// The bytes of the physical allocations on `device`.
    pub fn bytes_on(&self, device: i32) -> u64 {
        self.allocations
            .values()
            .filter(|a| a.properties.device == device)
            .map(|a| a.memory.len())
            .sum()
    }

    /// The allocation of `handle`, which must have an unreleased reference.
    fn allocation(&self, handle: u64) -> CallResult<&Allocation> {
        self.allocations
            .get(&handle)
            .filter(|a| a.references > 0)
            .ok_or_else(|| {
                Failure::new(
                    CudaError::InvalidValue,
                    format!("{handle:#x} is not an unreleased allocation handle"),
                )
            })
    }

    /// Frees the allocation of `handle` once nothing refers to it.
    fn drop_if_unused(&mut self, handle: u64) {
        if self
            .allocations
            .get(&handle)
            .is_some_and(|a| a.references == 0 && a.mappings == 0)
        {
            self.allocations.remove(&handle);
            self.exports.retain(|_, (exported, _)| *exported != handle);
        }
    }

    /// The mappings that make up exactly `ptr..ptr + size`, side by side, in order; an error
    /// saying what is wrong otherwise.
    fn whole_mappings(&self, ptr: u64, size: u64, call: &str) -> CallResult<Vec<u64>> {
        let end = ptr.checked_add(size).filter(|_| size > 0).ok_or_else(|| {
            Failure::new(CudaError::InvalidValue, format!("{size} bytes at {ptr:#x}"))
        })?;
        let mut starts = Vec::new();
        let mut at = ptr;
        while at < end {
            let Some(mapping) = self.mappings.get(&at) else {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!(
                        "{size} bytes at {ptr:#x}: no mapping starts at {at:#x} ({call} takes \
                         whole mappings, side by side)"
                    ),
                ));
            };
            starts.push(at);
            at += mapping.len;
        }
        if at != end {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("{size} bytes at {ptr:#x}: the mapping at the end runs on to {at:#x}"),
            ));
        }
        Ok(starts)
    }
}

/// Checks `CUmemAllocationProp` for a device allocation ptxsim can make.
fn check_properties(state: &State, properties: &AllocationProperties) -> CallResult<()> {
    if properties.kind != ALLOCATION_TYPE_PINNED {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "allocation type {} (CU_MEM_ALLOCATION_TYPE_PINNED is the one cuMemCreate takes)",
                properties.kind
            ),
        ));
    }
    match properties.location_kind {
        LOCATION_DEVICE => {}
        LOCATION_HOST | LOCATION_HOST_NUMA | LOCATION_HOST_NUMA_CURRENT => {
            return Err(Failure::new(
                CudaError::NotSupported,
                "host memory through the virtual memory management calls is not simulated \
                 (CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0)",
            ));
        }
        other => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("location type {other}"),
            ));
        }
    }
    state.device(properties.device)?;
    if properties.handle_types & !HANDLE_TYPE_POSIX_FD != 0 {
        return Err(Failure::new(
            CudaError::NotSupported,
            format!(
                "requested handle types {:#x}: ptxsim exports POSIX file descriptors only",
                properties.handle_types
            ),
        ));
    }
    Ok(())
}

/// `cuMemGetAllocationGranularity`: [`GRANULARITY`] for both `CU_MEM_ALLOC_GRANULARITY_MINIMUM`
/// (0) and `_RECOMMENDED` (1).
pub fn granularity(properties: &AllocationProperties, option: i32) -> CallResult<u64> {
    let state = state();
    state.settings()?;
    check_properties(&state, properties)?;
    match option {
        0 | 1 => Ok(GRANULARITY),
        _ => Err(Failure::new(
            CudaError::InvalidValue,
            format!("granularity option {option}"),
        )),
    }
}

/// Checks that `value` (`what`) is a multiple of [`GRANULARITY`].
fn aligned(value: u64, what: &str) -> CallResult<()> {
    if value % GRANULARITY == 0 {
        Ok(())
    } else {
        Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "{what} {value:#x} is not a multiple of the granularity, {GRANULARITY:#x} \
                 (cuMemGetAllocationGranularity)"
            ),
        ))
    }
}

/// `cuMemAddressReserve`: `size` bytes of addresses aligned to `alignment` (a power of two;
/// 0: the granularity), at `hint` where that is free and aligned ("treats it as a hint").
/// "The size and address parameters must be a multiple of the host page size and the
/// alignment must be a power of two or zero": ptxsim asks for multiples of the granularity,
/// which every mapping needs.
pub fn address_reserve(size: u64, alignment: u64, hint: u64, flags: u64) -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    if size == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "a size of 0 bytes"));
    }
    aligned(size, "size")?;
    if alignment != 0 && !alignment.is_power_of_two() {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("alignment {alignment:#x} is not a power of two"),
        ));
    }
    let alignment = alignment.max(GRANULARITY);
    let vmm = &mut state.vmm;
    let free = |vmm: &Vmm, start: u64| {
        start % alignment == 0
            && start >= VMM_BASE
            && start
                .checked_add(size)
                .is_some_and(|end| end <= VMM_BASE + VMM_SPAN)
            && vmm
                .reservations
                .range(..start + size)
                .next_back()
                .is_none_or(|(s, l)| s + l <= start)
    };
    let start = if hint != 0 && free(vmm, hint) {
        hint
    } else {
        let next = vmm.next.max(VMM_BASE).checked_next_multiple_of(alignment);
        let Some(next) = next.filter(|&next| free(vmm, next)) else {
            return Err(Failure::new(
                CudaError::OutOfMemory,
                format!("{size} bytes of addresses: the reserved window is used up"),
            ));
        };
        next
    };
    vmm.reservations.insert(start, size);
    vmm.next = vmm.next.max(start + size);
    Ok(start)
}

/// `cuMemAddressFree`: "The size must match what was given to memAddressReserve and the ptr
/// given must match what was returned". Addresses still mapped are refused
/// (`CUDA_ERROR_INVALID_VALUE`; `cuMemUnmap` first).
pub fn address_free(ptr: u64, size: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    let vmm = &mut state.vmm;
    if vmm.reservations.get(&ptr) != Some(&size) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{size} bytes at {ptr:#x} are not a reservation of cuMemAddressReserve"),
        ));
    }
    if vmm.mappings.range(ptr..ptr + size).next().is_some() {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{size} bytes at {ptr:#x} are still mapped (cuMemUnmap first)"),
        ));
    }
    vmm.reservations.remove(&ptr);
    Ok(())
}

/// `cuMemCreate`: `size` zero bytes on the device of `properties` ("The size of this allocation
/// must be a multiple of the the value given via cuMemGetAllocationGranularity"), counted
/// against the device's memory (`PTXSIM_DEVICE_MEMORY`).
pub fn create(size: u64, properties: &AllocationProperties, flags: u64) -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    check_properties(&state, properties)?;
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    if size == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "a size of 0 bytes"));
    }
    aligned(size, "size")?;
    state.memory_with_room(properties.device, size, &format!("{size} bytes asked for"))?;
    let handle = state.handle();
    state.vmm.allocations.insert(
        handle,
        Allocation {
            memory: PhysicalMemory::zeroed(size),
            properties: *properties,
            references: 1,
            mappings: 0,
        },
    );
    Ok(handle)
}

/// `cuMemRelease`: one reference fewer; the memory goes when no reference and no mapping is
/// left.
pub fn release(handle: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    state.vmm.allocation(handle)?;
    if let Some(allocation) = state.vmm.allocations.get_mut(&handle) {
        allocation.references -= 1;
    }
    state.vmm.drop_if_unused(handle);
    Ok(())
}

/// `cuMemMap`: maps the first `size` bytes of `handle`'s allocation at `ptr`, in a reservation
/// where nothing is mapped. `ptr`, `size` and `offset` must be multiples of the granularity,
/// `offset` "currently must be zero", and `offset + size` at most the allocation's size. The
/// mapping is not accessible until `cuMemSetAccess`.
pub fn map(ptr: u64, size: u64, offset: u64, handle: u64, flags: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    if offset != 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("offset {offset:#x}: it must be 0"),
        ));
    }
    aligned(ptr, "address")?;
    aligned(size, "size")?;
    let vmm = &mut state.vmm;
    let allocation = vmm.allocation(handle)?;
    if size == 0 || size > allocation.memory.len() {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "{size} bytes of an allocation of {} bytes",
                allocation.memory.len()
            ),
        ));
    }
    let end = ptr.saturating_add(size);
    let in_reservation = vmm
        .reservations
        .range(..=ptr)
        .next_back()
        .is_some_and(|(start, len)| end <= start + len);
    if !in_reservation {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "{size} bytes at {ptr:#x} are not inside one reservation (cuMemAddressReserve)"
            ),
        ));
    }
    let overlaps = vmm
        .mappings
        .range(..end)
        .next_back()
        .is_some_and(|(start, m)| start + m.len > ptr);
    if overlaps {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{size} bytes at {ptr:#x}: part of the range is mapped already"),
        ));
    }
    vmm.mappings.insert(
        ptr,
        Mapping {
            len: size,
            handle,
            access: BTreeSet::new(),
        },
    );
    if let Some(allocation) = vmm.allocations.get_mut(&handle) {
        allocation.mappings += 1;
    }
    Ok(())
}

/// `cuMemUnmap`: "The range must be the entire contiguous address range that was mapped to"
/// (one mapping, or several side by side); the addresses are a reservation again, and an
/// allocation with no mapping and no reference left is freed.
pub fn unmap(ptr: u64, size: u64) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    let vmm = &mut state.vmm;
    for start in vmm.whole_mappings(ptr, size, "cuMemUnmap")? {
        let Some(mapping) = vmm.mappings.remove(&start) else {
            continue;
        };
        for view in &mut vmm.views {
            view.free(start);
        }
        if let Some(allocation) = vmm.allocations.get_mut(&mapping.handle) {
            allocation.mappings -= 1;
        }
        vmm.drop_if_unused(mapping.handle);
    }
    Ok(())
}

/// `cuMemSetAccess`: each request's device gets read and write access
/// (`CU_MEM_ACCESS_FLAGS_PROT_READWRITE`) to, or loses access (`_PROT_NONE`) to, the
/// mappings of `ptr..ptr + size`, which must be "a fully mapped address range" (whole
/// mappings, side by side, in ptxsim). Read-only access is not simulated
/// (`CUDA_ERROR_NOT_SUPPORTED`).
pub fn set_access(ptr: u64, size: u64, requests: &[AccessRequest]) -> CallResult<()> {
    let mut state = state();
    state.settings()?;
    if requests.is_empty() {
        return Err(Failure::new(CudaError::InvalidValue, "count is 0"));
    }
    for request in requests {
        if request.location_kind != LOCATION_DEVICE {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!(
                    "location type {}: ptxsim grants access to devices (CU_MEM_LOCATION_TYPE_DEVICE)",
                    request.location_kind
                ),
            ));
        }
        state.device(request.device)?;
        match request.flags {
            ACCESS_NONE | ACCESS_READWRITE => {}
            ACCESS_READ => {
                return Err(Failure::new(
                    CudaError::NotSupported,
                    "read-only mappings (CU_MEM_ACCESS_FLAGS_PROT_READ) are not simulated",
                ));
            }
            other => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("access flags {other:#x}"),
                ));
            }
        }
    }
    let starts = state.vmm.whole_mappings(ptr, size, "cuMemSetAccess")?;
    let vmm = &mut state.vmm;
    for start in starts {
        for request in requests {
            let Some(mapping) = vmm.mappings.get_mut(&start) else {
                continue;
            };
            let (len, handle) = (mapping.len, mapping.handle);
            let grant = request.flags == ACCESS_READWRITE;
            let changed = if grant {
                mapping.access.insert(request.device)
            } else {
                mapping.access.remove(&request.device)
            };
            if !changed {
                continue;
            }
            let Some(memory) = vmm.allocations.get(&handle).map(|a| a.memory.clone()) else {
                continue;
            };
            let view = vmm.view(request.device);
            if grant {
                let name = format!("cuMemMap of {len} bytes (allocation {handle:#x})");
                view.map(name, start, len, &memory);
            } else {
                view.free(start);
            }
        }
    }
    Ok(())
}

/// `cuMemGetAccess`: the access flags of device `device` (a `CU_MEM_LOCATION_TYPE_DEVICE`
/// location) at `ptr`, which must be mapped.
pub fn get_access(location_kind: i32, device: i32, ptr: u64) -> CallResult<u64> {
    let state = state();
    state.settings()?;
    if location_kind != LOCATION_DEVICE {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("location type {location_kind}"),
        ));
    }
    state.device(device)?;
    let (start, _, _) = state
        .vmm
        .mapping_at(ptr)
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, format!("{ptr:#x} is not mapped")))?;
    let access = state
        .vmm
        .mappings
        .get(&start)
        .is_some_and(|m| m.access.contains(&device));
    Ok(if access {
        ACCESS_READWRITE
    } else {
        ACCESS_NONE
    })
}

/// `cuMemGetAllocationPropertiesFromHandle`.
pub fn properties(handle: u64) -> CallResult<AllocationProperties> {
    let state = state();
    state.settings()?;
    Ok(state.vmm.allocation(handle)?.properties)
}

/// `cuMemRetainAllocationHandle`: the handle mapped at `address` (any address of a mapping),
/// with one more reference to release.
pub fn retain(address: u64) -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    let (start, _, _) = state.vmm.mapping_at(address).ok_or_else(|| {
        Failure::new(
            CudaError::InvalidValue,
            format!("{address:#x} is not mapped"),
        )
    })?;
    let handle = state.vmm.mappings.get(&start).map_or(0, |m| m.handle);
    let allocation = state
        .vmm
        .allocations
        .get_mut(&handle)
        .ok_or(Failure::from(CudaError::InvalidValue))?;
    allocation.references += 1;
    Ok(handle)
}

/// `cuMemExportToShareableHandle` to a POSIX file descriptor, which `descriptor` makes (its
/// number and the target of its `/proc/self/fd` link), for an allocation created with that
/// handle type requested. The descriptor is the caller's to close; it does not keep the
/// allocation alive by itself.
pub fn export(
    handle: u64,
    handle_type: i32,
    flags: u64,
    descriptor: impl FnOnce(u64) -> CallResult<(i32, String)>,
) -> CallResult<i32> {
    let mut state = state();
    state.settings()?;
    if flags != 0 {
        return Err(Failure::new(CudaError::InvalidValue, "flags must be 0"));
    }
    if handle_type != HANDLE_TYPE_POSIX_FD {
        return Err(Failure::new(
            CudaError::NotSupported,
            format!(
                "handle type {handle_type:#x}: ptxsim exports POSIX file descriptors \
                 (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) only"
            ),
        ));
    }
    let allocation = state.vmm.allocation(handle)?;
    if allocation.properties.handle_types & HANDLE_TYPE_POSIX_FD == 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "the allocation was created without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in \
             requestedHandleTypes",
        ));
    }
    let (fd, link) = descriptor(handle)?;
    state.vmm.exports.insert(fd, (handle, link));
    Ok(fd)
}

/// `cuMemImportFromShareableHandle` of a POSIX file descriptor that
/// `cuMemExportToShareableHandle` made in this process and that is still open: the
/// allocation's handle, with one more reference. `link` is the target of the descriptor's
/// `/proc/self/fd` link now.
pub fn import(fd: i32, link: Option<String>, handle_type: i32) -> CallResult<u64> {
    let mut state = state();
    state.settings()?;
    if handle_type != HANDLE_TYPE_POSIX_FD {
        return Err(Failure::new(
            CudaError::NotSupported,
            format!("handle type {handle_type:#x}: ptxsim imports POSIX file descriptors only"),
        ));
    }
    let handle = match state.vmm.exports.get(&fd) {
        Some((handle, exported)) if link.as_ref() == Some(exported) => *handle,
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!(
                    "file descriptor {fd} is not one that cuMemExportToShareableHandle made in \
                     this process (or the allocation is gone)"
                ),
            ));
        }
    };
    let allocation = state
        .vmm
        .allocations
        .get_mut(&handle)
        .ok_or(Failure::from(CudaError::InvalidValue))?;
    allocation.references += 1;
    Ok(handle)
}
