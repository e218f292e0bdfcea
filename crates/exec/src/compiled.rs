//! The interface between the interpreter and a compiled tier (issue 35): a
//! [`CompiledKernel`] runs the threads of a CTA, one after another, each from its program
//! counter through the instructions it compiled, and hands each thread back to the interpreter at the first one it
//! did not (a barrier, a warp-synchronous instruction, a call, ...), at one whose memory access
//! it could not make (the interpreter then makes it, or reports its fault exactly), and before
//! the thread would pass its step limit. The interpreter runs that one instruction for the
//! threads there (in lockstep, as always), and the compiled code takes each thread on again.
//!
//! The compiled tier lives in its own crate (`ptxsim-jit`, which generates native code); this
//! crate only defines what it is given: the CTA's registers, counters and memory
//! ([`CompiledCta`]), all as safe references. A kernel is given a compiled tier with
//! [`crate::device::Device::set_compiled`]; `Cta::run` uses it when the run is neither traced
//! nor sliced (cooperative launches and clusters run in the interpreter), so that the scheduling
//! the interpreter defines stays what traces and cooperative launches see.
//!
//! Between two hand-offs a thread runs alone: the threads of a CTA run one after another
//! between barriers (as in MCUDA and POCL's work-item loops) rather than in lockstep. Programs
//! whose threads exchange data only across barriers, warp-synchronous instructions and
//! atomics (which the compiled tier leaves to the interpreter) give the same results either
//! way; a program with a data race may not.

use ptxsim_isa::ops::Space;

use crate::ir::{Axis, SpecialRegister, THREAD_PARAM_BASE};
use crate::memory::{FaultKind, GlobalMemory, from_generic, load_bytes, store_bytes};

/// A kernel's compiled code.
pub trait CompiledKernel: Send + Sync + std::fmt::Debug {
    /// Whether a thread at `pc` can be handed to [`CompiledKernel::run`].
    fn covers(&self, pc: usize) -> bool;

    /// Runs the threads `cta.lanes` names, one after another in that order (or the 32 threads
    /// of a converged warp in lockstep: `ptxsim-jit`'s warp function), each from its
    /// program counter until it reaches an instruction the interpreter must run (then its
    /// `pc` is that instruction and its `steps` count every instruction run before it). A
    /// thread at an instruction the code does not cover stays where it is. Never runs an
    /// instruction at or past a thread's step limit. Stops after the thread it hands back at
    /// an access it did not make ([`CompiledCta::declined`]). A thread that ran a `ret` or
    /// `exit` that ends it (counted in `steps`) is left with [`EXITED`]` | pc` as its `pc`, `pc`
    /// the instruction's.
    fn run(&self, cta: &mut CompiledCta<'_>);

    /// The registers a thread of the kernel may read before it writes them, or read in
    /// another thread that may not have written them (`None`, the default: any register). A
    /// CTA that reuses the register file of the CTA before it zeroes only these
    /// ([`crate::machine::Cta::reset`]): the others cannot show what they held, except through
    /// the registers reported after the run, so the inspected thread's CTA and traced runs
    /// zero every register.
    fn observed_registers(&self) -> Option<&[u32]> {
        None
    }
}

/// The mark of a thread that compiled code ran out of the kernel ([`CompiledKernel::run`]):
/// set in its program counter, which is otherwise the `ret` or `exit` it ran, where the
/// interpreter leaves the program counter of a thread it runs out of the kernel.
pub const EXITED: usize = 1 << 63;

/// Removes [`EXITED`] from `pc`: whether it was set, and the program counter.
pub fn exited(pc: usize) -> (bool, usize) {
    (pc & EXITED != 0, pc & !EXITED)
}

/// The type of a texture or surface instruction's results ([`CtaSpaces::texture`]).
pub fn texture_result_type(op: &crate::ir::TextureOp) -> ptxsim_isa::Type {
    crate::exec::texture::result_type(op)
}

/// Per-instruction counts of one launch, for finding where its time goes (the driver
/// library's `PTXSIM_LOG=profile`; [`crate::api::LaunchOptions::profile`]): how many
/// thread-instructions the interpreter issued at each instruction, and how often compiled code
/// handed a thread back to the interpreter at each (the instruction it must leave to it).
/// Counted only when a launch is given one; relaxed atomic additions, so CTAs on several host
/// threads add into one.
#[derive(Debug, Default)]
pub struct Profile {
    /// Per instruction: the threads the interpreter issued it for (guarded-off ones included).
    pub interpreted: Vec<std::sync::atomic::AtomicU64>,
    /// Per instruction: the threads compiled code handed back there.
    pub handed_back: Vec<std::sync::atomic::AtomicU64>,
}

impl Profile {
    /// Zero counts for a program of `instructions` instructions.
    pub fn new(instructions: usize) -> Self {
        let zeros = || (0..instructions).map(|_| 0.into()).collect();
        Self {
            interpreted: zeros(),
            handed_back: zeros(),
        }
    }

