//! Texture and surface objects (CUDA's bindless `cudaTextureObject_t` /
//! `cudaSurfaceObject_t`): the table of objects a launch receives
//! ([`crate::api::LaunchOptions::textures`]) and the semantics of fetching from them, as pure
//! functions (`tex`, `tld4`, `txq`, `suld.b`, `sust.b`, `sured.b`, `suq`: PTX ISA 9.7.10 and
//! 9.7.11; the executor's side is `exec/texture.rs`).
//!
//! Addressing and filtering follow the CUDA C++ Programming Guide, appendix "Texture
//! Fetching" (cited below as *the guide*):
//!
//! * "nearest-point sampling": `tex(x) = T[i]` with `i = floor(x)` (coordinates scaled by the
//!   size first when normalized);
//! * "linear filtering": `tex(x) = (1 - α)T[i] + αT[i+1]` with `i = floor(xB)`, `α =
//!   frac(xB)`, `xB = x - 0.5`, and in 2D/3D the products of such weights; "α, β, and γ are
//!   stored in 9-bit fixed point format with 8 bits of fractional value (so 1.0 is exactly
//!   represented)": ptxsim rounds each weight to the nearest multiple of 1/256 (ties away from
//!   zero) and sums the weighted texels in double precision, rounded once to `.f32`;
//! * addressing ("Texture Object API"): clamp keeps the index in `[0, N-1]`, border gives the
//!   border color outside it, wrap replaces `x` by `frac(x)` and mirror by `frac(x)` or `1 -
//!   frac(x)` as `floor(x)` is even or odd; wrap and mirror are "only supported for normalized
//!   texture coordinates" and run as clamp otherwise;
//! * cubemaps: the face and `(s, t) = ((s'/m + 1)/2, (t'/m + 1)/2)` from the table "Cubemap
//!   Fetch" (the major axis `m` chooses the face).
//!
//! Choices where the guide is silent (each a documented ptxsim behaviour, not measured on a
//! GPU): the channels a format lacks read as `(0, 0, 1)` for y, z, w (1.0 for float results);
//! linear filtering of a texture whose results are integers (element-type reads of integer
//! formats) samples the nearest point; a linear (`tex1Dfetch`) resource reads zeros outside
//! its width; a layer index is clamped to the layers; mipmap levels other than 0 are not
//! modelled (`tex.level`/`tex.grad` read level 0).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, RwLock};

/// The type of one channel of a texel (`CUarray_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    /// `CU_AD_FORMAT_UNSIGNED_INT8`.
    U8,
    /// `CU_AD_FORMAT_SIGNED_INT8`.
    S8,
    /// `CU_AD_FORMAT_UNSIGNED_INT16`.
    U16,
    /// `CU_AD_FORMAT_SIGNED_INT16`.
    S16,
    /// `CU_AD_FORMAT_UNSIGNED_INT32`.
    U32,
    /// `CU_AD_FORMAT_SIGNED_INT32`.
    S32,
    /// `CU_AD_FORMAT_HALF`.
    F16,
    /// `CU_AD_FORMAT_FLOAT`.
    F32,
}

impl ChannelType {
    /// Bytes per channel.
    pub const fn bytes(self) -> u64 {
        match self {
            ChannelType::U8 | ChannelType::S8 => 1,
            ChannelType::U16 | ChannelType::S16 | ChannelType::F16 => 2,
            ChannelType::U32 | ChannelType::S32 | ChannelType::F32 => 4,
        }
    }

    /// Whether the channel is a floating-point number.
    pub const fn is_float(self) -> bool {
        matches!(self, ChannelType::F16 | ChannelType::F32)
    }

    /// The `CUarray_format` value (what `txq.channel_data_type` and `suq` report).
    pub const fn code(self) -> u32 {
        match self {
            ChannelType::U8 => 0x01,
            ChannelType::U16 => 0x02,
            ChannelType::U32 => 0x03,
            ChannelType::S8 => 0x08,
            ChannelType::S16 => 0x09,
            ChannelType::S32 => 0x0a,
            ChannelType::F16 => 0x10,
            ChannelType::F32 => 0x20,
        }
    }
}

