//! Texture and surface objects: nvcc's PTX (`ptx-samples/nvcc/texture.sm_90.ptx`) and hand-written
//! kernels run against hand-built [`TextureTable`]s. Expected values come from the rules
//! themselves, computed here: point sampling, addressing and formats by hand from the CUDA C++
//! Programming Guide's appendix "Texture Fetching"; linear filtering from the guide's formula
//! in this file's own `f64` reference (`linear_reference`), never from ptxsim's output.

use std::sync::Arc;

use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};
use ptxsim_exec::memory::GLOBAL_BASE;
use ptxsim_exec::texture::{
    AddressMode, ChannelType, CudaArray, FilterMode, Format, ReadMode, Resource, Texture,
    TextureObject, TextureTable,
};

fn sample() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../ptx-samples/nvcc/texture.sm_90.ptx"
    );
    std::fs::read_to_string(path).expect("the texture sample")
}

const F32: Format = Format {
    channels: 1,
    ty: ChannelType::F32,
};

fn array(
    format: Format,
    extent: [u64; 3],
    layered: bool,
    cubemap: bool,
    bytes: &[u8],
) -> Arc<CudaArray> {
    let array = CudaArray::new(format, extent, layered, cubemap).expect("array");
    array.write(|data| data.copy_from_slice(bytes));
    Arc::new(array)
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn to_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn texture(resource: Resource, mode: AddressMode, filter: FilterMode, normalized: bool) -> Texture {
    Texture {
        resource,
        address_modes: [mode; 3],
        filter,
        read_mode: ReadMode::ElementType,
        normalized_coordinates: normalized,
        border_color: [0.5, 0.25, 0.125, 0.75],
    }
}

const HANDLE: u64 = 0x1234;

fn options(objects: Vec<(u64, TextureObject)>) -> LaunchOptions {
    let mut table = TextureTable::new();
    for (handle, object) in objects {
        table.insert(handle, object);
    }
    LaunchOptions {
        textures: Some(Arc::new(table)),
        ..LaunchOptions::default()
    }
}

/// Runs `entry(handle, coords, out, n)` over `n` threads and returns `out` as floats.
fn run_coords(entry: &str, object: TextureObject, coords: &[u8], n: usize) -> Vec<f32> {
    let module = Module::load(&sample(), &Options::default()).expect("module");
    let mut coords = coords.to_vec();
    let mut out = vec![0u8; n * 16];
    module
        .launch(
            entry,
            [1, 1, 1],
            [n as u32, 1, 1],
            &mut [
                Arg::U64(HANDLE),
                Arg::Buffer(&mut coords),
                Arg::Buffer(&mut out),
                Arg::S32(n as i32),
            ],
            &options(vec![(HANDLE, object)]),
        )
        .unwrap_or_else(|error| panic!("{entry}: {error}"));
    to_floats(&out)
}

/// The 4x3 texture T[y][x] = 10y + x.
fn grid_4x3() -> Arc<CudaArray> {
    let values: Vec<f32> = (0..3)
        .flat_map(|y| (0..4).map(move |x| (10 * y + x) as f32))
        .collect();
    array(F32, [4, 3, 0], false, false, &floats(&values))
}

/// The guide's index rules for one axis: clamp to [0, n-1], wrap modulo n, mirror with period
/// 2n, border outside.
fn address(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Border => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m })
        }
    }
}

#[test]
fn point_sampling_2d_clamp_and_border() {
    let coords: Vec<(f32, f32)> = vec![
        (0.0, 0.0),
        (0.99, 0.5),
        (1.0, 1.0),
        (3.5, 2.9),
        (-1.0, 0.5),
        (7.2, -3.0),
        (2.5, 5.0),
        (1.25, 1.75),
    ];
    let bytes: Vec<u8> = coords.iter().flat_map(|&(x, y)| floats(&[x, y])).collect();
    for mode in [AddressMode::Clamp, AddressMode::Border] {
        let t = texture(Resource::Array(grid_4x3()), mode, FilterMode::Point, false);
        let out = run_coords(
            "tex_sample_2d",
            TextureObject::Texture(t),
            &bytes,
            coords.len(),
        );
        for (k, &(x, y)) in coords.iter().enumerate() {
            let i = address(x.floor() as i64, 4, mode);
            let j = address(y.floor() as i64, 3, mode);
            // A one-channel texture reads as (v, 0, 0, 1); the border is the border color.
            let expected = match (i, j) {
                (Some(i), Some(j)) => [(10 * j + i) as f32, 0.0, 0.0, 1.0],
                _ => [0.5, 0.25, 0.125, 0.75],
            };
            assert_eq!(out[4 * k..4 * k + 4], expected, "{mode:?} at ({x}, {y})");
        }
    }
}

