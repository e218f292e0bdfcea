//! Tensor maps (`CUtensorMap`): the 128-byte descriptors of `cp.async.bulk.tensor`, made by the
//! driver library's `cuTensorMapEncodeTiled` / `cuTensorMapEncodeIm2col` /
//! `cuTensorMapEncodeIm2colWide` and read by the executor from the generic address the
//! instruction names.
//!
//! CUDA's header defines the object as opaque (`typedef struct CUtensorMap_st { alignas(128)
//! cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS]; } CUtensorMap;`, 16 quadwords), so the bytes
//! inside are ptxsim's own encoding ([`TensorMap::encode`]); the rules of the parameters are
//! those of the documentation of `cuTensorMapEncodeTiled` in `cuda.h` (CUDA 13), quoted at
//! [`TensorMap::validate`].

use ptxsim_isa::ops::Im2colWide;

/// The size of a tensor map (`CU_TENSOR_MAP_NUM_QWORDS` quadwords).
pub const TENSOR_MAP_BYTES: usize = 128;

/// The first four bytes of ptxsim's encoding: `"PTM1"`.
const MAGIC: u32 = u32::from_le_bytes(*b"PTM1");

/// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`.
pub const OOB_FILL_NAN: u32 = 1;
/// `CU_TENSOR_MAP_INTERLEAVE_32B`.
pub const INTERLEAVE_32B: u32 = 2;
/// `CU_TENSOR_MAP_SWIZZLE_32B`, `_64B`, `_128B` are 1, 2, 3.
pub const SWIZZLE_128B: u32 = 3;

/// The im2col part of a tensor map (`cuTensorMapEncodeIm2col`, `cuTensorMapEncodeIm2colWide`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Im2col {
    /// `pixelBoxLowerCorner`: `{D, H, W}` offsets, `rank - 2` of them (W first here: index 0
    /// is the innermost spatial dimension). A wide map has `pixelBoxLowerCornerWidth` only, at
    /// index 0.
    pub lower: [i32; 3],
    /// `pixelBoxUpperCorner` (a wide map: `pixelBoxUpperCornerWidth` at index 0).
    pub upper: [i32; 3],
    /// `channelsPerPixel`.
    pub channels_per_pixel: u32,
    /// `pixelsPerColumn` (ignored by a `W128` map: "This field is ignored when mode is
    /// CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128").
    pub pixels_per_column: u32,
    /// The `CUtensorMapIm2ColWideMode` of a map of `cuTensorMapEncodeIm2colWide` ("im2col memory
    /// region, but where the elements are exclusively loaded along the W dimension"), `None`
    /// for a map of `cuTensorMapEncodeIm2col`.
    pub wide: Option<Im2colWide>,
}

/// A decoded tensor map. Arrays hold `rank` entries (the innermost dimension first); the rest
/// are zero. `global_strides[i]` is the byte stride of dimension `i + 1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TensorMap {
    /// `CUtensorMapDataType` (0 `UINT8` ... 12 `TFLOAT32_FTZ`, 13 to 15 the packed types of
    /// [`Packing`]).
    pub data_type: u32,
    /// `tensorRank`, 1 to 5.
    pub rank: u32,
    /// `globalAddress`.
    pub global_address: u64,
    /// `globalDim`.
    pub global_dim: [u64; 5],
    /// `globalStrides` (`rank - 1` of them).
    pub global_strides: [u64; 4],
    /// `boxDim` (for im2col maps, unused: `channelsPerPixel` and `pixelsPerColumn` say it).
    pub box_dim: [u32; 5],
    /// `elementStrides`.
    pub element_strides: [u32; 5],
    /// `CUtensorMapInterleave`: 0 none, 1 16 B, 2 32 B.
    pub interleave: u32,
    /// `CUtensorMapSwizzle`: 0 none, 1 32 B, 2 64 B, 3 128 B, 4 to 6 the 128-byte swizzles of
    /// sm_100 with 32-byte, 32-byte with 8-byte flip and 64-byte atomicity; [`SWIZZLE_96B`];
    /// bits 4-5 the `.swizzle_atomicity` `tensormap.replace` wrote ([`Swizzle::of`]).
    pub swizzle: u32,
    /// `CUtensorMapL2promotion` (0 to 3; a hint).
    pub l2_promotion: u32,
    /// `CUtensorMapFloatOOBfill`: 0 zeros, 1 NaN.
    pub oob_fill: u32,
    /// The im2col parameters of an im2col map.
    pub im2col: Option<Im2col>,
}

/// The size in bytes of an element of `CUtensorMapDataType` `data_type` (`cuda.h`: "UINT8 =
/// 0, // 1 byte", ...), `None` for the packed sub-byte types (13 to 15, sm_100: [`packing`])
/// and unknown values.
pub fn element_size(data_type: u32) -> Option<u64> {
    Some(match data_type {
        0 => 1,
        1 | 6 | 9 => 2,
        2 | 3 | 7 | 10..=12 => 4,
        4 | 5 | 8 => 8,
        _ => return None,
    })
}

/// How a packed sub-byte type of `CUtensorMapDataType` moves (`cuda.h`, CUDA 13,
/// `cuTensorMapEncodeTiled`): `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B` (13) "copies '16 x U4'
/// packed values to memory aligned as 8 bytes. There are no gaps between packed values";
/// `_16U4_ALIGN16B` (14) "copies '16 x U4' packed values to memory aligned as 16 bytes. There are
/// 8 byte gaps between every 8 byte chunk of packed values"; `_16U6_ALIGN16B` (15) "copies '16 x
/// U6' packed values to memory aligned as 16 bytes. There are 4 byte gaps between every 12 byte
/// chunk of packed values". "Dimension for the packed data types must reflect the number of
/// individual U# values": dimension 0 counts values, which a copy moves in units of
/// [`Packing::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    /// The values of a unit: 16 (2 for `16U4_ALIGN8B`, whose units are single bytes:
    /// `globalDim[0]` "must be a multiple of 2").
    pub values: u64,
    /// The bytes a unit takes in global memory (packed, no gaps).
    pub global: u64,
    /// The bytes a unit takes in shared memory (the packed bytes, then the gap).
    pub shared: u64,
}

/// The [`Packing`] of the packed sub-byte types 13 to 15, `None` for the others.
pub fn packing(data_type: u32) -> Option<Packing> {
    let (values, global, shared) = match data_type {
        13 => (2, 1, 1),
        14 => (16, 8, 16),
        15 => (16, 12, 16),
        _ => return None,
    };
    Some(Packing {
        values,
        global,
        shared,
    })
}