    /// Adds `threads` to `counts[pc]` (nothing past the program's end).
    pub(crate) fn add(counts: &[std::sync::atomic::AtomicU64], pc: usize, threads: u64) {
        if let Some(count) = counts.get(pc) {
            count.fetch_add(threads, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The counts as plain numbers: `(interpreted, handed_back)` per instruction.
    pub fn counts(&self) -> (Vec<u64>, Vec<u64>) {
        let read = |counts: &[std::sync::atomic::AtomicU64]| {
            counts
                .iter()
                .map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
                .collect()
        };
        (read(&self.interpreted), read(&self.handed_back))
    }
}

/// What makes a kernel's compiled code for [`crate::api`] launches
/// ([`crate::api::LaunchOptions::compiler`]).
pub trait Compiler: Send + Sync + std::fmt::Debug {
    /// The compiled code of `program` for CTAs of shape `block`, or `None` when the
    /// interpreter is to run it.
    fn compile(
        &self,
        program: &crate::ir::Program,
        block: crate::dim::Dim3,
    ) -> Option<std::sync::Arc<dyn CompiledKernel>>;

    /// Whether a kernel is worth compiling once its launches (for one CTA shape) have come to
    /// `work`: the sum over them of threads times the kernel's instructions (plus, for launches
    /// the interpreter ran, the instructions they issued), a lower bound of
    /// what the interpreter would run (loops run more). Compiling takes milliseconds, as long
    /// as interpreting a few million instructions, so a kernel launched small and seldom is
    /// cheaper left to the interpreter. By default every kernel is.
    fn worth_compiling(&self, work: u64) -> bool {
        let _ = work;
        true
    }
}

/// Compiling in the middle of a launch (`auto`): a launch that started in the interpreter because
/// its kernel did not look worth compiling ([`Compiler::worth_compiling`] of its threads times
/// its instructions) compiles once the instructions it issues make it worth it, and its CTAs
/// run the compiled code from then on ([`crate::device::Device::set_upgrade`]). A kernel of a
/// few threads that loop long (a grid-stride loop over a large array in a small grid, a
/// `clock()` spin in one thread) is launched small and runs long: without this its first
/// launch (often its only one) ran whole in the interpreter.
///
/// Which CTAs, and which instructions of a CTA, run compiled then depends on when the bound
/// was passed, and with several host threads on their timing; that changes no result, because
/// `auto` compiles only kernels whose results do not depend on the order in which threads run
/// (the compiled tier's rule, [`CompiledKernel`]).
pub struct Upgrade<'p> {
    /// The launch's work so far: its kernel's earlier launches' (with this one's threads times
    /// instructions), then the instructions this launch issued, as CTAs report them.
    work: std::sync::atomic::AtomicU64,
    /// Whether `work` is worth compiling.
    worth: Box<dyn Fn(u64) -> bool + Send + Sync + 'p>,
    /// Compiles the kernel (and keeps the code for later launches).
    compile: Box<dyn Fn() -> Option<std::sync::Arc<dyn CompiledKernel>> + Send + Sync + 'p>,
    /// The code, once compiled (`None` inside: the compiler declined the kernel).
    code: std::sync::OnceLock<Option<std::sync::Arc<dyn CompiledKernel>>>,
}

impl<'p> Upgrade<'p> {
    /// An upgrade for a launch whose kernel has `work` so far (see [`Upgrade::work`]),
    /// compiled by `compile` once `worth` says so.
    pub fn new(
        work: u64,
        worth: impl Fn(u64) -> bool + Send + Sync + 'p,
        compile: impl Fn() -> Option<std::sync::Arc<dyn CompiledKernel>> + Send + Sync + 'p,
    ) -> Self {
        Self {
            work: std::sync::atomic::AtomicU64::new(work),
            worth: Box::new(worth),
            compile: Box::new(compile),
            code: std::sync::OnceLock::new(),
        }
    }

    /// The compiled code, if it was compiled.
    pub fn ready(&self) -> Option<&dyn CompiledKernel> {
        self.code.get().and_then(|code| code.as_deref())
    }

    /// Adds `issued` instructions to the launch's work; the compiled code once the work is
    /// worth compiling (compiled by the first caller that finds it so; the others wait for
    /// it), else `None`.
    pub fn after(&self, issued: u64) -> Option<&dyn CompiledKernel> {
        if let Some(code) = self.code.get() {
            return code.as_deref();
        }
        let work = self
            .work
            .fetch_add(issued, std::sync::atomic::Ordering::Relaxed)
            .saturating_add(issued);
        if !(self.worth)(work) {
            return None;
        }
        self.code.get_or_init(|| (self.compile)()).as_deref()
    }
}

impl std::fmt::Debug for Upgrade<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upgrade")
            .field("work", &self.work)
            .field("code", &self.code)
            .finish_non_exhaustive()
    }
}

/// The work [`Compiler::worth_compiling`] counts for one launch of `program`: the threads of
/// `grid` CTAs of shape `block` times the kernel's instructions (saturating).
pub fn launch_work(
    program: &crate::ir::Program,
    grid: crate::dim::Dim3,
    block: crate::dim::Dim3,
) -> u64 {
    [grid, block]
        .iter()
        .flatten()
        .fold(1u64, |product, &n| product.saturating_mul(u64::from(n)))
        .saturating_mul(program.instructions.len() as u64)
}

pub use crate::lanes::register_stride;

/// The special registers a compiled kernel reads from [`CompiledCta::specials`], by index
/// ([`special_index`]).
pub const SPECIALS: usize = 17;

/// Where [`CompiledCta::specials`] holds `special`, for the special registers whose value
/// is fixed for a thread's whole run (`%clock` and the like are not).
pub fn special_index(special: SpecialRegister) -> Option<usize> {
    let axis = |a: Axis| match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    };
    Some(match special {
        SpecialRegister::Tid(a) => axis(a),
        SpecialRegister::Ntid(a) => 3 + axis(a),
        SpecialRegister::Ctaid(a) => 6 + axis(a),
        SpecialRegister::Nctaid(a) => 9 + axis(a),
        SpecialRegister::Laneid => 12,
        SpecialRegister::Warpid => 13,
        SpecialRegister::Nwarpid => 14,
        SpecialRegister::DynamicSmemSize => 15,
        SpecialRegister::TotalSmemSize => 16,
        _ => return None,
    })
}