#[test]
fn point_sampling_normalized_wrap_and_mirror() {
    let coords: Vec<(f32, f32)> = vec![
        (0.1, 0.1),
        (0.9, 0.6),
        (1.1, 0.2),
        (-0.1, -0.2),
        (1.6, 2.5),
        (-1.3, 1.4),
    ];
    let bytes: Vec<u8> = coords.iter().flat_map(|&(x, y)| floats(&[x, y])).collect();
    for mode in [AddressMode::Wrap, AddressMode::Mirror, AddressMode::Clamp] {
        let t = texture(Resource::Array(grid_4x3()), mode, FilterMode::Point, true);
        let out = run_coords(
            "tex_sample_2d",
            TextureObject::Texture(t),
            &bytes,
            coords.len(),
        );
        for (k, &(x, y)) in coords.iter().enumerate() {
            // The guide: wrap uses frac(x), mirror frac(x) or 1 - frac(x) by the parity of
            // floor(x); then x * N, floor.
            let axis = |c: f32, n: i64| -> i64 {
                let c = f64::from(c);
                let f = c - c.floor();
                let v = match mode {
                    AddressMode::Wrap => f,
                    AddressMode::Mirror if (c.floor() as i64).rem_euclid(2) == 1 => 1.0 - f,
                    AddressMode::Mirror => f,
                    _ => c,
                };
                ((v * n as f64).floor() as i64).clamp(0, n - 1)
            };
            let (i, j) = (axis(x, 4), axis(y, 3));
            assert_eq!(
                out[4 * k..4 * k + 4],
                [(10 * j + i) as f32, 0.0, 0.0, 1.0],
                "{mode:?} at ({x}, {y})"
            );
        }
    }
}

/// The guide's linear filtering in 2D, in `f64`: xB = x - 0.5, i = floor(xB), α = frac(xB)
/// rounded to 1/256 (9-bit fixed point, 8 fraction bits), and the four weighted texels.
fn linear_reference(t: &dyn Fn(i64, i64) -> f64, x: f64, y: f64) -> f32 {
    let (xb, yb) = (x - 0.5, y - 0.5);
    let (i, j) = (xb.floor() as i64, yb.floor() as i64);
    let a = ((xb - xb.floor()) * 256.0).round() / 256.0;
    let b = ((yb - yb.floor()) * 256.0).round() / 256.0;
    let value = (1.0 - a) * (1.0 - b) * t(i, j)
        + a * (1.0 - b) * t(i + 1, j)
        + (1.0 - a) * b * t(i, j + 1)
        + a * b * t(i + 1, j + 1);
    value as f32
}

#[test]
fn linear_filtering_2d() {
    // Values that do not interpolate exactly in f32.
    let values: Vec<f32> = (0..12).map(|k| 1.0 / (k as f32 + 3.0)).collect();
    let data = array(F32, [4, 3, 0], false, false, &floats(&values));
    let coords: Vec<(f32, f32)> = vec![
        (0.5, 0.5),
        (1.0, 1.0),
        (1.3, 0.7),
        (2.123, 1.987),
        (0.1, 2.9),
        (3.9, 2.6),
        (-0.7, 1.2),
        (5.0, -2.0),
        (1.7001, 1.0039),
    ];
    let bytes: Vec<u8> = coords.iter().flat_map(|&(x, y)| floats(&[x, y])).collect();
    for mode in [AddressMode::Clamp, AddressMode::Border] {
        let t = texture(
            Resource::Array(Arc::clone(&data)),
            mode,
            FilterMode::Linear,
            false,
        );
        let out = run_coords(
            "tex_sample_2d",
            TextureObject::Texture(t),
            &bytes,
            coords.len(),
        );
        let texel = |i: i64, j: i64| match (address(i, 4, mode), address(j, 3, mode)) {
            (Some(i), Some(j)) => f64::from(values[(j * 4 + i) as usize]),
            _ => 0.5, // the border color's x
        };
        for (k, &(x, y)) in coords.iter().enumerate() {
            let expected = linear_reference(&texel, f64::from(x), f64::from(y));
            assert_eq!(out[4 * k], expected, "{mode:?} at ({x}, {y})");
        }
    }
}