/// Whether `data_type` is a floating-point type (`FLOAT16`, `FLOAT32`, `FLOAT64`, `BFLOAT16`,
/// `FLOAT32_FTZ`, `TFLOAT32`, `TFLOAT32_FTZ`).
pub fn is_float(data_type: u32) -> bool {
    matches!(data_type, 6..=12)
}

/// ptxsim's value of [`TensorMap::swizzle`] for `tensormap.replace`'s 96-byte swizzle mode
/// (Table 33's `.swizzle_mode` 4, sm_100; `CUtensorMapSwizzle` has no such value).
pub const SWIZZLE_96B: u32 = 7;

/// Where [`TensorMap::swizzle`] keeps `tensormap.replace`'s `.swizzle_atomicity` (bits 4-5).
pub const ATOMICITY_SHIFT: u32 = 4;

/// How a swizzled copy permutes shared memory (PTX ISA 9.0, 5.5.7 "Swizzling Modes"): within
/// each 128-byte line, units of `atom` bytes are XORed with the line's index modulo the number
/// of units in the `span`; with `flip`, "a flip of adjacent 8-bytes within the 16-byte data at
/// every alternate shared memory line".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    /// The swizzle span: 32, 64, 96 or 128 bytes (the longest inner box row it takes).
    pub span: u64,
    /// The atomicity: 16, 32 or 64 bytes kept intact.
    pub atom: u64,
    /// The 8-byte flip of the 128-byte mode with 32-byte atomicity.
    pub flip: bool,
}

impl Swizzle {
    /// The pattern of a map's swizzle field: `CUtensorMapSwizzle` 0 to 6 in bits 0-3 (`cuda.h`:
    /// `_32B`, `_64B`, `_128B` "Swizzle 16B chunks within ... span", `_128B_ATOM_32B` "Swizzle
    /// 32B chunks within 128B span", `_128B_ATOM_32B_FLIP_8B` "... additionally swap lower 8B
    /// with upper 8B within each 16B for every alternate row", `_128B_ATOM_64B` "Swizzle 64B
    /// chunks within 128B span") or [`SWIZZLE_96B`], and Table 33's atomicity (0 16B, 1 32B, 2
    /// 32B with 8B flip, 3 64B) in bits 4-5. `None` without swizzling; an error for a value
    /// outside these and for a combination Table 14 ("Valid combination of swizzle-atomicity
    /// with swizzling-mode") does not list: only the 128-byte mode has atomicities other than
    /// 16 bytes.
    pub fn of(field: u32) -> Result<Option<Swizzle>, String> {
        let (mode, atomicity) = (field & 0xf, field >> ATOMICITY_SHIFT);
        let pattern = |span, atom, flip| Ok(Some(Swizzle { span, atom, flip }));
        match (mode, atomicity) {
            (0, 0) => Ok(None),
            (1, 0) => pattern(32, 16, false),
            (2, 0) => pattern(64, 16, false),
            (SWIZZLE_96B, 0) => pattern(96, 16, false),
            (3, 0) => pattern(128, 16, false),
            (3, 1) | (4, 0) => pattern(128, 32, false),
            (3, 2) | (5, 0) => pattern(128, 32, true),
            (3, 3) | (6, 0) => pattern(128, 64, false),
            (0..=7, 1..=3) => Err(format!(
                "swizzle atomicity {atomicity} (Table 33) is valid with the 128-byte swizzle \
                 only (Table 14), not with swizzle mode {mode}"
            )),
            _ => Err(format!("swizzle {field:#x} is no swizzle mode")),
        }
    }

    /// The shared-memory byte address at which the swizzle puts the byte the unswizzled box
    /// layout has at `address` (a CTA-relative shared address). The ISA's tables, "where each
    /// element (numbered cell) is 16 byte": 32 bytes, rows `0 1 2 3 4 5 6 7` / `1 0 3 2 5 4 7
    /// 6`, repeating (bit 7 of the address XORed into bit 4); 64 bytes, four rows (bits 7-8
    /// into 4-5); 128 bytes with 16-byte atomicity, eight rows `0 1 .. 7` to `7 6 .. 0` (bits
    /// 7-9 into 4-6; CUTLASS's `Swizzle<3,4,3>`); 96 bytes, the 32-byte table again ("the
    /// starting address is 256 bytes aligned"; base offset "(dstMem / 128) % 2"); 128 bytes
    /// with 32-byte atomicity, rows `0 1 | 2 3 | 4 5 | 6 7` to `6 7 | 4 5 | 2 3 | 0 1` (bits 7-8
    /// into 5-6; CUTLASS's `Swizzle<2,5,2>` for `SWIZZLE_BASE_32B`), and with the 8-byte flip
    /// bit 7 also into bit 3; with 64-byte atomicity `0 1 2 3 | 4 5 6 7` / `4 5 6 7 | 0 1 2 3`
    /// (bit 7 into bit 6). A row of the tables is a 128-byte line of shared memory, so the
    /// pattern depends on the address itself: a box at an address inside the repeat starts
    /// inside the pattern (the ISA's "swizzle base offset").
    pub fn apply(self, address: u64) -> u64 {
        let units = match self.span {
            32 | 96 => 2,
            64 => 4,
            _ => 128 / self.atom,
        };
        let line = address >> 7;
        let unit_bits = self.atom.trailing_zeros();
        let mut swizzled = address ^ ((line & (units - 1)) << unit_bits);
        if self.flip {
            swizzled ^= (line & 1) << 3;
        }
        swizzled
    }
}

/// The shared-memory address of the byte the unswizzled box layout has at `address` under the
/// map's swizzle field ([`Swizzle::of`], [`Swizzle::apply`]); the address itself without
/// swizzling or for a field [`TensorMap::validate`] refuses.
pub fn swizzle(field: u32, address: u64) -> u64 {
    match Swizzle::of(field) {
        Ok(Some(pattern)) => pattern.apply(address),
        _ => address,
    }
}

/// The value an out-of-bounds element takes: zero, or with
/// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA` ("a special NaN constant") a quiet NaN
/// of the element's width with every mantissa bit set (`0x7fff`, `0x7fffffff`,
/// `0x7fffffffffffffff`; the canonical NaN of NVIDIA GPUs).
pub fn oob_value(map: &TensorMap) -> u64 {
    if map.oob_fill != OOB_FILL_NAN || !is_float(map.data_type) {
        return 0;
    }
    match element_size(map.data_type) {
        Some(2) => 0x7fff,
        Some(4) => 0x7fff_ffff,
        Some(8) => 0x7fff_ffff_ffff_ffff,
        _ => 0,
    }
}

