//! The C entry points of CUDA arrays, texture objects and surface objects: the `cuda.h`
//! structures (`CUDA_ARRAY_DESCRIPTOR`, `CUDA_ARRAY3D_DESCRIPTOR`, `CUDA_MEMCPY2D`,
//! `CUDA_MEMCPY3D`, `CUDA_RESOURCE_DESC`, `CUDA_TEXTURE_DESC`, `CUDA_RESOURCE_VIEW_DESC`) with
//! their sizes and offsets asserted (measured with `offsetof`/`sizeof` against CUDA 13's
//! `cuda.h` on x86-64), converted to [`crate::texture`]'s safe calls.
//!
//! Host memory of a copy is reached as one slice that covers every byte the copy touches
//! (from the host base to the end of its last row), by the driver API's contract that it is
//! readable (writable) memory of the caller.

use std::ffi::{c_uint, c_void};
use std::mem::{offset_of, size_of};

use super::{
    CUdeviceptr, CUresult, Failure, Handle, guard, handle, host_bytes, host_bytes_mut,
    null_argument, number, put,
};
use crate::driver::{self, CopySide, GraphNode};
use crate::status::CudaError;
use crate::texture::{
    self, ArrayDescriptor, CopyEnd, CopyExtent, CopyPlace, ResourceDescriptor, TextureDescriptor,
};

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ArrayDescriptor2d {
    width: usize,
    height: usize,
    format: c_uint,
    channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ArrayDescriptor3d {
    width: usize,
    height: usize,
    depth: usize,
    format: c_uint,
    channels: c_uint,
    flags: c_uint,
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
pub struct Memcpy2d {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: CUdeviceptr,
    src_array: Handle,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: CUdeviceptr,
    dst_array: Handle,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// `CUDA_MEMCPY3D`, and `CUDA_MEMCPY3D_PEER` (`cuda.h` gives the two the same fields, the
/// peer struct's contexts where the other has reserved pointers).
#[repr(C)]
pub struct Memcpy3d {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: CUdeviceptr,
    src_array: Handle,
    /// `reserved0`; `CUDA_MEMCPY3D_PEER`'s `srcContext`: the two structs have one layout.
    src_context: Handle,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: CUdeviceptr,
    dst_array: Handle,
    /// `reserved1`; `CUDA_MEMCPY3D_PEER`'s `dstContext`.
    dst_context: Handle,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// `CUDA_RESOURCE_DESC`: the type, a union of 128 bytes (read as words), the flags.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    kind: c_uint,
    res: [u64; 16],
    flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TextureDesc {
    address_mode: [c_uint; 3],
    filter_mode: c_uint,
    flags: c_uint,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_uint,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    border_color: [f32; 4],
    reserved: [i32; 12],
}

const _: () = {
    assert!(size_of::<ArrayDescriptor2d>() == 24);
    assert!(offset_of!(ArrayDescriptor2d, format) == 16);
    assert!(offset_of!(ArrayDescriptor2d, channels) == 20);
    assert!(size_of::<ArrayDescriptor3d>() == 40);
    assert!(offset_of!(ArrayDescriptor3d, format) == 24);
    assert!(offset_of!(ArrayDescriptor3d, flags) == 32);
    assert!(size_of::<Memcpy2d>() == 128);
    assert!(offset_of!(Memcpy2d, src_type) == 16);
    assert!(offset_of!(Memcpy2d, src_pitch) == 48);
    assert!(offset_of!(Memcpy2d, dst_x) == 56);
    assert!(offset_of!(Memcpy2d, dst_type) == 72);
    assert!(offset_of!(Memcpy2d, dst_pitch) == 104);
    assert!(offset_of!(Memcpy2d, width) == 112);
    assert!(offset_of!(Memcpy2d, height) == 120);
    assert!(size_of::<Memcpy3d>() == 200);
    assert!(offset_of!(Memcpy3d, src_type) == 32);
    assert!(offset_of!(Memcpy3d, src_pitch) == 72);
    assert!(offset_of!(Memcpy3d, src_height) == 80);
    assert!(offset_of!(Memcpy3d, dst_x) == 88);
    assert!(offset_of!(Memcpy3d, dst_type) == 120);
    assert!(offset_of!(Memcpy3d, dst_array) == 144);
    assert!(offset_of!(Memcpy3d, dst_pitch) == 160);
    assert!(offset_of!(Memcpy3d, dst_height) == 168);
    assert!(offset_of!(Memcpy3d, width) == 176);
    assert!(offset_of!(Memcpy3d, depth) == 192);
    assert!(size_of::<ResourceDesc>() == 144);
    assert!(offset_of!(ResourceDesc, res) == 8);
    assert!(offset_of!(ResourceDesc, flags) == 136);
    assert!(size_of::<TextureDesc>() == 104);
    assert!(offset_of!(TextureDesc, filter_mode) == 12);
    assert!(offset_of!(TextureDesc, flags) == 16);
    assert!(offset_of!(TextureDesc, border_color) == 40);
};

/// `CU_MEMORYTYPE_HOST`, `_DEVICE`, `_ARRAY`, `_UNIFIED`.
const MEMORY_HOST: c_uint = 1;
const MEMORY_DEVICE: c_uint = 2;
const MEMORY_ARRAY: c_uint = 3;
const MEMORY_UNIFIED: c_uint = 4;

/// Where simulated device memory starts: a unified pointer at or above it is device memory,
/// below it host memory.
const DEVICE_BASE: u64 = 0x8000_0000_0000;

/// The bytes from an end's base to the end of the last row a copy touches.
fn span(place: &CopyPlace, extent: &CopyExtent) -> Option<usize> {
    if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
        return Some(0);
    }
    let pitch = place.pitch.max(extent.width);
    let height = place.height.max(extent.height);
    let last_row = (place.z + extent.depth - 1)
        .checked_mul(height)?
        .checked_add(place.y + extent.height - 1)?;
    usize::try_from(
        last_row
            .checked_mul(pitch)?
            .checked_add(place.x + extent.width)?,
    )
    .ok()
}

/// The source end of a copy.
///
/// # Safety
/// For host memory, `host` has the bytes the copy reads (the driver API's contract).
unsafe fn source<'a>(
    kind: c_uint,
    host: *const c_void,
    device: CUdeviceptr,
    array: Handle,
    place: &CopyPlace,
    extent: &CopyExtent,
) -> Result<CopyEnd<'static, &'a [u8]>, Failure> {
    let host_end = |pointer: *const c_void| -> Result<CopyEnd<'static, &'a [u8]>, Failure> {
        let len = span(place, extent)
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, "copy extent"))?;
        // SAFETY: the caller's contract for host memory of a copy.
        Ok(CopyEnd::Host(unsafe {
            host_bytes(pointer, len, "srcHost")
        }?))
    };
    Ok(match kind {
        MEMORY_HOST => host_end(host)?,
        MEMORY_DEVICE => CopyEnd::Device(device),
        MEMORY_ARRAY => CopyEnd::Array(number(array)),
        MEMORY_UNIFIED if device >= DEVICE_BASE => CopyEnd::Device(device),
        MEMORY_UNIFIED => host_end(device as usize as *const c_void)?,
        _ => CopyEnd::Unknown("not HOST, DEVICE, ARRAY or UNIFIED"),
    })
}

