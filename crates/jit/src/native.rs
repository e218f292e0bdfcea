//! The one module with `unsafe` code in the compiled tier: the context the generated code
//! reads and writes, the call into the generated function, and the `extern "C"` helpers it
//! calls back.
//!
//! Invariants (what makes the calls sound):
//! * The generated function takes one argument, a pointer to a [`Context`] that lives for the
//!   whole call; it reads and writes only the context's fields (at the offsets below), the
//!   registers `registers[r * count + lane]` for registers `r` of the program (`Code::run`
//!   checks that the slice holds every register of every lane and that `lane < count`), and
//!   the shared memory `shared[at..at + bytes]` after checking `at + bytes <= shared_len`.
//!   Every other access goes through the helpers, which use safe code over the thread's
//!   [`LaneSpaces`].
//! * Global loads read the words of the buffer the load helper last found (`window_*`), with
//!   atomic 64-bit loads after checking that the access lies inside its length: the words are
//!   `AtomicU64`s of the launch's global memory, which the thread's spaces borrow for the whole
//!   call (no buffer is added or freed during a launch).
//! * The CTA's shared memory is taken out of the thread's [`LaneSpaces`] for the call, so that
//!   the generated code's pointer is the only way to it; a helper that needs it (a generic
//!   address in the shared window) makes a slice of it from that pointer for the helper's
//!   own duration and puts it back, while the generated code waits for the helper.
//! * The helpers do not unwind (the lane functions and memory accesses are the interpreter's,
//!   which do not panic); a panic would abort the process rather than cross the generated
//!   frames.
//! * The code memory stays mapped as long as [`Code`] lives (the `JITModule` is kept and never
//!   freed), and nothing writes it after `finalize_definitions`, so sharing it across threads
//!   is sound.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::atomic::AtomicU64;

use cranelift_jit::JITModule;
use ptxsim_exec::compiled::{CompiledThread, LaneFn, LaneSpaces, SPECIALS};
use ptxsim_isa::ops::Space;

/// What the generated function reads and writes (`#[repr(C)]`; the offsets are the
/// associated constants).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Context {
    registers: *mut u64,
    stride: u64,
    lane: u64,
    pc: u64,
    steps: u64,
    max_steps: u64,
    shared: *mut u8,
    shared_len: u64,
    scratch: u64,
    functions: *const LaneFn,
    functions_len: u64,
    spaces: *mut c_void,
    /// The global buffer of the last load through the helper: its first address, length in
    /// bytes (0: none) and words, which the generated code loads from directly (atomically,
    /// as `GlobalMemory::load` does).
    window_base: u64,
    window_len: u64,
    window_words: *const AtomicU64,
    /// Set to 1 by the generated code when it hands the thread back at an access it did not
    /// make.
    declined: u64,
    specials: [u64; SPECIALS],
}

impl Context {
    pub(crate) const REGISTERS: usize = std::mem::offset_of!(Context, registers);
    pub(crate) const STRIDE: usize = std::mem::offset_of!(Context, stride);
    pub(crate) const LANE: usize = std::mem::offset_of!(Context, lane);
    pub(crate) const PC: usize = std::mem::offset_of!(Context, pc);
    pub(crate) const STEPS: usize = std::mem::offset_of!(Context, steps);
    pub(crate) const MAX_STEPS: usize = std::mem::offset_of!(Context, max_steps);
    pub(crate) const SHARED: usize = std::mem::offset_of!(Context, shared);
    pub(crate) const SHARED_LEN: usize = std::mem::offset_of!(Context, shared_len);
    pub(crate) const SCRATCH: usize = std::mem::offset_of!(Context, scratch);
    pub(crate) const SPECIALS: usize = std::mem::offset_of!(Context, specials);
    pub(crate) const WINDOW_BASE: usize = std::mem::offset_of!(Context, window_base);
    pub(crate) const WINDOW_LEN: usize = std::mem::offset_of!(Context, window_len);
    pub(crate) const WINDOW_WORDS: usize = std::mem::offset_of!(Context, window_words);
    pub(crate) const DECLINED: usize = std::mem::offset_of!(Context, declined);
}

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
extern "C" fn ptxsim_jit_load(context: *mut Context, space: u32, address: u64, bytes: u32) -> u32 {
    // SAFETY: the generated code passes the context `Code::run` gave it, alive and not
    // otherwise borrowed while the helper runs.
    let context = unsafe { &mut *context };
    let space = SPACES[space as usize % SPACES.len()];
    let (result, window) = with_spaces(context, |spaces| {
        let result = spaces.load(space, address, bytes);
        let window = result.is_ok().then(|| {
            spaces
                .global_window(space, address)
                .map(|(base, len, words)| (base, len, words.as_ptr()))
        });
        (result, window.flatten())
    });
    if let Some((base, len, words)) = window {
        // The buffer outlives the call (the launch's global memory, borrowed by the thread's
        // spaces for it), and the generated code only loads from it atomically.
        context.window_base = base;
        context.window_len = len;
        context.window_words = words;
    }
    match result {
        Ok(value) => {
            context.scratch = value;
            1
        }
        Err(_) => 0,
    }
}