impl TensorMap {
    /// The element size in bytes (0 for an unknown type, which [`TensorMap::validate`]
    /// refuses, and for the packed types, which move in units: [`Packing`]).
    pub fn element_bytes(&self) -> u64 {
        element_size(self.data_type).unwrap_or(0)
    }

    /// The number of elements a tile-mode copy traverses along dimension `i`: "if the
    /// elementStrides[i] is not equal to one, then TMA loads ceil(boxDim[i] /
    /// elementStrides[i]) number of elements along i-th dimension"; "when interleave is
    /// CU_TENSOR_MAP_INTERLEAVE_NONE, the first element of this array is ignored".
    pub fn box_count(&self, i: usize) -> u64 {
        u64::from(self.box_dim[i]).div_ceil(u64::from(self.traversal_stride(i)))
    }

    /// `elementStrides[i]`, 1 for dimension 0 of a map without interleave.
    pub fn traversal_stride(&self, i: usize) -> u32 {
        if i == 0 && self.interleave == 0 {
            1
        } else {
            self.element_strides[i].max(1)
        }
    }

    /// The byte stride of dimension `i` in global memory (dimension 0: the element size).
    pub fn stride(&self, i: usize) -> u64 {
        if i == 0 {
            self.element_bytes()
        } else {
            self.global_strides[i - 1]
        }
    }

    /// The global addresses of the elements an im2col-mode copy moves, in the order they lie
    /// in shared memory (`None` for an element outside the tensor), `pixelsPerColumn` pixels of
    /// `channelsPerPixel` channels each (PTX ISA 9.0, 5.5.4 "im2col mode"):
    ///
    /// - "Across N and C dimensions: specify the starting offsets along the dimension, similar
    ///   to the tiled mode": the channels of a pixel are `tensorCoords[0] + k`, `k <
    ///   channelsPerPixel` (`elementStrides[0]` is ignored without interleave).
    /// - "Across DHW dimensions: specify the location of the convolution filter base in the
    ///   tensor space. The filter corner location must be within the bounding box"; "The im2col
    ///   offsets ... are added to the filter base coordinates to determine the starting location
    ///   in the tensor space from where the elements are accessed".
    /// - The bounding box of spatial dimension `i` runs from `pixelBoxLowerCorner[i]` to
    ///   `globalDim - 1 + pixelBoxUpperCorner[i]` ("Bounding-box Lower-Corner specifies the
    ///   corner with the smallest coordinate and Bounding-box Upper-Corner specifies the corner
    ///   with the largest coordinate"; the upper corner is an offset from the far edge, as
    ///   CUTLASS's `make_im2col_tma_copy_desc` counts the filter positions: `(w + upper -
    ///   lower - 1) / stride + 1`).
    /// - "Pixels-per-Column specifies the number of elements to be accessed in the NDHW space";
    ///   "The number of elements traversed along the D, H and W dimensions is strided by the
    ///   traversal stride for that dimension": the filter base walks W by `elementStrides[1]`;
    ///   past the box's upper corner it returns to the lower corner and H (then D, then N, by
    ///   one image) advances, as CUTLASS linearizes the output pixels `(q, p, z, n)`.
    ///
    /// The corners are stored innermost dimension first (W, H, D), as CUTLASS passes
    /// `lower_corner_whd` to `cuTensorMapEncodeIm2col`. Interleaved im2col maps are refused.
    pub fn im2col_addresses(
        &self,
        start: &[i64; 5],
        offsets: &[i64],
    ) -> Result<Vec<Option<u64>>, String> {
        let Some(im2col) = self.im2col else {
            return Err("an .im2col copy with a tile-mode tensor map".into());
        };
        if im2col.wide.is_some() {
            return Err(
                "an .im2col copy with an im2col-w map (of cuTensorMapEncodeIm2colWide)".into(),
            );
        }
        if self.interleave != 0 {
            return Err("im2col copies with an interleaved tensor map are not supported".into());
        }
        let rank = self.rank as usize;
        let spatial = rank - 2;
        let (mut low, mut high, mut step) = ([0i64; 3], [0i64; 3], [1i64; 3]);
        let mut base = [0i64; 3];
        for i in 0..spatial {
            low[i] = i64::from(im2col.lower[i]);
            high[i] = self.global_dim[i + 1] as i64 - 1 + i64::from(im2col.upper[i]);
            step[i] = i64::from(self.element_strides[i + 1].max(1));
            base[i] = start[i + 1];
            if !(low[i]..=high[i]).contains(&base[i]) {
                return Err(format!(
                    "the filter base {} of dimension {} is outside the bounding box [{}, {}]",
                    base[i],
                    i + 1,
                    low[i],
                    high[i]
                ));
            }
        }
        let mut image = start[rank - 1];
        let channels = u64::from(im2col.channels_per_pixel);
        let inside = |x: i64, i: usize| x >= 0 && (x as u64) < self.global_dim[i];
        let mut addresses = Vec::new();
        for _ in 0..im2col.pixels_per_column {
            let mut pixel = Some(self.global_address);
            for (i, &at) in base.iter().enumerate().take(spatial) {
                let x = at + offsets.get(i).copied().unwrap_or(0);
                pixel = pixel.filter(|_| inside(x, i + 1));
                pixel = pixel.map(|at| at + x as u64 * self.stride(i + 1));
            }
            pixel = pixel.filter(|_| inside(image, rank - 1));
            pixel = pixel.map(|at| at + image as u64 * self.stride(rank - 1));
            for k in 0..channels as i64 {
                let c = start[0] + k;
                addresses.push(
                    pixel
                        .filter(|_| inside(c, 0))
                        .map(|at| at + c as u64 * self.stride(0)),
                );
            }
            // The next filter base: W by its stride, wrapping to the lower corner.
            let mut carry = true;
            for i in 0..spatial {
                base[i] += step[i];
                if base[i] <= high[i] {
                    carry = false;
                    break;
                }
                base[i] = low[i];
            }
            if carry {
                image += 1;
            }
        }
        Ok(addresses)
    }

