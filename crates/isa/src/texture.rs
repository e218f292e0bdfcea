//! The texture and surface instructions (PTX ISA 9.7.10 "Texture Instructions" and 9.7.11
//! "Surface Instructions"): `tex`, `tld4`, `txq`, `suld.b`, `sust.b`, `sured.b` and `suq`,
//! their modifiers decoded into typed forms (the syntax blocks of `tex.md`, `tld4.md`,
//! `txq.md`, `suld.md`, `sust.md`, `sured.md`, `suq.md`).
//!
//! ptxsim runs the *unified* texturing mode with texture and surface objects (the handle is a
//! `.u64` register, as nvcc emits for `cudaTextureObject_t` / `cudaSurfaceObject_t`); an
//! explicit sampler operand, the offset and depth-compare operands, the multi-sample
//! geometries and the formatted surface forms (`sust.p`, `sured.p`) are rejected here.

use crate::form::{DecodeError, DecodeErrorKind};
use crate::opcode::Opcode;
use crate::types::{Type, TypeKind};

/// A texture or surface geometry (`.geom`, 9.7.10.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// `.1d`: one coordinate.
    D1,
    /// `.2d`: two coordinates.
    D2,
    /// `.3d`: four coordinates, the fourth ignored.
    D3,
    /// `.a1d`: a layer index and one coordinate.
    A1d,
    /// `.a2d`: a layer index, two coordinates and an ignored fourth element.
    A2d,
    /// `.cube`: a direction `(s, t, r)` and an ignored fourth element.
    Cube,
    /// `.acube`: a cubemap index and a direction `(s, t, r)`.
    ACube,
}

impl Geometry {
    fn parse(name: &str) -> Option<Geometry> {
        Some(match name {
            "1d" => Geometry::D1,
            "2d" => Geometry::D2,
            "3d" => Geometry::D3,
            "a1d" => Geometry::A1d,
            "a2d" => Geometry::A2d,
            "cube" => Geometry::Cube,
            "acube" => Geometry::ACube,
            _ => return None,
        })
    }

    /// The number of elements of the coordinate vector: "a scalar or singleton tuple for 1d
    /// textures; ... a two-element vector for 2d textures; and ... a four-element vector for 3d
    /// textures, where the fourth element is ignored"; `.a1d` two, `.a2d`, `.cube` and
    /// `.acube` four.
    pub const fn coordinates(self) -> usize {
        match self {
            Geometry::D1 => 1,
            Geometry::D2 | Geometry::A1d => 2,
            Geometry::D3 | Geometry::A2d | Geometry::Cube | Geometry::ACube => 4,
        }
    }

    /// The number of elements of a gradient vector of `tex.grad` (the coordinates without the
    /// layer index, a 3d vector padded to four).
    pub const fn gradients(self) -> usize {
        match self {
            Geometry::D1 | Geometry::A1d => 1,
            Geometry::D2 | Geometry::A2d => 2,
            Geometry::D3 | Geometry::Cube | Geometry::ACube => 4,
        }
    }

    /// Whether the first coordinate is a layer (array) index.
    pub const fn is_layered(self) -> bool {
        matches!(self, Geometry::A1d | Geometry::A2d | Geometry::ACube)
    }
}

/// The mipmap variant of `tex` (9.7.10.3, "mipmaps").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mipmap {
    /// No modifier (or `.base`): level 0.
    Base,
    /// `.level`: an explicit level of detail operand `lod`.
    Level,
    /// `.grad`: the level of detail from the gradients `dPdx`, `dPdy`.
    Grad,
}

/// The component `tld4` gathers (`.comp`, 9.7.10.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    /// `.r`.
    R,
    /// `.g`.
    G,
    /// `.b`.
    B,
    /// `.a`.
    A,
}

impl Component {
    fn parse(name: &str) -> Option<Component> {
        Some(match name {
            "r" => Component::R,
            "g" => Component::G,
            "b" => Component::B,
            "a" => Component::A,
            _ => return None,
        })
    }

    /// The channel index (0 for `.r` ... 3 for `.a`).
    pub const fn index(self) -> usize {
        match self {
            Component::R => 0,
            Component::G => 1,
            Component::B => 2,
            Component::A => 3,
        }
    }
}

/// A decoded `tex` or `tld4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureForm {
    /// The geometry.
    pub geometry: Geometry,
    /// The mipmap variant (`tld4`: [`Mipmap::Base`]).
    pub mipmap: Mipmap,
    /// `.dtype`: `.u32`, `.s32`, `.f32` (four results).
    pub dtype: Type,
    /// `.ctype`: `.s32` or `.f32` coordinates (`tld4`: `.f32`).
    pub ctype: Type,
    /// `tld4`'s `.comp`; `None` for `tex`.
    pub gather: Option<Component>,
}