/// The target end of a copy.
///
/// # Safety
/// For host memory, `host` has the bytes the copy writes, not aliased during the call.
unsafe fn target<'a>(
    kind: c_uint,
    host: *mut c_void,
    device: CUdeviceptr,
    array: Handle,
    place: &CopyPlace,
    extent: &CopyExtent,
) -> Result<CopyEnd<'static, &'a mut [u8]>, Failure> {
    let host_end = |pointer: *mut c_void| -> Result<CopyEnd<'static, &'a mut [u8]>, Failure> {
        let len = span(place, extent)
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, "copy extent"))?;
        // SAFETY: the caller's contract for host memory of a copy.
        Ok(CopyEnd::Host(unsafe {
            host_bytes_mut(pointer, len, "dstHost")
        }?))
    };
    Ok(match kind {
        MEMORY_HOST => host_end(host)?,
        MEMORY_DEVICE => CopyEnd::Device(device),
        MEMORY_ARRAY => CopyEnd::Array(number(array)),
        MEMORY_UNIFIED if device >= DEVICE_BASE => CopyEnd::Device(device),
        MEMORY_UNIFIED => host_end(device as usize as *mut c_void)?,
        _ => CopyEnd::Unknown("not HOST, DEVICE, ARRAY or UNIFIED"),
    })
}

