//! Tensor maps (`cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`,
//! `cuTensorMapEncodeIm2colWide`, `cuTensorMapReplaceAddress`): the 128-byte `CUtensorMap` that `cp.async.bulk.tensor` reads,
//! in ptxsim's encoding ([`ptxsim_exec::tensor_map`]), after the parameter rules `cuda.h`
//! documents (a broken rule is `CUDA_ERROR_INVALID_VALUE`, with the rule in the message).

use std::ffi::{c_int, c_uint, c_void};

use ptxsim_exec::tensor_map::{Im2col, TENSOR_MAP_BYTES, TensorMap};
use ptxsim_isa::ops::Im2colWide;

use super::{CUresult, CallResult, guard, null_argument};
use crate::status::{CudaError, Failure};

/// `count` values at `pointer` ("array" parameters), `what` naming it in the error.
///
/// # Safety
/// `pointer` is NULL (an error) or points to `count` readable values.
unsafe fn array<T: Copy + Default>(
    pointer: *const T,
    count: usize,
    what: &str,
) -> CallResult<[T; 5]> {
    let mut values = [T::default(); 5];
    if count == 0 {
        return Ok(values);
    }
    if pointer.is_null() {
        return Err(null_argument(what));
    }
    for (i, value) in values.iter_mut().enumerate().take(count.min(5)) {
        // SAFETY: `count` readable values, by the caller's contract.
        *value = unsafe { pointer.add(i).read_unaligned() };
    }
    Ok(values)
}

/// Validates `map` and writes its encoding to `tensor_map` ("tensorMap address must be
/// aligned to 64 bytes").
///
/// # Safety
/// `tensor_map` is NULL (an error) or points to 128 writable bytes.
unsafe fn write(tensor_map: *mut c_void, map: &TensorMap) -> CallResult<()> {
    if tensor_map.is_null() {
        return Err(null_argument("tensorMap"));
    }
    if tensor_map.addr() % 64 != 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "tensorMap address must be aligned to 64 bytes",
        ));
    }
    map.validate()
        .map_err(|rule| Failure::new(CudaError::InvalidValue, rule))?;
    let bytes = map.encode();
    // SAFETY: 128 writable bytes, by the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), tensor_map.cast::<u8>(), TENSOR_MAP_BYTES)
    };
    Ok(())
}

/// The rank checked before the arrays of `rank` entries are read.
fn checked_rank(rank: c_uint) -> CallResult<usize> {
    match rank {
        1..=5 => Ok(rank as usize),
        _ => Err(Failure::new(
            CudaError::InvalidValue,
            format!("tensorRank {rank} is not 1 to 5"),
        )),
    }
}

/// The checked rank of an im2col map: "tensorRank ... must be 3, 4, or 5".
fn im2col_rank(rank: c_uint) -> CallResult<usize> {
    let count = checked_rank(rank)?;
    if count < 3 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("tensorRank {rank} of an im2col map is not 3, 4 or 5"),
        ));
    }
    Ok(count)
}

/// The fields every encoder takes (`rank` checked: `count` of them), without a box or im2col
/// part.
///
/// # Safety
/// Each array pointer is NULL (an error) or points to `count` readable values (`count - 1`
/// global strides).
unsafe fn fields(
    (data_type, rank, count): (c_int, c_uint, usize),
    global_address: *mut c_void,
    (global_dim, global_strides, element_strides): (*const u64, *const u64, *const u32),
    [interleave, swizzle, l2_promotion, oob_fill]: [c_int; 4],
) -> CallResult<TensorMap> {
    // SAFETY: `count` (and `count - 1`) readable values, by the caller's contract.
    let strides = unsafe { array(global_strides, count - 1, "globalStrides") }?;
    Ok(TensorMap {
        data_type: data_type as u32,
        rank,
        global_address: global_address.addr() as u64,
        // SAFETY: as above.
        global_dim: unsafe { array(global_dim, count, "globalDim") }?,
        global_strides: [strides[0], strides[1], strides[2], strides[3]],
        box_dim: [0; 5],
        // SAFETY: as above.
        element_strides: unsafe { array(element_strides, count, "elementStrides") }?,
        interleave: interleave as u32,
        swizzle: swizzle as u32,
        l2_promotion: l2_promotion as u32,
        oob_fill: oob_fill as u32,
        im2col: None,
    })
}