/// The format of a texel: 1, 2 or 4 channels of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// 1, 2 or 4.
    pub channels: u8,
    /// The channel type.
    pub ty: ChannelType,
}

impl Format {
    /// Bytes per texel.
    pub const fn bytes(self) -> u64 {
        self.channels as u64 * self.ty.bytes()
    }
}

/// A CUDA array: texels of one format in `width × height × depth` (a layered array's layers,
/// and a cubemap's faces, are its depth), x fastest, with no padding. A `height` or `depth` of
/// 0 is a dimension the array does not have (it counts as 1 for the layout).
#[derive(Debug)]
pub struct CudaArray {
    /// The texel format.
    pub format: Format,
    /// Texels per row.
    pub width: u64,
    /// Rows (0 for a 1D array).
    pub height: u64,
    /// Slices, layers or faces (0 for a 1D or 2D array).
    pub depth: u64,
    /// `CUDA_ARRAY3D_LAYERED`: `depth` counts layers.
    pub layered: bool,
    /// `CUDA_ARRAY3D_CUBEMAP`: `depth` counts faces (6, or 6 per cubemap when layered).
    pub cubemap: bool,
    /// The bytes, shared by the textures and surfaces over the array and the driver's copies.
    data: RwLock<Vec<u8>>,
}

impl CudaArray {
    /// A zeroed array, or `None` when its size does not fit in the host's address space.
    pub fn new(
        format: Format,
        [width, height, depth]: [u64; 3],
        layered: bool,
        cubemap: bool,
    ) -> Option<CudaArray> {
        let bytes = width
            .checked_mul(height.max(1))?
            .checked_mul(depth.max(1))?
            .checked_mul(format.bytes())?;
        Some(CudaArray {
            format,
            width,
            height,
            depth,
            layered,
            cubemap,
            data: RwLock::new(vec![0; usize::try_from(bytes).ok()?]),
        })
    }

    /// The array's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.row_bytes() * self.height.max(1) * self.depth.max(1)
    }

    /// Bytes per row.
    pub fn row_bytes(&self) -> u64 {
        self.width * self.format.bytes()
    }

    /// Runs `f` on the bytes, to read.
    pub fn read<T>(&self, f: impl FnOnce(&[u8]) -> T) -> T {
        let data = self
            .data
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&data)
    }

    /// Runs `f` on the bytes, to change.
    pub fn write<T>(&self, f: impl FnOnce(&mut [u8]) -> T) -> T {
        let mut data = self
            .data
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut data)
    }
}

/// What a texture reads from.
#[derive(Clone, Debug)]
pub enum Resource {
    /// A CUDA array.
    Array(Arc<CudaArray>),
    /// `CU_RESOURCE_TYPE_LINEAR`: `width` texels at a global address (`tex1Dfetch`).
    Linear {
        /// The global address of texel 0.
        address: u64,
        /// The texel format.
        format: Format,
        /// Texels.
        width: u64,
    },
    /// `CU_RESOURCE_TYPE_PITCH2D`: `height` rows of `width` texels, `pitch` bytes apart.
    Pitch2d {
        /// The global address of texel (0, 0).
        address: u64,
        /// The texel format.
        format: Format,
        /// Texels per row.
        width: u64,
        /// Rows.
        height: u64,
        /// Bytes from one row to the next.
        pitch: u64,
    },
}

impl Resource {
    /// The texel format.
    pub fn format(&self) -> Format {
        match self {
            Resource::Array(array) => array.format,
            Resource::Linear { format, .. } | Resource::Pitch2d { format, .. } => *format,
        }
    }

    /// Width, height and depth (layers and faces included), each at least 1.
    fn extent(&self) -> [u64; 3] {
        match self {
            Resource::Array(array) => [array.width, array.height.max(1), array.depth.max(1)],
            Resource::Linear { width, .. } => [*width, 1, 1],
            Resource::Pitch2d { width, height, .. } => [*width, *height, 1],
        }
    }
}

/// `CUaddress_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// `CU_TR_ADDRESS_MODE_WRAP` (0).
    Wrap,
    /// `CU_TR_ADDRESS_MODE_CLAMP` (1).
    Clamp,
    /// `CU_TR_ADDRESS_MODE_MIRROR` (2).
    Mirror,
    /// `CU_TR_ADDRESS_MODE_BORDER` (3).
    Border,
}

