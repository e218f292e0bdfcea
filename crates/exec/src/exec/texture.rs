//! The texture and surface family: `tex`, `tld4`, `txq`, `suld.b`, `sust.b`, `sured.b`, `suq`
//! (PTX ISA 9.7.10, 9.7.11) on the launch's texture and surface objects
//! ([`crate::texture::TextureTable`]). Each lane reads its handle and coordinates, calls the
//! pure functions of [`crate::texture`] and writes its results; a handle the table does not
//! have, an object of the other kind, or a `.trap` surface access out of bounds traps that lane
//! with a located message.

use ptxsim_isa::Type;
use ptxsim_isa::texture::{
    Geometry, SurfaceForm, SurfaceQuery, SurfaceReduction, SurfaceReductionForm, TextureForm,
    TextureQuery,
};

use super::{Executor, Put};
use crate::ir::{Instruction, TextureInstruction, TextureOp};
use crate::texture::{
    self, AddressMode, Coordinates, CudaArray, FilterMode, Resource, Texture, TextureObject,
};

/// Little-endian bytes to a number (at most 8 bytes).
fn number(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = bytes.len().min(8);
    word[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(word)
}

impl Executor<'_, '_> {
    /// Runs a texture or surface instruction on every lane. The object is looked up once for
    /// a run of lanes with the same handle, and the destinations' rules decided once.
    pub(super) fn texture(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        op: &TextureInstruction,
    ) {
        let device = self.device;
        let table = device.textures.as_deref();
        let ty = result_type(&op.op);
        let puts: Vec<Option<Put>> = op
            .destinations
            .iter()
            .map(|destination| destination.map(|destination| Put::new(destination, ty)))
            .collect();
        let mut last: Option<(u64, Option<&TextureObject>)> = None;
        for &lane in lanes {
            let handle = self.read(lane, op.handle) as u64;
            let object = match last {
                Some((cached, object)) if cached == handle => object,
                _ => {
                    let object = table.and_then(|table| table.get(handle));
                    last = Some((handle, object));
                    object
                }
            };
            if let Err(message) = self.texture_lane(lane, op, handle, object, &puts) {
                let [x, y, z] = self.threads[lane].tid;
                let [bx, by, bz] = self.ctaid;
                let message = format!(
                    "{message} in `{}` (thread ({x},{y},{z}) of block ({bx},{by},{bz}))",
                    instruction.text
                );
                self.trap(lane, instruction, message);
            }
        }
    }

    fn texture_lane(
        &mut self,
        lane: usize,
        op: &TextureInstruction,
        handle: u64,
        object: Option<&TextureObject>,
        puts: &[Option<Put>],
    ) -> Result<(), String> {
        let mut coordinates = [0u32; 4];
        for (slot, &source) in coordinates.iter_mut().zip(&op.coordinates) {
            *slot = self.read(lane, source) as u32;
        }
        let mut sources = [0u64; 8];
        for (slot, &source) in sources.iter_mut().zip(&op.sources) {
            *slot = self.read(lane, source) as u64;
        }
        let results = texture_op(
            &op.op,
            object,
            &self.device.global,
            handle,
            &coordinates[..op.coordinates.len().min(4)],
            &sources[..op.sources.len().min(8)],
        )?;
        for (put, &value) in puts.iter().zip(&results.0[..results.1]) {
            if let Some(put) = put {
                self.put(lane, put, u128::from(value));
            }
        }
        Ok(())
    }
}

/// The type of a texture or surface instruction's results, which their destinations take by
/// Table 28.
pub(crate) fn result_type(op: &TextureOp) -> Type {
    match op {
        TextureOp::Tex(form) => form.dtype,
        TextureOp::Suld(form) => form.ty,
        _ => Type::B32,
    }
}

/// What a texture or surface instruction `op` does for one thread: the object `object` (the
/// launch table's for `handle`, `None` where it has none), at `coordinates` (each as its 32
/// bits), with `sources` (`sust`'s values, `sured`'s `c`); its results (the first `n` of the
/// four, as many as the instruction has destinations), or the message of its trap. The
/// interpreter's `tex`, `tld4`, `txq`, `suld`, `sust`, `sured` and `suq` for one lane, and the
/// compiled tier's ([`crate::compiled`]).
pub(crate) fn texture_op(
    op: &TextureOp,
    object: Option<&TextureObject>,
    global: &crate::memory::GlobalMemory,
    handle: u64,
    coordinates: &[u32],
    sources: &[u64],
) -> Result<([u64; 4], usize), String> {
    let object =
        object.ok_or_else(|| format!("no texture or surface object has handle {handle:#x}"))?;
    let one = |value: u32| ([u64::from(value), 0, 0, 0], 1);
    Ok(match (op, object) {
        (TextureOp::Tex(form), TextureObject::Texture(texture)) => (
            sample(*form, texture, coordinates, global)?.map(u64::from),
            4,
        ),
        (TextureOp::Txq { query, .. }, TextureObject::Texture(texture)) => {
            one(texture_query(*query, texture))
        }
        (TextureOp::Suld(form), TextureObject::Surface(array)) => {
            let values = surface_load(*form, array, coordinates)?;
            let mut results = [0; 4];
            for (slot, value) in results.iter_mut().zip(&values) {
                *slot = *value;
            }
            (results, values.len().min(4))
        }
        (TextureOp::Sust(form), TextureObject::Surface(array)) => {
            surface_store(*form, array, coordinates, sources)?;
            ([0; 4], 0)
        }
        (TextureOp::Sured(form), TextureObject::Surface(array)) => {
            let value = sources.first().copied().unwrap_or(0);
            surface_reduce(*form, array, coordinates, value)?;
            ([0; 4], 0)
        }
        (TextureOp::Suq(query), TextureObject::Surface(array)) => one(surface_query(*query, array)),
        (TextureOp::Tex(_) | TextureOp::Txq { .. }, TextureObject::Surface(_)) => {
            return Err(format!(
                "handle {handle:#x} is a surface object, not a texture object"
            ));
        }
        (_, TextureObject::Texture(_)) => {
            return Err(format!(
                "handle {handle:#x} is a texture object, not a surface object"
            ));
        }
    })
}

/// `tex` / `tld4` for one lane.
fn sample(
    form: TextureForm,
    texture: &Texture,
    c: &[u32],
    global: &crate::memory::GlobalMemory,
) -> Result<[u32; 4], String> {
    let integer = form.ctype == Type::S32;
    let value = |i: usize| {
        let bits = c.get(i).copied().unwrap_or(0);
        if integer {
            f64::from(bits as i32)
        } else {
            f64::from(f32::from_bits(bits))
        }
    };
    let at = match form.geometry {
        Geometry::D1 => coordinates([value(0), 0.0, 0.0], 1, None, integer),
        Geometry::D2 => coordinates([value(0), value(1), 0.0], 2, None, integer),
        Geometry::D3 => coordinates([value(0), value(1), value(2)], 3, None, integer),
        Geometry::A1d => coordinates([value(1), 0.0, 0.0], 1, Some(layer(c)), integer),
        Geometry::A2d => coordinates([value(1), value(2), 0.0], 2, Some(layer(c)), integer),
        Geometry::Cube => {
            let (face, s, t) = texture::cube_face(value(0), value(1), value(2));
            coordinates([s, t, 0.0], 2, Some(face), false)
        }
        Geometry::ACube => {
            let (face, s, t) = texture::cube_face(value(1), value(2), value(3));
            coordinates([s, t, 0.0], 2, Some(layer(c) * 6 + face), false)
        }
    };
    let fetch = |read: &texture::Reader<'_>| match form.gather {
        Some(component) => texture::gather(texture, at, component.index(), read),
        None => texture::fetch(texture, at, read),
    };
    match &texture.resource {
        // The array's bytes are locked once for the whole fetch, not per read.
        Resource::Array(array) => array.read(|data| {
            fetch(&|offset: u64, bytes: u64| {
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(bytes as usize);
                data.get(start..end)
                    .map(number)
                    .ok_or_else(|| format!("texel at byte {offset} outside the array"))
            })
        }),
        Resource::Linear { address, .. } | Resource::Pitch2d { address, .. } => {
            fetch(&|offset: u64, bytes: u64| {
                let at = address.wrapping_add(offset);
                global.load(at, bytes as u32).map_err(|kind| {
                    format!("{kind:?} reading {bytes} bytes of texture memory at {at:#x}")
                })
            })
        }
    }
}