#[test]
fn normalized_uchar4_linear_1d_and_wrap() {
    // 4 texels of uchar4, read as normalized floats: v / 255.
    let texels: [[u8; 4]; 4] = [
        [0, 255, 10, 128],
        [255, 0, 20, 64],
        [51, 102, 30, 32],
        [7, 9, 40, 16],
    ];
    let bytes: Vec<u8> = texels.iter().flatten().copied().collect();
    let format = Format {
        channels: 4,
        ty: ChannelType::U8,
    };
    let data = array(format, [4, 0, 0], false, false, &bytes);
    let mut t = texture(
        Resource::Array(data),
        AddressMode::Wrap,
        FilterMode::Linear,
        true,
    );
    t.read_mode = ReadMode::NormalizedFloat;
    let xs: Vec<f32> = vec![0.0, 0.125, 0.3, 0.5, 0.77, 0.99, 1.05, -0.2];
    let out = run_coords(
        "tex_sample_1d",
        TextureObject::Texture(t),
        &floats(&xs),
        xs.len(),
    );
    for (k, &x) in xs.iter().enumerate() {
        let xw = f64::from(x) - f64::from(x).floor();
        let xb = xw * 4.0 - 0.5;
        let i = xb.floor() as i64;
        let a = ((xb - xb.floor()) * 256.0).round() / 256.0;
        for c in 0..4 {
            let v = |i: i64| f64::from(texels[i.rem_euclid(4) as usize][c]) / 255.0;
            let expected = ((1.0 - a) * v(i) + a * v(i + 1)) as f32;
            assert_eq!(out[4 * k + c], expected, "x = {x}, channel {c}");
        }
    }
}

