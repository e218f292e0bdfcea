//! CUDA arrays, texture objects and surface objects (`cuArrayCreate`, `cuArray3DCreate`,
//! `cuMemcpy2D`/`3D` with arrays, `cuTexObjectCreate`, `cuSurfObjectCreate`, ...), in safe
//! Rust: a registry of its own beside the driver's state (so that nothing holds both locks:
//! `array_copy` copies rows between arrays and device memory through the driver's copies
//! while it holds neither), and the [`TextureTable`] every launch receives ([`table`]).
//!
//! Arrays and objects are process-wide (not per context); a handle is a number handed out
//! once. An array is [`ptxsim_exec::texture::CudaArray`], shared with the textures and
//! surfaces over it, so a kernel's `sust` is seen by later copies out of the array.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use ptxsim_exec::texture::{
    AddressMode, ChannelType, CudaArray, FilterMode, Format, ReadMode, Resource, Texture,
    TextureObject, TextureTable,
};

use crate::status::{CallResult, CudaError, Failure};

/// `CUDA_ARRAY3D_LAYERED`, `CUDA_ARRAY3D_SURFACE_LDST`, `CUDA_ARRAY3D_CUBEMAP`,
/// `CUDA_ARRAY3D_TEXTURE_GATHER`.
pub const ARRAY_LAYERED: u32 = 1;
/// `CUDA_ARRAY3D_SURFACE_LDST`.
pub const ARRAY_SURFACE_LDST: u32 = 2;
/// `CUDA_ARRAY3D_CUBEMAP`.
pub const ARRAY_CUBEMAP: u32 = 4;
/// `CUDA_ARRAY3D_TEXTURE_GATHER`.
pub const ARRAY_TEXTURE_GATHER: u32 = 8;
/// `CU_TRSF_READ_AS_INTEGER`.
pub const READ_AS_INTEGER: u32 = 1;
/// `CU_TRSF_NORMALIZED_COORDINATES`.
pub const NORMALIZED_COORDINATES: u32 = 2;

/// A `CUDA_ARRAY3D_DESCRIPTOR` (a `CUDA_ARRAY_DESCRIPTOR` has depth 0 and no flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDescriptor {
    /// Texels per row.
    pub width: u64,
    /// Rows (0: 1D).
    pub height: u64,
    /// Slices, layers or faces (0: 1D or 2D).
    pub depth: u64,
    /// `CUarray_format`.
    pub format: u32,
    /// 1, 2 or 4.
    pub channels: u32,
    /// `CUDA_ARRAY3D_*` flags.
    pub flags: u32,
}

/// What a texture or surface object reads (`CUDA_RESOURCE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceDescriptor {
    /// `CU_RESOURCE_TYPE_ARRAY`.
    Array(u64),
    /// `CU_RESOURCE_TYPE_LINEAR`.
    Linear {
        /// Device address.
        address: u64,
        /// `CUarray_format`.
        format: u32,
        /// Channels.
        channels: u32,
        /// Bytes.
        bytes: u64,
    },
    /// `CU_RESOURCE_TYPE_PITCH2D`.
    Pitch2d {
        /// Device address.
        address: u64,
        /// `CUarray_format`.
        format: u32,
        /// Channels.
        channels: u32,
        /// Texels per row.
        width: u64,
        /// Rows.
        height: u64,
        /// Bytes from one row to the next.
        pitch: u64,
    },
}

/// How a texture is sampled (`CUDA_TEXTURE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDescriptor {
    /// `CUaddress_mode` per dimension.
    pub address_modes: [u32; 3],
    /// `CUfilter_mode`.
    pub filter: u32,
    /// `CU_TRSF_*`.
    pub flags: u32,
    /// The border color.
    pub border_color: [f32; 4],
}

/// One end of a copy between host memory, device memory and arrays.
#[derive(Debug)]
pub enum CopyEnd<'a, H> {
    /// Host memory: the bytes the copy may touch, from the base the offsets count from.
    Host(H),
    /// A device address.
    Device(u64),
    /// A CUDA array.
    Array(u64),
    /// Nothing (a copy that names no memory of this kind): an error.
    Unknown(&'a str),
}

/// Where a copy starts in one of its ends, and that end's layout.
#[derive(Clone, Copy, Debug, Default)]
pub struct CopyPlace {
    /// Byte offset in a row.
    pub x: u64,
    /// Row.
    pub y: u64,
    /// Slice.
    pub z: u64,
    /// Bytes per row (ignored for arrays).
    pub pitch: u64,
    /// Rows per slice (ignored for arrays).
    pub height: u64,
}