/// The threads of one CTA as compiled code sees them.
#[derive(Debug)]
pub struct CompiledCta<'a> {
    /// The CTA's registers (the low 64 bits of each): register `r` of thread `t` is
    /// `registers[r * stride + t]`.
    pub registers: &'a mut [u64],
    /// The number of threads of the CTA.
    pub count: usize,
    /// The distance between two registers' rows: [`register_stride`] of `count`.
    pub stride: usize,
    /// The threads to run (their indices in the CTA, each below `count`), in order.
    pub lanes: &'a [u32],
    /// Per thread (`count` of them): its program counter.
    pub pc: &'a mut [usize],
    /// Per thread: the instructions it has issued.
    pub steps: &'a mut [u64],
    /// The step limit: an instruction is issued only while a thread's `steps` is below it.
    pub max_steps: u64,
    /// The values of the special registers [`special_index`] names that are the same for the
    /// whole CTA. Thread `t`'s own are derived from `t`, its linear index (PTX ISA 10.1
    /// `%tid`: `t = tid.x + ntid.x * (tid.y + ntid.y * tid.z)`; 10.3 `%laneid` and 10.4
    /// `%warpid`: warps are 32 consecutive threads in linear order, so `t % 32` and `t / 32`).
    pub specials: [u64; SPECIALS],
    /// The first addresses of the global buffers the compiled code's memory instructions
    /// accessed last (the code's own numbering; 0: none), kept from call to call: where each
    /// looks first.
    pub windows: &'a mut Vec<u64>,
    /// Set by [`CompiledKernel::run`] to the thread it handed back at a memory access it did
    /// not make (most likely a fault, which stops the CTA); the threads after it in `lanes`
    /// were not run.
    pub declined: Option<usize>,
    /// Whether some thread of the CTA made a call: then a `ret` may return from a function
    /// rather than end the thread, and compiled code hands threads at a `ret` back (PTX ISA
    /// 9.0, ret: "A return instruction executed in a top-level entry routine will terminate
    /// thread execution"; without a call no thread is in a callee).
    pub calls: bool,
    /// Whether the CTA's registers are shown after its run (the inspected thread's CTA, a
    /// traced run): then every register a thread wrote must be in `registers` when the code
    /// hands it back; otherwise only those the program may still read (before writing them)
    /// and those other threads read (`shfl`'s source, ...), since no other register can show.
    pub shown: bool,
    /// The memory.
    pub memory: CtaSpaces<'a>,
}