/// What `txq` asks (`.tquery`, `.squery`, 9.7.10.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureQuery {
    /// `.width`.
    Width,
    /// `.height`.
    Height,
    /// `.depth`.
    Depth,
    /// `.channel_data_type`.
    ChannelDataType,
    /// `.channel_order`.
    ChannelOrder,
    /// `.normalized_coords`.
    NormalizedCoords,
    /// `.array_size`.
    ArraySize,
    /// `.num_mipmap_levels`.
    NumMipmapLevels,
    /// `.num_samples`.
    NumSamples,
    /// `.force_unnormalized_coords`.
    ForceUnnormalizedCoords,
    /// `.filter_mode`.
    FilterMode,
    /// `.addr_mode_0`, `.addr_mode_1`, `.addr_mode_2`.
    AddressMode(u8),
}

impl TextureQuery {
    fn parse(name: &str) -> Option<TextureQuery> {
        Some(match name {
            "width" => TextureQuery::Width,
            "height" => TextureQuery::Height,
            "depth" => TextureQuery::Depth,
            "channel_data_type" => TextureQuery::ChannelDataType,
            "channel_order" => TextureQuery::ChannelOrder,
            "normalized_coords" => TextureQuery::NormalizedCoords,
            "array_size" => TextureQuery::ArraySize,
            "num_mipmap_levels" => TextureQuery::NumMipmapLevels,
            "num_samples" => TextureQuery::NumSamples,
            "force_unnormalized_coords" => TextureQuery::ForceUnnormalizedCoords,
            "filter_mode" => TextureQuery::FilterMode,
            "addr_mode_0" => TextureQuery::AddressMode(0),
            "addr_mode_1" => TextureQuery::AddressMode(1),
            "addr_mode_2" => TextureQuery::AddressMode(2),
            _ => return None,
        })
    }
}

/// How a surface instruction treats out-of-bounds coordinates (`.clamp`, 9.7.11.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SurfaceClamp {
    /// `.trap`: an out-of-bounds access is an execution trap.
    Trap,
    /// `.clamp`: the coordinates are clamped to the surface.
    Clamp,
    /// `.zero`: a load returns zero, a store is dropped.
    Zero,
}

/// A decoded `suld.b` or `sust.b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurfaceForm {
    /// The geometry (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`).
    pub geometry: Geometry,
    /// The number of elements (no `.vec`: 1, `.v2`, `.v4`).
    pub vector: u8,
    /// `.b8`, `.b16`, `.b32`, `.b64`.
    pub ty: Type,
    /// The out-of-bounds behaviour.
    pub clamp: SurfaceClamp,
}

/// The operation of `sured.b` (9.7.11.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SurfaceReduction {
    /// `.add`.
    Add,
    /// `.min`.
    Min,
    /// `.max`.
    Max,
    /// `.and`.
    And,
    /// `.or`.
    Or,
}

/// A decoded `sured.b` or `sured.p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurfaceReductionForm {
    /// `sured.p` (sample addressing) rather than `sured.b` (byte addressing).
    pub sample: bool,
    /// The operation.
    pub op: SurfaceReduction,
    /// The geometry (`.1d`, `.2d`, `.3d`).
    pub geometry: Geometry,
    /// `.u32`, `.u64`, `.s32`, `.b32`, `.s64` (`sured.b`); `.b32`, `.b64` (`sured.p`).
    pub ty: Type,
    /// The out-of-bounds behaviour.
    pub clamp: SurfaceClamp,
}

/// What `suq` asks (`.query`, 9.7.11.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SurfaceQuery {
    /// `.width`.
    Width,
    /// `.height`.
    Height,
    /// `.depth`.
    Depth,
    /// `.channel_data_type`.
    ChannelDataType,
    /// `.channel_order`.
    ChannelOrder,
    /// `.array_size`.
    ArraySize,
    /// `.memory_layout`.
    MemoryLayout,
}

fn unknown(index: usize, rule: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::UnknownModifier, Some(index), rule)
}

fn missing(rule: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::MissingType, None, rule)
}

/// A form of the Syntax block that ptxsim checks by its opcode only and does not run: the
/// multi-sample geometries `.2dms`/`.a2dms`, the `.f16` and `.v2.f16x2` results of `tex`
/// (9.7.10.3), and the formatted `sust.p` (9.7.11.2). `check` takes them (as ptxas 13.5 does);
/// `run` stops at them with "unsupported instruction".
fn not_run(opcode: Opcode) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::UnsupportedInstruction(opcode),
        None,
        "a form ptxsim checks by name only and does not run",
    )
}