calls! {
    /// `cuTensorMapEncodeTiled`: a tiled tensor map ([`TensorMap::validate`] has the rules).
    fn cuTensorMapEncodeTiled(
        tensor_map: *mut c_void,
        data_type: c_int,
        rank: c_uint,
        global_address: *mut c_void,
        global_dim: *const u64,
        global_strides: *const u64,
        box_dim: *const u32,
        element_strides: *const u32,
        interleave: c_int,
        swizzle: c_int,
        l2_promotion: c_int,
        oob_fill: c_int,
    ) {
        let count = checked_rank(rank)?;
        let map = TensorMap {
            box_dim: unsafe { array(box_dim, count, "boxDim") }?,
            ..unsafe {
                fields(
                    (data_type, rank, count),
                    global_address,
                    (global_dim, global_strides, element_strides),
                    [interleave, swizzle, l2_promotion, oob_fill],
                )
            }?
        };
        unsafe { write(tensor_map, &map) }
    }

    /// `cuTensorMapEncodeIm2col`: an im2col tensor map (rank 3 to 5; the corners are `rank -
    /// 2` offsets). `cp.async.bulk.tensor` runs its im2col copies.
    fn cuTensorMapEncodeIm2col(
        tensor_map: *mut c_void,
        data_type: c_int,
        rank: c_uint,
        global_address: *mut c_void,
        global_dim: *const u64,
        global_strides: *const u64,
        lower_corner: *const c_int,
        upper_corner: *const c_int,
        channels_per_pixel: c_uint,
        pixels_per_column: c_uint,
        element_strides: *const u32,
        interleave: c_int,
        swizzle: c_int,
        l2_promotion: c_int,
        oob_fill: c_int,
    ) {
        let count = im2col_rank(rank)?;
        let lower = unsafe { array(lower_corner, count - 2, "pixelBoxLowerCorner") }?;
        let upper = unsafe { array(upper_corner, count - 2, "pixelBoxUpperCorner") }?;
        let map = TensorMap {
            im2col: Some(Im2col {
                lower: [lower[0], lower[1], lower[2]],
                upper: [upper[0], upper[1], upper[2]],
                channels_per_pixel,
                pixels_per_column,
                wide: None,
            }),
            ..unsafe {
                fields(
                    (data_type, rank, count),
                    global_address,
                    (global_dim, global_strides, element_strides),
                    [interleave, swizzle, l2_promotion, oob_fill],
                )
            }?
        };
        unsafe { write(tensor_map, &map) }
    }

    /// `cuTensorMapEncodeIm2colWide`: an im2col map "where the elements are exclusively loaded
    /// along the W dimension" (rank 3 to 5; one W corner each side; `mode` 0
    /// `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W`, 1 `_W128`). `cp.async.bulk.tensor` runs its
    /// `.im2col::w` / `.im2col::w::128` copies.
    fn cuTensorMapEncodeIm2colWide(
        tensor_map: *mut c_void,
        data_type: c_int,
        rank: c_uint,
        global_address: *mut c_void,
        global_dim: *const u64,
        global_strides: *const u64,
        lower_corner_width: c_int,
        upper_corner_width: c_int,
        channels_per_pixel: c_uint,
        pixels_per_column: c_uint,
        element_strides: *const u32,
        interleave: c_int,
        mode: c_int,
        swizzle: c_int,
        l2_promotion: c_int,
        oob_fill: c_int,
    ) {
        let count = im2col_rank(rank)?;
        let wide = match mode {
            0 => Im2colWide::W,
            1 => Im2colWide::W128,
            _ => {
                return Err(Failure::new(
                    CudaError::InvalidValue,
                    format!("mode {mode} is no CUtensorMapIm2ColWideMode"),
                ));
            }
        };
        let map = TensorMap {
            im2col: Some(Im2col {
                lower: [lower_corner_width, 0, 0],
                upper: [upper_corner_width, 0, 0],
                channels_per_pixel,
                pixels_per_column,
                wide: Some(wide),
            }),
            ..unsafe {
                fields(
                    (data_type, rank, count),
                    global_address,
                    (global_dim, global_strides, element_strides),
                    [interleave, swizzle, l2_promotion, oob_fill],
                )
            }?
        };
        unsafe { write(tensor_map, &map) }
    }

    /// `cuTensorMapReplaceAddress`: the map with `globalAddress` replaced ("must be 16 byte
    /// aligned", 32 with `CU_TENSOR_MAP_INTERLEAVE_32B`).
    fn cuTensorMapReplaceAddress(tensor_map: *mut c_void, global_address: *mut c_void) {
        if tensor_map.is_null() {
            return Err(null_argument("tensorMap"));
        }
        let mut bytes = [0u8; TENSOR_MAP_BYTES];
        // SAFETY: a tensor map: 128 readable bytes, by the call's contract.
        unsafe { std::ptr::copy_nonoverlapping(tensor_map.cast::<u8>(), bytes.as_mut_ptr(), TENSOR_MAP_BYTES) };
        let mut map = TensorMap::decode(&bytes)
            .map_err(|message| Failure::new(CudaError::InvalidValue, message))?;
        map.global_address = global_address.addr() as u64;
        unsafe { write(tensor_map, &map) }
    }
}