/// The state spaces of a CTA's threads: global memory, the CTA's shared memory, the kernel's
/// parameters and the `.const` space, and each thread's own `.local` and `.param` memory
/// ([`CtaSpaces::lane`]).
#[derive(Debug)]
pub struct CtaSpaces<'a> {
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
    /// The kernel's parameters.
    pub params: &'a [u8],
    /// The `.const` space.
    pub constants: &'a [u8],
    /// The launch's texture and surface objects.
    pub textures: Option<&'a crate::texture::TextureTable>,
    threads: &'a mut [crate::lanes::Thread],
    /// The handle [`CtaSpaces::texture`] looked up last and its object, which the next call
    /// with the same handle (the next thread's, usually) takes without a lookup.
    last_texture: std::cell::Cell<Option<(u64, Option<&'a crate::texture::TextureObject>)>>,
}

impl<'a> CtaSpaces<'a> {
    pub(crate) fn new(
        global: &'a GlobalMemory,
        shared: &'a mut [u8],
        params: &'a [u8],
        constants: &'a [u8],
        textures: Option<&'a crate::texture::TextureTable>,
        threads: &'a mut [crate::lanes::Thread],
    ) -> Self {
        Self {
            global,
            shared,
            params,
            constants,
            textures,
            threads,
            last_texture: std::cell::Cell::new(None),
        }
    }

    /// A texture or surface instruction `op` for one thread, as the interpreter runs it for a
    /// lane: the object with `handle`, at `coordinates`, with `sources` (`sust`'s values,
    /// `sured`'s `c`); the first `n` of the results, which the instruction's destinations take
    /// by the type of [`texture_result_type`], or `Err` where the interpreter's lane traps (its
    /// message).
    pub fn texture(
        &self,
        op: &crate::ir::TextureOp,
        handle: u64,
        coordinates: &[u32],
        sources: &[u64],
    ) -> Result<([u64; 4], usize), String> {
        let object = match self.last_texture.get() {
            Some((cached, object)) if cached == handle => object,
            _ => {
                let object = self.textures.and_then(|table| table.get(handle));
                self.last_texture.set(Some((handle, object)));
                object
            }
        };
        crate::exec::texture::texture_op(op, object, self.global, handle, coordinates, sources)
    }

    /// The spaces thread `lane` reaches (`None` past the CTA's threads).
    pub fn lane(&mut self, lane: usize) -> Option<LaneSpaces<'_>> {
        let thread = self.threads.get_mut(lane)?;
        Some(LaneSpaces {
            global: self.global,
            shared: self.shared,
            local: &mut thread.local,
            params: self.params,
            thread_params: &mut thread.params,
            constants: self.constants,
        })
    }

    /// The global buffer that holds `address` ([`LaneSpaces::global_window`]).
    pub fn global_window(
        &self,
        address: u64,
    ) -> Option<(u64, u64, &[std::sync::atomic::AtomicU64])> {
        let buffer = self.global.buffer_at(address)?;
        Some((buffer.base, buffer.reach, buffer.words()))
    }
}