impl AddressMode {
    /// The `CUaddress_mode` value.
    pub const fn code(self) -> u32 {
        match self {
            AddressMode::Wrap => 0,
            AddressMode::Clamp => 1,
            AddressMode::Mirror => 2,
            AddressMode::Border => 3,
        }
    }
}

/// `CUfilter_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterMode {
    /// `CU_TR_FILTER_MODE_POINT`.
    Point,
    /// `CU_TR_FILTER_MODE_LINEAR`.
    Linear,
}

/// How texels are returned (`cudaTextureReadMode`; `CU_TRSF_READ_AS_INTEGER` clear or set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadMode {
    /// The channel's own type: integers as integers, `.f16` widened to `.f32`.
    ElementType,
    /// 8- and 16-bit integers as floats in [0, 1] (unsigned) or [-1, 1] (signed).
    NormalizedFloat,
}

/// A texture object: its resource and how it is sampled.
#[derive(Clone, Debug)]
pub struct Texture {
    /// What it reads.
    pub resource: Resource,
    /// Per dimension (x, y, z).
    pub address_modes: [AddressMode; 3],
    /// Point or linear.
    pub filter: FilterMode,
    /// How texels are returned.
    pub read_mode: ReadMode,
    /// Coordinates in [0, 1) rather than [0, N).
    pub normalized_coordinates: bool,
    /// The color of [`AddressMode::Border`].
    pub border_color: [f32; 4],
}

/// A texture or surface object of the table.
#[derive(Clone, Debug)]
pub enum TextureObject {
    /// A texture object (`tex`, `tld4`, `txq`).
    Texture(Texture),
    /// A surface object over an array (`suld`, `sust`, `sured`, `suq`).
    Surface(Arc<CudaArray>),
}

/// The hash of a handle for [`TextureTable`]: a multiplication rather than SipHash, since
/// every `tex` looks its handle up (the handles are the table's own keys, not an attacker's).
#[derive(Clone, Copy, Debug, Default)]
struct HandleHasher(u64);

impl Hasher for HandleHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }
}

/// The texture and surface objects a launch may use, by handle (the 64-bit value a kernel
/// receives as `cudaTextureObject_t` / `cudaSurfaceObject_t`).
#[derive(Clone, Debug, Default)]
pub struct TextureTable {
    objects: HashMap<u64, TextureObject, BuildHasherDefault<HandleHasher>>,
}

impl TextureTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the object with handle `handle`.
    pub fn insert(&mut self, handle: u64, object: TextureObject) {
        self.objects.insert(handle, object);
    }

    /// Removes the object with handle `handle`.
    pub fn remove(&mut self, handle: u64) -> Option<TextureObject> {
        self.objects.remove(&handle)
    }

    /// The object with handle `handle`.
    pub fn get(&self, handle: u64) -> Option<&TextureObject> {
        self.objects.get(&handle)
    }

    /// Whether the table has no object.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// The four results of a fetch: `.f32` bit patterns, or 32-bit integers.
pub type Texel = [u32; 4];

/// Reads `len` (at most 8) bytes at a byte offset of a resource, little-endian; an error is
/// a fault's message.
pub type Reader<'a> = dyn Fn(u64, u64) -> Result<u64, String> + 'a;