    /// The global addresses of the pixels an `.im2col::w` / `.im2col::w::128` copy moves, in
    /// the order they lie in shared memory (`None` for an element outside the tensor),
    /// `channelsPerPixel` channels each (PTX ISA 9.0, 5.5.5 "im2col::w and im2col::w::128
    /// modes"), with `{wHalo, wOffset}` of the instruction's `im2colInfo`:
    ///
    /// - "elements are accessed across the W dimension only while keeping the H and D dimension
    ///   constant"; "All the constraints and rules of the im2col mode apply": the channels are
    ///   `tensorCoords[0] + k` and the image N starts at its coordinate, as in
    ///   [`TensorMap::im2col_addresses`].
    /// - "the size of the bounding box in D and H dimensions are 1. The D and H dimensions in
    ///   the tensor coordinates argument ... specify the position of the bounding box": the
    ///   pixels' H and D are their coordinates.
    /// - "Bounding-Box Lower-Corner-W and ... Upper-Corner-W specify the two opposite corners of
    ///   the Bounding Box in the W dimension": W runs from `pixelBoxLowerCornerWidth` to
    ///   `globalDim[1] - 1 + pixelBoxUpperCornerWidth` (`cuda.h`: "the coordinate offset W of
    ///   the bounding box from right corner"). "wOffset ... Bounding Box Lower Corner W +=
    ///   wOffset, Bounding Box Upper Corner W += wOffset, W += wOffset".
    /// - "The W dimension in the tensor coordinates argument ... specify the location of the
    ///   first element"; "The first element can lie outside of the Bounding Box in the
    ///   W-dimension only and only on the left side": a first element right of the box traps.
    /// - "Number of pixels loaded in im2col::w mode is as specified by Pixels-per-Column ...
    ///   in im2col::w::128 mode is always 128"; "the number of elements traversed along only
    ///   the W dimension is strided by the traversal stride" (`elementStrides[1]`). Past the
    ///   box's right corner W returns to its left corner and the next image starts, as the
    ///   im2col walk does with a box one pixel high and deep (an assumption: the ISA's
    ///   examples stay inside one row).
    /// - `wHalo`: "In im2col::w mode ... how many filter halo elements must be loaded at the
    ///   end"; "In im2col::w::128 mode, the halo elements are loaded after every 32 elements
    ///   ... how many halo elements must be loaded after every 32 elements"; "The halo pixels
    ///   are always loaded in the shared memory next to the main row pixels". The halo pixels
    ///   continue the walk along W from the group's last pixel by the traversal stride, in
    ///   the same image and past the box's corner (the pixels the filter reaches beyond the
    ///   row; an assumption, D41); the next group goes on from where the last one's main
    ///   pixels stopped. "wHalo ... Im2col::w mode: valid range is [0, 512). Im2col::w::128
    ///   mode: valid range is [0, 32)"; "wOffset ... valid range of values is [0, 32)": a
    ///   value outside traps.
    ///
    /// The copy's mode must be the map's (`CUtensorMapIm2ColWideMode`); an im2col map of
    /// `cuTensorMapEncodeIm2col`, a tile map or an interleaved map traps.
    pub fn im2col_wide_addresses(
        &self,
        start: &[i64; 5],
        mode: Im2colWide,
        [halo, offset]: [i64; 2],
    ) -> Result<Vec<Option<u64>>, String> {
        let name = |mode| match mode {
            Im2colWide::W => ".im2col::w",
            Im2colWide::W128 => ".im2col::w::128",
        };
        let Some(im2col) = self.im2col else {
            return Err(format!(
                "an {} copy with a tile-mode tensor map",
                name(mode)
            ));
        };
        match im2col.wide {
            None => {
                return Err(format!(
                    "an {} copy with an im2col map of cuTensorMapEncodeIm2col",
                    name(mode)
                ));
            }
            Some(map_mode) if map_mode != mode => {
                return Err(format!(
                    "an {} copy with an {} map",
                    name(mode),
                    name(map_mode)
                ));
            }
            Some(_) => {}
        }
        if self.interleave != 0 {
            return Err("im2col copies with an interleaved tensor map are not supported".into());
        }
        let (pixels, group, halo_limit) = match mode {
            Im2colWide::W => {
                let pixels = u64::from(im2col.pixels_per_column);
                (pixels, pixels, 512)
            }
            Im2colWide::W128 => (128, 32, 32),
        };
        if !(0..halo_limit).contains(&halo) {
            return Err(format!(
                "wHalo {halo} is outside [0, {halo_limit}) for {}",
                name(mode)
            ));
        }
        if !(0..32).contains(&offset) {
            return Err(format!("wOffset {offset} is outside [0, 32)"));
        }
        let rank = self.rank as usize;
        let low = i64::from(im2col.lower[0]) + offset;
        let high = self.global_dim[1] as i64 - 1 + i64::from(im2col.upper[0]) + offset;
        let step = i64::from(self.element_strides[1].max(1));
        let mut w = start[1] + offset;
        if w > high {
            return Err(format!(
                "the first element's W {w} lies right of the bounding box [{low}, {high}]"
            ));
        }
        let inside = |x: i64, i: usize| x >= 0 && (x as u64) < self.global_dim[i];
        // The pixel's fixed part: its H and D, at their coordinates.
        let mut row = Some(self.global_address);
        for (i, &at) in start.iter().enumerate().take(rank - 1).skip(2) {
            row = row.filter(|_| inside(at, i));
            row = row.map(|address| address + at as u64 * self.stride(i));
        }
        let channels = i64::from(im2col.channels_per_pixel);
        let mut addresses = Vec::new();
        let mut push = |w: i64, image: i64| {
            let pixel = row
                .filter(|_| inside(w, 1) && inside(image, rank - 1))
                .map(|at| at + w as u64 * self.stride(1) + image as u64 * self.stride(rank - 1));
            for k in 0..channels {
                let c = start[0] + k;
                addresses.push(
                    pixel
                        .filter(|_| inside(c, 0))
                        .map(|at| at + c as u64 * self.stride(0)),
                );
            }
        };
        let mut image = start[rank - 1];
        for j in 1..=pixels {
            push(w, image);
            if j % group.max(1) == 0 {
                for k in 1..=halo {
                    push(w + k * step, image);
                }
            }
            w += step;
            if w > high {
                w = low;
                image += 1;
            }
        }
        Ok(addresses)
    }