/// Runs a `CUDA_MEMCPY3D`.
///
/// # Safety
/// `copy` is NULL (an error) or a readable `CUDA_MEMCPY3D` whose host pointers keep the
/// contract of the module documentation.
/// `cuMemcpy3DPeer`'s copy: its contexts checked, then [`memcpy_3d`].
///
/// # Safety
/// As [`memcpy_3d`].
unsafe fn memcpy_3d_peer(copy: *const Memcpy3d) -> Result<(), Failure> {
    if copy.is_null() {
        return Err(null_argument("pCopy"));
    }
    // SAFETY: not NULL and, by the contract, a readable CUDA_MEMCPY3D_PEER.
    let c = unsafe { &*copy };
    crate::driver::peer_contexts(number(c.dst_context), number(c.src_context))?;
    unsafe { memcpy_3d(copy) }
}

unsafe fn memcpy_3d(copy: *const Memcpy3d) -> Result<(), Failure> {
    if copy.is_null() {
        return Err(null_argument("pCopy"));
    }
    // SAFETY: not NULL and, by the contract, a readable CUDA_MEMCPY3D.
    let c = unsafe { &*copy };
    let extent = CopyExtent {
        width: c.width as u64,
        height: (c.height as u64).max(1),
        depth: (c.depth as u64).max(1),
    };
    let from = CopyPlace {
        x: c.src_x as u64,
        y: c.src_y as u64,
        z: c.src_z as u64,
        pitch: c.src_pitch as u64,
        height: c.src_height as u64,
    };
    let to = CopyPlace {
        x: c.dst_x as u64,
        y: c.dst_y as u64,
        z: c.dst_z as u64,
        pitch: c.dst_pitch as u64,
        height: c.dst_height as u64,
    };
    // SAFETY: the host pointers keep the contract.
    let source = unsafe {
        source(
            c.src_type,
            c.src_host,
            c.src_device,
            c.src_array,
            &from,
            &extent,
        )
    }?;
    // SAFETY: as above.
    let target = unsafe {
        target(
            c.dst_type,
            c.dst_host,
            c.dst_device,
            c.dst_array,
            &to,
            &extent,
        )
    }?;
    crate::array_copy::copy_3d(source, from, target, to, extent)
}

/// The copy node of a `CUDA_MEMCPY3D` (what `cuGraphAddMemcpyNode` and a captured
/// `cuMemcpy3DAsync` make): its ends as numbers, read again when the node runs
/// ([`run_copy_3d`]).
///
/// # Safety
/// `copy` points to a readable `CUDA_MEMCPY3D`.
pub(super) unsafe fn copy_3d_node(copy: *const Memcpy3d) -> GraphNode {
    // SAFETY: by the contract.
    let c = unsafe { &*copy };
    let side = |memory_type: c_uint,
                host: usize,
                device: CUdeviceptr,
                array: Handle,
                [x, y, z, pitch, height]: [usize; 5]| CopySide {
        memory_type,
        host,
        device,
        array: number(array),
        x: x as u64,
        y: y as u64,
        z: z as u64,
        pitch: pitch as u64,
        height: height as u64,
    };
    GraphNode::Copy3d {
        source: side(
            c.src_type,
            c.src_host.expose_provenance(),
            c.src_device,
            c.src_array,
            [c.src_x, c.src_y, c.src_z, c.src_pitch, c.src_height],
        ),
        destination: side(
            c.dst_type,
            c.dst_host.expose_provenance(),
            c.dst_device,
            c.dst_array,
            [c.dst_x, c.dst_y, c.dst_z, c.dst_pitch, c.dst_height],
        ),
        extent: [c.width as u64, c.height as u64, c.depth as u64],
    }
}