/// Takes modifiers in order: each `step` either consumes the modifier at the cursor or not.
struct Cursor<'a> {
    modifiers: &'a [&'a str],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.modifiers.get(self.at).copied()
    }

    /// The next modifier parsed by `parse`, if it parses.
    fn take<T>(&mut self, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
        let value = parse(self.peek()?)?;
        self.at += 1;
        Some(value)
    }

    /// The next modifier parsed by `parse`, or the error `what` is missing or wrong.
    fn expect<T>(
        &mut self,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, DecodeError> {
        match self.peek() {
            None => Err(missing(format!("{what} is missing"))),
            Some(m) => self
                .take(parse)
                .ok_or_else(|| unknown(self.at, format!("`.{m}` is not {what}"))),
        }
    }

    fn finish(&self, opcode: &str) -> Result<(), DecodeError> {
        match self.peek() {
            None => Ok(()),
            Some(m) => Err(unknown(
                self.at,
                format!("`.{m}` is not a modifier of {opcode} here (or ptxsim does not run it)"),
            )),
        }
    }
}

fn type_of(allowed: &'static [Type]) -> impl Fn(&str) -> Option<Type> {
    move |name| Type::from_name(name).filter(|ty| allowed.contains(ty))
}

fn clamp_mode(name: &str) -> Option<SurfaceClamp> {
    Some(match name {
        "trap" => SurfaceClamp::Trap,
        "clamp" => SurfaceClamp::Clamp,
        "zero" => SurfaceClamp::Zero,
        _ => return None,
    })
}

/// The words of `tex` after its mipmap mode and of `tld4` after nothing: the geometry, `.v4`,
/// the component (`tld4`) and the two types. ptxas 13.5 takes the first three in any order
/// (`tex.f32.1d.v4.s32`, `tld4.2d.r.v4.f32.f32`; a `.v4` after a type only draws the warning
/// "Vector Type not specified properly") and the types in order, the destination's first; a
/// repeat is an error ("Multiple dimension modifiers specified", "Multiple vector modifiers
/// specified"), and so is a missing `.v4` ("Instruction 'tex.f32' requires .v4 type").
struct Unordered {
    geometry: Option<Geometry>,
    component: Option<Component>,
    types: Vec<(usize, Type)>,
}

fn unordered(
    modifiers: &[&str],
    start: usize,
    components: bool,
    opcode: &str,
) -> Result<Unordered, DecodeError> {
    let mut out = Unordered {
        geometry: None,
        component: None,
        types: Vec::new(),
    };
    let mut vector = false;
    for (index, &m) in modifiers.iter().enumerate().skip(start) {
        let component = components.then(|| Component::parse(m)).flatten();
        if let Some(geometry) = Geometry::parse(m) {
            if out.geometry.replace(geometry).is_some() {
                return Err(unknown(index, "a texture geometry is given twice"));
            }
        } else if let Some(component) = component {
            if out.component.replace(component).is_some() {
                return Err(unknown(index, "a component is given twice"));
            }
        } else if m == "v4" {
            if vector {
                return Err(unknown(index, "`.v4` is given twice"));
            }
            vector = true;
        } else if let Some(ty) = Type::from_name(m) {
            out.types.push((index, ty));
        } else {
            return Err(unknown(
                index,
                format!("`.{m}` is not a modifier of {opcode} here (or ptxsim does not run it)"),
            ));
        }
    }
    if !vector {
        return Err(missing(format!("{opcode} needs `.v4`")));
    }
    Ok(out)
}

/// The destination and coordinate types of `tex`/`tld4` ([`unordered`]'s `types`).
fn two_types(
    types: &[(usize, Type)],
    dtypes: &'static [Type],
    ctypes: &'static [Type],
) -> Result<(Type, Type, usize), DecodeError> {
    match *types {
        [] => Err(missing("a destination type (.u32, .s32, .f32) is missing")),
        [_] => Err(missing("a coordinate type is missing")),
        [(d_index, d), (c_index, c)] => {
            if !dtypes.contains(&d) {
                return Err(unknown(
                    d_index,
                    format!("`.{d}` is not a destination type (.u32, .s32, .f32)"),
                ));
            }
            if !ctypes.contains(&c) {
                return Err(unknown(c_index, format!("`.{c}` is not a coordinate type")));
            }
            Ok((d, c, c_index))
        }
        [_, _, (index, ty), ..] => Err(unknown(index, format!("`.{ty}` is a third type"))),
    }
}

