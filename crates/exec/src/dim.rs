//! Shapes of grids, clusters and CTAs, and indices into them.

use crate::error::LaunchError;

/// Three dimensions of a grid or CTA, or an index into one (`x`, `y`, `z`).
pub type Dim3 = [u32; 3];

/// The index `i` as a [`Dim3`] of a shape (x fastest).
pub fn unflatten(index: u64, shape: Dim3) -> Dim3 {
    let x = u64::from(shape[0].max(1));
    let y = u64::from(shape[1].max(1));
    [
        (index % x) as u32,
        ((index / x) % y) as u32,
        (index / (x * y)) as u32,
    ]
}

/// The linear index of `index` in `shape` (x fastest).
pub fn flatten(index: Dim3, shape: Dim3) -> u64 {
    u64::from(index[0])
        + u64::from(shape[0]) * (u64::from(index[1]) + u64::from(shape[1]) * u64::from(index[2]))
}

/// The most threads one CTA may have (as on NVIDIA hardware).
pub const MAX_THREADS_PER_CTA: u64 = 1024;

/// The most blocks of a grid along x, y and z (compute capability 5.0 and later).
pub const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65535, 65535];

/// The most threads of a block along x, y and z.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];

/// Checks that a launch of `grid` CTAs of `block` threads is a shape the hardware accepts: no
/// dimension zero, at most [`MAX_GRID`] CTAs and [`MAX_BLOCK`] threads along each axis, at most
/// [`MAX_THREADS_PER_CTA`] threads per CTA.
pub fn check_shape(grid: Dim3, block: Dim3) -> Result<(), LaunchError> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(LaunchError::Shape(
            "grid and block dimensions must be at least 1".to_string(),
        ));
    }
    // CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": a grid
    // is at most 2^31 - 1 x 65535 x 65535 blocks, a block at most 1024 x 1024 x 64 threads.
    for (axis, (&d, &most)) in ["x", "y", "z"].iter().zip(grid.iter().zip(&MAX_GRID)) {
        if d > most {
            return Err(LaunchError::Shape(format!(
                "a grid has at most {most} blocks along {axis}; --grid asks for {d}"
            )));
        }
    }
    for (axis, (&d, &most)) in ["x", "y", "z"].iter().zip(block.iter().zip(&MAX_BLOCK)) {
        if d > most {
            return Err(LaunchError::Shape(format!(
                "a block has at most {most} threads along {axis}; --block asks for {d}"
            )));
        }
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads > MAX_THREADS_PER_CTA {
        return Err(LaunchError::Shape(format!(
            "a CTA has at most {MAX_THREADS_PER_CTA} threads; --block asks for {threads}"
        )));
    }
    Ok(())
}