/// binary16 to binary32, exactly (IEEE 754: every half value is a float value).
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let mantissa = u32::from(bits & 0x3ff);
    let magnitude = match (exponent, mantissa) {
        (0, 0) => 0,
        // Subnormal: mantissa × 2^-24, exact in f32.
        (0, m) => (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
        (0x1f, m) => 0x7f80_0000 | (m << 13),
        (e, m) => ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// One channel's value as the fetch returns it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Channel {
    Float(f64),
    Integer(u32),
}

/// Whether texels of `format` read as floats under `mode`.
fn reads_float(format: Format, mode: ReadMode) -> bool {
    format.ty.is_float()
        || (mode == ReadMode::NormalizedFloat
            && matches!(
                format.ty,
                ChannelType::U8 | ChannelType::S8 | ChannelType::U16 | ChannelType::S16
            ))
}

/// The value of one channel's bits: "cudaReadModeNormalizedFloat ... the value ... is mapped
/// to the floating-point range [0.0, 1.0] for unsigned integer type and [-1.0, 1.0] for signed
/// integer type" (the guide, "Texture Memory"): `v / (2^n - 1)`, and for signed types
/// `max(v / (2^(n-1) - 1), -1)`.
#[inline]
fn channel(ty: ChannelType, mode: ReadMode, raw: u64) -> Channel {
    let normalized = mode == ReadMode::NormalizedFloat;
    match ty {
        ChannelType::F32 => Channel::Float(f64::from(f32::from_bits(raw as u32))),
        ChannelType::F16 => Channel::Float(f64::from(f16_to_f32(raw as u16))),
        ChannelType::U8 if normalized => Channel::Float(f64::from(raw as u8) / 255.0),
        ChannelType::U16 if normalized => Channel::Float(f64::from(raw as u16) / 65535.0),
        ChannelType::S8 if normalized => {
            Channel::Float((f64::from(raw as u8 as i8) / 127.0).max(-1.0))
        }
        ChannelType::S16 if normalized => {
            Channel::Float((f64::from(raw as u16 as i16) / 32767.0).max(-1.0))
        }
        ChannelType::U8 | ChannelType::U16 | ChannelType::U32 => Channel::Integer(raw as u32),
        ChannelType::S8 => Channel::Integer(raw as u8 as i8 as i32 as u32),
        ChannelType::S16 => Channel::Integer(raw as u16 as i16 as i32 as u32),
        ChannelType::S32 => Channel::Integer(raw as u32),
    }
}

/// A texel's four channels in `f64` (float results) or as integers.
fn texel_channels(format: Format, mode: ReadMode, bytes: &[u64; 4]) -> [Channel; 4] {
    // The channels the format lacks: (0, 0, 1) for y, z, w.
    let mut channels = if reads_float(format, mode) {
        [
            Channel::Float(0.0),
            Channel::Float(0.0),
            Channel::Float(0.0),
            Channel::Float(1.0),
        ]
    } else {
        [
            Channel::Integer(0),
            Channel::Integer(0),
            Channel::Integer(0),
            Channel::Integer(1),
        ]
    };
    for (slot, &raw) in channels
        .iter_mut()
        .zip(bytes)
        .take(usize::from(format.channels))
    {
        *slot = channel(format.ty, mode, raw);
    }
    channels
}

/// Where a texel index lands under an address mode: `Some(index)` in `[0, n)`, or `None` for
/// the border.
fn address_index(index: i64, n: u64, mode: AddressMode) -> Option<u64> {
    let n = i64::try_from(n).unwrap_or(i64::MAX).max(1);
    match mode {
        AddressMode::Clamp => Some(index.clamp(0, n - 1) as u64),
        AddressMode::Border => (0..n).contains(&index).then_some(index as u64),
        AddressMode::Wrap => Some(index.rem_euclid(n) as u64),
        AddressMode::Mirror => {
            let m = index.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m } as u64)
        }
    }
}

/// A coordinate as a texel-space value (the guide: a normalized coordinate is scaled by the
/// size, after wrap or mirror is applied to it).
fn scale(x: f64, n: u64, normalized: bool, mode: AddressMode) -> f64 {
    if !normalized {
        return x;
    }
    let frac = x - x.floor();
    let x = match mode {
        AddressMode::Wrap => frac,
        // "x is replaced by frac(x) if floor(x) is even and 1 - frac(x) if floor(x) is odd".
        AddressMode::Mirror if (x.floor() as i64).rem_euclid(2) == 1 => 1.0 - frac,
        AddressMode::Mirror => frac,
        AddressMode::Clamp | AddressMode::Border => x,
    };
    x * n as f64
}

/// The effective address mode: wrap and mirror need normalized coordinates ("only supported
/// for normalized texture coordinates"), and run as clamp without them.
fn effective_mode(mode: AddressMode, normalized: bool) -> AddressMode {
    match mode {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::Clamp,
        other => other,
    }
}