/// The copy node of a `CUDA_MEMCPY2D` (a captured `cuMemcpy2DAsync`): a 3D copy of depth 1.
///
/// # Safety
/// `copy` points to a readable `CUDA_MEMCPY2D`.
unsafe fn copy_2d_node(copy: *const Memcpy2d) -> GraphNode {
    // SAFETY: by the contract.
    let c = unsafe { &*copy };
    let side =
        |memory_type: c_uint, host: usize, device, array, x: usize, y: usize, pitch: usize| {
            CopySide {
                memory_type,
                host,
                device,
                array: number(array),
                x: x as u64,
                y: y as u64,
                z: 0,
                pitch: pitch as u64,
                height: 0,
            }
        };
    GraphNode::Copy3d {
        source: side(
            c.src_type,
            c.src_host.expose_provenance(),
            c.src_device,
            c.src_array,
            c.src_x,
            c.src_y,
            c.src_pitch,
        ),
        destination: side(
            c.dst_type,
            c.dst_host.expose_provenance(),
            c.dst_device,
            c.dst_array,
            c.dst_x,
            c.dst_y,
            c.dst_pitch,
        ),
        extent: [c.width as u64, c.height as u64, 1],
    }
}

/// Runs a copy node of [`copy_3d_node`] or [`copy_2d_node`] as the `cuMemcpy3D` it stands
/// for.
///
/// # Safety
/// The host memory and arrays the ends name are valid for the copy (the contract of copy
/// nodes: valid while the graph may run).
pub(super) unsafe fn run_copy_3d(
    source: CopySide,
    destination: CopySide,
    extent: [u64; 3],
) -> Result<(), Failure> {
    let size = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
    let copy = Memcpy3d {
        src_x: size(source.x),
        src_y: size(source.y),
        src_z: size(source.z),
        src_lod: 0,
        src_type: source.memory_type,
        src_host: std::ptr::with_exposed_provenance(source.host),
        src_device: source.device,
        src_array: handle(source.array),
        src_context: std::ptr::null_mut(),
        src_pitch: size(source.pitch),
        src_height: size(source.height),
        dst_x: size(destination.x),
        dst_y: size(destination.y),
        dst_z: size(destination.z),
        dst_lod: 0,
        dst_type: destination.memory_type,
        dst_host: std::ptr::with_exposed_provenance_mut(destination.host),
        dst_device: destination.device,
        dst_array: handle(destination.array),
        dst_context: std::ptr::null_mut(),
        dst_pitch: size(destination.pitch),
        dst_height: size(destination.height),
        width: size(extent[0]),
        height: size(extent[1]),
        depth: size(extent[2]),
    };
    // SAFETY: the caller's contract for the host memory; the struct is complete.
    unsafe { memcpy_3d(&copy) }
}

/// Runs a `CUDA_MEMCPY2D` as a 3D copy of depth 1.
///
/// # Safety
/// As [`memcpy_3d`], for a `CUDA_MEMCPY2D`.
unsafe fn memcpy_2d(copy: *const Memcpy2d) -> Result<(), Failure> {
    if copy.is_null() {
        return Err(null_argument("pCopy"));
    }
    // SAFETY: not NULL and, by the contract, a readable CUDA_MEMCPY2D.
    let c = unsafe { &*copy };
    let extent = CopyExtent {
        width: c.width as u64,
        height: (c.height as u64).max(1),
        depth: 1,
    };
    let from = CopyPlace {
        x: c.src_x as u64,
        y: c.src_y as u64,
        pitch: c.src_pitch as u64,
        ..CopyPlace::default()
    };
    let to = CopyPlace {
        x: c.dst_x as u64,
        y: c.dst_y as u64,
        pitch: c.dst_pitch as u64,
        ..CopyPlace::default()
    };
    // SAFETY: the host pointers keep the contract.
    let source = unsafe {
        source(
            c.src_type,
            c.src_host,
            c.src_device,
            c.src_array,
            &from,
            &extent,
        )
    }?;
    // SAFETY: as above.
    let target = unsafe {
        target(
            c.dst_type,
            c.dst_host,
            c.dst_device,
            c.dst_array,
            &to,
            &extent,
        )
    }?;
    crate::array_copy::copy_3d(source, from, target, to, extent)
}