/// `tex{.base,.level,.grad}.geom.v4.dtype.ctype` (9.7.10.3), the mipmap mode first and the
/// rest in any order ([`unordered`]). The `.v2.f16x2` results and the multi-sample geometries
/// are not run.
pub fn decode_tex(modifiers: &[&str]) -> Result<TextureForm, DecodeError> {
    if modifiers
        .iter()
        .any(|m| matches!(*m, "2dms" | "a2dms" | "f16" | "f16x2" | "v2"))
    {
        // Their modifiers are checked here, their operands not (D37): "tex.geom.v2.f16x2"
        // only (ptxas 13.5: "Instruction 'tex.f16x2' requires .v2 type", "Instruction
        // 'tex.f32' requires .v4 type"), and ".2dms, .a2dms require .s32" coordinates.
        // The words themselves, as ptxas 13.5 counts them ("Multiple dimension modifiers
        // specified", "Multiple vector modifiers specified", "Illegal vector size: 8",
        // "Unknown modifier '.x'", "Unexpected instruction types specified for 'tex'" for a
        // third type; tests/conformance/operand-vectors.tsv).
        // [geometry, vector, types] and how many of each a form has.
        let mut counts = [0usize; 3];
        for (index, &m) in modifiers.iter().enumerate() {
            let group = match m {
                "base" | "level" | "grad" if index == 0 => continue,
                "1d" | "2d" | "3d" | "a1d" | "a2d" | "cube" | "acube" | "2dms" | "a2dms" => 0,
                "v2" | "v4" => 1,
                "u32" | "s32" | "f32" | "f16" | "f16x2" => 2,
                _ => {
                    return Err(unknown(
                        index,
                        format!("`.{m}` is not a modifier of tex here"),
                    ));
                }
            };
            counts[group] += 1;
            if counts[group] > [1, 1, 2][group] {
                return Err(unknown(index, format!("`.{m}`'s group is given twice")));
            }
        }
        if counts != [1, 1, 2] {
            return Err(missing(
                "tex needs a geometry, `.v4` (`.v2` for `.f16x2`) and two types",
            ));
        }
        let has = |word: &str| modifiers.contains(&word);
        let position = |word: &str| modifiers.iter().position(|m| *m == word);
        if has("v2") != has("f16x2") {
            let index = position("v2").or(position("f16x2")).unwrap_or(0);
            return Err(unknown(
                index,
                "`.v2` goes with `.f16x2` results, and only with them",
            ));
        }
        if (has("2dms") || has("a2dms")) && modifiers.last() != Some(&"s32") {
            return Err(unknown(
                modifiers.len().saturating_sub(1),
                "`.2dms` and `.a2dms` require `.s32` coordinates",
            ));
        }
        return Err(not_run(Opcode::Tex));
    }
    let mipmap = match modifiers.first() {
        Some(&"base") => Some(Mipmap::Base),
        Some(&"level") => Some(Mipmap::Level),
        Some(&"grad") => Some(Mipmap::Grad),
        _ => None,
    };
    let words = unordered(modifiers, usize::from(mipmap.is_some()), false, "tex")?;
    let geometry = words.geometry.ok_or_else(|| {
        missing("a texture geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube) is missing")
    })?;
    let (dtype, ctype, ctype_index) = two_types(
        &words.types,
        &[Type::U32, Type::S32, Type::F32],
        &[Type::S32, Type::F32],
    )?;
    if matches!(geometry, Geometry::Cube | Geometry::ACube) && ctype != Type::F32 {
        return Err(unknown(
            ctype_index,
            "`.cube` and `.acube` require `.f32` coordinates",
        ));
    }
    Ok(TextureForm {
        geometry,
        mipmap: mipmap.unwrap_or(Mipmap::Base),
        dtype,
        ctype,
        gather: None,
    })
}

/// `tld4.comp.geom.v4.dtype.f32` (9.7.10.4), in any order ([`unordered`]).
pub fn decode_tld4(modifiers: &[&str]) -> Result<TextureForm, DecodeError> {
    let words = unordered(modifiers, 0, true, "tld4")?;
    let component = words
        .component
        .ok_or_else(|| missing("a component (.r, .g, .b, .a) is missing"))?;
    let geometry = words
        .geometry
        .filter(|g| {
            matches!(
                g,
                Geometry::D2 | Geometry::A2d | Geometry::Cube | Geometry::ACube
            )
        })
        .ok_or_else(|| missing("a tld4 geometry (.2d, .a2d, .cube, .acube) is missing"))?;
    let (dtype, _, _) = two_types(
        &words.types,
        &[Type::U32, Type::S32, Type::F32],
        &[Type::F32],
    )?;
    Ok(TextureForm {
        geometry,
        mipmap: Mipmap::Base,
        dtype,
        ctype: Type::F32,
        gather: Some(component),
    })
}

