//! `cp.async.bulk.tensor` (PTX ISA 9.0, cp.async.bulk.tensor): boxes of a tensor that a tensor
//! map ([`crate::tensor_map`]) describes, copied between global memory and shared memory by
//! the copy engine (the "tensor memory accelerator"). Like the other bulk copies, a copy
//! completes when it is issued.

use ptxsim_isa::Type;
use ptxsim_isa::ops::{AtomOp, Space, TensormapField};

use super::Executor;
use crate::alu;
use crate::ir::{BulkTensorInstruction, Instruction, MemoryOperand, Source};
use crate::memory::{CLUSTER_RANK_STRIDE, Fault};
use crate::tensor_map::{self, TENSOR_MAP_BYTES, TensorMap};

/// Why a lane's tensor copy stopped.
enum Stop {
    /// A trap with this message.
    Trap(String),
    /// A memory fault.
    Fault(Fault),
}

impl From<Fault> for Stop {
    fn from(fault: Fault) -> Self {
        Stop::Fault(fault)
    }
}

/// The element positions of a tile-mode box, in the order they lie in shared memory (the
/// innermost dimension fastest): for each, the coordinates `c[i] + k[i] * elementStrides[i]`.
struct BoxWalk {
    counts: [u64; 5],
    index: [u64; 5],
    done: bool,
}

impl BoxWalk {
    fn new(map: &TensorMap) -> BoxWalk {
        let mut counts = [1u64; 5];
        for (i, count) in counts.iter_mut().enumerate().take(map.rank as usize) {
            *count = map.box_count(i);
        }
        BoxWalk {
            done: counts.contains(&0),
            counts,
            index: [0; 5],
        }
    }
}

impl Iterator for BoxWalk {
    type Item = [u64; 5];

    fn next(&mut self) -> Option<[u64; 5]> {
        if self.done {
            return None;
        }
        let current = self.index;
        self.done = true;
        for (index, &count) in self.index.iter_mut().zip(&self.counts) {
            *index += 1;
            if *index < count {
                self.done = false;
                break;
            }
            *index = 0;
        }
        Some(current)
    }
}

/// A map's swizzle field as Table 33's mode (`CUtensorMapSwizzle` 0 to 3 or
/// [`tensor_map::SWIZZLE_96B`]) and atomicity: the driver's `128B_ATOM` values 4 to 6 are the
/// 128-byte mode with atomicity 1 to 3.
fn split_swizzle(field: u32) -> (u32, u32) {
    match field & 0xf {
        mode @ 4..=6 => (tensor_map::SWIZZLE_128B, mode - 3),
        mode => (mode, field >> tensor_map::ATOMICITY_SHIFT),
    }
}

/// The global addresses of a `.tile::gather4` / `.tile::scatter4` copy's elements in
/// shared-memory order (5.5.3.4, "these modes work only on 2D tensor data"): "four request
/// coordinates will form four Bounding Boxes in the tensor space", row `row_idx_i` from
/// `col_idx`, `boxDim[0]` elements long ("The size of the bounding box in the dimension 0
/// represents the length of the rows. The size of the bounding box in the dimension 1 must be
/// one"); they form "a single 2-dimensional destination tensor" of four rows, the first
/// coordinate's row first. "The interleave layout is not supported"; "All other constraints and
/// rules of the tile mode apply" (elements outside the tensor are `None`).
fn four_row_addresses(map: &TensorMap, start: &[i64; 5]) -> Result<Vec<Option<u64>>, Stop> {
    if map.im2col.is_some() {
        return Err(Stop::Trap(
            "a .tile::gather4/.tile::scatter4 copy with an im2col tensor map".into(),
        ));
    }
    if map.interleave != 0 {
        return Err(Stop::Trap(
            "the interleave layout is not supported for .tile::gather4/.tile::scatter4".into(),
        ));
    }
    if map.box_dim[1] != 1 {
        return Err(Stop::Trap(format!(
            "the tensor map's box is {} rows high; for .tile::gather4/.tile::scatter4 \
             \"the size of the bounding box in the dimension 1 must be one\"",
            map.box_dim[1]
        )));
    }
    let inside = |x: i64, i: usize| x >= 0 && (x as u64) < map.global_dim[i];
    let mut addresses = Vec::new();
    for &row in &start[1..5] {
        for k in 0..map.box_count(0) {
            let column = start[0] + k as i64;
            addresses.push((inside(column, 0) && inside(row, 1)).then(|| {
                map.global_address + column as u64 * map.stride(0) + row as u64 * map.stride(1)
            }));
        }
    }
    Ok(addresses)
}