/// The state spaces one thread reaches: global memory, its CTA's shared memory, its own
/// `.local` and `.param` memory, the kernel's parameters and the `.const` space.
#[derive(Debug)]
pub struct LaneSpaces<'a> {
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
    /// The thread's `.local` memory.
    pub local: &'a mut [u8],
    /// The kernel's parameters (`.param` addresses below [`THREAD_PARAM_BASE`]).
    pub params: &'a [u8],
    /// The thread's own `.param` memory (from [`THREAD_PARAM_BASE`]).
    pub thread_params: &'a mut [u8],
    /// The `.const` space.
    pub constants: &'a [u8],
}

impl LaneSpaces<'_> {
    /// Loads `bytes` (1, 2, 4 or 8) at `address` of `space` (a generic address is looked up
    /// in the windows). A `.shared::cluster` address of another CTA is not reached here.
    pub fn load(&mut self, space: Space, address: u64, bytes: u32) -> Result<u64, FaultKind> {
        let (space, at) = resolve(space, address);
        match space {
            Space::Global | Space::Generic => self.global.load(at, bytes),
            Space::Shared | Space::SharedCluster => load_bytes(self.shared, 0, at, bytes),
            Space::Local => load_bytes(self.local, 0, at, bytes),
            Space::Const => load_bytes(self.constants, 0, at, bytes),
            Space::Param if at < THREAD_PARAM_BASE => load_bytes(self.params, 0, at, bytes),
            Space::Param => load_bytes(self.thread_params, THREAD_PARAM_BASE, at, bytes),
        }
    }

    /// The global buffer that holds `address` of `space` when the space is global (or generic
    /// and the address a global one, which is the same address): its first address, length in
    /// bytes and words, so that compiled code can load from it directly as
    /// [`GlobalMemory::load`] does.
    pub fn global_window(
        &self,
        space: Space,
        address: u64,
    ) -> Option<(u64, u64, &[std::sync::atomic::AtomicU64])> {
        let (resolved, at) = resolve(space, address);
        if !matches!(resolved, Space::Global | Space::Generic) || at != address {
            return None;
        }
        let buffer = self.global.buffer_at(at)?;
        Some((buffer.base, buffer.reach, buffer.words()))
    }

    /// An atomic update of `bytes` (4 or 8) at `address` of `space`, as the interpreter's
    /// `atom`/`red` makes it for one lane: `update(old, global)` is the new value (`global`:
    /// the location is in global memory, [`crate::alu::atom`]); returns the old value. Global
    /// memory (also through a generic address) and the CTA's own shared memory only: every
    /// other address is `Err` (the interpreter then runs the instruction, and faults where it
    /// faults).
    pub fn atomic(
        &mut self,
        space: Space,
        address: u64,
        bytes: u32,
        update: impl Fn(u64, bool) -> u64,
    ) -> Result<u64, FaultKind> {
        let (space, at) = resolve(space, address);
        match space {
            Space::Global | Space::Generic => {
                self.global.update(at, bytes, |old| update(old, true))
            }
            Space::Shared if at < crate::memory::CLUSTER_RANK_STRIDE => {
                let old = load_bytes(self.shared, 0, at, bytes)?;
                store_bytes(self.shared, 0, at, bytes, update(old, false))?;
                Ok(old)
            }
            _ => Err(FaultKind::Unmapped),
        }
    }

    /// Stores the low `bytes` (1, 2, 4 or 8) of `value` at `address` of `space`.
    pub fn store(
        &mut self,
        space: Space,
        address: u64,
        bytes: u32,
        value: u64,
    ) -> Result<(), FaultKind> {
        let (space, at) = resolve(space, address);
        match space {
            Space::Global | Space::Generic => self.global.store(at, bytes, value),
            Space::Shared | Space::SharedCluster => store_bytes(self.shared, 0, at, bytes, value),
            Space::Local => store_bytes(self.local, 0, at, bytes, value),
            Space::Const => Err(FaultKind::ReadOnly),
            Space::Param if at < THREAD_PARAM_BASE => Err(FaultKind::ReadOnly),
            Space::Param => store_bytes(self.thread_params, THREAD_PARAM_BASE, at, bytes, value),
        }
    }
}