#[test]
fn linear_resource_fetch_and_integer_formats() {
    // tex1Dfetch over linear memory: the texels follow the 8 indices in the same buffer,
    // the first argument buffer, at GLOBAL_BASE.
    let indices: [i32; 8] = [0, 1, 2, 3, -1, 4, 100, 2];
    let mut buffer: Vec<u8> = indices.iter().flat_map(|v| v.to_le_bytes()).collect();
    let texels: [[f32; 2]; 4] = [[1.0, -1.0], [2.5, 3.5], [-4.0, 0.25], [8.0, 16.0]];
    buffer.extend(texels.iter().flatten().flat_map(|v| v.to_le_bytes()));
    let linear = Resource::Linear {
        address: GLOBAL_BASE + 32,
        format: Format {
            channels: 2,
            ty: ChannelType::F32,
        },
        width: 4,
    };
    let t = texture(linear, AddressMode::Clamp, FilterMode::Point, false);
    let out = run_coords("tex_fetch_1d", TextureObject::Texture(t), &buffer, 8);
    for (k, &i) in indices.iter().enumerate() {
        // Two channels: (x, y, 0, 1); outside the width, zeros (with w = 1).
        let expected = match usize::try_from(i).ok().and_then(|i| texels.get(i)) {
            Some(&[x, y]) => [x, y, 0.0, 1.0],
            None => [0.0, 0.0, 0.0, 1.0],
        };
        assert_eq!(out[4 * k..4 * k + 4], expected, "index {i}");
    }

    // Signed 16-bit channels read as integers are sign-extended.
    let values: [i16; 4] = [-1, 32767, -32768, 5];
    let data = array(
        Format {
            channels: 1,
            ty: ChannelType::S16,
        },
        [4, 0, 0],
        false,
        false,
        &values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let t = texture(
        Resource::Array(data),
        AddressMode::Clamp,
        FilterMode::Point,
        false,
    );
    let indices: [i32; 5] = [0, 1, 2, 3, 9];
    let bytes: Vec<u8> = indices.iter().flat_map(|v| v.to_le_bytes()).collect();
    let out = run_coords("tex_fetch_1d_int", TextureObject::Texture(t), &bytes, 5);
    let ints: Vec<i32> = out.iter().map(|f| f.to_bits() as i32).collect();
    for (k, &i) in indices.iter().enumerate() {
        let v = i32::from(values[i.clamp(0, 3) as usize]);
        assert_eq!(ints[4 * k..4 * k + 4], [v, 0, 0, 1], "index {i}");
    }
}

#[test]
fn three_d_layered_and_cubemap() {
    // 3D: 2x2x3, T = 100z + 10y + x, point sampling at texel centres.
    let values: Vec<f32> = (0..3)
        .flat_map(|z| (0..2).flat_map(move |y| (0..2).map(move |x| (100 * z + 10 * y + x) as f32)))
        .collect();
    let data = array(F32, [2, 2, 3], false, false, &floats(&values));
    let t = texture(
        Resource::Array(data),
        AddressMode::Clamp,
        FilterMode::Point,
        false,
    );
    let coords: Vec<[f32; 4]> = vec![
        [0.5, 0.5, 0.5, 0.0],
        [1.5, 0.5, 2.5, 0.0],
        [1.2, 1.9, 1.1, 0.0],
        [9.0, -1.0, 7.0, 0.0],
    ];
    let bytes: Vec<u8> = coords.iter().flat_map(|c| floats(c)).collect();
    let out = run_coords(
        "tex_sample_3d",
        TextureObject::Texture(t),
        &bytes,
        coords.len(),
    );
    for (k, c) in coords.iter().enumerate() {
        let f = |v: f32, n: i64| (v.floor() as i64).clamp(0, n - 1);
        let expected = (100 * f(c[2], 3) + 10 * f(c[1], 2) + f(c[0], 2)) as f32;
        assert_eq!(out[4 * k], expected, "{c:?}");
    }

    // Layered 2D: 2x2 texels, 3 layers; layer indices past the end are clamped.
    let data = array(F32, [2, 2, 3], true, false, &floats(&values));
    let t = texture(
        Resource::Array(data),
        AddressMode::Clamp,
        FilterMode::Point,
        false,
    );
    let module = Module::load(&sample(), &Options::default()).unwrap();
    let coords: Vec<(f32, f32)> = vec![(0.5, 0.5), (1.5, 1.5), (0.2, 1.7), (1.0, 0.0)];
    let layers: [i32; 4] = [0, 1, 2, 7];
    let mut c: Vec<u8> = coords.iter().flat_map(|&(x, y)| floats(&[x, y])).collect();
    let mut l: Vec<u8> = layers.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = vec![0u8; 64];
    module
        .launch(
            "tex_sample_layered",
            [1, 1, 1],
            [4, 1, 1],
            &mut [
                Arg::U64(HANDLE),
                Arg::Buffer(&mut c),
                Arg::Buffer(&mut l),
                Arg::Buffer(&mut out),
                Arg::S32(4),
            ],
            &options(vec![(HANDLE, TextureObject::Texture(t))]),
        )
        .unwrap();
    let out = to_floats(&out);
    for (k, (&(x, y), &layer)) in coords.iter().zip(&layers).enumerate() {
        let expected =
            (100 * layer.min(2) as i64 + 10 * y.floor() as i64 + x.floor() as i64) as f32;
        assert_eq!(out[4 * k], expected, "({x}, {y}) layer {layer}");
    }

    // Cubemap: 2x2 faces, T = 100 face + 10 y + x. The guide's table "Cubemap Fetch":
    // face 0 (+x): s = -z, t = -y; 1 (-x): z, -y; 2 (+y): x, z; 3 (-y): x, -z; 4 (+z): x, -y;
    // 5 (-z): -x, -y; then ((s/m + 1)/2, (t/m + 1)/2) as normalized coordinates.
    let values: Vec<f32> = (0..6)
        .flat_map(|f| (0..2).flat_map(move |y| (0..2).map(move |x| (100 * f + 10 * y + x) as f32)))
        .collect();
    let data = array(F32, [2, 2, 6], false, true, &floats(&values));
    let t = texture(
        Resource::Array(data),
        AddressMode::Clamp,
        FilterMode::Point,
        true,
    );
    let directions: Vec<[f32; 4]> = vec![
        [1.0, 0.5, 0.5, 0.0],
        [-1.0, -0.5, 0.5, 0.0],
        [0.5, 2.0, -0.5, 0.0],
        [-0.5, -3.0, 0.5, 0.0],
        [0.5, 0.5, 1.0, 0.0],
        [0.5, -0.5, -1.0, 0.0],
    ];
    let bytes: Vec<u8> = directions.iter().flat_map(|c| floats(c)).collect();
    let out = run_coords(
        "tex_sample_cube",
        TextureObject::Texture(t),
        &bytes,
        directions.len(),
    );
    for (k, d) in directions.iter().enumerate() {
        let (x, y, z) = (f64::from(d[0]), f64::from(d[1]), f64::from(d[2]));
        let (face, m, s, t) = if x.abs() >= y.abs() && x.abs() >= z.abs() {
            if x >= 0.0 {
                (0, x.abs(), -z, -y)
            } else {
                (1, x.abs(), z, -y)
            }
        } else if y.abs() >= z.abs() {
            if y >= 0.0 {
                (2, y.abs(), x, z)
            } else {
                (3, y.abs(), x, -z)
            }
        } else if z >= 0.0 {
            (4, z.abs(), x, -y)
        } else {
            (5, z.abs(), -x, -y)
        };
        let (s, t) = ((s / m + 1.0) / 2.0, (t / m + 1.0) / 2.0);
        let (i, j) = (
            ((s * 2.0).floor() as i64).clamp(0, 1),
            ((t * 2.0).floor() as i64).clamp(0, 1),
        );
        assert_eq!(out[4 * k], (100 * face + 10 * j + i) as f32, "{d:?}");
    }
}

#[test]
fn gather_2d() {
    let t = texture(
        Resource::Array(grid_4x3()),
        AddressMode::Clamp,
        FilterMode::Point,
        false,
    );
    let coords: Vec<(f32, f32)> = vec![(1.0, 1.0), (2.7, 1.2), (0.2, 0.3), (4.5, 3.5)];
    let bytes: Vec<u8> = coords.iter().flat_map(|&(x, y)| floats(&[x, y])).collect();
    let out = run_coords(
        "tex_gather_2d",
        TextureObject::Texture(t),
        &bytes,
        coords.len(),
    );
    for (k, &(x, y)) in coords.iter().enumerate() {
        // "counter-clockwise order starting at lower left": (i, j+1), (i+1, j+1), (i+1, j), (i, j).
        let i = (x - 0.5).floor() as i64;
        let j = (y - 0.5).floor() as i64;
        let v = |i: i64, j: i64| (10 * j.clamp(0, 2) + i.clamp(0, 3)) as f32;
        let expected = [v(i, j + 1), v(i + 1, j + 1), v(i + 1, j), v(i, j)];
        assert_eq!(out[4 * k..4 * k + 4], expected, "({x}, {y})");
    }
}

#[test]
fn surfaces_load_and_store() {
    let module = Module::load(&sample(), &Options::default()).unwrap();
    let values: Vec<f32> = (0..12).map(|k| k as f32 * 1.5).collect();
    let input = array(F32, [4, 3, 0], false, false, &floats(&values));
    let output = Arc::new(CudaArray::new(F32, [4, 3, 0], false, false).unwrap());
    let objects = vec![
        (1, TextureObject::Surface(Arc::clone(&input))),
        (2, TextureObject::Surface(Arc::clone(&output))),
    ];
    module
        .launch(
            "surf_scale_2d",
            [1, 3, 1],
            [4, 1, 1],
            &mut [Arg::U64(1), Arg::U64(2), Arg::S32(4), Arg::S32(3)],
            &options(objects),
        )
        .unwrap();
    let doubled: Vec<f32> = values.iter().map(|v| v * 2.0).collect();
    assert_eq!(output.read(to_floats), doubled);

    // uchar4: read (x + 2) clamped to the last texel, write at x + 1, dropped past the row.
    let format = Format {
        channels: 4,
        ty: ChannelType::U8,
    };
    let bytes: Vec<u8> = (0..16).collect();
    let input = array(format, [4, 1, 0], false, false, &bytes);
    let output = Arc::new(CudaArray::new(format, [4, 1, 0], false, false).unwrap());
    let objects = vec![
        (1, TextureObject::Surface(Arc::clone(&input))),
        (2, TextureObject::Surface(Arc::clone(&output))),
    ];
    module
        .launch(
            "surf_shift_uchar4",
            [1, 1, 1],
            [4, 1, 1],
            &mut [
                Arg::U64(1),
                Arg::U64(2),
                Arg::S32(4),
                Arg::S32(2),
                Arg::S32(1),
            ],
            &options(objects),
        )
        .unwrap();
    let mut expected = vec![0u8; 16];
    for x in 0..4usize {
        let source = (x + 2).min(3);
        let target = x + 1;
        if target < 4 {
            expected[4 * target..4 * target + 4]
                .copy_from_slice(&bytes[4 * source..4 * source + 4]);
        }
    }
    assert_eq!(output.read(|d| d.to_vec()), expected);
}

/// Queries, `sured`, a `.trap` access out of bounds and a bad handle (hand-written PTX).
const HAND: &str = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry query(.param .u64 t, .param .u64 s, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [t];
    ld.param.u64 %rd2, [s];
    ld.param.u64 %rd3, [out];
    txq.width.b32 %r1, [%rd1];
    txq.height.b32 %r2, [%rd1];
    txq.normalized_coords.b32 %r3, [%rd1];
    txq.filter_mode.b32 %r4, [%rd1];
    txq.addr_mode_0.b32 %r5, [%rd1];
    suq.width.b32 %r6, [%rd2];
    suq.height.b32 %r7, [%rd2];
    suq.array_size.b32 %r8, [%rd2];
    mov.u32 %r9, 4;
    mov.u32 %r10, 7;
    sured.b.add.1d.u32.trap [%rd2, {%r9}], %r10;
    sured.b.max.1d.s32.trap [%rd2, {%r9}], %r10;
    suld.b.1d.b32.trap {%r11}, [%rd2, {%r9}];
    st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
    st.global.u32 [%rd3+32], %r11;
    ret;
}
.visible .entry out_of_bounds(.param .u64 s)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [s];
    mov.u32 %r1, 16;
    suld.b.1d.b32.trap {%r2}, [%rd1, {%r1}];
    ret;
}
";

