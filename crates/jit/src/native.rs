//! The one module with `unsafe` code in the compiled tier: the context the generated code
//! reads and writes, the call into the generated function, and the `extern "C"` helpers it
//! calls back.
//!
//! Invariants (what makes the calls sound):
//! * Each generated function (one for CTAs whose registers are shown, one for the others, each
//!   in a module of its own) takes one argument, a pointer to a [`Context`] that lives for the
//!   whole call; it reads and writes only the context's fields (at the offsets below), the
//!   list `lanes[..lanes_len]`, the counters `pcs[lane]` and `steps[lane]` and the registers
//!   `registers[r * stride + lane]` for registers `r` of the program and lanes of the list
//!   (`Code::run` checks that the CTA has the thread count the code was built for, that the
//!   slices hold every register and counter of every thread and that every listed lane is
//!   below `count`), the shared memory `shared[at..at + bytes]` after checking
//!   `at + bytes <= shared_len` (or `<=` the constant length the code was built for, which
//!   `Code::run` checks is at most `shared_len`), and the kernel's parameters and the `.const` space
//!   (`params[at..at + bytes]`, `constants[at..at + bytes]`, after the same check, or, for
//!   constant addresses, below the lengths `Code::run` checked before the call (`needs`); both
//!   slices are borrowed, unchanged, for the whole call). Every other access goes through the
//!   helpers, which use safe code over the CTA's [`CtaSpaces`] (the thread `lane`'s
//!   [`LaneSpaces`]).
//! * Global loads and stores access the words of the buffer a helper last found for the
//!   instruction (`windows[slot]`, which `Code::run` owns for the call) after checking that
//!   the access lies aligned inside its length, with atomic loads and plain aligned stores
//!   of the access's width, which lie inside one word and which the hosts Cranelift
//!   supports make single-copy atomic, as the interpreter's relaxed atomic updates of the same
//!   words are (a store racing with another host thread's update of the word is ordered one
//!   way or the other, never torn): the words are `AtomicU64`s of the launch's global memory,
//!   which the CTA's spaces borrow for the whole call (no buffer is added or freed during a
//!   launch).
//! * The CTA's shared memory is taken out of its [`CtaSpaces`] for the call, so that the
//!   generated code's pointer is the only way to it; a helper that needs it (a generic
//!   address in the shared window) makes a slice of it from that pointer for the helper's
//!   own duration and puts it back, while the generated code waits for the helper.
//! * `ptxsim_jit_atom` calls two lane functions of the table by number (checked against its
//!   length) and makes the update through the thread's spaces as the load and store helpers
//!   do; `ptxsim_jit_texture` reads one of [`Code`]'s texture calls by number (checked) and
//!   only reads the CTA's spaces (the texture table and global memory, both borrowed for the
//!   whole call), writing its results into the context's `results`.
//! * `ptxsim_jit_convert` reads the conversion whose address the generated code holds as a
//!   constant: one of [`Code`]'s boxed conversions, which do not move or change while the code
//!   lives.
//! * The helpers do not unwind (the lane functions, conversions and memory accesses are the interpreter's,
//!   which do not panic); a panic would abort the process rather than cross the generated
//!   frames.
//! * [`FloatEnvironment`] reads and writes the calling thread's SSE control register (MXCSR)
//!   with `stmxcsr`/`ldmxcsr` on a local: it loads only the power-up default or the value it
//!   read before, so no reserved bit is ever set (which would fault). It lives here because the
//!   generated code's inline float operations (and the interpreter's fast paths) are the PTX
//!   operations only in that default environment.
//! * The code memory stays mapped as long as [`Code`] lives (the `JITModule` is kept and never
//!   freed), and nothing writes it after `finalize_definitions`, so sharing it across threads
//!   is sound.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::atomic::AtomicU64;

use cranelift_jit::JITModule;
use ptxsim_exec::compiled::{CompiledCta, CtaSpaces, LaneFn, LaneSpaces, SPECIALS};
use ptxsim_exec::cvt::ElementConversion;
use ptxsim_exec::ir::TextureOp;
use ptxsim_exec::memory::FaultKind;
use ptxsim_isa::ops::Space;

use crate::warp::{WARP, WarpOp, WarpRegisters};

/// What the generated function reads and writes (`#[repr(C)]`; the offsets are the
/// associated constants).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Context {
    registers: *mut u64,
    /// The threads to run, `lanes_len` of them.
    lanes: *const u32,
    lanes_len: u64,
    /// Per thread of the CTA: its program counter and its step count.
    pcs: *mut u64,
    steps: *mut u64,
    max_steps: u64,
    shared: *mut u8,
    shared_len: u64,
    /// The kernel's parameters and the `.const` space (read-only for the launch).
    params: *const u8,
    params_len: u64,
    constants: *const u8,
    constants_len: u64,
    scratch: u64,
    functions: *const LaneFn,
    functions_len: u64,
    spaces: *mut c_void,
    /// Per memory instruction that may access global memory: the buffer it accessed last
    /// through a helper, which the generated code accesses directly; `windows_len` of them.
    windows: *mut Window,
    windows_len: u64,
    /// The thread the generated code runs (its index in the CTA), which the helpers use.
    lane: u64,
    /// Set to 1 by the generated code when it hands the thread `lane` back at an access it
    /// did not make (it returns then).
    declined: u64,
    /// 1 when some thread of the CTA made a call ([`CompiledCta::calls`]): a `ret` is then
    /// handed to the interpreter.
    calls: u64,
    specials: [u64; SPECIALS],
    /// The texture and surface instructions the code calls `ptxsim_jit_texture` for, by
    /// number, `texture_calls_len` of them, and where that helper leaves the results.
    texture_calls: *const TextureCall,
    texture_calls_len: u64,
    results: [u64; 4],
    /// The warp function's ([`crate::warp`]): the length of the register file, the CTA's
    /// thread count and the register file's row stride (in values), the warp's first thread,
    /// the steps every lane of it may still issue, the steps the call issued (set by the
    /// helpers that end it), and the warp-synchronous instructions by number.
    registers_len: u64,
    count: u64,
    stride: u64,
    warp_first: u64,
    warp_budget: u64,
    warp_steps: u64,
    warp_ops: *const WarpOp,
    warp_ops_len: u64,
}