/// `txq{.level}.query.b32` (9.7.10.5): the query and whether `.level` is given. `.level`
/// comes first (ptxas 13.5: "Unknown modifier '.level'" elsewhere); the query and `.b32` in
/// either order (ptxas 13.5 accepts `txq.b32.width`).
pub fn decode_txq(modifiers: &[&str]) -> Result<(TextureQuery, bool), DecodeError> {
    let level = modifiers.first() == Some(&"level");
    let rest = &modifiers[usize::from(level)..];
    let (query, query_index) = query_and_b32(rest, "a texture or sampler query", |m| {
        TextureQuery::parse(m)
    })
    .map_err(|mut e| {
        e.modifier = e.modifier.map(|i| i + usize::from(level));
        e
    })?;
    if level
        && !matches!(
            query,
            TextureQuery::Width | TextureQuery::Height | TextureQuery::Depth
        )
    {
        return Err(unknown(
            query_index + 1,
            "`txq.level` takes `.width`, `.height` or `.depth` only",
        ));
    }
    Ok((query, level))
}

/// A query and `.b32`, in either order (`txq`, `suq`), with the index of the query.
fn query_and_b32<T>(
    modifiers: &[&str],
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<(T, usize), DecodeError> {
    let mut query: Option<(T, usize)> = None;
    let mut b32 = false;
    for (index, &m) in modifiers.iter().enumerate() {
        if m == "b32" && !b32 {
            b32 = true;
        } else if let Some(q) = parse(m).filter(|_| query.is_none()) {
            query = Some((q, index));
        } else {
            return Err(unknown(index, format!("`.{m}` is not {what} or `.b32`")));
        }
    }
    let Some(query) = query else {
        return Err(missing(format!("{what} is missing")));
    };
    if !b32 {
        return Err(missing("`.b32` is missing"));
    }
    Ok(query)
}

fn surface_geometry(m: &str) -> Option<Geometry> {
    Geometry::parse(m).filter(|g| !matches!(g, Geometry::Cube | Geometry::ACube))
}

/// The words of `sust.p.{1d,2d,3d}.vec.b32.clamp` (9.7.11.2; "sust.p ... a vector of 32-bit
/// data values"), which ptxsim checks and does not run: ptxas 13.5 takes them in any order
/// (`sust.p.v4.1d.b32.trap`), `.a1d`/`.a2d` and a cache operation too, and wants one
/// geometry ("Geometry modifier required for instruction 'sust.p'", "Multiple dimension
/// modifiers specified"), `.b32` alone ("Unexpected instruction types specified"), one clamp
/// mode ("Clamp modifier required"), `.v2`/`.v4` at most, and nothing else ("Unknown modifier
/// '.none'"); tests/conformance/operand-vectors.tsv.
fn formatted_store(modifiers: &[&str]) -> Result<(), DecodeError> {
    let (mut geometry, mut cache, mut vector, mut ty, mut clamp) = (0, 0, 0, 0, 0);
    for (index, &m) in modifiers.iter().enumerate().skip(1) {
        let count = match m {
            "1d" | "2d" | "3d" | "a1d" | "a2d" => &mut geometry,
            "wb" | "cg" | "cs" | "wt" => &mut cache,
            "v2" | "v4" => &mut vector,
            "b32" => &mut ty,
            "trap" | "clamp" | "zero" => &mut clamp,
            _ if Type::from_name(m).is_some() => {
                return Err(unknown(index, "sust.p stores `.b32` values"));
            }
            _ => {
                return Err(unknown(
                    index,
                    format!("`.{m}` is not a modifier of sust.p"),
                ));
            }
        };
        *count += 1;
        if *count > 1 {
            return Err(unknown(index, format!("`.{m}`'s group is given twice")));
        }
    }
    if geometry == 0 {
        return Err(missing(
            "sust.p needs a geometry (.1d, .2d, .3d, .a1d, .a2d)",
        ));
    }
    if ty == 0 {
        return Err(missing("sust.p needs `.b32`"));
    }
    if clamp == 0 {
        return Err(missing(
            "sust.p needs an out-of-bounds mode (.trap, .clamp, .zero)",
        ));
    }
    Ok(())
}

/// `suld.b.geom{.cop}.vec.dtype.clamp` (9.7.11.1) and `sust.b.geom{.cop}.vec.ctype.clamp`
/// (9.7.11.2); `store` chooses the cache operations of `sust`.
pub fn decode_surface(modifiers: &[&str], store: bool) -> Result<SurfaceForm, DecodeError> {
    let name = if store { "sust" } else { "suld" };
    if store && modifiers.first() == Some(&"p") {
        formatted_store(modifiers)?;
        return Err(not_run(Opcode::Sust));
    }
    let mut c = Cursor { modifiers, at: 0 };
    c.expect("`.b` (ptxsim runs the unformatted forms only)", |m| {
        (m == "b").then_some(())
    })?;
    let geometry = c.expect(
        "a surface geometry (.1d, .2d, .3d, .a1d, .a2d)",
        surface_geometry,
    )?;
    let caches: &[&str] = if store {
        &["wb", "cg", "cs", "wt"]
    } else {
        &["ca", "cg", "cs", "cv"]
    };
    c.take(|m| caches.contains(&m).then_some(()));
    let vector = c
        .take(|m| match m {
            "v2" => Some(2),
            "v4" => Some(4),
            _ => None,
        })
        .unwrap_or(1);
    let ty_index = c.at;
    let ty = c.expect(
        "a type (.b8, .b16, .b32, .b64)",
        type_of(&[Type::B8, Type::B16, Type::B32, Type::B64]),
    )?;
    if vector == 4 && ty == Type::B64 {
        return Err(unknown(
            ty_index,
            format!("`{name}.v4.b64` exceeds 128 bits"),
        ));
    }
    let clamp = c.expect("the out-of-bounds mode (.trap, .clamp, .zero)", clamp_mode)?;
    c.finish(name)?;
    Ok(SurfaceForm {
        geometry,
        vector,
        ty,
        clamp,
    })
}

/// `sured.b.op.geom.ctype.clamp` and `sured.p.op.geom.ctype.clamp` (9.7.11.3). `.b`/`.p`
/// comes first, the other modifiers in any order (ptxas 13.5 accepts `sured.b.add.u32.1d.trap`
/// and `sured.b.add.1d.trap.u32`). The types by operation, as the text gives them and ptxas
/// 13.5 enforces them ("Incorrect type '.b32' for operation '.add' in instruction 'sured.b'"):
/// "Operation add applies to .u32, .u64, and .s32 types; min and max apply to .u32, .s32, .u64
/// and .s64 types; operations and and or apply to .b32 type"; `sured.p` takes `.b32` and
/// `.b64` ("The instruction type .b64 is restricted to min and max operations").
pub fn decode_sured(modifiers: &[&str]) -> Result<SurfaceReductionForm, DecodeError> {
    let sample = match modifiers.first() {
        Some(&"b") => false,
        Some(&"p") => true,
        Some(m) => {
            return Err(unknown(
                0,
                format!("`.{m}` is not the addressing (.b or .p), which comes first"),
            ));
        }
        None => return Err(missing("the addressing (.b or .p) is missing")),
    };
    let mut op: Option<SurfaceReduction> = None;
    let mut geometry: Option<Geometry> = None;
    let mut ty: Option<(Type, usize)> = None;
    let mut clamp: Option<SurfaceClamp> = None;
    for (index, &m) in modifiers.iter().enumerate().skip(1) {
        let parsed_op = match m {
            "add" => Some(SurfaceReduction::Add),
            "min" => Some(SurfaceReduction::Min),
            "max" => Some(SurfaceReduction::Max),
            "and" => Some(SurfaceReduction::And),
            "or" => Some(SurfaceReduction::Or),
            _ => None,
        };
        let parsed_geometry =
            Geometry::parse(m).filter(|g| matches!(g, Geometry::D1 | Geometry::D2 | Geometry::D3));
        let parsed_type = Type::from_name(m).filter(|t| {
            if sample {
                matches!(t, Type::B32 | Type::B64)
            } else {
                matches!(t, Type::U32 | Type::U64 | Type::S32 | Type::B32 | Type::S64)
            }
        });
        let placed = match (parsed_op, parsed_geometry, parsed_type, clamp_mode(m)) {
            (Some(v), ..) if op.is_none() => op.replace(v).is_none(),
            (_, Some(v), ..) if geometry.is_none() => geometry.replace(v).is_none(),
            (_, _, Some(v), _) if ty.is_none() => ty.replace((v, index)).is_none(),
            (.., Some(v)) if clamp.is_none() => clamp.replace(v).is_none(),
            _ => false,
        };
        if !placed {
            return Err(unknown(
                index,
                format!("`.{m}` is not a modifier of sured.{} here", modifiers[0]),
            ));
        }
    }
    let op = op.ok_or_else(|| missing("an operation (.add, .min, .max, .and, .or) is missing"))?;
    let geometry = geometry.ok_or_else(|| missing("a geometry (.1d, .2d, .3d) is missing"))?;
    let (ty, ty_index) = ty.ok_or_else(|| {
        missing(if sample {
            "a type (.b32, .b64) is missing"
        } else {
            "a type (.u32, .u64, .s32, .b32, .s64) is missing"
        })
    })?;
    let clamp =
        clamp.ok_or_else(|| missing("the out-of-bounds mode (.trap, .clamp, .zero) is missing"))?;
    let fits = match (sample, op) {
        (true, SurfaceReduction::Min | SurfaceReduction::Max) => true,
        (true, _) => ty == Type::B32,
        (false, SurfaceReduction::Add) => matches!(ty, Type::U32 | Type::U64 | Type::S32),
        (false, SurfaceReduction::Min | SurfaceReduction::Max) => ty != Type::B32,
        (false, SurfaceReduction::And | SurfaceReduction::Or) => ty == Type::B32,
    };
    if !fits {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedTypes,
            Some(ty_index),
            format!(
                "this operation of sured.{} does not take .{} (add: .u32, .u64, .s32; min, \
                 max: .u32, .s32, .u64, .s64; and, or: .b32; sured.p: .b32, or .b64 with min, \
                 max)",
                modifiers[0],
                ty.name()
            ),
        ));
    }
    Ok(SurfaceReductionForm {
        sample,
        op,
        geometry,
        ty,
        clamp,
    })
}