    /// The parameter rules of `cuTensorMapEncodeTiled` (and, for an im2col map,
    /// `cuTensorMapEncodeIm2col` or `cuTensorMapEncodeIm2colWide`), as `cuda.h` (CUDA 13)
    /// documents them; the message names
    /// the rule broken; the swizzles of [`Swizzle::of`]; and the rules of the packed sub-byte
    /// types ([`TensorMap::validate_packed`]).
    pub fn validate(&self) -> Result<(), String> {
        let rank = self.rank as usize;
        // "tensorRank must be non-zero and less than or equal to the maximum supported
        // dimensionality of 5. If interleave is not CU_TENSOR_MAP_INTERLEAVE_NONE, then
        // tensorRank must additionally be greater than or equal to 3."; im2col: "must be 3,
        // 4, or 5".
        if !(1..=5).contains(&rank) {
            return Err(format!("tensorRank {rank} is not 1 to 5"));
        }
        if self.interleave != 0 && rank < 3 {
            return Err(format!("tensorRank {rank} with interleave needs 3 or more"));
        }
        if self.im2col.is_some() && rank < 3 {
            return Err(format!(
                "tensorRank {rank} of an im2col map is not 3, 4 or 5"
            ));
        }
        let packed = packing(self.data_type);
        let Some(bytes) = element_size(self.data_type).or(packed.map(|p| p.shared)) else {
            return Err(format!(
                "tensorDataType {} is no CUtensorMapDataType (0 to 15)",
                self.data_type
            ));
        };
        if let Some(packed) = packed {
            self.validate_packed(packed)?;
        }
        if self.interleave > 2 {
            return Err(format!(
                "interleave {} is no CUtensorMapInterleave",
                self.interleave
            ));
        }
        let pattern = Swizzle::of(self.swizzle)?;
        // The 96-byte mode: "The .swizzle_atomicity must be 16B. The .interleave_layout must
        // not be set." (9.7.9.25.5.1).
        if pattern.is_some_and(|p| p.span == 96) && self.interleave != 0 {
            return Err("the 96-byte swizzle with an interleaved layout".into());
        }
        if self.l2_promotion > 3 {
            return Err(format!(
                "l2Promotion {} is no CUtensorMapL2promotion",
                self.l2_promotion
            ));
        }
        if self.oob_fill > 1 {
            return Err(format!(
                "oobFill {} is no CUtensorMapFloatOOBfill",
                self.oob_fill
            ));
        }
        // "globalAddress ... must be 16 byte aligned ... When interleave is
        // CU_TENSOR_MAP_INTERLEAVE_32B, globalAddress must be 32 byte aligned."
        let address_alignment = if self.interleave == INTERLEAVE_32B {
            32
        } else {
            16
        };
        if self.global_address % address_alignment != 0 {
            return Err(format!(
                "globalAddress {:#x} is not {address_alignment}-byte aligned",
                self.global_address
            ));
        }
        // "globalDim array ... must be non-zero and less than or equal to 2^31."
        for (i, &dim) in self.global_dim[..rank].iter().enumerate() {
            if dim == 0 || dim > 1 << 31 {
                return Err(format!("globalDim[{i}] = {dim} is not 1 to 2^31"));
            }
        }
        // "globalStrides array ... must be a multiple of 16 and less than 2^40 ... When
        // interleave is CU_TENSOR_MAP_INTERLEAVE_32B, the strides must be a multiple of 32."
        let stride_multiple = if self.interleave == INTERLEAVE_32B {
            32
        } else {
            16
        };
        for (i, &stride) in self.global_strides[..rank - 1].iter().enumerate() {
            if stride % stride_multiple != 0 || stride >= 1 << 40 {
                return Err(format!(
                    "globalStrides[{i}] = {stride} is not a multiple of {stride_multiple} below \
                     2^40"
                ));
            }
        }
        if let Some(im2col) = self.im2col {
            self.validate_im2col(&im2col, bytes)?;
        } else {
            // "boxDim array ... must be non-zero and less than or equal to 256 ... When
            // interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] *
            // elementSizeInBytes( tensorDataType ) } must be a multiple of 16 bytes."
            for (i, &dim) in self.box_dim[..rank].iter().enumerate() {
                if dim == 0 || dim > 256 {
                    return Err(format!("boxDim[{i}] = {dim} is not 1 to 256"));
                }
            }
            // A packed type's inner dimension is its bytes in shared memory.
            let inner = match packed {
                Some(p) => u64::from(self.box_dim[0]) / p.values * p.shared,
                None => u64::from(self.box_dim[0]) * bytes,
            };
            if self.interleave == 0 && inner % 16 != 0 {
                return Err(format!(
                    "boxDim[0] * the element size = {inner} bytes is not a multiple of 16"
                ));
            }
            self.validate_swizzle(inner)?;
        }
        // "elementStrides array ... must be non-zero and less than or equal to 8."
        for (i, &stride) in self.element_strides[..rank].iter().enumerate() {
            if stride == 0 || stride > 8 {
                return Err(format!("elementStrides[{i}] = {stride} is not 1 to 8"));
            }
        }
        // "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be
        // CU_TENSOR_MAP_SWIZZLE_32B."
        if self.interleave == INTERLEAVE_32B && self.swizzle != 1 {
            return Err("interleave 32B needs swizzle 32B".into());
        }
        // "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when
        // tensorDataType represents a floating-point data type".
        if self.oob_fill == OOB_FILL_NAN && !is_float(self.data_type) {
            return Err(format!(
                "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point type, not {}",
                self.data_type
            ));
        }
        Ok(())
    }