/// The space an access goes to: generic addresses are looked up in the windows.
pub(crate) fn resolve(space: Space, address: u64) -> (Space, u64) {
    match space {
        Space::Generic => from_generic(address),
        other => (other, address),
    }
}

/// A lane function of up to three operands: what an instruction computes for one thread.
pub type LaneFn = Box<dyn Fn(u64, u64, u64) -> u64 + Send + Sync>;

/// An instruction that computes one register from up to three sources, as the interpreter
/// runs it: each source is read and chopped to its width (Table 27), `function` maps them to
/// the result, and the result is written by `extension` (Table 28). Compiled code calls
/// `function` where it does not generate the operation itself.
pub struct LaneOp {
    /// The sources with the width each is chopped to (at most 64 bits).
    pub sources: Vec<(crate::ir::Source, u32)>,
    /// The destination register.
    pub destination: crate::ir::RegisterId,
    /// Table 28's rule for the result.
    pub extension: crate::semantics::Extension,
    /// The operation.
    pub function: LaneFn,
}

impl std::fmt::Debug for LaneOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaneOp")
            .field("sources", &self.sources)
            .field("destination", &self.destination)
            .finish_non_exhaustive()
    }
}

/// The [`LaneOp`] of `kind`, for the instruction kinds that compute one register of at most 64
/// bits from sources of at most 64 bits through a pure function: the same functions, widths
/// and result types as the interpreter's families (`crate::exec`).
pub fn lane_op(kind: &crate::ir::InstructionKind) -> Option<LaneOp> {
    use crate::alu;
    use crate::ir::{InstructionKind as K, IntExtraOp};
    use crate::semantics::Extension;
    use ptxsim_isa::Type;
    use ptxsim_isa::ops::{IntOp, IntTernaryOp, IntUnaryOp, MulMode};

    let wide = |ty: Type| match ty {
        Type::S16 => Type::S32,
        Type::U16 => Type::U32,
        Type::S32 => Type::S64,
        Type::U32 => Type::U64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        other => other,
    };
    let (destination, result_ty, sources, function): (_, Type, Vec<_>, LaneFn) = match kind {
        &K::IntBinary {
            op,
            ty,
            sat,
            relu,
            destination,
            a,
            b,
        } => {
            let b_bits = match op {
                IntOp::Shl | IntOp::Shr => 32,
                _ => ty.bits(),
            };
            let result = match op {
                IntOp::Mul(MulMode::Wide) => wide(ty),
                _ => ty,
            };
            (
                destination,
                result,
                vec![(a, ty.bits()), (b, b_bits)],
                Box::new(move |a, b, _| alu::int_binary(op, ty, sat, relu, a, b)),
            )
        }
        &K::IntUnary {
            op,
            ty,
            destination,
            a,
        } => {
            let result = match op {
                IntUnaryOp::Popc | IntUnaryOp::Clz => Type::U32,
                _ => ty,
            };
            (
                destination,
                result,
                vec![(a, ty.bits())],
                Box::new(move |a, _, _| alu::int_unary(op, ty, a)),
            )
        }
        &K::Mad {
            mode,
            ty,
            sat,
            destination,
            sources: [a, b, c],
        } => {
            let result = match mode {
                MulMode::Wide => wide(ty),
                _ => ty,
            };
            (
                destination,
                result,
                vec![(a, ty.bits()), (b, ty.bits()), (c, result.bits())],
                Box::new(move |a, b, c| alu::int_mad(mode, ty, sat, a, b, c)),
            )
        }
        &K::IntTernary {
            op,
            ty,
            destination,
            sources: [a, b, c],
        } => {
            let c_bits = match op {
                IntTernaryOp::Shf { .. } => 32,
                IntTernaryOp::Mad24 { .. } | IntTernaryOp::Sad => ty.bits(),
            };
            (
                destination,
                ty,
                vec![(a, ty.bits()), (b, ty.bits()), (c, c_bits)],
                Box::new(move |a, b, c| alu::int_ternary(op, ty, a, b, c)),
            )
        }
        &K::IntExtra {
            op,
            destination,
            sources: [a, b, c],
        } => {
            let a_bits = match op {
                IntExtraOp::Bfind { ty, .. } => ty.bits(),
                _ => 32,
            };
            (
                destination,
                Type::U32,
                vec![(a, a_bits), (b, 32), (c, 32)],
                Box::new(move |a, b, c| alu::int_extra(op, a, b, c)),
            )
        }
        &K::FloatBinary {
            op,
            ty,
            modifiers,
            destination,
            a,
            b,
        } => (
            destination,
            ty,
            vec![(a, ty.bits()), (b, ty.bits())],
            Box::new(move |a, b, _| alu::float_binary(op, ty, modifiers, a, b)),
        ),
        &K::Fma {
            ty,
            modifiers,
            destination,
            sources: [a, b, c],
        } => (
            destination,
            ty,
            vec![(a, ty.bits()), (b, ty.bits()), (c, ty.bits())],
            Box::new(move |a, b, c| alu::float_fma(ty, modifiers, a, b, c)),
        ),
        &K::FloatUnary {
            op,
            ty,
            modifiers,
            destination,
            a,
        } => (
            destination,
            ty,
            vec![(a, ty.bits())],
            Box::new(move |a, _, _| alu::float_unary(op, ty, modifiers, a)),
        ),
        &K::Selp {
            ty,
            destination,
            a,
            b,
            c,
        } => (
            destination,
            ty,
            vec![(a, ty.bits()), (b, ty.bits()), (c, 1)],
            Box::new(|a, b, c| if c == 1 { a } else { b }),
        ),
        &K::Slct {
            ty,
            float_selector,
            ftz,
            destination,
            sources: [a, b, c],
        } => (
            destination,
            ty,
            vec![(a, ty.bits()), (b, ty.bits()), (c, 32)],
            Box::new(move |a, b, c| alu::slct(float_selector, ftz, a, b, c)),
        ),
        &K::Prmt {
            mode,
            destination,
            sources: [a, b, c],
        } => (
            destination,
            Type::B32,
            vec![(a, 32), (b, 32), (c, 32)],
            Box::new(move |a, b, c| u64::from(alu::prmt(mode, a as u32, b as u32, c as u32))),
        ),
        &K::Lop3 {
            destination,
            sources: [a, b, c],
            lut,
        } => (
            destination,
            Type::B32,
            vec![(a, 32), (b, 32), (c, 32)],
            Box::new(move |a, b, c| u64::from(alu::lop3(a as u32, b as u32, c as u32, lut))),
        ),
        &K::Bfe {
            ty,
            destination,
            sources: [a, b, c],
        } => (
            destination,
            ty,
            vec![(a, ty.bits()), (b, 32), (c, 32)],
            Box::new(move |a, position, length| alu::bfe(ty, a, position as u32, length as u32)),
        ),
        &K::Cvta {
            to,
            space,
            ty,
            destination,
            source,
        } => (
            destination,
            ty,
            vec![(source, ty.bits())],
            Box::new(move |value, _, _| {
                if to {
                    crate::memory::from_generic_to(space, value)
                } else {
                    crate::memory::to_generic(space, value)
                }
            }),
        ),
        K::Cvt {
            op,
            destination,
            sources,
        } if sources.len() <= 3 => {
            let count = sources.len();
            let widths: Vec<u32> = (0..count)
                .map(|index| crate::cvt::source_width(op, index, count))
                .collect();
            let op = *op;
            (
                *destination,
                op.destination,
                sources.iter().copied().zip(widths).collect(),
                Box::new(move |a, b, c| crate::cvt::apply(&op, &[a, b, c][..count])),
            )
        }
        _ => return None,
    };
    let extension = Extension::new(result_ty, destination.ty);
    let narrow = result_ty.bits() <= 64
        && destination.ty.bits() <= 64
        && sources.iter().all(|&(_, bits)| bits <= 64);
    narrow.then_some(LaneOp {
        sources,
        destination: destination.register,
        extension,
        function,
    })
}