/// `suq.query.b32` (9.7.11.4); the query and `.b32` in either order (ptxas 13.5 accepts
/// `suq.b32.width`).
pub fn decode_suq(modifiers: &[&str]) -> Result<SurfaceQuery, DecodeError> {
    query_and_b32(modifiers, "a surface query", |m| {
        Some(match m {
            "width" => SurfaceQuery::Width,
            "height" => SurfaceQuery::Height,
            "depth" => SurfaceQuery::Depth,
            "channel_data_type" => SurfaceQuery::ChannelDataType,
            "channel_order" => SurfaceQuery::ChannelOrder,
            "array_size" => SurfaceQuery::ArraySize,
            "memory_layout" => SurfaceQuery::MemoryLayout,
            _ => return None,
        })
    })
    .map(|(query, _)| query)
}

/// An element of a `tex`/`tld4` coordinate operand `c`, as [`coordinate_violation`] sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinateElement {
    /// A register of this declared type.
    Register(Type),
    /// An integer literal.
    Integer,
    /// A floating-point literal.
    Float,
    /// The sink `_`.
    Sink,
}

/// What a coordinate element is to ptxas 13.5: an integer, a float, a predicate or (`.b32`)
/// either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Integer,
    Float,
    Predicate,
    Bits,
}

impl CoordinateElement {
    fn kind(self) -> Kind {
        match self {
            CoordinateElement::Integer => Kind::Integer,
            CoordinateElement::Float => Kind::Float,
            CoordinateElement::Sink => Kind::Bits,
            CoordinateElement::Register(ty) => match ty.kind() {
                TypeKind::Float | TypeKind::Packed => Kind::Float,
                TypeKind::Predicate => Kind::Predicate,
                TypeKind::Bit => Kind::Bits,
                _ => Kind::Integer,
            },
        }
    }