    /// The rules `cuda.h` (CUDA 13) gives `cuTensorMapEncodeTiled` for the packed types
    /// ([`Packing`]): "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or
    /// CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, globalAddress must be 32 byte aligned", "globalDim[0]
    /// must be a multiple of 128" ("When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B,
    /// globalDim[0] must be a multiple of 2"), "the strides must be a multiple of 32",
    /// "boxDim[0] must be 128"; "tensorDataType of CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B
    /// requires interleave to be CU_TENSOR_MAP_INTERLEAVE_NONE"; the swizzles listed for each
    /// ("16U6_ALIGN16B ... SWIZZLE_NONE, SWIZZLE_128B, SWIZZLE_128B_ATOM_32B (Load & Store),
    /// SWIZZLE_128B_ATOM_64B (Store only)"; "16U4_ALIGN16B ... SWIZZLE_NONE, SWIZZLE_128B,
    /// SWIZZLE_128B_ATOM_32B (Load only)": the copy checks the direction); the NaN fill "can
    /// only be used ... when tensorDataType is not" a packed type. ptxsim takes them in tile
    /// mode only.
    fn validate_packed(&self, packed: Packing) -> Result<(), String> {
        let name = match self.data_type {
            13 => "16U4_ALIGN8B",
            14 => "16U4_ALIGN16B",
            _ => "16U6_ALIGN16B",
        };
        if self.im2col.is_some() {
            return Err(format!(
                "an im2col map of the packed type {name} is not supported by ptxsim yet"
            ));
        }
        if self.oob_fill == OOB_FILL_NAN {
            return Err(format!(
                "oobFill NAN_REQUEST_ZERO_FMA with the packed type {name}"
            ));
        }
        if packed.values == 16 {
            if self.global_address % 32 != 0 {
                return Err(format!(
                    "globalAddress {:#x} is not 32-byte aligned ({name})",
                    self.global_address
                ));
            }
            if self.global_dim[0] % 128 != 0 {
                return Err(format!(
                    "globalDim[0] = {} is not a multiple of 128 ({name})",
                    self.global_dim[0]
                ));
            }
            let rank = self.rank as usize;
            if let Some(stride) = self.global_strides[..rank - 1]
                .iter()
                .find(|&&s| s % 32 != 0)
            {
                return Err(format!(
                    "globalStrides {stride} is not a multiple of 32 ({name})"
                ));
            }
            if self.box_dim[0] != 128 {
                return Err(format!(
                    "boxDim[0] = {} is not 128 ({name})",
                    self.box_dim[0]
                ));
            }
            if self.data_type == 15 && self.interleave != 0 {
                return Err(format!("interleave {} with {name}", self.interleave));
            }
            // SWIZZLE_NONE, _128B, _128B_ATOM_32B, and for 16U6 _128B_ATOM_64B.
            let allowed =
                matches!(self.swizzle, 0 | 3 | 4) || self.data_type == 15 && self.swizzle == 6;
            if !allowed {
                return Err(format!("swizzle {} with {name}", self.swizzle));
            }
        } else {
            if self.global_dim[0] % 2 != 0 {
                return Err(format!(
                    "globalDim[0] = {} is not a multiple of 2 ({name})",
                    self.global_dim[0]
                ));
            }
            // "{ boxDim[0] * elementSizeInBytes( tensorDataType ) } must be a multiple of 16
            // bytes": 32 values of 4 bits.
            if self.interleave == 0 && self.box_dim[0] % 32 != 0 {
                return Err(format!(
                    "boxDim[0] = {} values of 4 bits are not a multiple of 16 bytes ({name})",
                    self.box_dim[0]
                ));
            }
        }
        Ok(())
    }

    /// "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE and swizzle is not
    /// CU_TENSOR_MAP_SWIZZLE_NONE, the bounding box inner dimension ... must be less than or
    /// equal to the swizzle size."
    /// The 96-byte mode: "Box-Size[0] must be less than or equal to 96B".
    fn validate_swizzle(&self, inner: u64) -> Result<(), String> {
        let span = Swizzle::of(self.swizzle)?.map_or(0, |p| p.span);
        if self.interleave == 0 && span != 0 && inner > span {
            return Err(format!(
                "the box's inner dimension ({inner} bytes) exceeds the {span}-byte swizzle"
            ));
        }
        Ok(())
    }

    /// `cuTensorMapEncodeIm2col`: "When tensorRank is 3, one signed offset within range
    /// [-32768, 32767] ... 4, two signed offsets each within range [-128, 127] ... 5, three
    /// offsets each within range [-16, 15]"; "channelsPerPixel ... must be less than or equal
    /// to 256"; "pixelsPerColumn ... must be less than or equal to 1024"; the swizzle limit on
    /// "channelsPerPixel multiplied by element size in bytes".
    fn validate_im2col(&self, im2col: &Im2col, bytes: u64) -> Result<(), String> {
        if let Some(mode) = im2col.wide {
            return self.validate_im2col_wide(im2col, mode, bytes);
        }
        let spatial = self.rank as usize - 2;
        let (low, high) = match self.rank {
            3 => (-32768, 32767),
            4 => (-128, 127),
            _ => (-16, 15),
        };
        for corner in [&im2col.lower, &im2col.upper] {
            if let Some(bad) = corner[..spatial]
                .iter()
                .find(|c| !(low..=high).contains(*c))
            {
                return Err(format!(
                    "pixel box corner offset {bad} is outside [{low}, {high}] for rank {}",
                    self.rank
                ));
            }
        }
        if im2col.channels_per_pixel == 0 || im2col.channels_per_pixel > 256 {
            return Err(format!(
                "channelsPerPixel {} is not 1 to 256",
                im2col.channels_per_pixel
            ));
        }
        if im2col.pixels_per_column == 0 || im2col.pixels_per_column > 1024 {
            return Err(format!(
                "pixelsPerColumn {} is not 1 to 1024",
                im2col.pixels_per_column
            ));
        }
        self.validate_swizzle(u64::from(im2col.channels_per_pixel) * bytes)
    }

    /// `cuTensorMapEncodeIm2colWide`: "pixelBoxLowerCornerWidth specifies the coordinate offset
    /// W of the bounding box from left corner. The offset must be within range [-32768,
    /// 32767]" (and the same for `pixelBoxUpperCornerWidth` "from right corner"); "The bounding
    /// box ... must have non-zero area"; "channelsPerPixel ... must be less than or equal to
    /// 256"; "pixelsPerColumn ... must be less than or equal to 1024. This field is ignored
    /// when mode is CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128"; "swizzle ... must be one of the
    /// following CUtensorMapSwizzle modes (other swizzle modes are not supported):
    /// CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B"
    /// ("CU_TENSOR_MAP_SWIZZLE_96B is supported only when mode is
    /// CU_TENSOR_MAP_IM2COL_WIDE_MODE_W"), with the box's inner dimension (`channelsPerPixel`
    /// times the element size) within the swizzle span.
    fn validate_im2col_wide(
        &self,
        im2col: &Im2col,
        mode: Im2colWide,
        bytes: u64,
    ) -> Result<(), String> {
        let range = i32::from(i16::MIN)..=i32::from(i16::MAX);
        for (corner, side) in [(im2col.lower[0], "Lower"), (im2col.upper[0], "Upper")] {
            if !range.contains(&corner) {
                return Err(format!(
                    "pixelBox{side}CornerWidth {corner} is outside [-32768, 32767]"
                ));
            }
        }
        let width =
            self.global_dim[1] as i64 + i64::from(im2col.upper[0]) - i64::from(im2col.lower[0]);
        if width <= 0 {
            return Err(format!(
                "the bounding box from W {} to {} + {} has no area",
                im2col.lower[0],
                self.global_dim[1] as i64 - 1,
                im2col.upper[0]
            ));
        }
        if im2col.channels_per_pixel == 0 || im2col.channels_per_pixel > 256 {
            return Err(format!(
                "channelsPerPixel {} is not 1 to 256",
                im2col.channels_per_pixel
            ));
        }
        if mode == Im2colWide::W
            && (im2col.pixels_per_column == 0 || im2col.pixels_per_column > 1024)
        {
            return Err(format!(
                "pixelsPerColumn {} is not 1 to 1024",
                im2col.pixels_per_column
            ));
        }
        let supported = match Swizzle::of(self.swizzle)? {
            Some(Swizzle {
                span: 64, atom: 16, ..
            }) => true,
            Some(Swizzle {
                span: 128,
                atom: 16 | 32,
                flip: false,
            }) => true,
            Some(Swizzle { span: 96, .. }) => mode == Im2colWide::W,
            _ => false,
        };
        if !supported {
            return Err(format!(
                "swizzle {:#x} is not one of the 64B, 128B and 128B_ATOM_32B swizzles (96B with \
                 mode W) an im2col-w map takes",
                self.swizzle
            ));
        }
        self.validate_swizzle(u64::from(im2col.channels_per_pixel) * bytes)
    }