impl Context {
    pub(crate) const REGISTERS: usize = std::mem::offset_of!(Context, registers);
    pub(crate) const LANES: usize = std::mem::offset_of!(Context, lanes);
    pub(crate) const LANES_LEN: usize = std::mem::offset_of!(Context, lanes_len);
    pub(crate) const PCS: usize = std::mem::offset_of!(Context, pcs);
    pub(crate) const STEPS: usize = std::mem::offset_of!(Context, steps);
    pub(crate) const MAX_STEPS: usize = std::mem::offset_of!(Context, max_steps);
    pub(crate) const SHARED: usize = std::mem::offset_of!(Context, shared);
    pub(crate) const SHARED_LEN: usize = std::mem::offset_of!(Context, shared_len);
    pub(crate) const PARAMS: usize = std::mem::offset_of!(Context, params);
    pub(crate) const PARAMS_LEN: usize = std::mem::offset_of!(Context, params_len);
    pub(crate) const CONSTANTS: usize = std::mem::offset_of!(Context, constants);
    pub(crate) const CONSTANTS_LEN: usize = std::mem::offset_of!(Context, constants_len);
    pub(crate) const SCRATCH: usize = std::mem::offset_of!(Context, scratch);
    pub(crate) const SPECIALS: usize = std::mem::offset_of!(Context, specials);
    pub(crate) const WINDOWS: usize = std::mem::offset_of!(Context, windows);
    pub(crate) const LANE: usize = std::mem::offset_of!(Context, lane);
    pub(crate) const DECLINED: usize = std::mem::offset_of!(Context, declined);
    pub(crate) const CALLS: usize = std::mem::offset_of!(Context, calls);
    pub(crate) const RESULTS: usize = std::mem::offset_of!(Context, results);
    pub(crate) const WARP_FIRST: usize = std::mem::offset_of!(Context, warp_first);
    pub(crate) const WARP_BUDGET: usize = std::mem::offset_of!(Context, warp_budget);
}

/// A texture or surface instruction the generated code makes through `ptxsim_jit_texture`:
/// what it does and how many coordinates it has.
#[derive(Clone, Debug)]
pub(crate) struct TextureCall {
    pub(crate) op: TextureOp,
    pub(crate) coordinates: usize,
}

/// A global buffer that generated code accesses directly (atomically, as `GlobalMemory`
/// does): its first address, its length in bytes (0: no buffer) and its words.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    base: u64,
    len: u64,
    words: *const AtomicU64,
}

impl Window {
    pub(crate) const SIZE: usize = std::mem::size_of::<Window>();
    pub(crate) const BASE: usize = std::mem::offset_of!(Window, base);
    pub(crate) const LEN: usize = std::mem::offset_of!(Window, len);
    pub(crate) const WORDS: usize = std::mem::offset_of!(Window, words);
    const NONE: Window = Window {
        base: 0,
        len: 0,
        words: std::ptr::null(),
    };
}

/// The window slots [`Code::run`] keeps on the stack (more are allocated).
const INLINE_WINDOWS: usize = 16;

/// The spaces a generated load or store names, by number.
const SPACES: [Space; 6] = [
    Space::Global,
    Space::Shared,
    Space::Local,
    Space::Param,
    Space::Const,
    Space::Generic,
];

/// The number the generated code passes for `space`.
pub(crate) fn space_number(space: Space) -> u32 {
    SPACES.iter().position(|&s| s == space).unwrap_or(0) as u32
}

/// Loads for the generated code: the value goes to `scratch`; returns 1, or 0 when the access
/// faults (the interpreter then makes it).
extern "C" fn ptxsim_jit_load(
    context: *mut Context,
    space: u32,
    address: u64,
    bytes: u32,
    slot: u32,
) -> u32 {
    // SAFETY: the generated code passes the context `Code::run` gave it, alive and not
    // otherwise borrowed while the helper runs.
    let context = unsafe { &mut *context };
    match access(context, space, address, slot, |spaces, space| {
        spaces.load(space, address, bytes)
    }) {
        Some(value) => {
            context.scratch = value;
            1
        }
        None => 0,
    }
}