    fn width(self) -> Option<u32> {
        match self {
            CoordinateElement::Register(ty) if ty != Type::Pred => Some(ty.bits()),
            _ => None,
        }
    }
}

/// Whether the elements mix integers, floats and predicates (`.b32` goes with any of them).
fn mixed(elements: &[CoordinateElement]) -> bool {
    let mut seen = None;
    for kind in elements.iter().map(|e| e.kind()) {
        if kind == Kind::Bits {
            continue;
        }
        if *seen.get_or_insert(kind) != kind {
            return true;
        }
    }
    false
}

/// The coordinate operand `c` of `tex`/`tld4` (9.7.10.3: "Operand c is a scalar or singleton
/// tuple for 1d textures; is a two-element vector for 2d textures; and is a four-element
/// vector for 3d textures"; "Coordinates may be given in either signed 32-bit integer or 32-bit
/// floating point form"; for `.a1d`/`.a2d` "Operand c is a bit-size type vector or tuple
/// containing an index into the array of textures followed by coordinates"; "The texture array
/// index is a 32-bit unsigned integer"). `modifiers` are the instruction's (the geometry, the
/// coordinate type last); `elements` the brace vector's, or `None` for a scalar register of
/// type `scalar` (or a literal: `None`). ptxas 13.5's verdicts (tests/conformance/tex-coordinates.tsv), the message
/// it gives being the `Err`:
///
/// * a brace vector's registers are all 32-bit ("Incompatible elements of vector expression"
///   for mixed widths, "Arguments mismatch" for 16- or 64-bit ones) and it has 1, 2 or 4
///   elements ("Illegal vector size: 3"), at least as many as the geometry takes ("Operand
///   vector size doesn't match geometry"; `.2dms`/`.a2dms` four); longer is taken;
/// * integer and float elements do not mix, `.b32` going with either ("Vector with elements of
///   different types are not allowed"); in an array geometry the index is apart: it is no
///   float ("Array index ... has unexpected type. Expecting type .u32"), and the layer
///   coordinates after it are checked neither against each other's index nor against `.ctype`;
/// * `.s32` coordinates of `.f32` registers only (no `.b32`) are refused ("Arguments
///   mismatch"); `.f32` coordinates take integer registers; an all-literal vector's literals
///   are of `.ctype` (integers for `.s32`, floats for `.f32`), its array coordinates at least
///   no integers for `.f32`; a vector that mixes registers and literals is not checked against
///   `.ctype`;
/// * a scalar register (no braces, any geometry) is of `.ctype` or `.b32`, and 32-bit; a
///   scalar literal is a syntax error, and so is a sink in a vector ("Sink '_' not allowed as
///   a source operand").
pub fn coordinate_violation(
    modifiers: &[&str],
    elements: Option<&[CoordinateElement]>,
    scalar: Option<Type>,
) -> Result<(), String> {
    let geometry = modifiers.iter().find_map(|m| {
        Some(match *m {
            "1d" => (1, false),
            "2d" => (2, false),
            "a1d" => (2, true),
            "3d" | "a2d" | "cube" | "acube" | "2dms" | "a2dms" => (4, m.starts_with('a')),
            _ => return None,
        })
    });
    let Some((count, array)) = geometry else {
        return Ok(());
    };
    let multisample_array = modifiers.contains(&"a2dms");
    let Some(ctype) = modifiers.iter().rev().find_map(|m| Type::from_name(m)) else {
        return Ok(());
    };
    let integer_ctype = ctype == Type::S32;
    let mismatch = || "Arguments mismatch".to_string();
    let Some(elements) = elements else {
        let Some(ty) = scalar else {
            return Err("Parsing error: a literal coordinate outside braces".into());
        };
        let kind = CoordinateElement::Register(ty).kind();
        let fits = ty.bits() == 32
            && match kind {
                Kind::Bits => true,
                Kind::Integer => integer_ctype,
                Kind::Float => !integer_ctype,
                Kind::Predicate => false,
            };
        return if fits { Ok(()) } else { Err(mismatch()) };
    };
    if elements.contains(&CoordinateElement::Sink) {
        return Err("Sink '_' not allowed as a source operand".into());
    }
    let widths: Vec<u32> = elements.iter().filter_map(|e| e.width()).collect();
    if widths.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err("Incompatible elements of vector expression".into());
    }
    if !matches!(elements.len(), 1 | 2 | 4) {
        return Err(format!("Illegal vector size: {}", elements.len()));
    }
    if widths.iter().any(|&w| w != 32) || elements.iter().all(|e| e.kind() == Kind::Predicate) {
        return Err(mismatch());
    }
    let registers = elements
        .iter()
        .filter(|e| matches!(e, CoordinateElement::Register(_)))
        .count();
    let all_float_registers =
        registers == elements.len() && elements.iter().all(|e| e.kind() == Kind::Float);
    let index_error = || "Array index has unexpected type. Expecting type .u32".to_string();
    if multisample_array {
        // `.a2dms` (ptxas 13.5): the whole vector against `.s32`, then its second element.
        if all_float_registers {
            return Err(mismatch());
        }
        if elements.get(1).is_some_and(|e| e.kind() == Kind::Float) {
            return Err(index_error());
        }
    } else if array {
        let (index, rest) = elements.split_first().expect("1, 2 or 4 elements");
        if mixed(rest) {
            return Err("Vector with elements of different types are not allowed".into());
        }
        if index.kind() == Kind::Float {
            return Err(index_error());
        }
        if registers == 0 && !integer_ctype && rest.iter().any(|e| e.kind() == Kind::Integer) {
            return Err(mismatch());
        }
    } else {
        if mixed(elements) {
            return Err("Vector with elements of different types are not allowed".into());
        }
        let literal_mismatch = registers == 0
            && elements.iter().any(|e| {
                e.kind()
                    != if integer_ctype {
                        Kind::Integer
                    } else {
                        Kind::Float
                    }
            });
        if (integer_ctype && all_float_registers) || literal_mismatch {
            return Err(mismatch());
        }
    }
    if elements.len() < count {
        return Err("Operand vector size doesn't match geometry".into());
    }
    Ok(())
}