/// The pieces an element of `bytes` bytes is copied in: `(offset, size)`, the element itself
/// unless it is a packed type's 12-byte unit (`16U6_ALIGN16B`), copied as three words.
fn pieces(bytes: u64) -> impl Iterator<Item = (u64, u32)> {
    let size = if bytes == 12 { 4 } else { bytes };
    (0..bytes / size).map(move |k| (k * size, size as u32))
}

/// The copy directions `cuda.h` (CUDA 13) allows the packed types' swizzles: "When the
/// tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B ... CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B
/// (Store only)"; "When the tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B" every
/// swizzle is "(Load only)".
fn packed_direction(map: &TensorMap, load: bool) -> Result<(), Stop> {
    let store_only = map.data_type == 15 && map.swizzle == 6;
    let load_only = map.data_type == 14;
    if load && store_only || !load && load_only {
        return Err(Stop::Trap(format!(
            "a {} with the packed tensor data type {} and swizzle {}, which are for {} only",
            if load { "load" } else { "store" },
            map.data_type,
            map.swizzle,
            if load { "stores" } else { "loads" }
        )));
    }
    Ok(())
}

/// A `.field3` value outside PTX ISA 9.0's Table 33 ("the mapping of the operand new_val
/// across various fields").
fn not_in_table(field: TensormapField, new: u64) -> Stop {
    Stop::Trap(format!(
        "{new} is no value of {field:?} in tensormap.replace's Table 33"
    ))
}

/// The element type of a `cp.reduce.async.bulk.tensor` with `.redOp` `op` on a tensor map of
/// `CUtensorMapDataType` `data_type`, from the ISA's table of "the valid combinations of
/// .redOp and element type": `.add` on `.u32 .s32 .u64 .f32 .f16 .bf16`; `.min`, `.max` on
/// `.u32 .s32 .u64 .s64 .f16 .bf16`; `.inc`, `.dec` on `.u32`; `.and`, `.or`, `.xor` on `.b32
/// .b64` (PTX ISA 9.0, cp.reduce.async.bulk.tensor). `FLOAT32_FTZ` is `.f32`; the other types
/// (8- and 16-bit integers, `.f64`, the TF32 types) trap.
fn reduction_type(op: AtomOp, data_type: u32) -> Result<Type, Stop> {
    let ty = match data_type {
        2 => Type::U32,
        3 => Type::S32,
        4 => Type::U64,
        5 => Type::S64,
        6 => Type::F16,
        7 | 10 => Type::F32,
        9 => Type::Bf16,
        _ => Type::B8,
    };
    let valid = match op {
        AtomOp::Add => matches!(
            ty,
            Type::U32 | Type::S32 | Type::U64 | Type::F32 | Type::F16 | Type::Bf16
        ),
        AtomOp::Min | AtomOp::Max => matches!(
            ty,
            Type::U32 | Type::S32 | Type::U64 | Type::S64 | Type::F16 | Type::Bf16
        ),
        AtomOp::Inc | AtomOp::Dec => ty == Type::U32,
        AtomOp::And | AtomOp::Or | AtomOp::Xor => {
            matches!(ty, Type::U32 | Type::S32 | Type::U64 | Type::S64)
        }
        AtomOp::Exch | AtomOp::Cas => false,
    };
    if !valid {
        return Err(Stop::Trap(format!(
            "cp.reduce.async.bulk.tensor has no .{} on a tensor map of data type {data_type}",
            format!("{op:?}").to_lowercase()
        )));
    }
    Ok(ty)
}