fn coordinates(
    position: [f64; 3],
    dimensions: usize,
    layer: Option<u64>,
    integer: bool,
) -> Coordinates {
    Coordinates {
        position,
        dimensions,
        layer,
        integer,
    }
}

/// The array index of a layered geometry: "the first element is interpreted as an unsigned
/// integer index (.u32)".
fn layer(c: &[u32]) -> u64 {
    u64::from(c.first().copied().unwrap_or(0))
}

/// `txq`'s answer (9.7.10.5): sizes from the resource, the sampler's settings as their
/// `CUaddress_mode` / `CUfilter_mode` values, the channel type as its `CUarray_format` and
/// the channel order as the channel count.
fn texture_query(query: TextureQuery, texture: &Texture) -> u32 {
    let [width, height, depth] = texture::dimensions(&texture.resource);
    let (layers, depth) = match &texture.resource {
        Resource::Array(array) if array.layered => (array.depth, 0),
        _ => (0, depth),
    };
    let value = match query {
        TextureQuery::Width => width,
        TextureQuery::Height => height,
        TextureQuery::Depth => depth,
        TextureQuery::ChannelDataType => u64::from(texture.resource.format().ty.code()),
        TextureQuery::ChannelOrder => u64::from(texture.resource.format().channels),
        TextureQuery::NormalizedCoords => u64::from(texture.normalized_coordinates),
        TextureQuery::ArraySize => layers,
        TextureQuery::NumMipmapLevels => 1,
        TextureQuery::NumSamples => 0,
        TextureQuery::ForceUnnormalizedCoords => u64::from(!texture.normalized_coordinates),
        TextureQuery::FilterMode => u64::from(texture.filter == FilterMode::Linear),
        TextureQuery::AddressMode(axis) => u64::from(
            texture
                .address_modes
                .get(usize::from(axis))
                .map_or(AddressMode::Wrap.code(), |mode| mode.code()),
        ),
    };
    value as u32
}