/// Makes an access of space number `space` at `address` through the thread's spaces (`None`
/// when it faults) and, when it succeeds in a global buffer, makes that buffer window `slot`.
fn access<T>(
    context: &mut Context,
    space: u32,
    address: u64,
    slot: u32,
    f: impl FnOnce(&mut LaneSpaces<'_>, Space) -> Result<T, FaultKind>,
) -> Option<T> {
    let space = SPACES[space as usize % SPACES.len()];
    let (result, window) = with_spaces(context, |spaces| {
        let result = f(spaces, space);
        let window = result.is_ok().then(|| {
            spaces
                .global_window(space, address)
                .map(|(base, len, words)| (base, len, words.as_ptr()))
        });
        (result, window.flatten())
    })?;
    set_window(context, slot, window);
    result.ok()
}

/// Stores for the generated code: returns 1, or 0 when the access faults (nothing is
/// written then).
extern "C" fn ptxsim_jit_store(
    context: *mut Context,
    space: u32,
    address: u64,
    bytes: u32,
    slot: u32,
    value: u64,
) -> u32 {
    // SAFETY: as in `ptxsim_jit_load`.
    let context = unsafe { &mut *context };
    let stored = access(context, space, address, slot, |spaces, space| {
        spaces.store(space, address, bytes, value)
    });
    u32::from(stored.is_some())
}

/// Makes `window` (a global buffer a helper found: its first address, length and words) the
/// one the generated code accesses directly for the instruction of window `slot`. The buffer
/// outlives the call (the launch's global memory, borrowed by the CTA's spaces for it), and
/// the generated code accesses it only atomically.
fn set_window(context: &mut Context, slot: u32, window: Option<(u64, u64, *const AtomicU64)>) {
    if let Some((base, len, words)) = window
        && u64::from(slot) < context.windows_len
    {
        // SAFETY: `windows` points to `windows_len` windows that `Code::run` owns for the
        // call, which the generated code does not touch while the helper runs.
        let windows = unsafe {
            std::slice::from_raw_parts_mut(context.windows, context.windows_len as usize)
        };
        windows[slot as usize] = Window { base, len, words };
    }
}

/// An atomic update for the generated code (`atom`/`red`, [`LaneSpaces::atomic`]) of `bytes`
/// at `address` of space number `space`: the new value is lane function `number` of the
/// table on `(old, b, c)` where the location is in global memory, `number + 1` where it is in
/// shared memory. The old value goes to `scratch`; returns 1, or 0 when the helper does not
/// make the access (a fault, another CTA's shared memory: nothing is written, the interpreter
/// then runs the instruction).
extern "C" fn ptxsim_jit_atom(
    context: *mut Context,
    space: u32,
    address: u64,
    bytes: u32,
    number: u64,
    b: u64,
    c: u64,
) -> u32 {
    // SAFETY: as in `ptxsim_jit_load`; `functions` points to `functions_len` lane functions
    // that `Code` owns.
    let context = unsafe { &mut *context };
    let functions =
        unsafe { std::slice::from_raw_parts(context.functions, context.functions_len as usize) };
    let (Some(in_global), Some(in_shared)) = (
        functions.get(number as usize),
        functions.get(number as usize + 1),
    ) else {
        return 0;
    };
    let space = SPACES[space as usize % SPACES.len()];
    let old = with_spaces(context, |spaces| {
        spaces.atomic(space, address, bytes, |old, global| {
            if global {
                in_global(old, b, c)
            } else {
                in_shared(old, b, c)
            }
        })
    });
    match old {
        Some(Ok(old)) => {
            context.scratch = old;
            1
        }
        _ => 0,
    }
}

/// A texture or surface instruction for the generated code: call number `number` of the
/// code's table for the object `handle` at the coordinates `c0..c3` (as many as the call
/// has), as the interpreter runs it for a lane ([`CtaSpaces::texture`]). The results go to
/// `results`; returns 1, or 0 where the interpreter's lane traps (it then runs the
/// instruction and traps).
#[allow(clippy::too_many_arguments)]
extern "C" fn ptxsim_jit_texture(
    context: *mut Context,
    number: u64,
    handle: u64,
    c0: u64,
    c1: u64,
    c2: u64,
    c3: u64,
) -> u32 {
    // SAFETY: as in `ptxsim_jit_load`; `texture_calls` points to `texture_calls_len` calls
    // that `Code` owns, and `spaces` is the CTA's, alive for the call (only read here).
    let context = unsafe { &mut *context };
    let calls = unsafe {
        std::slice::from_raw_parts(context.texture_calls, context.texture_calls_len as usize)
    };
    let Some(call) = calls.get(number as usize) else {
        return 0;
    };
    let spaces = unsafe { &*(context.spaces as *const CtaSpaces<'static>) };
    let coordinates = [c0, c1, c2, c3].map(|c| c as u32);
    match spaces.texture(
        &call.op,
        handle,
        &coordinates[..call.coordinates.min(4)],
        &[],
    ) {
        Ok((results, _)) => {
            context.results = results;
            1
        }
        Err(_) => 0,
    }
}

/// The lane function number `number` of the table on `(a, b, c)`.
extern "C" fn ptxsim_jit_lane(context: *mut Context, number: u64, a: u64, b: u64, c: u64) -> u64 {
    // SAFETY: as in `ptxsim_jit_load`; `functions` points to `functions_len` lane functions
    // that `Code` owns.
    let context = unsafe { &*context };
    let functions =
        unsafe { std::slice::from_raw_parts(context.functions, context.functions_len as usize) };
    functions
        .get(number as usize)
        .map_or(0, |function| function(a, b, c))
}

/// One element's conversion for the generated code, which passes the address of a conversion
/// that [`Code`] owns (built for it at compile time: one per `cvt` form it calls).
extern "C" fn ptxsim_jit_convert(conversion: *const ElementConversion, bits: u64) -> u64 {
    // SAFETY: the generated code passes the address of one of `Code::conversions`, boxed (its
    // address fixed) and alive as long as the code is.
    let conversion = unsafe { &*conversion };
    conversion.convert(bits)
}

/// Runs `f` on the spaces of the thread `context.lane` with the shared memory put back for
/// its duration (`None`: no such thread, which the generated code never asks for).
fn with_spaces<T>(context: &mut Context, f: impl FnOnce(&mut LaneSpaces<'_>) -> T) -> Option<T> {
    // SAFETY: `spaces` is the `CtaSpaces` of the CTA `Code::run` runs, alive for the call;
    // `shared`/`shared_len` are the slice taken out of it, which nothing else uses while the
    // helper runs (the generated code waits for it). The lifetime of the slice made here does
    // not leave this function: the slice is taken back out before it returns.
    let spaces = unsafe { &mut *(context.spaces as *mut CtaSpaces<'static>) };
    let shared: &'static mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(context.shared, context.shared_len as usize) };
    let saved = std::mem::replace(&mut spaces.shared, shared);
    let result = spaces
        .lane(usize::try_from(context.lane).unwrap_or(usize::MAX))
        .map(|mut lane| f(&mut lane));
    spaces.shared = saved;
    result
}

/// The register file, the program counters and the step counts, and the warp's first thread.
type WarpParts<'a> = (&'a mut [u64], &'a mut [u64], &'a mut [u64], usize);

/// The registers and counters of the warp the warp function runs, as slices over the
/// context's pointers: `(registers, pcs, steps, first)`; `None` when the warp is not inside
/// the CTA.
fn warp_parts(context: &mut Context) -> Option<WarpParts<'_>> {
    let first = usize::try_from(context.warp_first).ok()?;
    let count = usize::try_from(context.count).ok()?;
    if first.checked_add(WARP)? > count {
        return None;
    }
    // SAFETY: `Code::run` set `registers`/`registers_len` to the CTA's register file and
    // `pcs`/`steps` to its `count` counters, all borrowed for the call; the generated code
    // does not touch them while a helper runs, and these slices do not outlive the helper.
    unsafe {
        Some((
            std::slice::from_raw_parts_mut(context.registers, context.registers_len as usize),
            std::slice::from_raw_parts_mut(context.pcs, count),
            std::slice::from_raw_parts_mut(context.steps, count),
            first,
        ))
    }
}

/// A warp-synchronous instruction for the warp function: number `number` of the code's
/// [`WarpOp`]s for the 32 lanes of the warp ([`WarpOp::run`]); 1 when made, 0 when the
/// interpreter is to run it (nothing written then).
extern "C" fn ptxsim_jit_warp(context: *mut Context, number: u64) -> u32 {
    // SAFETY: as in `ptxsim_jit_load`; `warp_ops` points to `warp_ops_len` operations that
    // `Code` owns.
    let context = unsafe { &mut *context };
    let ops =
        unsafe { std::slice::from_raw_parts(context.warp_ops, context.warp_ops_len as usize) };
    let stride = context.stride as usize;
    let Some(op) = ops.get(number as usize) else {
        return 0;
    };
    let Some((registers, _, _, first)) = warp_parts(context) else {
        return 0;
    };
    u32::from(op.run(&mut WarpRegisters {
        registers,
        stride,
        first,
    }))
}

/// The warp function's way out: every lane of the warp at `pc` with `k` more steps.
extern "C" fn ptxsim_jit_warp_leave(context: *mut Context, pc: u64, k: u64) {
    // SAFETY: as in `ptxsim_jit_load`.
    let context = unsafe { &mut *context };
    context.warp_steps = k;
    if let Some((_, pcs, steps, first)) = warp_parts(context) {
        for lane in first..first + WARP {
            pcs[lane] = pc;
            steps[lane] = steps[lane].wrapping_add(k);
        }
    }
}

/// The warp function's way out of a segment `start..end` entered with `k` steps, where lane
/// `left` (0..32) left at `pc` with `counted` steps (an access the code did not make): the
/// lanes before it ran the whole segment, those after it none of it. `masked` is 0, or
/// `p << 2 | negated << 1 | 1` for a segment only the lanes whose guard `@{!}p` is false run
/// (`warp::Segments::segment`): those count its steps themselves as they finish it, and the
/// others wait at `end`, the branch's target.
extern "C" fn ptxsim_jit_warp_stop(
    context: *mut Context,
    left: u64,
    pc: u64,
    counted: u64,
    start: u64,
    end: u64,
    k: u64,
    masked: u64,
) {
    // SAFETY: as in `ptxsim_jit_load`.
    let context = unsafe { &mut *context };
    context.warp_steps = k.max(1);
    let stride = context.stride as usize;
    if let Some((registers, pcs, steps, first)) = warp_parts(context) {
        let predicate = (masked >> 2) as usize;
        // Whether the lane runs the segment: every lane, or where the guard is false (the
        // segment does not write `p`, so it holds what the branch read).
        let runs = |lane: usize| {
            masked & 1 == 0 || {
                let value = predicate
                    .checked_mul(stride)
                    .and_then(|at| registers.get(at + lane))
                    .copied()
                    .unwrap_or(0);
                (value & 1 == 1) == (masked >> 1 & 1 == 1)
            }
        };
        for (l, lane) in (first..first + WARP).enumerate() {
            let (at, more) = match (l as u64).cmp(&left) {
                std::cmp::Ordering::Less if masked & 1 == 1 => (end, k),
                std::cmp::Ordering::Less => (end, k + (end - start)),
                std::cmp::Ordering::Equal => (pc, counted),
                std::cmp::Ordering::Greater if runs(lane) => (start, k),
                std::cmp::Ordering::Greater => (end, k),
            };
            pcs[lane] = at;
            steps[lane] = steps[lane].wrapping_add(more);
        }
    }
}

/// The warp function's way out at a divergent `@{!}p bra target` (its step counted in `k`):
/// each lane at `target` where its guard holds, else at `next`.
extern "C" fn ptxsim_jit_warp_diverge(
    context: *mut Context,
    predicate: u64,
    negated: u64,
    target: u64,
    next: u64,
    k: u64,
) {
    // SAFETY: as in `ptxsim_jit_load`.
    let context = unsafe { &mut *context };
    context.warp_steps = k;
    let stride = context.stride as usize;
    if let Some((registers, pcs, steps, first)) = warp_parts(context) {
        for lane in first..first + WARP {
            let value = registers
                .get(predicate as usize * stride + lane)
                .copied()
                .unwrap_or(0);
            let taken = (value & 1 == 1) != (negated != 0);
            pcs[lane] = if taken { target } else { next };
            steps[lane] = steps[lane].wrapping_add(k);
        }
    }
}

/// The warp helpers by name, for the JIT's symbol table.
pub(crate) fn warp_helper_symbols() -> [(&'static str, *const u8); 4] {
    [
        ("ptxsim_jit_warp", ptxsim_jit_warp as *const u8),
        ("ptxsim_jit_warp_leave", ptxsim_jit_warp_leave as *const u8),
        ("ptxsim_jit_warp_stop", ptxsim_jit_warp_stop as *const u8),
        (
            "ptxsim_jit_warp_diverge",
            ptxsim_jit_warp_diverge as *const u8,
        ),
    ]
}

/// The helpers by name, for the JIT's symbol table.
pub(crate) fn helper_symbols() -> [(&'static str, *const u8); 6] {
    [
        ("ptxsim_jit_load", ptxsim_jit_load as *const u8),
        ("ptxsim_jit_store", ptxsim_jit_store as *const u8),
        ("ptxsim_jit_lane", ptxsim_jit_lane as *const u8),
        ("ptxsim_jit_convert", ptxsim_jit_convert as *const u8),
        ("ptxsim_jit_atom", ptxsim_jit_atom as *const u8),
        ("ptxsim_jit_texture", ptxsim_jit_texture as *const u8),
    ]
}

/// A kernel's generated function with what it needs alive: the one for CTAs whose registers
/// nobody sees after the run, or the one for CTAs whose registers are shown
/// ([`CompiledCta::shown`]: every write stored at once).
pub(crate) struct Code {
    function: *const u8,
    /// Keeps the code mapped (never freed).
    _module: JITModule,
    functions: Vec<LaneFn>,
    /// The conversions the code calls `ptxsim_jit_convert` with, by address (pinned).
    _conversions: Vec<std::pin::Pin<Box<ElementConversion>>>,
    /// The texture and surface instructions it calls `ptxsim_jit_texture` for, by number.
    texture_calls: Vec<TextureCall>,
    /// The number of registers of the program.
    registers: usize,
    /// The number of window slots the function uses.
    slots: usize,
    /// The bytes of the parameters and of the `.const` space it reads without a check, and
    /// the shared memory its bounds checks assume ([`crate::translate::Built`]).
    needs: [u64; 2],
    shared: Option<u64>,
    /// The number of threads of the CTAs it was built for.
    threads: usize,
    /// The warp function, for kernels that have one ([`crate::warp`]).
    warp: Option<WarpCode>,
}

/// A kernel's warp function ([`crate::warp`]) and what its driver needs.
pub(crate) struct WarpCode {
    /// The function (`extern "C" fn(*mut Context)`, finalized in the same module).
    pub(crate) function: *const u8,
    /// Per instruction: a converged warp there enters it.
    pub(crate) entries: Vec<bool>,
    /// Its warp-synchronous instructions, by number.
    pub(crate) ops: Vec<WarpOp>,
    /// Per instruction: a thread there enters the work-item function.
    pub(crate) items: Vec<bool>,
    /// Per instruction: 1 for an unguarded `ret`, 2 for an unguarded `exit` (which end a thread
    /// at once: the driver ends threads the work-item function leaves there), else 0.
    pub(crate) ends: Vec<u8>,
    /// How many of `ops` are shuffles the function makes inline (`Stats::warp_shuffles_inline`).
    pub(crate) inline: usize,
}

impl std::fmt::Debug for WarpCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarpCode")
            .field("function", &self.function)
            .field("ops", &self.ops.len())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code")
            .field("function", &self.function)
            .field("functions", &self.functions.len())
            .finish_non_exhaustive()
    }
}

// SAFETY: the code is immutable once finalized (see the module's invariants), the lane
// functions are `Send + Sync`, and the module is only kept, never used again.
unsafe impl Send for Code {}
// SAFETY: as for `Send`.
unsafe impl Sync for Code {}

impl Code {
    /// `function` must be the finalized address, in `module`, of a function built by
    /// [`crate::translate::build`] for a program of `registers` registers and CTAs of
    /// `threads` threads, calling `functions` and `texture_calls` by number, `conversions` by
    /// address, as `built` says.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        function: *const u8,
        module: JITModule,
        functions: Vec<LaneFn>,
        conversions: Vec<std::pin::Pin<Box<ElementConversion>>>,
        texture_calls: Vec<TextureCall>,
        registers: usize,
        built: crate::translate::Built,
        threads: usize,
    ) -> Self {
        Self {
            function,
            _module: module,
            functions,
            _conversions: conversions,
            texture_calls,
            registers,
            slots: built.slots,
            needs: built.needs,
            shared: built.shared,
            threads,
            warp: None,
        }
    }

    /// The warp function, if the code has one.
    pub(crate) fn warp(&self) -> Option<&WarpCode> {
        self.warp.as_ref()
    }

    /// The code with `warp`, whose memory instructions take window slots up to `slots` and
    /// read `needs` bytes of the parameters and of the `.const` space without a check (built
    /// in the same module as the work-item functions, for the same program and CTA shape).
    pub(crate) fn with_warp(mut self, warp: WarpCode, slots: usize, needs: [u64; 2]) -> Self {
        self.slots = self.slots.max(slots);
        self.needs = [self.needs[0].max(needs[0]), self.needs[1].max(needs[1])];
        self.warp = Some(warp);
        self
    }

    /// Runs the generated function for the threads `cta.lanes` names; does nothing (the
    /// interpreter then runs the threads' instructions) when the CTA's registers and counters
    /// are not what the code was built for, or its parameters, `.const` space or shared
    /// memory are shorter than the code's loads from constant addresses or bounds checks
    /// assume.
    pub(crate) fn run(&self, cta: &mut CompiledCta<'_>) {
        let count = cta.count;
        let fits = count == self.threads
            && cta.stride == ptxsim_exec::compiled::register_stride(count)
            && self
                .registers
                .checked_mul(cta.stride)
                .is_some_and(|needed| needed <= cta.registers.len())
            && cta.pc.len() == count
            && cta.steps.len() == count
            // The largest lane by a fold, not `all` (nor `max`, an `Option`): a reduction the
            // compiler vectorizes (every lane is checked at every call: 4 host instructions a
            // thread with `all`).
            && (cta.lanes.is_empty()
                || (cta.lanes.iter().copied().fold(0, u32::max) as usize) < count)
            && self.needs[0] <= cta.memory.params.len() as u64
            && self.needs[1] <= cta.memory.constants.len() as u64
            && self
                .shared
                .is_none_or(|bytes| bytes <= cta.memory.shared.len() as u64);
        if !fits {
            return;
        }
        // The global buffers the instructions accessed last in the CTA's previous call, found
        // again (they are this launch's).
        // On the stack for the usual few slots: a CTA of a few threads runs in about a
        // microsecond, in which an allocation counted.
        let mut inline = [Window::NONE; INLINE_WINDOWS];
        let mut allocated = Vec::new();
        let windows: &mut [Window] = if self.slots <= INLINE_WINDOWS {
            &mut inline[..self.slots]
        } else {
            allocated.resize(self.slots, Window::NONE);
            &mut allocated
        };
        for (slot, window) in windows.iter_mut().enumerate() {
            let base = cta.windows.get(slot).copied().unwrap_or(0);
            if base != 0
                && let Some((base, len, words)) = cta.memory.global_window(base)
            {
                *window = Window {
                    base,
                    len,
                    words: words.as_ptr(),
                };
            }
        }
        let shared = std::mem::take(&mut cta.memory.shared);
        let mut context = Context {
            registers: cta.registers.as_mut_ptr(),
            lanes: cta.lanes.as_ptr(),
            lanes_len: cta.lanes.len() as u64,
            // `usize` is `u64` here (`crate::compile` refuses other hosts).
            pcs: cta.pc.as_mut_ptr().cast(),
            steps: cta.steps.as_mut_ptr(),
            max_steps: cta.max_steps,
            shared: shared.as_mut_ptr(),
            shared_len: shared.len() as u64,
            params: cta.memory.params.as_ptr(),
            params_len: cta.memory.params.len() as u64,
            constants: cta.memory.constants.as_ptr(),
            constants_len: cta.memory.constants.len() as u64,
            scratch: 0,
            functions: self.functions.as_ptr(),
            functions_len: self.functions.len() as u64,
            spaces: (&mut cta.memory as *mut CtaSpaces<'_>).cast(),
            windows: windows.as_mut_ptr(),
            windows_len: windows.len() as u64,
            lane: 0,
            declined: 0,
            calls: u64::from(cta.calls),
            specials: cta.specials,
            texture_calls: self.texture_calls.as_ptr(),
            texture_calls_len: self.texture_calls.len() as u64,
            results: [0; 4],
            registers_len: cta.registers.len() as u64,
            count: count as u64,
            stride: cta.stride as u64,
            warp_first: 0,
            warp_budget: 0,
            warp_steps: 0,
            warp_ops: self
                .warp
                .as_ref()
                .map_or(std::ptr::null(), |w| w.ops.as_ptr()),
            warp_ops_len: self.warp.as_ref().map_or(0, |w| w.ops.len() as u64),
        };
        // SAFETY: the function has the signature `extern "C" fn(*mut Context)` (built so by
        // `lib.rs` with the ISA's default calling convention, which is the C one), and the
        // context satisfies the module's invariants: the registers slice holds
        // `registers * count` values, `pcs` and `steps` hold `count`, and every lane is below
        // `count` (checked above).
        let function: extern "C" fn(*mut Context) = unsafe { std::mem::transmute(self.function) };
        match &self.warp {
            None => function(&mut context),
            Some(warp) => {
                // SAFETY: as for `function`: the warp function has the same signature and
                // invariants, and reads and writes only the registers and counters of the
                // 32 threads from `warp_first`, which `run_warps` checks lie in the CTA.
                let warps: extern "C" fn(*mut Context) =
                    unsafe { std::mem::transmute(warp.function) };
                run_warps(
                    &mut context,
                    cta.lanes,
                    warp,
                    [function, warps],
                    cta.max_steps,
                );
            }
        }
        cta.memory.shared = shared;
        cta.windows.clear();
        cta.windows.extend(windows.iter().map(|window| window.base));
        cta.declined = (context.declined != 0).then_some(context.lane as usize);
    }
}

/// Runs the threads `lanes` lists with the warp function and the work-item function
/// (`functions`): a warp whose 32 threads are all listed, in order, goes to the warp function
/// whenever they are all at one node of it (in lockstep), and between those calls to the
/// work-item function (after a divergent branch, say), as long as either makes progress; the
/// other listed threads go to the work-item function as before. Threads are taken in the
/// order of the list, warp by warp; a thread handed back at an access the code did not make
/// ends the call (`declined`).
fn run_warps(
    context: &mut Context,
    lanes: &[u32],
    warp: &WarpCode,
    [items, warps]: [extern "C" fn(*mut Context); 2],
    max_steps: u64,
) {
    let count = context.count as usize;
    let mut i = 0;
    while i < lanes.len() {
        let first = lanes[i] as usize;
        let whole = first % WARP == 0
            && first + WARP <= count
            && lanes.get(i..i + WARP).is_some_and(|chunk| {
                chunk
                    .iter()
                    .enumerate()
                    .all(|(l, &lane)| lane as usize == first + l)
            });
        let len = if whole {
            WARP
        } else {
            lanes[i..]
                .iter()
                .take_while(|&&lane| lane as usize / WARP == first / WARP)
                .count()
                .max(1)
        };
        let chunk = &lanes[i..i + len];
        context.lanes = chunk.as_ptr();
        context.lanes_len = len as u64;
        i += len;
        if !whole {
            items(context);
            if context.declined != 0 {
                return;
            }
            continue;
        }
        context.warp_first = first as u64;
        loop {
            let mut progress = false;
            if let Some(budget) = converged(context, warp, max_steps) {
                context.warp_budget = budget;
                context.warp_steps = 0;
                warps(context);
                if context.declined != 0 {
                    return;
                }
                progress |= context.warp_steps > 0;
                // Every lane ended at a `ret` or `exit`: nothing is left for the warp.
                if warp_parts(context).is_some_and(|(_, pcs, _, first)| {
                    pcs[first..first + WARP]
                        .iter()
                        .all(|&pc| pc & ptxsim_exec::compiled::EXITED as u64 != 0)
                }) {
                    break;
                }
            }
            let before = issued(context);
            end_threads(context, warp, max_steps);
            if enters_items(context, warp) {
                items(context);
                if context.declined != 0 {
                    return;
                }
                end_threads(context, warp, max_steps);
            }
            progress |= issued(context) != before;
            if !progress {
                break;
            }
        }
    }
}

/// The steps the warp `warp_first` may still issue in the warp function when its 32 threads
/// are all at one of its nodes (the step limit less the largest count), else `None`.
fn converged(context: &mut Context, warp: &WarpCode, max_steps: u64) -> Option<u64> {
    let (_, pcs, steps, first) = warp_parts(context)?;
    let pc = pcs[first];
    let together = pcs[first..first + WARP].iter().all(|&at| at == pc);
    let most = steps[first..first + WARP].iter().copied().max()?;
    (together && warp.entries.get(pc as usize) == Some(&true) && most < max_steps)
        .then(|| max_steps - most)
}

/// Whether some thread of the warp `warp_first` is where the work-item function takes it.
fn enters_items(context: &mut Context, warp: &WarpCode) -> bool {
    warp_parts(context).is_some_and(|(_, pcs, _, first)| {
        pcs[first..first + WARP]
            .iter()
            .any(|&pc| warp.items.get(pc as usize) == Some(&true))
    })
}

/// The sum of the steps of the warp `warp_first`'s threads (whether a call made progress).
fn issued(context: &mut Context) -> u64 {
    warp_parts(context).map_or(0, |(_, _, steps, first)| {
        steps[first..first + WARP]
            .iter()
            .fold(0u64, |sum, &s| sum.wrapping_add(s))
    })
}

/// Ends the threads of the warp `warp_first` that wait at an unguarded `exit`, or `ret` when
/// no thread made a call, below their step limit, as the generated code's `ret`/`exit` does
/// (PTX ISA 9.0, ret: "A return instruction executed in a top-level entry routine will
/// terminate thread execution"): the step counted, the program counter marked
/// [`ptxsim_exec::compiled::EXITED`]. The work-item function leaves threads at a lone `ret`
/// after a divergent branch (too short a run to enter).
fn end_threads(context: &mut Context, warp: &WarpCode, max_steps: u64) {
    let calls = context.calls != 0;
    let Some((_, pcs, steps, first)) = warp_parts(context) else {
        return;
    };
    for lane in first..first + WARP {
        let pc = pcs[lane];
        let end = warp.ends.get(pc as usize).copied().unwrap_or(0);
        if (end == 2 || (end == 1 && !calls)) && steps[lane] < max_steps {
            pcs[lane] = pc | ptxsim_exec::compiled::EXITED as u64;
            steps[lane] += 1;
        }
    }
}

/// The host's floating-point environment during a call into ptxsim (a driver call, `ptx_run`,
/// a Python launch): the default one (round to nearest even, no flush of subnormals to zero),
/// restored to the caller's at the end. The simulation
/// computes `.rn` arithmetic and conversions with the host's IEEE operations (the interpreter's
/// fast paths, the compiled tier's inline code), which are the PTX operations only in that
/// environment; a program linked with `-ffast-math` (`crtfastmath.o` sets the SSE control
/// register's flush-to-zero and denormals-are-zero bits at start-up) or one that called
/// `fesetround` would otherwise get subnormal products of zero, or another rounding, where
/// the GPU gives the IEEE result. Threads the call starts inherit the environment.
#[derive(Debug)]
pub struct FloatEnvironment {
    /// The caller's SSE control and status register (MXCSR), where it was not the default.
    #[cfg(target_arch = "x86_64")]
    saved: Option<u32>,
}

impl FloatEnvironment {
    /// MXCSR at power-up: every exception masked, round to nearest, FTZ and DAZ clear (Intel
    /// SDM, vol. 1, 10.2.3).
    #[cfg(target_arch = "x86_64")]
    const DEFAULT_MXCSR: u32 = 0x1f80;

    /// Sets the default environment for the rest of the call.
    #[must_use = "the default environment holds only while the value lives"]
    pub fn default_for_call() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let mut current: u32 = 0;
            // SAFETY: `stmxcsr` stores the 4-byte MXCSR at the address of `current`, a
            // writable, aligned local; it touches nothing else.
            unsafe {
                std::arch::asm!("stmxcsr [{}]", in(reg) &raw mut current, options(nostack));
            }
            // The status flags (bits 0-5) are sticky results, not settings.
            let saved = (current & !0x3f != Self::DEFAULT_MXCSR).then(|| {
                Self::load(Self::DEFAULT_MXCSR);
                current
            });
            Self { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Self {}
    }

    #[cfg(target_arch = "x86_64")]
    fn load(value: u32) {
        // SAFETY: `ldmxcsr` reads 4 bytes at the address of `value`, a local; the values
        // loaded are the default or the caller's own earlier setting, both valid (no reserved
        // bit set), so it cannot fault.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &raw const value, options(nostack, readonly));
        }
    }
}

impl Drop for FloatEnvironment {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if let Some(saved) = self.saved {
            Self::load(saved);
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::FloatEnvironment;

    fn mxcsr() -> u32 {
        let mut value: u32 = 0;
        // SAFETY: as in `FloatEnvironment::default_for_call`.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &raw mut value, options(nostack));
        }
        value & !0x3f
    }

    /// Under a caller's FTZ and DAZ (bits 15 and 6, what `-ffast-math` sets), the guard gives
    /// the IEEE product: 1e-30 x 1e-10 = 1e-40, which is 71,362.4 units of 2^-149, the
    /// subnormal `0x000116c2` (round to nearest); and it gives the caller its setting back.
    #[test]
    fn the_default_environment_holds_during_the_call_and_the_callers_comes_back() {
        let caller = mxcsr();
        let flushing = FloatEnvironment::DEFAULT_MXCSR | 0x8040;
        FloatEnvironment::load(flushing);
        let flushed = std::hint::black_box(1e-30f32) * std::hint::black_box(1e-10f32);
        let product = {
            let _environment = FloatEnvironment::default_for_call();
            std::hint::black_box(1e-30f32) * std::hint::black_box(1e-10f32)
        };
        let after = mxcsr();
        FloatEnvironment::load(caller);
        assert_eq!(
            flushed.to_bits(),
            0,
            "FTZ flushes the product without the guard"
        );
        assert_eq!(product.to_bits(), 0x0001_16c2);
        assert_eq!(after, flushing);
    }
}