    /// ptxsim's encoding of the 128 bytes (little-endian): `"PTM1"`; then bytes 4-11: mode
    /// (0 tile, 1 im2col, 2 im2col-w `W`, 3 im2col-w `W128`), rank, data type, interleave, swizzle, L2 promotion, OOB fill, 0;
    /// 16: `globalAddress` (u64); 24: `globalDim` (5 x u32); 48: `globalStrides` (4 x u64); 80: `boxDim` (5 x u16); 90: `elementStrides`
    /// (5 x u8); 96: the im2col lower and upper corners (3 + 3 x i16); 108:
    /// `channelsPerPixel` (u16); 110: `pixelsPerColumn` (u16); the rest zero.
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut bytes = [0u8; TENSOR_MAP_BYTES];
        bytes[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        let im2col = self.im2col.unwrap_or_default();
        let mode = match self.im2col.map(|im2col| im2col.wide) {
            None => 0,
            Some(None) => 1,
            Some(Some(Im2colWide::W)) => 2,
            Some(Some(Im2colWide::W128)) => 3,
        };
        let small = [
            mode,
            self.rank as u8,
            self.data_type as u8,
            self.interleave as u8,
            self.swizzle as u8,
            self.l2_promotion as u8,
            self.oob_fill as u8,
        ];
        bytes[4..11].copy_from_slice(&small);
        bytes[16..24].copy_from_slice(&self.global_address.to_le_bytes());
        for i in 0..5 {
            let dim = self.global_dim[i].min(u64::from(u32::MAX)) as u32;
            bytes[24 + 4 * i..28 + 4 * i].copy_from_slice(&dim.to_le_bytes());
            let boxed = self.box_dim[i] as u16;
            bytes[80 + 2 * i..82 + 2 * i].copy_from_slice(&boxed.to_le_bytes());
            bytes[90 + i] = self.element_strides[i] as u8;
        }
        for i in 0..4 {
            bytes[48 + 8 * i..56 + 8 * i].copy_from_slice(&self.global_strides[i].to_le_bytes());
        }
        for i in 0..3 {
            bytes[96 + 2 * i..98 + 2 * i].copy_from_slice(&(im2col.lower[i] as i16).to_le_bytes());
            bytes[102 + 2 * i..104 + 2 * i]
                .copy_from_slice(&(im2col.upper[i] as i16).to_le_bytes());
        }
        bytes[108..110].copy_from_slice(&(im2col.channels_per_pixel as u16).to_le_bytes());
        bytes[110..112].copy_from_slice(&(im2col.pixels_per_column as u16).to_le_bytes());
        bytes
    }