/// `suq`'s answer (9.7.11.4), in elements as `txq`'s.
fn surface_query(query: SurfaceQuery, array: &CudaArray) -> u32 {
    let layered = array.layered;
    let value = match query {
        SurfaceQuery::Width => array.width,
        SurfaceQuery::Height => array.height,
        SurfaceQuery::Depth if layered => 0,
        SurfaceQuery::Depth => array.depth,
        SurfaceQuery::ArraySize if layered => array.depth,
        SurfaceQuery::ArraySize => 0,
        SurfaceQuery::ChannelDataType => u64::from(array.format.ty.code()),
        SurfaceQuery::ChannelOrder => u64::from(array.format.channels),
        SurfaceQuery::MemoryLayout => 0,
    };
    value as u32
}

fn element_bytes(ty: Type) -> u64 {
    u64::from(ty.bits() / 8).max(1)
}

/// `suld.b` (9.7.11.1): "the lowest dimension coordinate represents a byte offset into the
/// surface and is not scaled, and the size of the data transfer matches the size of
/// destination operand d"; `.zero` out of bounds loads zeros.
fn surface_load(form: SurfaceForm, array: &CudaArray, c: &[u32]) -> Result<Vec<u64>, String> {
    let size = element_bytes(form.ty);
    let count = u64::from(form.vector);
    let Some(offset) = texture::surface_offset(array, form.geometry, c, size * count, form.clamp)?
    else {
        return Ok(vec![0; usize::from(form.vector)]);
    };
    array.read(|data| {
        (0..count)
            .map(|k| {
                let start = (offset + k * size) as usize;
                data.get(start..start + size as usize)
                    .map(number)
                    .ok_or_else(|| "surface access outside the array".to_string())
            })
            .collect()
    })
}

/// `sust.b` (9.7.11.2): the values at the byte offset; `.zero` out of bounds drops them.
fn surface_store(
    form: SurfaceForm,
    array: &CudaArray,
    c: &[u32],
    values: &[u64],
) -> Result<(), String> {
    let size = element_bytes(form.ty);
    let count = u64::from(form.vector);
    let Some(offset) = texture::surface_offset(array, form.geometry, c, size * count, form.clamp)?
    else {
        return Ok(());
    };
    array.write(|data| {
        for (k, value) in values.iter().enumerate() {
            let start = (offset + k as u64 * size) as usize;
            let bytes = value.to_le_bytes();
            let slot = data
                .get_mut(start..start + size as usize)
                .ok_or_else(|| "surface access outside the array".to_string())?;
            slot.copy_from_slice(&bytes[..size as usize]);
        }
        Ok(())
    })
}

/// `sured.b` (9.7.11.3): "reduction to surface memory ... `.add`, `.min`, `.max`, `.and`,
/// `.or`" on the value at the byte offset, signed for `.s32`/`.s64`.
fn surface_reduce(
    form: SurfaceReductionForm,
    array: &CudaArray,
    c: &[u32],
    value: u64,
) -> Result<(), String> {
    let size = element_bytes(form.ty);
    let Some(offset) = texture::surface_offset(array, form.geometry, c, size, form.clamp)? else {
        return Ok(());
    };
    let bits = size * 8;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let signed = matches!(form.ty, Type::S32 | Type::S64);
    let extend = |v: u64| -> i64 {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    };
    array.write(|data| {
        let start = offset as usize;
        let slot = data
            .get_mut(start..start + size as usize)
            .ok_or_else(|| "surface access outside the array".to_string())?;
        let old = number(slot);
        let (a, b) = (old & mask, value & mask);
        let new = match form.op {
            SurfaceReduction::Add => a.wrapping_add(b),
            SurfaceReduction::And => a & b,
            SurfaceReduction::Or => a | b,
            SurfaceReduction::Min if signed => extend(a).min(extend(b)) as u64,
            SurfaceReduction::Max if signed => extend(a).max(extend(b)) as u64,
            SurfaceReduction::Min => a.min(b),
            SurfaceReduction::Max => a.max(b),
        };
        slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
        Ok(())
    })
}
