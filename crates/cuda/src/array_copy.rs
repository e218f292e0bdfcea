//! Copies between host memory, device memory and CUDA arrays (`cuMemcpy2D`/`3D` with arrays,
//! `cuMemcpyHtoA`/`AtoH`): the arrays of [`crate::texture`], device memory through the
//! driver's copies, row by row, holding neither the texture registry's lock nor the driver's
//! while a row moves.

use std::sync::Arc;

use ptxsim_exec::texture::CudaArray;

use crate::driver;
use crate::status::CallResult;
use crate::texture::{CopyEnd, CopyExtent, CopyPlace, array, invalid};

/// The byte offset of row `(y, z)` at `x` in an end with `pitch` and `height`.
fn row_offset(place: &CopyPlace, y: u64, z: u64, pitch: u64, height: u64) -> Option<u64> {
    (place.z + z)
        .checked_mul(height)?
        .checked_add(place.y + y)?
        .checked_mul(pitch)?
        .checked_add(place.x)
}

/// A 3D copy (`cuMemcpy3D`; `cuMemcpy2D` has depth 1; `cuMemcpyHtoA`/`AtoH` one row) between
/// host memory, device memory and arrays, row by row. Every row must lie inside its host
/// slice, device allocation or array.
pub fn copy_3d(
    source: CopyEnd<'_, &[u8]>,
    source_place: CopyPlace,
    target: CopyEnd<'_, &mut [u8]>,
    target_place: CopyPlace,
    extent: CopyExtent,
) -> CallResult<()> {
    let width = usize::try_from(extent.width).map_err(|_| invalid("WidthInBytes"))?;
    let source_array = match &source {
        CopyEnd::Array(handle) => Some(array(*handle)?),
        CopyEnd::Unknown(what) => return Err(invalid(format!("source memory type: {what}"))),
        _ => None,
    };
    let target_array = match &target {
        CopyEnd::Array(handle) => Some(array(*handle)?),
        CopyEnd::Unknown(what) => return Err(invalid(format!("target memory type: {what}"))),
        _ => None,
    };
    let layout = |array: &Option<Arc<CudaArray>>, place: &CopyPlace| match array {
        Some(array) => (array.row_bytes(), array.height.max(1)),
        None => (
            place.pitch.max(extent.width),
            place.height.max(extent.height),
        ),
    };
    let (source_pitch, source_height) = layout(&source_array, &source_place);
    let (target_pitch, target_height) = layout(&target_array, &target_place);
    let mut row = vec![0u8; width];
    let mut target = target;
    for z in 0..extent.depth {
        for y in 0..extent.height {
            let from = row_offset(&source_place, y, z, source_pitch, source_height)
                .ok_or_else(|| invalid("copy offset overflows"))?;
            match (&source, &source_array) {
                (_, Some(array)) => {
                    if from + extent.width > array.bytes()
                        || source_place.x + extent.width > array.row_bytes()
                    {
                        return Err(invalid("the copy runs past the source array"));
                    }
                    array.read(|data| {
                        row.copy_from_slice(&data[from as usize..from as usize + width])
                    });
                }
                (CopyEnd::Host(bytes), None) => {
                    let slice = usize::try_from(from)
                        .ok()
                        .and_then(|from| bytes.get(from..from.checked_add(width)?))
                        .ok_or_else(|| invalid("the copy runs past the source host memory"))?;
                    row.copy_from_slice(slice);
                }
                (CopyEnd::Device(address), None) => {
                    driver::copy_from_device(&mut row, address.wrapping_add(from))?;
                }
                _ => return Err(invalid("source memory type")),
            }
            let to = row_offset(&target_place, y, z, target_pitch, target_height)
                .ok_or_else(|| invalid("copy offset overflows"))?;
            match (&mut target, &target_array) {
                (_, Some(array)) => {
                    if to + extent.width > array.bytes()
                        || target_place.x + extent.width > array.row_bytes()
                    {
                        return Err(invalid("the copy runs past the target array"));
                    }
                    array
                        .write(|data| data[to as usize..to as usize + width].copy_from_slice(&row));
                }
                (CopyEnd::Host(bytes), None) => {
                    let slice = usize::try_from(to)
                        .ok()
                        .and_then(|to| bytes.get_mut(to..to.checked_add(width)?))
                        .ok_or_else(|| invalid("the copy runs past the target host memory"))?;
                    slice.copy_from_slice(&row);
                }
                (CopyEnd::Device(address), None) => {
                    driver::copy_to_device(address.wrapping_add(to), &row)?;
                }
                _ => return Err(invalid("target memory type")),
            }
        }
    }
    Ok(())
}