/// A `CUDA_RESOURCE_DESC` as the safe description.
fn resource_descriptor(desc: &ResourceDesc) -> Result<ResourceDescriptor, Failure> {
    let r = &desc.res;
    let low = |word: u64| word as u32;
    let high = |word: u64| (word >> 32) as u32;
    Ok(match desc.kind {
        0 => ResourceDescriptor::Array(r[0]),
        2 => ResourceDescriptor::Linear {
            address: r[0],
            format: low(r[1]),
            channels: high(r[1]),
            bytes: r[2],
        },
        3 => ResourceDescriptor::Pitch2d {
            address: r[0],
            format: low(r[1]),
            channels: high(r[1]),
            width: r[2],
            height: r[3],
            pitch: r[4],
        },
        1 => {
            return Err(Failure::new(
                CudaError::NotSupported,
                "mipmapped arrays are not supported",
            ));
        }
        other => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("resource type {other}"),
            ));
        }
    })
}

fn resource_desc(descriptor: ResourceDescriptor) -> ResourceDesc {
    let mut desc = ResourceDesc {
        kind: 0,
        res: [0; 16],
        flags: 0,
    };
    let pair = |low: u32, high: u32| u64::from(low) | (u64::from(high) << 32);
    match descriptor {
        ResourceDescriptor::Array(array) => desc.res[0] = array,
        ResourceDescriptor::Linear {
            address,
            format,
            channels,
            bytes,
        } => {
            desc.kind = 2;
            desc.res[..3].copy_from_slice(&[address, pair(format, channels), bytes]);
        }
        ResourceDescriptor::Pitch2d {
            address,
            format,
            channels,
            width,
            height,
            pitch,
        } => {
            desc.kind = 3;
            desc.res[..5].copy_from_slice(&[address, pair(format, channels), width, height, pitch]);
        }
    }
    desc
}

/// Reads a `CUDA_RESOURCE_DESC`.
///
/// # Safety
/// `desc` is NULL (an error) or a readable `CUDA_RESOURCE_DESC`.
unsafe fn read_resource(desc: *const ResourceDesc) -> Result<ResourceDescriptor, Failure> {
    if desc.is_null() {
        return Err(null_argument("pResDesc"));
    }
    // SAFETY: not NULL, readable by the contract.
    resource_descriptor(unsafe { &*desc })
}