/// A weight of linear filtering: `frac(xB)` in "9-bit fixed point format with 8 bits of
/// fractional value", rounded to the nearest 1/256.
pub fn filter_weight(fraction: f64) -> f64 {
    (fraction * 256.0).round() / 256.0
}

/// Where a fetch happens: the texture and its resource reader, with what every texel of the
/// fetch shares (decided once per fetch, not per texel).
struct Sampler<'a> {
    texture: &'a Texture,
    read: &'a Reader<'a>,
    extent: [u64; 3],
    format: Format,
    /// Whether the texels read as floats.
    float: bool,
    /// A linear (`tex1Dfetch`) resource: zeros outside its width.
    linear: bool,
    /// A pitched resource's bytes per row.
    pitch: Option<u64>,
    /// Each axis's address mode as it applies: wrap and mirror as clamp without normalized
    /// coordinates, border for a linear resource.
    modes: [AddressMode; 3],
}

impl<'a> Sampler<'a> {
    fn new(texture: &'a Texture, read: &'a Reader<'a>) -> Self {
        let format = texture.resource.format();
        let linear = matches!(texture.resource, Resource::Linear { .. });
        let pitch = match &texture.resource {
            Resource::Pitch2d { pitch, .. } => Some(*pitch),
            _ => None,
        };
        let modes = texture.address_modes.map(|mode| {
            if linear {
                AddressMode::Border
            } else {
                effective_mode(mode, texture.normalized_coordinates)
            }
        });
        Sampler {
            texture,
            read,
            extent: texture.resource.extent(),
            format,
            float: reads_float(format, texture.read_mode),
            linear,
            pitch,
            modes,
        }
    }
}

impl Sampler<'_> {
    /// The channels of the texel at integer indices (already addressed) in layer or slice
    /// `z`.
    fn texel(&self, x: u64, y: u64, z: u64) -> Result<[Channel; 4], String> {
        let format = self.format;
        let size = format.bytes();
        let offset = match self.pitch {
            Some(pitch) => y * pitch + x * size,
            None => ((z * self.extent[1] + y) * self.extent[0] + x) * size,
        };
        let mut raw = [0u64; 4];
        let step = format.ty.bytes();
        if !self.whole_texel(offset, size, step, &mut raw) {
            for (index, slot) in raw
                .iter_mut()
                .enumerate()
                .take(usize::from(format.channels))
            {
                *slot = (self.read)(offset + index as u64 * step, step)?;
            }
        }
        Ok(texel_channels(format, self.texture.read_mode, &raw))
    }

    /// Reads the `size` bytes of a texel at `offset` whole (one read of up to 8 bytes, two for
    /// a 16-byte texel) into its channels of `step` bytes; `false` where a read fails (a
    /// misaligned or partly outside read: the reads one channel at a time then give the same
    /// bytes, or the fault of the channel that has one).
    fn whole_texel(&self, offset: u64, size: u64, step: u64, raw: &mut [u64; 4]) -> bool {
        let mask = (1u64 << (step * 8)) - 1;
        let mut index = 0;
        let mut at = 0;
        while at < size {
            let bytes = (size - at).min(8);
            let Ok(word) = (self.read)(offset + at, bytes) else {
                return false;
            };
            let mut shift = 0;
            while shift < bytes * 8 {
                if let Some(slot) = raw.get_mut(index) {
                    *slot = word >> shift & mask;
                }
                index += 1;
                shift += step * 8;
            }
            at += bytes;
        }
        true
    }

    /// The border color as channels of the texture's kind.
    fn border(&self) -> [Channel; 4] {
        let float = self.float;
        self.texture.border_color.map(|c| {
            if float {
                Channel::Float(f64::from(c))
            } else {
                Channel::Integer(c as i64 as u32)
            }
        })
    }

    /// The texel at signed indices `index` (x, y, z; z is a layer or face when `layer` is
    /// set, which is not addressed), through the address modes.
    fn addressed(
        &self,
        index: [i64; 3],
        dimensions: usize,
        layer: Option<u64>,
    ) -> Result<[Channel; 4], String> {
        let mut at = [0u64; 3];
        for axis in 0..dimensions {
            match address_index(index[axis], self.extent[axis], self.modes[axis]) {
                Some(i) => at[axis] = i,
                None if self.linear => {
                    return Ok(texel_channels(self.format, self.texture.read_mode, &[0; 4]));
                }
                None => return Ok(self.border()),
            }
        }
        if let Some(layer) = layer {
            // Layers and faces are the array's depth.
            at[2] = layer.min(self.extent[2] - 1);
        }
        self.texel(at[0], at[1], at[2])
    }
}