impl Executor<'_, '_> {
    /// `cp.async.bulk.tensor` on each lane of `lanes` ([`Executor::bulk_tensor_lane`]); a lane
    /// whose copy cannot run traps at the instruction.
    pub(super) fn bulk_tensor(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        op: &BulkTensorInstruction,
    ) {
        for &lane in lanes {
            match self.bulk_tensor_lane(lane, op) {
                Ok(()) => {}
                Err(Stop::Trap(message)) => {
                    let message = format!("`{}`: {message}", instruction.text);
                    self.trap(lane, instruction, message);
                }
                Err(Stop::Fault(fault)) => self.fault(lane, instruction, fault),
            }
        }
    }

    /// The tensor map at generic address `at`: "The operand tensorMap is the generic address
    /// of the opaque tensor-map object which resides in .param space or .const space or
    /// .global space" (PTX ISA 9.0, cp.async.bulk.tensor), 64-byte aligned (`cuda.h`:
    /// "tensorMap address must be aligned to 64 bytes").
    fn tensor_map_at(&mut self, lane: usize, at: u64) -> Result<TensorMap, Stop> {
        if at % 64 != 0 {
            return Err(Stop::Trap(format!(
                "the tensor map at {at:#x} is not 64-byte aligned"
            )));
        }
        let mut bytes = [0u8; TENSOR_MAP_BYTES];
        for (i, chunk) in bytes.chunks_exact_mut(8).enumerate() {
            let word = self.load(lane, Space::Generic, at + 8 * i as u64, 8)? as u64;
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        TensorMap::decode(&bytes).map_err(|message| Stop::Trap(format!("{message} at {at:#x}")))
    }

    /// One lane's copy. Tile mode (PTX ISA 9.0, 5.5.1 "Tensor" and cp.async.bulk.tensor): the
    /// box starts at `tensorCoords` and takes `ceil(boxDim[i] / elementStrides[i])` elements
    /// along dimension `i`, at coordinates `tensorCoords[i] + k * elementStrides[i]`; they lie
    /// densely in shared memory, the innermost dimension fastest, each at the address the
    /// map's swizzle makes of its place ([`tensor_map::swizzle`]). A load fills the elements
    /// outside the tensor ("out-of-bound accesses", coordinates below 0 or at `globalDim` or
    /// beyond) with [`tensor_map::oob_value`] and counts every byte of the box for the
    /// complete-tx on `[mbar]`; with `.multicast::cluster` "the source data is multicast to the
    /// same CTA-relative offset as dstMem in the shared memory of each destination CTA" (the
    /// CTAs whose rank bit is set in `ctaMask`), and so is the mbarrier signal. A store writes
    /// only the elements inside the tensor. The shared-memory address must be 128-byte
    /// aligned (CUDA C++ Programming Guide, TMA: "shared memory address must be 128-byte
    /// aligned"). In im2col mode (`.im2col` loads, `.im2col_no_offs` stores) the elements are
    /// those of [`TensorMap::im2col_addresses`]; in `.im2col::w` / `.im2col::w::128` loads
    /// those of [`TensorMap::im2col_wide_addresses`], halo pixels included, whose bytes all
    /// count for the complete-tx. `cp.reduce.async.bulk.tensor` is a store in
    /// which "Each element of the tensor data in the .dst state space is reduced inline with
    /// the corresponding element from the tensor data in the .src state space", element by
    /// element as `red.global` combines them ([`alu::atom`]; `.add.f32` flushes subnormals, as
    /// `red.global.add.f32` and the non-tensor bulk reduction do), of the type
    /// [`reduction_type`] takes from the map. `.tile::gather4` / `.tile::scatter4` move four rows
    /// ([`four_row_addresses`]); `.cta_group::2` sends the complete-tx to the pair's mbarrier
    /// ([`Executor::signalled`]).
    fn bulk_tensor_lane(&mut self, lane: usize, op: &BulkTensorInstruction) -> Result<(), Stop> {
        let map_address = self.read_bits(lane, op.tensor_map, 64);
        let map = self.tensor_map_at(lane, map_address)?;
        if map.rank != u32::from(op.dims) {
            return Err(Stop::Trap(format!(
                "a .{}d copy with a tensor map of rank {}",
                op.dims, map.rank
            )));
        }
        // "Note that this mode is legal only when cp.async.bulk.tensor specifies the copy
        // direction as .shared::cluster.global or otherwise .shared::cta.global" (5.5.7).
        if !op.load && tensor_map::Swizzle::of(map.swizzle).is_ok_and(|p| p.is_some_and(|p| p.flip))
        {
            return Err(Stop::Trap(
                "the 128-byte swizzle with 32-byte atomicity and 8-byte flip is for copies \
                 from .global to shared memory only"
                    .into(),
            ));
        }
        let mut start = [0i64; 5];
        for (i, &coordinate) in op.coordinates.iter().enumerate().take(5) {
            start[i] = i64::from(self.read_bits(lane, coordinate, 32) as u32 as i32);
        }
        // A packed sub-byte type moves in units of `Packing::values` values: the walk below
        // sees a map of units, `global` bytes each in global memory and `shared` bytes (the
        // gap left unwritten) in shared memory.
        let packing = tensor_map::packing(map.data_type);
        let (map, global_bytes, shared_bytes) = match packing {
            None => (map, map.element_bytes(), map.element_bytes()),
            Some(packing) => {
                packed_direction(&map, op.load)?;
                if op.four_rows || op.reduce.is_some() {
                    return Err(Stop::Trap(format!(
                        "a .tile::gather4/.tile::scatter4 or reducing copy with the packed \
                         tensor data type {} is not supported by ptxsim yet",
                        map.data_type
                    )));
                }
                let values = packing.values as i64;
                if start[0].rem_euclid(values) != 0 {
                    return Err(Stop::Trap(format!(
                        "the coordinate {} of dimension 0 is not a multiple of the {values} \
                         values a unit of the packed tensor data type {} holds",
                        start[0], map.data_type
                    )));
                }
                start[0] = start[0].div_euclid(values);
                let mut units = map;
                units.global_dim[0] /= packing.values;
                units.box_dim[0] /= packing.values as u32;
                (units, packing.global, packing.shared)
            }
        };
        let shared = self.address(lane, op.shared);
        if shared % 128 != 0 {
            return Err(Stop::Trap(format!(
                "the shared memory address {shared:#x} is not 128-byte aligned"
            )));
        }
        // The CTA-relative offset of the box, and where that CTA's shared memory starts.
        let offset = shared % CLUSTER_RANK_STRIDE;
        let window = shared - offset;
        let bytes = global_bytes;
        // The global address of each element of the box, in shared-memory order.
        let addresses: Vec<Option<u64>> = if let Some(mode) = op.wide {
            // "Argument wHalo is a 16bit unsigned integer ... Argument wOffset is a 16bit
            // unsigned integer".
            let mut info = [0i64; 2];
            for (value, &source) in info.iter_mut().zip(&op.im2col_offsets) {
                *value = i64::from(self.read_bits(lane, source, 16) as u16);
            }
            map.im2col_wide_addresses(&start, mode, info)
                .map_err(Stop::Trap)?
        } else if op.im2col {
            // "im2colOffsets ... a vector of 16-bit integers" (unsigned: "[0, 2^16-1]" for 3D);
            // `.im2col_no_offs` (a store) has none.
            let offsets: Vec<i64> = op
                .im2col_offsets
                .iter()
                .map(|&offset| i64::from(self.read_bits(lane, offset, 16) as u16))
                .collect();
            map.im2col_addresses(&start, &offsets).map_err(Stop::Trap)?
        } else if op.four_rows {
            four_row_addresses(&map, &start)?
        } else {
            if map.im2col.is_some() {
                return Err(Stop::Trap("a .tile copy with an im2col tensor map".into()));
            }
            let place = |k: [u64; 5]| -> Option<u64> {
                let mut at = map.global_address;
                for i in 0..map.rank as usize {
                    let x = start[i] + (k[i] * u64::from(map.traversal_stride(i))) as i64;
                    if x < 0 || x as u64 >= map.global_dim[i] {
                        return None;
                    }
                    at += x as u64 * if i == 0 { bytes } else { map.stride(i) };
                }
                Some(at)
            };
            BoxWalk::new(&map).map(place).collect()
        };
        // The complete-tx counts the packed bytes, not the gaps: CUTLASS's block-scaled
        // collectives (validated on GPUs) expect `sizeof_bits` of the value (4 or 6) per value
        // of an FP4/FP6 operand that a `16U4_ALIGN16B`/`16U6_ALIGN16B` map loads.
        let total = addresses.len() as u64 * bytes;
        if let Some(reduction) = op.reduce {
            let ty = reduction_type(reduction, map.data_type)?;
            for (n, &global) in addresses.iter().enumerate() {
                let Some(global) = global else {
                    continue;
                };
                let from = window + tensor_map::swizzle(map.swizzle, offset + n as u64 * bytes);
                let value = self.load(lane, Space::Shared, from, bytes as u32)? as u64;
                let update =
                    |old: u64, _global: bool| alu::atom(reduction, ty, true, old, value, 0);
                self.atomic(lane, Space::Global, global, bytes as u32, update)?;
            }
            return Ok(());
        }
        if !op.load {
            for (n, &global) in addresses.iter().enumerate() {
                let Some(global) = global else {
                    continue;
                };
                for (piece, size) in pieces(bytes) {
                    let place = offset + n as u64 * shared_bytes + piece;
                    let from = window + tensor_map::swizzle(map.swizzle, place);
                    let value = self.load(lane, Space::Shared, from, size)?;
                    self.store(lane, Space::Global, global + piece, size, value)?;
                }
            }
            return Ok(());
        }
        // The CTAs the box goes to: bases of their shared memory in `.shared::cluster`.
        let targets: Vec<u64> = match op.cta_mask {
            Some(mask) => {
                let mask = self.read_bits(lane, mask, 16);
                (0..u64::from(self.cluster.size))
                    .filter(|rank| mask >> rank & 1 == 1)
                    .map(|rank| rank * CLUSTER_RANK_STRIDE)
                    .collect()
            }
            None => vec![window],
        };
        let fill = tensor_map::oob_value(&map);
        for (n, &global) in addresses.iter().enumerate() {
            for (piece, size) in pieces(bytes) {
                let value = match global {
                    Some(global) => self.load(lane, Space::Global, global + piece, size)?,
                    None => u128::from(fill),
                };
                let place = offset + n as u64 * shared_bytes + piece;
                let to = tensor_map::swizzle(map.swizzle, place);
                for &base in &targets {
                    self.store(lane, Space::SharedCluster, base + to, size, value)?;
                }
            }
        }
        if let Some(mbarrier) = op.mbarrier {
            let at = self.address(lane, mbarrier);
            for target in self.signalled(op, at, &targets)? {
                self.complete_tx(lane, target, total as i64)?;
            }
        }
        Ok(())
    }

    /// The `.shared::cluster` addresses of the mbarriers a load's complete-tx goes to, one per
    /// destination CTA (`targets`: the bases of their shared memory, `r * CLUSTER_RANK_STRIDE`).
    /// Without `.cta_group::2`: `at` itself, or with `.multicast::cluster` "the mbarrier signal
    /// is also multicast to the same CTA-relative offset as mbar" in each destination CTA.
    /// With `.cta_group::2`, which "is used to signal either the odd numbered CTA or the even
    /// numbered CTA among the CTA-Pair" (9.7.9.25.5.2): the mbarrier at `at`'s offset in the
    /// CTA of each destination's pair (ranks `2p`, `2p + 1`, as for `tcgen05`) whose rank has
    /// the parity of `at`'s CTA, so that the copies into both CTAs of a pair complete on one
    /// of their mbarriers (CUTLASS's 2-SM TMA loads pass the leader CTA's mbarrier). A pair
    /// CTA outside the cluster traps.
    fn signalled(
        &self,
        op: &BulkTensorInstruction,
        at: u64,
        targets: &[u64],
    ) -> Result<Vec<u64>, Stop> {
        let within = at % CLUSTER_RANK_STRIDE;
        let rank_of = |address: u64| address / CLUSTER_RANK_STRIDE;
        if op.cta_group != Some(2) {
            return Ok(if op.cta_mask.is_some() {
                targets.iter().map(|base| base + within).collect()
            } else {
                vec![at]
            });
        }
        let parity = rank_of(at) & 1;
        targets
            .iter()
            .map(|&base| {
                let rank = (rank_of(base) & !1) | parity;
                if rank >= u64::from(self.cluster.size) {
                    return Err(Stop::Trap(format!(
                        ".cta_group::2 signals the mbarrier of CTA {rank} of the CTA pair, \
                         outside the cluster of {} CTA(s)",
                        self.cluster.size
                    )));
                }
                Ok(rank * CLUSTER_RANK_STRIDE + within)
            })
            .collect()
    }

    /// `tensormap.replace.tile.field{.ss}.b1024.type [addr]{, ord}, new_val` (PTX ISA 9.0,
    /// tensormap.replace): "replaces the field, specified by .field qualifier, of the
    /// tensor-map object at the location specified by the address operand addr with a new
    /// value"; `.rank` takes "ones less than the desired tensor rank"; `ord` is "the ordinal of
    /// the field across the rank" (for `.global_stride`, 0 is the stride of dimension 1, as
    /// `cuTensorMapEncodeTiled`'s `globalStrides`). The `.field3` fields (`.elemtype`,
    /// `.interleave_layout`, `.swizzle_mode`, `.swizzle_atomicity`, `.fill_mode`) take the
    /// values of the ISA's Table 33 (a value outside it traps), the sm_100 swizzles (96B, the
    /// atomicities) included ([`tensor_map::Swizzle::of`]). The map is rewritten in place in ptxsim's encoding
    /// and checked when a copy uses it; bytes that are not ptxsim's encoding (a zeroed object
    /// being filled in, as Triton's `tl.make_tensor_descriptor` does) count as a map whose
    /// fields are all zero.
    pub(super) fn tensormap_replace(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
        (field, space): (TensormapField, Space),
        address: MemoryOperand,
        ordinal: u32,
        value: Source,
    ) {
        for &lane in lanes {
            let at = self.address(lane, address);
            let new = self.read_bits(lane, value, 64);
            match self.replace_field(lane, (space, at), field, ordinal, new) {
                Ok(()) => {}
                Err(Stop::Trap(message)) => {
                    let message = format!("`{}`: {message}", instruction.text);
                    self.trap(lane, instruction, message);
                }
                Err(Stop::Fault(fault)) => self.fault(lane, instruction, fault),
            }
        }
    }

    fn replace_field(
        &mut self,
        lane: usize,
        (space, at): (Space, u64),
        field: TensormapField,
        ordinal: u32,
        new: u64,
    ) -> Result<(), Stop> {
        let mut bytes = [0u8; TENSOR_MAP_BYTES];
        for (i, chunk) in bytes.chunks_exact_mut(8).enumerate() {
            let word = self.load(lane, space, at + 8 * i as u64, 8)? as u64;
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        // An object that no encoder wrote (Triton's device-side descriptors start from 128
        // zeroed bytes and replace every field they need) is a tile-mode map whose fields are
        // all zero.
        let mut map = TensorMap::decode_fields(&bytes).unwrap_or_default();
        let index = ordinal as usize;
        let out_of_range = || Stop::Trap(format!("ord {ordinal} is not below the rank"));
        match field {
            TensormapField::GlobalAddress => map.global_address = new,
            TensormapField::Rank => map.rank = new as u32 + 1,
            TensormapField::BoxDim => {
                *map.box_dim.get_mut(index).ok_or_else(out_of_range)? = new as u32
            }
            TensormapField::GlobalDim => {
                *map.global_dim.get_mut(index).ok_or_else(out_of_range)? = new & 0xffff_ffff;
            }
            TensormapField::GlobalStride => {
                *map.global_strides.get_mut(index).ok_or_else(out_of_range)? = new;
            }
            TensormapField::ElementStride => {
                *map.element_strides
                    .get_mut(index)
                    .ok_or_else(out_of_range)? = new as u32;
            }
            TensormapField::ElemType => {
                // Table 33: 0 .u8, 1 .u16, 2 .u32, 3 .s32, 4 .u64, 5 .s64, 6 .f16, 7 .f32, 8
                // .f32.ftz, 9 .f64, 10 .bf16, 11 .tf32, 12 .tf32.ftz, 13 .b4x16, 14
                // .b4x16_p64, 15 .b6x16_p32; as `CUtensorMapDataType` (FLOAT64 = 8, BFLOAT16 =
                // 9, FLOAT32_FTZ = 10, 16U4_ALIGN8B = 13, 16U4_ALIGN16B, 16U6_ALIGN16B).
                map.data_type = match new {
                    0..=7 | 11..=15 => new as u32,
                    8 => 10,
                    9 => 8,
                    10 => 9,
                    _ => return Err(not_in_table(field, new)),
                };
            }
            // Table 33: 0 no interleave, 1 16B, 2 32B (`CUtensorMapInterleave`'s values).
            TensormapField::InterleaveLayout if new <= 2 => map.interleave = new as u32,
            // Table 33: 0 no swizzling, 1 32B, 2 64B, 3 128B (`CUtensorMapSwizzle`'s values),
            // 4 96B (sm_100; [`tensor_map::SWIZZLE_96B`]). The map keeps its atomicity.
            TensormapField::SwizzleMode if new <= 4 => {
                let (_, atomicity) = split_swizzle(map.swizzle);
                let mode = if new == 4 {
                    tensor_map::SWIZZLE_96B
                } else {
                    new as u32
                };
                map.swizzle = mode | atomicity << tensor_map::ATOMICITY_SHIFT;
            }
            // Table 33: 0 16B (the atomicity of the swizzles of sm_90), 1 32B, 2 32B with 8B
            // flip, 3 64B (as `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`, `_32B_FLIP_8B`, `_64B`,
            // sm_100). The map keeps its mode; Table 14's combinations are checked at the copy.
            TensormapField::SwizzleAtomicity if new <= 3 => {
                let (mode, _) = split_swizzle(map.swizzle);
                map.swizzle = mode | (new as u32) << tensor_map::ATOMICITY_SHIFT;
            }
            // Table 33: 0 zero fill, 1 OOB-NaN fill (`CUtensorMapFloatOOBfill`'s values).
            TensormapField::FillMode if new <= 1 => map.oob_fill = new as u32,
            TensormapField::InterleaveLayout
            | TensormapField::SwizzleMode
            | TensormapField::SwizzleAtomicity
            | TensormapField::FillMode => return Err(not_in_table(field, new)),
        }
        for (i, chunk) in map.encode().chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.store(lane, space, at + 8 * i as u64, 8, u128::from(word))?;
        }
        Ok(())
    }
}