calls! {
    /// `cuArrayCreate_v2`: a 1D or 2D array.
    fn cuArrayCreate_v2(array: *mut Handle, descriptor: *const ArrayDescriptor2d) {
        if descriptor.is_null() {
            return Err(null_argument("pAllocateArray"));
        }
        // SAFETY: not NULL, readable by the contract.
        let d = unsafe { *descriptor };
        let value = texture::array_create(ArrayDescriptor {
            width: d.width as u64,
            height: d.height as u64,
            depth: 0,
            format: d.format,
            channels: d.channels,
            flags: 0,
        })?;
        unsafe { put(array, handle(value), "pHandle") }
    }

    /// `cuArray3DCreate_v2`: an array with `CUDA_ARRAY3D_LAYERED`, `_SURFACE_LDST`,
    /// `_CUBEMAP`, `_TEXTURE_GATHER`.
    fn cuArray3DCreate_v2(array: *mut Handle, descriptor: *const ArrayDescriptor3d) {
        if descriptor.is_null() {
            return Err(null_argument("pAllocateArray"));
        }
        // SAFETY: not NULL, readable by the contract.
        let d = unsafe { *descriptor };
        let value = texture::array_create(ArrayDescriptor {
            width: d.width as u64,
            height: d.height as u64,
            depth: d.depth as u64,
            format: d.format,
            channels: d.channels,
            flags: d.flags,
        })?;
        unsafe { put(array, handle(value), "pHandle") }
    }

    /// `cuArrayDestroy`.
    fn cuArrayDestroy(array: Handle) {
        texture::array_destroy(number(array))
    }

    /// `cuArrayGetDescriptor_v2`.
    fn cuArrayGetDescriptor_v2(descriptor: *mut ArrayDescriptor2d, array: Handle) {
        let d = texture::array_descriptor(number(array))?;
        let value = ArrayDescriptor2d {
            width: d.width as usize,
            height: d.height as usize,
            format: d.format,
            channels: d.channels,
        };
        unsafe { put(descriptor, value, "pArrayDescriptor") }
    }

    /// `cuArray3DGetDescriptor_v2`.
    fn cuArray3DGetDescriptor_v2(descriptor: *mut ArrayDescriptor3d, array: Handle) {
        let d = texture::array_descriptor(number(array))?;
        let value = ArrayDescriptor3d {
            width: d.width as usize,
            height: d.height as usize,
            depth: d.depth as usize,
            format: d.format,
            channels: d.channels,
            flags: d.flags,
        };
        unsafe { put(descriptor, value, "pArrayDescriptor") }
    }

    /// `cuMemcpy2D_v2`: between host memory, device memory and arrays.
    fn cuMemcpy2D_v2(copy: *const Memcpy2d) {
        unsafe { memcpy_2d(copy) }
    }

    /// `cuMemcpy2DUnaligned_v2`: as `cuMemcpy2D_v2`.
    fn cuMemcpy2DUnaligned_v2(copy: *const Memcpy2d) {
        unsafe { memcpy_2d(copy) }
    }

    /// `cuMemcpy2DAsync_v2`: synchronous, as every call here; a copy node where the stream
    /// captures.
    fn cuMemcpy2DAsync_v2(copy: *const Memcpy2d, stream: Handle) {
        if copy.is_null() {
            return Err(null_argument("pCopy"));
        }
        let node = unsafe { copy_2d_node(copy) };
        if driver::capture(number(stream), || node)? {
            return Ok(());
        }
        unsafe { memcpy_2d(copy) }
    }

    /// `cuMemcpy3D_v2`.
    fn cuMemcpy3D_v2(copy: *const Memcpy3d) {
        unsafe { memcpy_3d(copy) }
    }

    /// `cuMemcpy3DAsync_v2`: synchronous; a copy node where the stream captures.
    fn cuMemcpy3DAsync_v2(copy: *const Memcpy3d, stream: Handle) {
        if copy.is_null() {
            return Err(null_argument("pCopy"));
        }
        let node = unsafe { copy_3d_node(copy) };
        if driver::capture(number(stream), || node)? {
            return Ok(());
        }
        unsafe { memcpy_3d(copy) }
    }

    /// `cuMemcpy3DPeer`: `cuMemcpy3D` of a `CUDA_MEMCPY3D_PEER`, once both its contexts are
    /// usable.
    fn cuMemcpy3DPeer(copy: *const Memcpy3d) {
        unsafe { memcpy_3d_peer(copy) }
    }

    /// `cuMemcpy3DPeerAsync`: synchronous.
    fn cuMemcpy3DPeerAsync(copy: *const Memcpy3d, stream: Handle) {
        let _ = stream;
        unsafe { memcpy_3d_peer(copy) }
    }

    /// `cuMemcpyHtoA_v2`: `ByteCount` bytes into an array from byte `dstOffset` on.
    fn cuMemcpyHtoA_v2(array: Handle, offset: usize, source: *const c_void, bytes: usize) {
        let from = unsafe { host_bytes(source, bytes, "srcHost") }?;
        crate::array_copy::copy_3d(
            CopyEnd::Host(from),
            CopyPlace::default(),
            CopyEnd::Array(number(array)),
            CopyPlace { x: offset as u64, ..CopyPlace::default() },
            CopyExtent { width: bytes as u64, height: 1, depth: 1 },
        )
    }

    /// `cuMemcpyAtoH_v2`: `ByteCount` bytes out of an array from byte `srcOffset` on.
    fn cuMemcpyAtoH_v2(target: *mut c_void, array: Handle, offset: usize, bytes: usize) {
        let to = unsafe { host_bytes_mut(target, bytes, "dstHost") }?;
        crate::array_copy::copy_3d(
            CopyEnd::Array(number(array)),
            CopyPlace { x: offset as u64, ..CopyPlace::default() },
            CopyEnd::Host(to),
            CopyPlace::default(),
            CopyExtent { width: bytes as u64, height: 1, depth: 1 },
        )
    }

    /// `cuTexObjectCreate`: a texture object over an array, linear or pitched memory (no
    /// resource view).
    fn cuTexObjectCreate(
        object: *mut u64,
        resource: *const ResourceDesc,
        texture_desc: *const TextureDesc,
        view: *const c_void,
    ) {
        if !view.is_null() {
            return Err(Failure::new(CudaError::NotSupported, "resource views are not supported"));
        }
        if texture_desc.is_null() {
            return Err(null_argument("pTexDesc"));
        }
        let resource = unsafe { read_resource(resource) }?;
        // SAFETY: not NULL, readable by the contract.
        let t = unsafe { *texture_desc };
        let value = texture::texture_create(
            resource,
            TextureDescriptor {
                address_modes: t.address_mode,
                filter: t.filter_mode,
                flags: t.flags,
                border_color: t.border_color,
            },
        )?;
        unsafe { put(object, value, "pTexObject") }
    }

    /// `cuTexObjectDestroy`.
    fn cuTexObjectDestroy(object: u64) {
        texture::object_destroy(object, false)
    }

    /// `cuTexObjectGetResourceDesc`.
    fn cuTexObjectGetResourceDesc(desc: *mut ResourceDesc, object: u64) {
        let value = resource_desc(texture::object_resource(object, false)?);
        unsafe { put(desc, value, "pResDesc") }
    }

    /// `cuSurfObjectCreate`: a surface object over an array.
    fn cuSurfObjectCreate(object: *mut u64, resource: *const ResourceDesc) {
        let resource = unsafe { read_resource(resource) }?;
        let value = texture::surface_create(resource)?;
        unsafe { put(object, value, "pSurfObject") }
    }

    /// `cuSurfObjectDestroy`.
    fn cuSurfObjectDestroy(object: u64) {
        texture::object_destroy(object, true)
    }

    /// `cuSurfObjectGetResourceDesc`.
    fn cuSurfObjectGetResourceDesc(desc: *mut ResourceDesc, object: u64) {
        let value = resource_desc(texture::object_resource(object, true)?);
        unsafe { put(desc, value, "pResDesc") }
    }
}