/// Stores for the generated code: returns 1, or 0 when the access faults (nothing is
/// written then).
extern "C" fn ptxsim_jit_store(
    context: *mut Context,
    space: u32,
    address: u64,
    bytes: u32,
    value: u64,
) -> u32 {
    // SAFETY: as in `ptxsim_jit_load`.
    let context = unsafe { &mut *context };
    let result = with_spaces(context, |spaces| {
        spaces.store(SPACES[space as usize % SPACES.len()], address, bytes, value)
    });
    u32::from(result.is_ok())
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

/// Runs `f` on the thread's spaces with the shared memory put back for its duration.
fn with_spaces<T>(context: &mut Context, f: impl FnOnce(&mut LaneSpaces<'_>) -> T) -> T {
    // SAFETY: `spaces` is the `LaneSpaces` of the thread `Code::run` runs, alive for the
    // call; `shared`/`shared_len` are the slice taken out of it, which nothing else uses
    // while the helper runs (the generated code waits for it). The lifetime of the slice made
    // here does not leave this function: the slice is taken back out before it returns.
    let spaces = unsafe { &mut *(context.spaces as *mut LaneSpaces<'static>) };
    let shared: &'static mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(context.shared, context.shared_len as usize) };
    let saved = std::mem::replace(&mut spaces.shared, shared);
    let result = f(spaces);
    spaces.shared = saved;
    result
}

/// The helpers by name, for the JIT's symbol table.
pub(crate) fn helper_symbols() -> [(&'static str, *const u8); 3] {
    [
        ("ptxsim_jit_load", ptxsim_jit_load as *const u8),
        ("ptxsim_jit_store", ptxsim_jit_store as *const u8),
        ("ptxsim_jit_lane", ptxsim_jit_lane as *const u8),
    ]
}

/// A kernel's generated function with what it needs alive.
pub(crate) struct Code {
    function: *const u8,
    /// Keeps the code mapped (never freed).
    _module: JITModule,
    functions: Vec<LaneFn>,
    /// The number of registers of the program.
    registers: usize,
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
    /// [`crate::translate::build`] for a program of `registers` registers, calling
    /// `functions` by number.
    pub(crate) fn new(
        function: *const u8,
        module: JITModule,
        functions: Vec<LaneFn>,
        registers: usize,
    ) -> Self {
        Self {
            function,
            _module: module,
            functions,
            registers,
        }
    }

    /// Runs the generated function for `thread`; does nothing (the interpreter then runs the
    /// thread's instruction) when the thread's registers are not what the code was built for.
    pub(crate) fn run(&self, thread: &mut CompiledThread<'_>) {
        let count = thread.count;
        let fits = thread.lane < count
            && self
                .registers
                .checked_mul(count)
                .is_some_and(|needed| needed <= thread.registers.len());
        if !fits {
            return;
        }
        // The global buffer the CTA's previous thread loaded from, found again (it is one of
        // this launch's).
        let (window_base, window_len, window_words) = thread
            .memory
            .global_window(Space::Global, thread.window)
            .filter(|_| thread.window != 0)
            .map_or((0, 0, std::ptr::null()), |(base, len, words)| {
                (base, len, words.as_ptr())
            });
        let shared = std::mem::take(&mut thread.memory.shared);
        let mut context = Context {
            registers: thread.registers.as_mut_ptr(),
            stride: (count as u64) * 8,
            lane: thread.lane as u64,
            pc: thread.pc as u64,
            steps: thread.steps,
            max_steps: thread.max_steps,
            shared: shared.as_mut_ptr(),
            shared_len: shared.len() as u64,
            scratch: 0,
            functions: self.functions.as_ptr(),
            functions_len: self.functions.len() as u64,
            spaces: (&mut thread.memory as *mut LaneSpaces<'_>).cast(),
            window_base,
            window_len,
            window_words,
            declined: 0,
            specials: thread.specials,
        };
        // SAFETY: `function` has the signature `extern "C" fn(*mut Context)` (built so by
        // `lib.rs` with the ISA's default calling convention, which is the C one), and the
        // context satisfies the module's invariants: the registers slice holds
        // `registers * count` values and `lane < count` (checked above).
        let function: extern "C" fn(*mut Context) = unsafe { std::mem::transmute(self.function) };
        function(&mut context);
        thread.memory.shared = shared;
        thread.pc = usize::try_from(context.pc).unwrap_or(usize::MAX);
        thread.steps = context.steps;
        thread.window = context.window_base;
        thread.declined_access = context.declined != 0;
    }
}