/// The extent of a copy: `width` bytes × `height` rows × `depth` slices.
#[derive(Clone, Copy, Debug)]
pub struct CopyExtent {
    /// Bytes per row.
    pub width: u64,
    /// Rows.
    pub height: u64,
    /// Slices.
    pub depth: u64,
}

struct Array {
    array: Arc<CudaArray>,
    descriptor: ArrayDescriptor,
}

struct Object {
    object: TextureObject,
    resource: ResourceDescriptor,
}

#[derive(Default)]
struct Registry {
    next: u64,
    arrays: HashMap<u64, Array>,
    objects: HashMap<u64, Object>,
    /// The table launches receive, rebuilt when an object is created or destroyed.
    table: Option<Arc<TextureTable>>,
}

impl Registry {
    fn handle(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn rebuild(&mut self) {
        let mut table = TextureTable::new();
        for (&handle, object) in &self.objects {
            table.insert(handle, object.object.clone());
        }
        self.table = (!table.is_empty()).then(|| Arc::new(table));
    }
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| Mutex::new(Registry::default()));

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn invalid(message: impl Into<String>) -> Failure {
    Failure::new(CudaError::InvalidValue, message)
}

/// The texture and surface objects for a launch (`None` when there is none).
pub fn table() -> Option<Arc<TextureTable>> {
    registry().table.clone()
}

fn channel_type(format: u32) -> CallResult<ChannelType> {
    Ok(match format {
        0x01 => ChannelType::U8,
        0x02 => ChannelType::U16,
        0x03 => ChannelType::U32,
        0x08 => ChannelType::S8,
        0x09 => ChannelType::S16,
        0x0a => ChannelType::S32,
        0x10 => ChannelType::F16,
        0x20 => ChannelType::F32,
        other => return Err(invalid(format!("array format {other:#x} is not supported"))),
    })
}

fn format(code: u32, channels: u32) -> CallResult<Format> {
    if !matches!(channels, 1 | 2 | 4) {
        return Err(invalid(format!("{channels} channels (1, 2 or 4)")));
    }
    Ok(Format {
        channels: channels as u8,
        ty: channel_type(code)?,
    })
}

/// `cuArrayCreate` / `cuArray3DCreate`: a zeroed array.
pub fn array_create(descriptor: ArrayDescriptor) -> CallResult<u64> {
    let format = format(descriptor.format, descriptor.channels)?;
    let layered = descriptor.flags & ARRAY_LAYERED != 0;
    let cubemap = descriptor.flags & ARRAY_CUBEMAP != 0;
    let known = ARRAY_LAYERED | ARRAY_SURFACE_LDST | ARRAY_CUBEMAP | ARRAY_TEXTURE_GATHER;
    if descriptor.flags & !known != 0 {
        return Err(invalid(format!("array flags {:#x}", descriptor.flags)));
    }
    if descriptor.width == 0
        || (descriptor.depth > 0 && descriptor.height == 0 && !layered)
        || (cubemap
            && (descriptor.width != descriptor.height
                || descriptor.depth == 0
                || descriptor.depth % 6 != 0
                || (!layered && descriptor.depth != 6)))
    {
        return Err(invalid(format!("array extent {descriptor:?}")));
    }
    let array = CudaArray::new(
        format,
        [descriptor.width, descriptor.height, descriptor.depth],
        layered,
        cubemap,
    )
    .filter(|array| array.bytes() <= 1 << 34)
    .ok_or_else(|| Failure::new(CudaError::OutOfMemory, "the array is too large"))?;
    let mut registry = registry();
    let handle = registry.handle() << 4;
    registry.arrays.insert(
        handle,
        Array {
            array: Arc::new(array),
            descriptor,
        },
    );
    Ok(handle)
}

/// `cuArrayDestroy`. Textures and surfaces over the array keep its memory.
pub fn array_destroy(handle: u64) -> CallResult<()> {
    registry()
        .arrays
        .remove(&handle)
        .map(|_| ())
        .ok_or_else(|| Failure::new(CudaError::InvalidHandle, "no such array"))
}

/// `cuArray3DGetDescriptor`: the descriptor the array was created with.
pub fn array_descriptor(handle: u64) -> CallResult<ArrayDescriptor> {
    registry()
        .arrays
        .get(&handle)
        .map(|array| array.descriptor)
        .ok_or_else(|| Failure::new(CudaError::InvalidHandle, "no such array"))
}

pub(crate) fn array(handle: u64) -> CallResult<Arc<CudaArray>> {
    registry()
        .arrays
        .get(&handle)
        .map(|array| Arc::clone(&array.array))
        .ok_or_else(|| Failure::new(CudaError::InvalidHandle, format!("no array {handle:#x}")))
}

fn address_mode(code: u32) -> CallResult<AddressMode> {
    Ok(match code {
        0 => AddressMode::Wrap,
        1 => AddressMode::Clamp,
        2 => AddressMode::Mirror,
        3 => AddressMode::Border,
        other => return Err(invalid(format!("address mode {other}"))),
    })
}

fn resource(descriptor: ResourceDescriptor) -> CallResult<Resource> {
    Ok(match descriptor {
        ResourceDescriptor::Array(handle) => Resource::Array(array(handle)?),
        ResourceDescriptor::Linear {
            address,
            format: code,
            channels,
            bytes,
        } => {
            let format = format(code, channels)?;
            Resource::Linear {
                address,
                format,
                width: bytes / format.bytes(),
            }
        }
        ResourceDescriptor::Pitch2d {
            address,
            format: code,
            channels,
            width,
            height,
            pitch,
        } => {
            let format = format(code, channels)?;
            if pitch < width.saturating_mul(format.bytes()) {
                return Err(invalid("pitchInBytes is less than a row"));
            }
            Resource::Pitch2d {
                address,
                format,
                width,
                height,
                pitch,
            }
        }
    })
}

fn insert(object: TextureObject, resource: ResourceDescriptor) -> u64 {
    let mut registry = registry();
    let handle = registry.handle();
    registry.objects.insert(handle, Object { object, resource });
    registry.rebuild();
    handle
}

/// `cuTexObjectCreate` (the resource view is not supported: `None` only).
pub fn texture_create(
    resource_descriptor: ResourceDescriptor,
    texture: TextureDescriptor,
) -> CallResult<u64> {
    let resource = resource(resource_descriptor)?;
    let read_mode = if texture.flags & READ_AS_INTEGER != 0 {
        ReadMode::ElementType
    } else {
        // "cudaReadModeNormalizedFloat" applies to 8- and 16-bit integers only; the others
        // read as their type either way.
        ReadMode::NormalizedFloat
    };
    let filter = match texture.filter {
        0 => FilterMode::Point,
        1 => FilterMode::Linear,
        other => return Err(invalid(format!("filter mode {other}"))),
    };
    let object = Texture {
        resource,
        address_modes: [
            address_mode(texture.address_modes[0])?,
            address_mode(texture.address_modes[1])?,
            address_mode(texture.address_modes[2])?,
        ],
        filter,
        read_mode,
        normalized_coordinates: texture.flags & NORMALIZED_COORDINATES != 0,
        border_color: texture.border_color,
    };
    Ok(insert(TextureObject::Texture(object), resource_descriptor))
}

/// `cuSurfObjectCreate`: over an array only.
pub fn surface_create(resource_descriptor: ResourceDescriptor) -> CallResult<u64> {
    let ResourceDescriptor::Array(handle) = resource_descriptor else {
        return Err(invalid("a surface object's resource must be an array"));
    };
    let array = array(handle)?;
    Ok(insert(TextureObject::Surface(array), resource_descriptor))
}

/// `cuTexObjectDestroy` / `cuSurfObjectDestroy`.
pub fn object_destroy(handle: u64, surface: bool) -> CallResult<()> {
    let mut registry = registry();
    let matches = registry
        .objects
        .get(&handle)
        .is_some_and(|object| matches!(object.object, TextureObject::Surface(_)) == surface);
    if !matches {
        return Err(Failure::new(CudaError::InvalidHandle, "no such object"));
    }
    registry.objects.remove(&handle);
    registry.rebuild();
    Ok(())
}

/// `cuTexObjectGetResourceDesc` / `cuSurfObjectGetResourceDesc`.
pub fn object_resource(handle: u64, surface: bool) -> CallResult<ResourceDescriptor> {
    registry()
        .objects
        .get(&handle)
        .filter(|object| matches!(object.object, TextureObject::Surface(_)) == surface)
        .map(|object| object.resource)
        .ok_or_else(|| Failure::new(CudaError::InvalidHandle, "no such object"))
}