/// A coordinate vector decoded for a fetch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coordinates {
    /// x, y, z in texel or normalized space (unused ones 0).
    pub position: [f64; 3],
    /// How many of them count (1, 2 or 3).
    pub dimensions: usize,
    /// The layer (a layered texture's index, a cubemap face and its cubemap's index).
    pub layer: Option<u64>,
    /// Integer coordinates (`.s32`): no filtering, no scaling.
    pub integer: bool,
}

/// The face and face coordinates of a cubemap direction, from the guide's table "Cubemap
/// Fetch": the major axis `m` chooses the face, `(s, t) = ((s'/m + 1)/2, (t'/m + 1)/2)`.
pub fn cube_face(x: f64, y: f64, z: f64) -> (u64, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, m, s, t) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    let m = if m == 0.0 { 1.0 } else { m };
    (face, (s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0)
}

fn to_bits(channels: [Channel; 4]) -> Texel {
    channels.map(|c| match c {
        Channel::Float(value) => (value as f32).to_bits(),
        Channel::Integer(value) => value,
    })
}

/// `tex`: the four results of a fetch at `at` (the guide's nearest-point sampling or linear
/// filtering, after addressing).
pub fn fetch(texture: &Texture, at: Coordinates, read: &Reader<'_>) -> Result<Texel, String> {
    let sampler = Sampler::new(texture, read);
    let dimensions = at.dimensions.min(3);
    if at.integer {
        let index = at.position.map(|p| p as i64);
        return sampler.addressed(index, dimensions, at.layer).map(to_bits);
    }
    let float = sampler.float;
    let normalized = texture.normalized_coordinates || at.layer.is_some() && is_cube(texture);
    let scaled: [f64; 3] = std::array::from_fn(|axis| {
        if axis < dimensions {
            let mode = effective_mode(texture.address_modes[axis], normalized);
            scale(at.position[axis], sampler.extent[axis], normalized, mode)
        } else {
            0.0
        }
    });
    if texture.filter == FilterMode::Point || !float {
        let index = scaled.map(|p| p.floor() as i64);
        return sampler.addressed(index, dimensions, at.layer).map(to_bits);
    }
    // Linear: the 2^dimensions texels around xB = x - 0.5 with weights α, β, γ.
    let base = scaled.map(|p| (p - 0.5).floor() as i64);
    let weights: [f64; 3] = std::array::from_fn(|axis| {
        let xb = scaled[axis] - 0.5;
        filter_weight(xb - xb.floor())
    });
    let mut sum = [0f64; 4];
    for corner in 0..(1usize << dimensions) {
        let mut index = base;
        let mut weight = 1.0;
        for axis in 0..dimensions {
            if corner >> axis & 1 == 1 {
                index[axis] += 1;
                weight *= weights[axis];
            } else {
                weight *= 1.0 - weights[axis];
            }
        }
        let texel = sampler.addressed(index, dimensions, at.layer)?;
        for (total, channel) in sum.iter_mut().zip(texel) {
            if let Channel::Float(value) = channel {
                *total += weight * value;
            }
        }
    }
    Ok(sum.map(|value| (value as f32).to_bits()))
}

fn is_cube(texture: &Texture) -> bool {
    matches!(&texture.resource, Resource::Array(array) if array.cubemap)
}