    /// The tensor map [`TensorMap::encode`] wrote, validated again (the bytes may have been
    /// written by a program, or changed by `tensormap.replace`).
    pub fn decode(bytes: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMap, String> {
        let map = TensorMap::decode_fields(bytes)?;
        map.validate()?;
        Ok(map)
    }

    /// The fields of ptxsim's encoding, not validated (`tensormap.replace` changes one field
    /// at a time: the map may be invalid in between).
    pub fn decode_fields(bytes: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMap, String> {
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let i16_at = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        if u32_at(0) != MAGIC {
            return Err("not a tensor map (made by cuTensorMapEncode*)".into());
        }
        let rank = u32::from(bytes[5]);
        let mut map = TensorMap {
            data_type: u32::from(bytes[6]),
            rank,
            global_address: u64_at(16),
            interleave: u32::from(bytes[7]),
            swizzle: u32::from(bytes[8]),
            l2_promotion: u32::from(bytes[9]),
            oob_fill: u32::from(bytes[10]),
            im2col: (1..=3).contains(&bytes[4]).then(|| Im2col {
                lower: [i16_at(96).into(), i16_at(98).into(), i16_at(100).into()],
                upper: [i16_at(102).into(), i16_at(104).into(), i16_at(106).into()],
                channels_per_pixel: u16_at(108).into(),
                pixels_per_column: u16_at(110).into(),
                wide: match bytes[4] {
                    2 => Some(Im2colWide::W),
                    3 => Some(Im2colWide::W128),
                    _ => None,
                },
            }),
            ..TensorMap::default()
        };
        for i in 0..5 {
            map.global_dim[i] = u64::from(u32_at(24 + 4 * i));
            map.box_dim[i] = u16_at(80 + 2 * i).into();
            map.element_strides[i] = bytes[90 + i].into();
        }
        for i in 0..4 {
            map.global_strides[i] = u64_at(48 + 8 * i);
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile() -> TensorMap {
        TensorMap {
            data_type: 7,
            rank: 2,
            global_address: 0x7f00_0000_0000,
            global_dim: [40, 20, 0, 0, 0],
            global_strides: [160, 0, 0, 0],
            box_dim: [32, 8, 0, 0, 0],
            element_strides: [1, 1, 0, 0, 0],
            ..TensorMap::default()
        }
    }

    #[test]
    fn a_map_survives_its_encoding() {
        let mut map = tile();
        map.swizzle = SWIZZLE_128B;
        map.oob_fill = OOB_FILL_NAN;
        assert_eq!(TensorMap::decode(&map.encode()), Ok(map));
    }

    #[test]
    fn the_documented_rules_refuse_bad_parameters() {
        let refused = |change: fn(&mut TensorMap)| {
            let mut map = tile();
            change(&mut map);
            map.validate().is_err()
        };
        assert!(tile().validate().is_ok());
        assert!(refused(|m| m.rank = 0));
        assert!(refused(|m| m.rank = 6));
        assert!(refused(|m| m.global_address += 8));
        assert!(refused(|m| m.global_strides[0] = 168));
        assert!(refused(|m| m.global_dim[1] = 0));
        assert!(refused(|m| m.box_dim[1] = 257));
        assert!(refused(|m| m.box_dim[0] = 3));
        assert!(refused(|m| m.element_strides[1] = 9));
        // 32 floats are 128 bytes: more than a 64-byte swizzle span.
        assert!(refused(|m| m.swizzle = 2));
        assert!(refused(|m| {
            m.data_type = 3;
            m.oob_fill = OOB_FILL_NAN;
        }));
        assert!(refused(|m| m.interleave = 1));
    }

    /// A `cuTensorMapEncodeIm2colWide` map: NHWC, 32 channels of 4 bytes (128 bytes, the
    /// 128-byte swizzle), W corners -1 and 0.
    fn wide(mode: Im2colWide) -> TensorMap {
        TensorMap {
            data_type: 2,
            rank: 4,
            global_address: 0x7f00_0000_0000,
            global_dim: [32, 20, 3, 2, 0],
            global_strides: [128, 2560, 7680, 0],
            element_strides: [1, 1, 1, 1, 0],
            swizzle: SWIZZLE_128B,
            im2col: Some(Im2col {
                lower: [-1, 0, 0],
                upper: [0, 0, 0],
                channels_per_pixel: 32,
                pixels_per_column: 64,
                wide: Some(mode),
            }),
            ..TensorMap::default()
        }
    }

    #[test]
    fn an_im2col_w_map_survives_its_encoding_and_keeps_the_documented_rules() {
        for mode in [Im2colWide::W, Im2colWide::W128] {
            assert_eq!(TensorMap::decode(&wide(mode).encode()), Ok(wide(mode)));
        }
        let refused = |mode, change: fn(&mut TensorMap, &mut Im2col)| {
            let mut map = wide(mode);
            let mut im2col = map.im2col.unwrap_or_default();
            change(&mut map, &mut im2col);
            map.im2col = Some(im2col);
            map.validate().is_err()
        };
        // "other swizzle modes are not supported": none, 32 bytes, the 8-byte flip, 64-byte
        // atomicity; "CU_TENSOR_MAP_SWIZZLE_96B is supported only when mode is ..._W".
        assert!(refused(Im2colWide::W, |m, _| m.swizzle = 0));
        assert!(refused(Im2colWide::W, |m, _| m.swizzle = 5));
        assert!(refused(Im2colWide::W, |m, _| m.swizzle = 6));
        assert!(refused(Im2colWide::W, |m, _| m.swizzle = 1));
        assert!(!refused(Im2colWide::W, |m, i| {
            m.swizzle = 4;
            i.channels_per_pixel = 16;
        }));
        assert!(refused(Im2colWide::W128, |m, i| {
            m.swizzle = SWIZZLE_96B;
            i.channels_per_pixel = 16;
        }));
        assert!(!refused(Im2colWide::W, |m, i| {
            m.swizzle = SWIZZLE_96B;
            i.channels_per_pixel = 16;
        }));
        // "must have non-zero area": W 20 from -1 to 19 - 21.
        assert!(refused(Im2colWide::W, |_, i| i.upper[0] = -21));
        assert!(!refused(Im2colWide::W, |_, i| i.upper[0] = -20));
        assert!(refused(Im2colWide::W, |_, i| i.lower[0] = 40_000));
        assert!(refused(Im2colWide::W, |_, i| i.channels_per_pixel = 0));
        // "pixelsPerColumn ... less than or equal to 1024 ... ignored when mode is ..._W128".
        assert!(refused(Im2colWide::W, |_, i| i.pixels_per_column = 1025));
        assert!(!refused(Im2colWide::W128, |_, i| i.pixels_per_column = 1025));
        // 64 channels of 4 bytes exceed the 128-byte swizzle span.
        assert!(refused(Im2colWide::W, |_, i| i.channels_per_pixel = 64));
    }

    /// The ISA's tables of the sm_100 swizzles (5.5.7), cell by cell: the 16-byte chunk at
    /// position `p` of 128-byte line `r` holds chunk `table[r % rows][p]` of the unswizzled line.
    #[test]
    fn the_sm_100_swizzles_follow_the_isas_tables() {
        let tables: [(u32, &[[u64; 8]]); 4] = [
            (
                SWIZZLE_96B,
                &[[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
            ),
            (
                SWIZZLE_128B | 1 << ATOMICITY_SHIFT,
                &[
                    [0, 1, 2, 3, 4, 5, 6, 7],
                    [2, 3, 0, 1, 6, 7, 4, 5],
                    [4, 5, 6, 7, 0, 1, 2, 3],
                    [6, 7, 4, 5, 2, 3, 0, 1],
                ],
            ),
            (
                SWIZZLE_128B | 3 << ATOMICITY_SHIFT,
                &[[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]],
            ),
            (6, &[[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]]),
        ];
        for (field, table) in tables {
            for line in 0..8u64 {
                for (position, &chunk) in table[line as usize % table.len()].iter().enumerate() {
                    let from = 128 * line + 16 * chunk + 3;
                    let to = 128 * line + 16 * position as u64 + 3;
                    assert_eq!(
                        swizzle(field, from),
                        to,
                        "{field:#x} line {line} chunk {chunk}"
                    );
                }
            }
        }
        // The 8-byte flip: the 32-byte pattern, and on odd lines the halves of each chunk
        // swapped.
        for field in [SWIZZLE_128B | 2 << ATOMICITY_SHIFT, 5] {
            assert_eq!(swizzle(field, 5), 5);
            assert_eq!(swizzle(field, 128 + 5), 128 + 32 + 8 + 5);
            assert_eq!(swizzle(field, 128 + 8 + 5), 128 + 32 + 5);
        }
        // Table 14: other atomicities only with the 128-byte mode.
        assert!(Swizzle::of(2 | 1 << ATOMICITY_SHIFT).is_err());
        assert!(Swizzle::of(SWIZZLE_96B | 3 << ATOMICITY_SHIFT).is_err());
        assert!(Swizzle::of(8).is_err());
    }

    #[test]
    fn the_128_byte_swizzle_xors_the_chunk_with_the_row() {
        // Row 3 (bytes 384..512) of a 1024-byte-aligned buffer: chunk c goes to c ^ 3.
        for chunk in 0..8u64 {
            assert_eq!(
                swizzle(SWIZZLE_128B, 384 + 16 * chunk + 5),
                384 + 16 * (chunk ^ 3) + 5
            );
        }
        assert_eq!(swizzle(0, 400), 400);
    }
}