#[test]
fn queries_reductions_and_traps() {
    let module = Module::load(HAND, &Options::default()).expect("hand-written module");
    let t = texture(
        Resource::Array(grid_4x3()),
        AddressMode::Mirror,
        FilterMode::Linear,
        true,
    );
    let layered = array(
        F32,
        [4, 0, 2],
        true,
        false,
        &floats(&[0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    );
    let objects = vec![
        (7, TextureObject::Texture(t)),
        (8, TextureObject::Surface(Arc::clone(&layered))),
    ];
    let mut out = vec![0u8; 36];
    module
        .launch(
            "query",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(7), Arg::U64(8), Arg::Buffer(&mut out)],
            &options(objects.clone()),
        )
        .unwrap();
    let words: Vec<u32> = out
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // width 4, height 3, normalized, linear (1), mirror (CU_TR_ADDRESS_MODE_MIRROR = 2);
    // the surface: width 4, height 0, 2 layers; 3.0f's bits + 7, then max with 7.
    let sum = 3.0f32.to_bits() + 7;
    assert_eq!(words, [4, 3, 1, 1, 2, 4, 0, 2, sum]);

    // x = 16 bytes is past a 16-byte row: `.trap` traps, located.
    let error = module
        .launch(
            "out_of_bounds",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(8)],
            &options(objects.clone()),
        )
        .unwrap_err();
    let Error::Run {
        message, location, ..
    } = error
    else {
        panic!("not a trap: {error}");
    };
    assert!(
        message.contains("out-of-bounds surface access"),
        "{message}"
    );
    assert!(location.line > 0);

    // A handle the table does not have, and a texture used as a surface.
    for handle in [99, 7] {
        let error = module
            .launch(
                "out_of_bounds",
                [1, 1, 1],
                [1, 1, 1],
                &mut [Arg::U64(handle)],
                &options(objects.clone()),
            )
            .unwrap_err();
        assert!(matches!(error, Error::Run { .. }), "{error}");
    }
    // No table at all.
    let error = module
        .launch(
            "out_of_bounds",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(8)],
            &LaunchOptions::default(),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("no texture or surface object"),
        "{error}"
    );
}