plain_names! {
    cuArrayCreate => cuArrayCreate_v2(array: *mut Handle, descriptor: *const ArrayDescriptor2d);
    cuArray3DCreate => cuArray3DCreate_v2(array: *mut Handle, descriptor: *const ArrayDescriptor3d);
    cuArrayGetDescriptor => cuArrayGetDescriptor_v2(descriptor: *mut ArrayDescriptor2d, array: Handle);
    cuArray3DGetDescriptor => cuArray3DGetDescriptor_v2(descriptor: *mut ArrayDescriptor3d, array: Handle);
    cuMemcpy2D => cuMemcpy2D_v2(copy: *const Memcpy2d);
    cuMemcpy2DUnaligned => cuMemcpy2DUnaligned_v2(copy: *const Memcpy2d);
    cuMemcpy2DAsync => cuMemcpy2DAsync_v2(copy: *const Memcpy2d, stream: Handle);
    cuMemcpy3D => cuMemcpy3D_v2(copy: *const Memcpy3d);
    cuMemcpy3DAsync => cuMemcpy3DAsync_v2(copy: *const Memcpy3d, stream: Handle);
    cuMemcpyHtoA => cuMemcpyHtoA_v2(array: Handle, offset: usize, source: *const c_void, bytes: usize);
    cuMemcpyAtoH => cuMemcpyAtoH_v2(target: *mut c_void, array: Handle, offset: usize, bytes: usize);
}