/// `tld4`: component `component` of the four texels of the bilinear footprint at `at` (2D),
/// "in counter-clockwise order starting at lower left": `(i, j+1)`, `(i+1, j+1)`, `(i+1, j)`,
/// `(i, j)` with `i = floor(x - 0.5)`, `j = floor(y - 0.5)`.
pub fn gather(
    texture: &Texture,
    at: Coordinates,
    component: usize,
    read: &Reader<'_>,
) -> Result<Texel, String> {
    let sampler = Sampler::new(texture, read);
    let normalized = texture.normalized_coordinates || at.layer.is_some() && is_cube(texture);
    let scaled: [f64; 2] = std::array::from_fn(|axis| {
        let mode = effective_mode(texture.address_modes[axis], normalized);
        scale(at.position[axis], sampler.extent[axis], normalized, mode)
    });
    let i = (scaled[0] - 0.5).floor() as i64;
    let j = (scaled[1] - 0.5).floor() as i64;
    let corners = [(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)];
    let mut out = [0u32; 4];
    for (slot, (x, y)) in out.iter_mut().zip(corners) {
        let texel = sampler.addressed([x, y, 0], 2, at.layer)?;
        *slot = to_bits(texel)[component.min(3)];
    }
    Ok(out)
}

/// The width, height and depth `txq` and `suq` report for an object: an array's own (a
/// layered array's depth is its layer count), a linear resource's width in texels and height
/// and depth 0.
pub fn dimensions(resource: &Resource) -> [u64; 3] {
    match resource {
        Resource::Array(array) => [array.width, array.height, array.depth],
        Resource::Linear { width, .. } => [*width, 0, 0],
        Resource::Pitch2d { width, height, .. } => [*width, *height, 0],
    }
}

/// Where a surface access lands: the byte offset in the array, or nothing (`.zero` out of
/// bounds), or a trap's message.
pub fn surface_offset(
    array: &CudaArray,
    geometry: ptxsim_isa::texture::Geometry,
    coordinates: &[u32],
    bytes: u64,
    clamp: ptxsim_isa::texture::SurfaceClamp,
) -> Result<Option<u64>, String> {
    use ptxsim_isa::texture::{Geometry, SurfaceClamp};
    let get = |i: usize| coordinates.get(i).map_or(0, |&c| i64::from(c as i32));
    // (x in bytes, y, z or layer)
    let (x, y, z) = match geometry {
        Geometry::D1 => (get(0), 0, 0),
        Geometry::D2 => (get(0), get(1), 0),
        Geometry::D3 => (get(0), get(1), get(2)),
        Geometry::A1d => (
            get(1),
            0,
            i64::from(coordinates.first().copied().unwrap_or(0)),
        ),
        Geometry::A2d => (
            get(1),
            get(2),
            i64::from(coordinates.first().copied().unwrap_or(0)),
        ),
        Geometry::Cube | Geometry::ACube => return Err("a cubemap surface geometry".into()),
    };
    let limits = [
        i64::try_from(array.row_bytes()).unwrap_or(i64::MAX) - i64::try_from(bytes).unwrap_or(0),
        i64::try_from(array.height.max(1)).unwrap_or(i64::MAX) - 1,
        i64::try_from(array.depth.max(1)).unwrap_or(i64::MAX) - 1,
    ];
    let inside = (0..=limits[0]).contains(&x)
        && (0..=limits[1]).contains(&y)
        && (0..=limits[2]).contains(&z);
    let (x, y, z) = if inside {
        (x, y, z)
    } else {
        match clamp {
            SurfaceClamp::Trap => {
                return Err(format!(
                    "out-of-bounds surface access: {bytes} bytes at x = {x} bytes, y = {y}, \
                     z/layer = {z} of a {}×{}×{} array of {}-byte texels (.trap)",
                    array.width,
                    array.height,
                    array.depth,
                    array.format.bytes()
                ));
            }
            SurfaceClamp::Zero => return Ok(None),
            SurfaceClamp::Clamp => {
                if limits[0] < 0 {
                    return Err(format!(
                        "a {bytes}-byte surface access is wider than a row of the array"
                    ));
                }
                let b = i64::try_from(bytes).unwrap_or(1).max(1);
                (
                    x.clamp(0, limits[0]) / b * b,
                    y.clamp(0, limits[1]),
                    z.clamp(0, limits[2]),
                )
            }
        }
    };
    if x % i64::try_from(bytes).unwrap_or(1).max(1) != 0 {
        return Err(format!(
            "misaligned surface access: {bytes} bytes at byte offset x = {x} (undefined in the \
             PTX ISA)"
        ));
    }
    let (x, y, z) = (x as u64, y as u64, z as u64);
    Ok(Some((z * array.height.max(1) + y) * array.row_bytes() + x))
}
