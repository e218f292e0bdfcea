//! The checked, typed program the executor runs: what [`crate::compile`] gives for a module
//! without errors ([`Checked::program`]). Registers are numbered, labels and symbols resolved
//! (by the checker's resolver, [`build`]), every instruction decoded once through the
//! instruction table of `ptxsim-isa`, immediates already turned into bits, variables given
//! their addresses ([`address`]).
//!
//! Nothing here refers back to source text except for diagnostics and traces ([`Location`],
//! [`Instruction::text`]).

pub mod address;
mod build;
pub mod cdp;
pub mod cvt;
pub mod tcgen05;
pub mod wgmma;

pub use build::{
    BuildError, Checked, MAX_REGISTERS, MAX_VARIABLE_BYTES, bit_type, encode_immediate, entries,
};
pub(crate) use build::{Builder, Uses, function_shared};

use ptxsim_isa::Type;
use ptxsim_isa::ops::{
    AtomOp, BarrierOp, BoolOp, CarryOp, Compare, FloatModifiers, FloatOp, FloatUnaryOp, IntOp,
    IntTernaryOp, IntUnaryOp, MbarrierOp, MulMode, PrmtMode, ReduxOp, ShflMode, Space, TestpOp,
    VideoOp, VideoScalarOp, VideoSecondary, VoteMode,
};

use cvt::CvtOp;

/// The mask of the low `bits` bits (all bits from 128 on).
pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The index of a register in a [`Program`]'s register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegisterId(pub u32);

impl RegisterId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A declared register of the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterInfo {
    /// The name shown in the output: the declared name, with `#n` appended to the n-th
    /// redeclaration of the same name in a nested scope (nested-scope registers are distinct
    /// registers).
    pub name: String,
    /// The declared type (`.pred`, `.b32`, `.f16x2`, ...).
    pub ty: Type,
}

impl RegisterInfo {
    /// The register's width in bits (1 for `.pred`).
    pub fn bits(&self) -> u32 {
        self.ty.bits()
    }
}

/// Where an instruction came from, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The line.
    pub line: u32,
    /// The column (in characters).
    pub column: u32,
}

/// A line of the program's source language, as a `.loc file line column` directive gives it
/// (PTX ISA 9.0, 11.6.2 ".loc": "Source file location"; 11.6.1 ".file": "Source file name",
/// `.file file_index "filename"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLine {
    /// The `.file` index the directive names ([`Program::source_files`]).
    pub file: u32,
    /// The line in that file.
    pub line: u32,
}

/// A SIMD video instruction with its selectors and mask (9.7.18.2, vadd2.md, vadd4.md, vset2.md,
/// vset4.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoSimd {
    /// The primary operation.
    pub op: VideoOp,
    /// Four byte lanes (`vop4`) rather than two half-word lanes (`vop2`).
    pub quad: bool,
    /// `.dtype` is `.s32` (the saturation range).
    pub d_signed: bool,
    /// `.atype` is `.s32`.
    pub a_signed: bool,
    /// `.btype` is `.s32`.
    pub b_signed: bool,
    /// `.sat`.
    pub sat: bool,
    /// `.add`: the secondary accumulate operation rather than the SIMD merge.
    pub add: bool,
    /// `.asel`: lane `i` of `Va` is element `asel[i]` of the eight bytes (four half-words) of
    /// `b:a`, `a` the low word.
    pub asel: [u8; 4],
    /// `.bsel`, as `asel`.
    pub bsel: [u8; 4],
    /// `.mask`: bit `i` is `mask[i]`.
    pub mask: u8,
}

/// The part of a register a scalar video instruction reads or writes (9.7.18.1, vadd.md:
/// `.dsel = .asel = .bsel = { .b0, .b1, .b2, .b3, .h0, .h1 }`; no selector: the word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoPart {
    /// The whole 32-bit word.
    Word,
    /// `.b0` ... `.b3`.
    Byte(u8),
    /// `.h0`, `.h1`.
    Half(u8),
}

/// A scalar video instruction with its selectors and negations (9.7.18.1, vadd.md, vshl.md,
/// vmad.md, vset.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoScalar {
    /// The primary operation.
    pub op: VideoScalarOp,
    /// `.dtype` is `.s32`.
    pub d_signed: bool,
    /// `.atype` is `.s32`.
    pub a_signed: bool,
    /// `.btype` is `.s32`.
    pub b_signed: bool,
    /// `.sat`.
    pub sat: bool,
    /// `.op2`.
    pub secondary: Option<VideoSecondary>,
    /// `.asel`.
    pub asel: VideoPart,
    /// `.bsel`.
    pub bsel: VideoPart,
    /// `.dsel`: the merge with `c` (`Word`: none).
    pub dsel: VideoPart,
    /// `vmad`: the product is negated (exactly one of `-a`, `-b`).
    pub negate_product: bool,
    /// `vmad`: `-c`.
    pub negate_c: bool,
}

/// The operation of an [`InstructionKind::IntExtra`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntExtraOp {
    /// `bfind{.shiftamt}.type d, a` (9.7.1.16).
    Bfind {
        /// `.u32 .u64 .s32 .s64`.
        ty: Type,
        /// `.shiftamt`.
        shiftamt: bool,
    },
    /// `fns.b32 d, mask, base, offset` (9.7.1.17).
    Fns,
    /// `bmsk.mode.b32 d, a, b` (9.7.1.22).
    Bmsk {
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// `szext.mode.type d, a, b` (9.7.1.21).
    Szext {
        /// `.s32` rather than `.u32`.
        signed: bool,
        /// `.clamp` rather than `.wrap`.
        clamp: bool,
    },
    /// `vadd2` ... `vset4` (9.7.18.2).
    Video(VideoSimd),
    /// `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vmad`, `vset` (9.7.18.1).
    VideoScalar(VideoScalar),
    /// `dp4a` (`dp2a: None`) and `dp2a.lo`/`.hi` (`Some(hi)`) (9.7.1.23-24).
    Dot {
        /// `dp2a` and its mode.
        dp2a: Option<bool>,
        /// `.atype` is `.s32`.
        a_signed: bool,
        /// `.btype` is `.s32`.
        b_signed: bool,
    },
}

/// The program of one kernel: the kernel and the device functions it calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The entry's name.
    pub entry: String,
    /// Every register of the thread, in declaration order: the kernel's first, then those of
    /// the device functions it calls.
    pub registers: Vec<RegisterInfo>,
    /// The instructions, in source order (nested blocks flattened): the kernel's body first,
    /// then the bodies of the device functions it calls.
    pub instructions: Vec<Instruction>,
    /// The kernel's parameters, in order, with their offsets in the kernel parameter space.
    pub params: Vec<Param>,
    /// The size in bytes of the kernel parameter space.
    pub param_bytes: u64,
    /// The size in bytes of each thread's `.param` space for call sequences and device-function
    /// parameters (addresses from [`THREAD_PARAM_BASE`]).
    pub thread_param_bytes: u64,
    /// The size in bytes of each thread's `.local` space (the stack included).
    pub local_bytes: u64,
    /// The bytes at the top of each thread's `.local` space that `alloca` allocates from
    /// (the stack grows down from `local_bytes`): [`STACK_BYTES`] for a program with
    /// `alloca`, `stacksave` or `stackrestore`, else 0.
    pub stack_bytes: u64,
    /// The `.local` bytes each device function declares in its body: (the index of its first
    /// instruction, start, end) in the thread's `.local` space. A recursive call saves and
    /// restores the callee's range, so that each invocation has its own `.local` variables.
    pub function_locals: Vec<(usize, u64, u64)>,
    /// The size in bytes of each CTA's `.shared` space (static declarations).
    pub shared_bytes: u64,
    /// Where dynamic shared memory starts, when the module declares `.extern .shared` arrays
    /// (they all start there, as in CUDA); its size is the launch's.
    pub dynamic_shared: Option<u64>,
    /// The module's `.global` variables, with their initial bytes.
    pub globals: Vec<GlobalVariable>,
    /// The module's `.const` space, initialised.
    pub constants: Vec<u8>,
    /// The `.const` variables in it, in declaration order.
    pub const_variables: Vec<ConstVariable>,
    /// Whether the program has `atom`/`red`: the grid then runs one CTA at a time, in order, so
    /// that the values atomics return do not depend on host scheduling.
    pub has_atomics: bool,
    /// Whether the program's atomics give the same results in any order of the threads that
    /// run them (integer `.add`/`.min`/`.max`/`.and`/`.or`/`.xor` whose old value is not read;
    /// `build::atomics_commute`): its CTAs may then run on several host threads, and the
    /// compiled tier may run it, without changing its results.
    pub atomics_commute: bool,
    /// Whether the program calls `malloc` or `free` (or the device runtime's `cudaMalloc`,
    /// `cudaFree`; [`RuntimeFunction::uses_heap`]): the launch then has a
    /// device heap, and its CTAs run one at a time, in order, so that the addresses `malloc`
    /// returns do not depend on host scheduling.
    pub uses_heap: bool,
    /// Whether the program has a `.volatile`, `.relaxed` or `.acquire` load from `.global`
    /// memory or a generic address: the mark of a thread that polls a value another thread
    /// writes (PTX ISA 9.0, ld: "The qualifiers .volatile, .relaxed and .acquire may be used only
    /// with .global and .shared spaces and with generic addressing"; a weak load carries no such
    /// promise, and `.shared` memory is the CTA's own). The waiting thread may be in another
    /// CTA, as a kernel that hands values from CTA to CTA through flags does (Barnes-Hut's
    /// `SortKernel` waits for the CTA holding a cell's parent to write its start), so the
    /// driver library runs such a grid's CTAs in turns (`grid::make_interleaved` in exec).
    pub polls_global: bool,
    /// Whether the program reads a `%reserved_smem_offset_*` register: each CTA's shared
    /// memory then ends with the reserved region ([`RESERVED_SHARED_BYTES`]).
    pub reserved_shared: bool,
    /// The kernel's cluster directives.
    pub cluster: ClusterDirectives,
    /// The most threads a CTA of the kernel may have, from its `.maxntid` or `.reqntid`
    /// directive (PTX ISA 9.0, 11.4.2 ".maxntid": "the maximum number of threads is the
    /// product of the maximum extent in each dimension"; 11.4.3 ".reqntid"): what CUDA C++'s
    /// `__launch_bounds__` compiles to. `None` without either (the device's 1024 then).
    pub max_threads: Option<u32>,
    /// The architecture the module was checked for: the override (`--target`,
    /// `PTXSIM_TARGET`) if there was one, else the module's `.target` (`None` without one).
    /// The executor models that GPU's tensor cores unless told otherwise.
    pub target: Option<ptxsim_isa::Target>,
    /// The module's `.file` directives: index and file name as written.
    pub source_files: Vec<(u32, String)>,
}

impl Program {
    /// `file:line` of the source line the `.loc` of the instruction at `location` names (the
    /// `.file` name as written), or `None` without one. (A search: for reports.)
    pub fn source_text(&self, location: Location) -> Option<String> {
        let instruction = self
            .instructions
            .iter()
            .find(|instruction| instruction.location == location)?;
        self.source_name(instruction.source?)
    }

    /// `file:line` of a source line (the `.file` name as written).
    pub fn source_name(&self, source: SourceLine) -> Option<String> {
        let file = self
            .source_files
            .iter()
            .find(|(index, _)| *index == source.file)
            .map_or("?", |(_, name)| name.as_str());
        Some(format!("{file}:{}", source.line))
    }
}

/// A kernel's cluster directives (PTX ISA 9.0, 11.5 "Cluster Dimension Directives").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterDirectives {
    /// `.reqnctapercluster nx, ny, nz`: "the number of CTAs in the cluster"; a launch must
    /// use this cluster shape (missing dimensions are 1).
    pub required: Option<[u32; 3]>,
    /// `.explicitcluster`: "the kernel must be launched with explicit cluster dimensions".
    pub explicit: bool,
    /// `.maxclusterrank n`: "the maximum number of CTAs that can be part of the cluster".
    pub max_rank: Option<u32>,
}

impl Program {
    /// Whether the program calls the device runtime of CUDA Dynamic Parallelism
    /// ([`cdp::DeviceRuntimeFunction`]: launches, streams, events, its error state): its grid
    /// then runs one CTA at a time, in order, so that the order of its launches and the
    /// addresses of their parameter buffers do not depend on host scheduling.
    pub fn calls_device_runtime(&self) -> bool {
        self.instructions.iter().any(|i| {
            matches!(
                i.kind,
                InstructionKind::CallRuntime {
                    function: RuntimeFunction::DeviceRuntime(_),
                    ..
                }
            )
        })
    }
}

/// Where the per-thread part of the `.param` space starts: addresses below it are the kernel's
/// parameters (read-only), addresses from it are call-sequence and device-function parameters.
pub const THREAD_PARAM_BASE: u64 = 0x0010_0000;

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The declared name.
    pub name: String,
    /// The element type (`.u64`, `.f32`, `.b8` for byte arrays).
    pub ty: Type,
    /// Its offset in the kernel parameter space.
    pub offset: u64,
    /// Its size in bytes.
    pub bytes: u64,
    /// Whether it is declared `.ptr` (a pointer) or is a 64-bit integer (what a pointer
    /// parameter looks like in nvcc output).
    pub pointer_like: bool,
}

/// A module-level `.global` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVariable {
    /// The declared name.
    pub name: String,
    /// Its address (in the global space, which generic addressing shares).
    pub address: u64,
    /// Its size in bytes, as declared (not clamped: the executor's memory budget refuses a
    /// launch whose variables do not fit before it allocates anything).
    pub size: u64,
    /// Its initial bytes as the initializer gives them (at most `size`; the rest is zero, and
    /// a variable without an initializer has none here, so that building the program
    /// allocates nothing for it).
    pub bytes: Vec<u8>,
    /// Whether it is declared `.attribute(.managed)` (a `__managed__` variable, PTX ISA 5.4.8:
    /// "host and other devices in the system can reference the variable directly").
    pub managed: bool,
}

/// A `.const` variable: where it lies in the `.const` space ([`Program::constants`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstVariable {
    /// The declared name.
    pub name: String,
    /// Its address in the `.const` space (from 0; the generic address is
    /// [`address::CONST_WINDOW`] plus this).
    pub address: u64,
    /// Its size in bytes.
    pub size: u64,
}

impl Program {
    /// Looks a register up by its output name.
    pub fn register(&self, name: &str) -> Option<RegisterId> {
        self.registers
            .iter()
            .position(|register| register.name == name)
            .and_then(|index| u32::try_from(index).ok())
            .map(RegisterId)
    }
}

/// A predicate guard `@%p` / `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub predicate: RegisterId,
    /// `@!%p`.
    pub negated: bool,
}

/// One instruction of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The guard, if any.
    pub guard: Option<Guard>,
    /// What it does.
    pub kind: InstructionKind,
    /// The instruction as written (without `;`), for traces.
    pub text: String,
    /// Where it was written.
    pub location: Location,
    /// The source line the last `.loc` before the instruction (in its function) names, if
    /// any: what `nvcc -lineinfo` or `-G` writes for each CUDA statement.
    pub source: Option<SourceLine>,
}

/// A special register (PTX ISA chapter 10) the executor provides, with its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialRegister {
    /// `%tid.{x,y,z}`: the thread's index in its CTA.
    Tid(Axis),
    /// `%ntid.{x,y,z}`: the CTA's size.
    Ntid(Axis),
    /// `%ctaid.{x,y,z}`: the CTA's index in the grid.
    Ctaid(Axis),
    /// `%nctaid.{x,y,z}`: the grid's size.
    Nctaid(Axis),
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%nsmid`.
    Nsmid,
    /// `%gridid`.
    Gridid,
    /// `%clock`: the low 32 bits of the step counter.
    Clock,
    /// `%clock_hi`: the high 32 bits of the step counter.
    ClockHi,
    /// `%clock64`: the step counter.
    Clock64,
    /// `%globaltimer` (and `_lo`, `_hi`: `Some(false)`, `Some(true)`): "a predefined, 64-bit
    /// global nanosecond timer" (PTX ISA 10.17); ptxsim's counts the thread's steps, one
    /// nanosecond each, so runs stay deterministic.
    GlobalTimer(Option<bool>),
    /// `%lanemask_eq`, `_le`, `_lt`, `_ge`, `_gt` (PTX ISA 10.8-10.12): the lanes of the warp
    /// whose `%laneid` compares so with the thread's.
    Lanemask(Compare),
    /// `%dynamic_smem_size`: the launch's dynamic shared memory in bytes.
    DynamicSmemSize,
    /// `%total_smem_size`: the CTA's shared memory in bytes, static and dynamic.
    TotalSmemSize,
    /// `%cluster_ctaid.{x,y,z}`: "the CTA identifier in a cluster" (PTX ISA 9.0, Special
    /// Registers: %cluster_ctaid).
    ClusterCtaid(Axis),
    /// `%cluster_nctaid.{x,y,z}`: "the number of CTAs in a cluster".
    ClusterNctaid(Axis),
    /// `%clusterid.{x,y,z}`: "the cluster identifier in a grid".
    Clusterid(Axis),
    /// `%nclusterid.{x,y,z}`: "the number of clusters in a grid".
    Nclusterid(Axis),
    /// `%cluster_ctarank`: "the CTA rank in a cluster across all dimensions" (linear, x
    /// fastest).
    ClusterCtarank,
    /// `%cluster_nctarank`: "the number of CTAs in a cluster across all dimensions".
    ClusterNctarank,
    /// `%is_explicit_cluster`: "whether the cluster launch is explicit" (a `.pred`).
    IsExplicitCluster,
    /// `%envreg0`..`%envreg31`: "a set of 32 pre-defined read-only registers used to capture
    /// execution environment of PTX program outside of PTX virtual machine. These registers
    /// are initialized by the driver prior to kernel launch and can contain cta-wide or
    /// grid-wide values" (PTX ISA, "Special Registers: %envreg<32>"). CUDA's cooperative groups read the grid workspace's
    /// address from `%envreg1` (high half) and `%envreg2` (low half).
    Envreg(u8),
    /// `%aggr_smem_size`: "total size of shared memory used by a CTA of a kernel", the
    /// reserved region included (PTX ISA, "Special Registers: %aggr_smem_size"; sm_90): the
    /// static and dynamic shared memory and [`RESERVED_SHARED_BYTES`].
    AggrSmemSize,
    /// `%reserved_smem_offset_begin`, `_end`, `_cap`, `_0`, `_1`: the shared memory "reserved
    /// for the NVIDIA system software use" (PTX ISA, "Special Registers:
    /// %reserved_smem_offset_begin, %reserved_smem_offset_end, %reserved_smem_offset_cap,
    /// %reserved_smem_offset_<2>": its start, its end, its total size, and "offsets in the
    /// reserved shared memory region"). CUDA's cooperative groups keep their multi-warp scratch
    /// at `%reserved_smem_offset_1` on sm_80 and later (`cooperative_groups/details/memory.h`,
    /// at most 288 bytes).
    ReservedSmem(ReservedSmem),
    /// `%pm0`..`%pm7` (`false`) and `%pm0_64`..`%pm7_64` (`true`): "performance monitoring
    /// counters", whose behaviour "is currently undefined" (PTX ISA, "Special Registers:
    /// %pm0..%pm7"); ptxsim reads 0.
    Pm(u8, bool),
    /// `%current_graph_exec`: "an identifier for currently executing CUDA device graph";
    /// 0 when the kernel was not launched from a device graph, which ptxsim never does.
    CurrentGraphExec,
}

/// Each thread's stack for `alloca`: 1 KiB, CUDA's default `cudaLimitStackSize`.
pub const STACK_BYTES: u64 = 1024;

/// The shared memory the system reserves for each CTA on sm_80 and later: 1 KiB
/// (`cudaDevAttrReservedSharedMemoryPerBlock`). ptxsim places it after the CTA's static and
/// dynamic shared memory, only for kernels that read a `%reserved_smem_offset_*` register.
pub const RESERVED_SHARED_BYTES: u64 = 1024;

/// Which `%reserved_smem_offset_*` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReservedSmem {
    /// `_begin`: the region's first byte.
    Begin,
    /// `_end`: one past its last byte.
    End,
    /// `_cap`: its size.
    Cap,
    /// `_0`: the first offset in it (its start).
    Offset0,
    /// `_1`: the second offset in it: its middle (512 bytes each; how a GPU splits the region
    /// is not documented, cooperative groups needs at most 288 bytes at `_1`).
    Offset1,
}

/// `.x`, `.y` or `.z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A register, read and chopped to the instruction type (Table 27).
    Register(RegisterId),
    /// Bits already encoded for the operand's type.
    Immediate(u128),
    /// A special register.
    Special(SpecialRegister),
    /// A register plus a constant (`st.u64 [a], %r + 1`), wrapping, then chopped like a
    /// register.
    RegisterPlus(RegisterId, i64),
    /// The address of a `.shared` variable (plus an offset), as the CTA of cluster rank 0 has
    /// it: its `.shared` address, or with `cvta`/generic addressing its generic one. The CTA
    /// of rank `r` adds `r * CLUSTER_RANK_STRIDE` ([`address::CLUSTER_RANK_STRIDE`]), then the
    /// value is chopped like an immediate: a CTA's `.shared::cta` window is its part of the
    /// `.shared::cluster` window (PTX ISA 9.0, 5.1.4), so a variable's address depends on the
    /// CTA's rank, as ptxas computes it (`%cluster_ctarank << 24` plus the offset;
    /// docs/clusters.md, "Addresses"). Outside a launch with clusters every CTA has rank 0
    /// and this is an immediate.
    SharedAddress(u64),
}

impl Source {
    /// The source an address in `space` stands for: [`Source::SharedAddress`] for a `.shared`
    /// variable's (`generic`: its generic address), an immediate for the others.
    pub fn variable_address(space: Space, address: u64, generic: bool) -> Source {
        let value = if generic {
            address::to_generic(space, address)
        } else {
            address
        };
        match space {
            Space::Shared | Space::SharedCluster => Source::SharedAddress(value),
            _ => Source::Immediate(u128::from(value)),
        }
    }
}

/// A memory operand `[base+offset]`: the address is the base's value plus the offset, in the
/// instruction's state space (a generic address when it has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryOperand {
    /// A register, or the address of a variable as an immediate.
    pub base: Source,
    /// The byte offset.
    pub offset: i64,
    /// The base is a register of at most 32 bits: the address is computed in 32 bits and
    /// wraps there, as the hardware computes a 32-bit address (`[%r6+4092]` with `%r6` below
    /// 4092 wraps around 2^32 and not 2^64).
    pub wraps_at_32: bool,
}

impl MemoryOperand {
    /// The address for a base value.
    #[inline(always)]
    pub fn at(&self, base: u64) -> u64 {
        let address = base.wrapping_add(self.offset as u64);
        if self.wraps_at_32 {
            address & 0xffff_ffff
        } else {
            address
        }
    }
}

/// A source of `setp`'s `c` or a guard-like predicate: a predicate register, maybe negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredicateSource {
    /// The register (or an immediate predicate).
    pub source: Source,
    /// Written `!%p`.
    pub negated: bool,
}

/// A destination operand: a register, written with Table 28's extension rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The register.
    pub register: RegisterId,
    /// The register's declared type (for Table 28's extension rule).
    pub ty: Type,
}

/// Which texture or surface instruction a [`TextureInstruction`] is (PTX ISA 9.7.10, 9.7.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureOp {
    /// `tex` or `tld4` (the form's `gather`).
    Tex(ptxsim_isa::texture::TextureForm),
    /// `txq{.level}.query.b32`.
    Txq {
        /// The attribute.
        query: ptxsim_isa::texture::TextureQuery,
        /// `.level` (the lod is `sources[0]`).
        level: bool,
    },
    /// `suld.b`.
    Suld(ptxsim_isa::texture::SurfaceForm),
    /// `sust.b`.
    Sust(ptxsim_isa::texture::SurfaceForm),
    /// `sured.b`.
    Sured(ptxsim_isa::texture::SurfaceReductionForm),
    /// `suq.query.b32`.
    Suq(ptxsim_isa::texture::SurfaceQuery),
}

/// A texture or surface instruction with its operands: `[a, c]` is the object handle `a` (a
/// `.u64` register holding a texture or surface object) and the coordinate vector `c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureInstruction {
    /// What it does.
    pub op: TextureOp,
    /// `a`: the texture or surface object.
    pub handle: Source,
    /// The coordinate vector (empty for the queries).
    pub coordinates: Vec<Source>,
    /// The results (`None` for a sink `_`); empty for `sust` and `sured`.
    pub destinations: Vec<Option<Destination>>,
    /// The other sources: `sust`'s values, `sured`'s `c`, `tex.level`'s `lod`, `tex.grad`'s
    /// `dPdx` then `dPdy`, `txq.level`'s `lod`.
    pub sources: Vec<Source>,
}

/// `cp.async.bulk.tensor` (PTX ISA 9.0, cp.async.bulk.tensor): a box of the tensor that the
/// tensor map describes, between global memory and shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkTensorInstruction {
    /// `.1d` ... `.5d`: the number of coordinates.
    pub dims: u8,
    /// From `.global` to shared memory (else from `.shared::cta` to `.global`).
    pub load: bool,
    /// `.im2col`, `.im2col::w`, `.im2col::w::128` / `.im2col_no_offs` (else `.tile`).
    pub im2col: bool,
    /// `[dstMem]` of a load, `[srcMem]` of a store.
    pub shared: MemoryOperand,
    /// `tensorMap`: the generic address of the 128-byte tensor map.
    pub tensor_map: Source,
    /// `tensorCoords`: `.s32` values, the innermost dimension first.
    pub coordinates: Vec<Source>,
    /// `[mbar]` of a load.
    pub mbarrier: Option<MemoryOperand>,
    /// `im2colInfo`: the 16-bit im2col offsets, one per spatial dimension; with `.im2col::w`
    /// and `.im2col::w::128`, `{ wHalo, wOffset }`.
    pub im2col_offsets: Vec<Source>,
    /// `.im2col::w` / `.im2col::w::128` (PTX ISA 9.0, 5.5.5).
    pub wide: Option<ptxsim_isa::ops::Im2colWide>,
    /// `ctaMask` of `.multicast::cluster`.
    pub cta_mask: Option<Source>,
    /// `cp.reduce.async.bulk.tensor`'s `.redOp` (a store that reduces into the tensor).
    pub reduce: Option<ptxsim_isa::ops::AtomOp>,
    /// `.tile::gather4` (a load) / `.tile::scatter4` (a store): `coordinates` are `{col_idx,
    /// row_idx0, row_idx1, row_idx2, row_idx3}`.
    pub four_rows: bool,
    /// `.cta_group::1` / `::2` of a load.
    pub cta_group: Option<u8>,
}

/// What an instruction does. The executor matches on this without a wildcard arm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstructionKind {
    /// A texture or surface instruction (9.7.10, 9.7.11), run against the launch's table of
    /// texture and surface objects.
    Texture(Box<TextureInstruction>),
    /// `mov.type d, a` (scalar).
    Mov {
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`.
        source: Source,
    },
    /// `mov.type d, {a, b, ...}` (pack, PTX ISA 9.7.9.4): the first element lands in the lowest
    /// bits.
    MovPack {
        /// The instruction type (`.b16` .. `.b128`).
        ty: Type,
        /// `d`.
        destination: Destination,
        /// The elements, first = lowest bits.
        elements: Vec<Source>,
    },
    /// `mov.type {d0, d1, ...}, a` (unpack): element `i` takes bits `[i*w, (i+1)*w)`; `None`
    /// is the sink `_`.
    MovUnpack {
        /// The instruction type (`.b16` .. `.b128`).
        ty: Type,
        /// The element destinations.
        elements: Vec<Option<Destination>>,
        /// `a`.
        source: Source,
    },
    /// `mov.vN.type {d0, d1, ...}, {a0, a1, ...}`: element `i` of `d` takes element `i` of `a`
    /// (all sources are read before any destination is written); `None` is the sink `_`.
    MovVector {
        /// The element type.
        ty: Type,
        /// The element destinations.
        destinations: Vec<Option<Destination>>,
        /// The element sources.
        sources: Vec<Source>,
    },
    /// `cvt` (PTX ISA 9.7.9.21).
    Cvt {
        /// The decoded conversion.
        op: CvtOp,
        /// `d`.
        destination: Destination,
        /// The sources in syntax order (`a`, `b`, `e`, `f`, `rbits`, `scale-factor`).
        sources: Vec<Source>,
    },
    /// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA 9.7.9.22).
    CvtPack {
        /// `.convertType`.
        ty: ptxsim_softfloat::pack::PackType,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
        /// `c`, for the 8-, 4- and 2-bit types.
        c: Option<Source>,
    },
    /// Integer, bit-size and predicate binary operations (PTX ISA 9.7.1, 9.7.8).
    IntBinary {
        /// The operation.
        op: IntOp,
        /// The instruction type.
        ty: Type,
        /// `.sat`.
        sat: bool,
        /// `.relu`.
        relu: bool,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
    },
    /// Integer, bit-size and predicate unary operations.
    IntUnary {
        /// The operation.
        op: IntUnaryOp,
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
    },
    /// `mad.{lo,hi,wide}`.
    Mad {
        /// Which half of the product.
        mode: MulMode,
        /// The instruction type.
        ty: Type,
        /// `.sat`.
        sat: bool,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// Floating-point binary operations (PTX ISA 9.7.3, 9.7.4).
    FloatBinary {
        /// The operation.
        op: FloatOp,
        /// The instruction type.
        ty: Type,
        /// The modifiers.
        modifiers: FloatModifiers,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
    },
    /// `fma` (and `mad` on floats).
    Fma {
        /// The instruction type.
        ty: Type,
        /// The modifiers.
        modifiers: FloatModifiers,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// Floating-point unary operations.
    FloatUnary {
        /// The operation.
        op: FloatUnaryOp,
        /// The instruction type.
        ty: Type,
        /// The modifiers.
        modifiers: FloatModifiers,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
    },
    /// `setp` (PTX ISA 9.7.7.2).
    Setp {
        /// The comparison.
        compare: Compare,
        /// The operand type.
        ty: Type,
        /// `.ftz`.
        ftz: bool,
        /// `.and`/`.or`/`.xor` with `c`.
        combine: Option<(BoolOp, PredicateSource)>,
        /// `p`.
        p: Destination,
        /// `q` (receives the complement of the comparison, combined likewise).
        q: Option<Destination>,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
    },
    /// `selp.type d, a, b, c`.
    Selp {
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a` (chosen when `c` is true).
        a: Source,
        /// `b`.
        b: Source,
        /// `c`.
        c: Source,
    },
    /// `prmt.b32{.mode}`.
    Prmt {
        /// The mode.
        mode: PrmtMode,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// `lop3.b32 d, a, b, c, immLut`.
    Lop3 {
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
        /// `immLut`.
        lut: u8,
    },
    /// `mad24`, `sad`, `shf` (PTX ISA 9.7.1.6, 9.7.1.7, 9.7.8.7).
    IntTernary {
        /// The operation.
        op: IntTernaryOp,
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// The extended-precision instructions (PTX ISA 9.7.2): `add.cc`, `addc`, `sub.cc`, `subc`,
    /// `mad{.lo,.hi}.cc`, `madc`. The condition code's carry flag is a hidden `.pred` register
    /// of the thread (`%cc`).
    Carry {
        /// The operation.
        op: CarryOp,
        /// The instruction type (`.u32 .s32 .u64 .s64`).
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, and `c` (`mad`; an immediate 0 for `add`/`sub`).
        sources: [Source; 3],
        /// The carry flag read (`addc`, `subc`, `madc`).
        carry_in: Option<RegisterId>,
        /// The carry flag written (`.cc`).
        carry_out: Option<RegisterId>,
    },
    /// `bfind`, `fns`, `bmsk`, `szext`, `dp4a`, `dp2a`: `d = f(a, b, c)` on 32/64-bit integers
    /// (PTX ISA 9.7.1.16-17, 9.7.1.21-24).
    IntExtra {
        /// The operation.
        op: IntExtraOp,
        /// `d`.
        destination: Destination,
        /// The operands (unused ones are immediate 0).
        sources: [Source; 3],
    },
    /// `testp.op.type p, a` (PTX ISA 9.7.3.1).
    Testp {
        /// The property.
        op: TestpOp,
        /// `.f32` or `.f64`.
        ty: Type,
        /// `p`.
        destination: Destination,
        /// `a`.
        a: Source,
    },
    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}` (PTX ISA 9.7.6.1, 9.7.4).
    Set {
        /// The comparison.
        compare: Compare,
        /// The destination type.
        dtype: Type,
        /// The operand type.
        stype: Type,
        /// `.ftz`.
        ftz: bool,
        /// The combination with `c`, if any.
        combine: Option<(BoolOp, PredicateSource)>,
        /// `d`.
        destination: Destination,
        /// `a`.
        a: Source,
        /// `b`.
        b: Source,
    },
    /// `slct` (PTX ISA 9.7.7.5).
    Slct {
        /// The type of `d`, `a`, `b`.
        ty: Type,
        /// `c` is `.f32` (else `.s32`).
        float_selector: bool,
        /// `.ftz`.
        ftz: bool,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// `bfe.type d, a, b, c`.
    Bfe {
        /// The instruction type.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`, `b` (position), `c` (length).
        sources: [Source; 3],
    },
    /// `bfi.type f, a, b, c, d`.
    Bfi {
        /// The instruction type.
        ty: Type,
        /// `f`.
        destination: Destination,
        /// `a`, `b`, `c` (position), `d` (length).
        sources: [Source; 4],
    },
    /// `ld`: `vector` elements of `ty` from consecutive addresses.
    Ld {
        /// The state space.
        space: Space,
        /// The element type.
        ty: Type,
        /// The destinations (one per element; `None` is `_`).
        destinations: Vec<Option<Destination>>,
        /// The address.
        address: MemoryOperand,
    },
    /// `st`.
    St {
        /// The state space.
        space: Space,
        /// The element type.
        ty: Type,
        /// The address.
        address: MemoryOperand,
        /// The values, one per element.
        sources: Vec<Source>,
    },
    /// `st` of a 256-bit vector with sinks (PTX ISA 9.0, st: "sink symbol '_' can be used in
    /// vector expression b ... which indicates that no data is being written at the
    /// corresponding destination address"): the elements that are not sinks.
    StMasked {
        /// The state space.
        space: Space,
        /// The element type.
        ty: Type,
        /// The address (aligned to the whole vector).
        address: MemoryOperand,
        /// The values, `None` for a sink.
        sources: Vec<Option<Source>>,
    },
    /// `cvta`: between generic and state-space addresses.
    Cvta {
        /// `.to`.
        to: bool,
        /// The space.
        space: Space,
        /// `.u32` or `.u64`.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a`.
        source: Source,
    },
    /// `atom`/`red`.
    Atom {
        /// The space.
        space: Space,
        /// The operation.
        op: AtomOp,
        /// The operand type.
        ty: Type,
        /// `d` (`None` for `red`).
        destination: Option<Destination>,
        /// The address.
        address: MemoryOperand,
        /// `b`.
        b: Source,
        /// `c` (`.cas`).
        c: Option<Source>,
    },
    /// `atom`/`red` `.v2`/`.v4`/`.v8` (PTX ISA 9.7.13.5, sm_90): element `i` of `b` is its own
    /// atomic operation on the element `i` after `[a]`; `d` gets the old elements.
    AtomVector {
        /// `.global` or generic.
        space: Space,
        /// The operation.
        op: AtomOp,
        /// The element type.
        ty: Type,
        /// `d`'s elements (empty for `red`; `None` for a sink).
        destinations: Vec<Option<Destination>>,
        /// `[a]`.
        address: MemoryOperand,
        /// `b`'s elements.
        sources: Vec<Source>,
    },
    /// `bar`/`barrier` `.sync`, `.arrive`, `.red` (PTX ISA 9.7.13.1): arrive at barrier `id`
    /// (0..15) of the CTA; `.sync` and `.red` wait until `count` threads (all of the CTA without
    /// one) have arrived, warp by warp.
    Barrier {
        /// `.sync`, `.arrive`, `.red.popc`, `.red.and`, `.red.or`.
        op: BarrierOp,
        /// `a`: the barrier.
        id: Source,
        /// `b`: the number of threads, a multiple of 32.
        count: Option<Source>,
        /// `d` (`.red.popc`) or `p` (`.red.and`/`.or`).
        destination: Option<Destination>,
        /// `{!}c` of `.red`.
        predicate: Option<PredicateSource>,
    },
    /// `shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask}` (PTX ISA 9.7.9.5-6): each lane
    /// copies `a` of the lane `b` and `c` select. Warp-synchronous (see
    /// [`InstructionKind::warp_sync`]).
    Shfl {
        /// `.up`, `.down`, `.bfly`, `.idx`.
        mode: ShflMode,
        /// `d`.
        destination: Destination,
        /// `p`: whether the source lane was in range.
        predicate: Option<Destination>,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
        /// The membermask (`None` without `.sync`).
        membermask: Option<Source>,
    },
    /// `vote{.sync}.mode d, {!}a{, membermask}` (9.7.13.8-9). Warp-synchronous.
    Vote {
        /// `.all`, `.any`, `.uni`, `.ballot`.
        mode: VoteMode,
        /// `d` (`.pred`, or `.b32` for `.ballot`).
        destination: Destination,
        /// `{!}a`.
        a: PredicateSource,
        /// The membermask (`None` without `.sync`).
        membermask: Option<Source>,
    },
    /// `activemask.b32 d` (9.7.13.11): the lanes of the warp executing it together.
    Activemask {
        /// `d`.
        destination: Destination,
    },
    /// `redux.sync.op.type dst, src, membermask` (9.7.13.12, integer forms). Warp-synchronous.
    Redux {
        /// The operation.
        op: ReduxOp,
        /// `.u32`, `.s32`, `.b32` or `.f32`.
        ty: Type,
        /// `.abs` (`.f32`).
        abs: bool,
        /// `.NaN` (`.f32`).
        nan: bool,
        /// `dst`.
        destination: Destination,
        /// `src`.
        a: Source,
        /// The membermask.
        membermask: Source,
    },
    /// `match.{any,all}.sync.type d{|p}, a, membermask` (9.7.13.10). Warp-synchronous.
    Match {
        /// `.all` (else `.any`).
        all: bool,
        /// `.b32` or `.b64`.
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `p` (`.all` only).
        predicate: Option<Destination>,
        /// `a`.
        a: Source,
        /// The membermask.
        membermask: Source,
    },
    /// `mapa{.shared::cluster}.type d, a, b` (PTX ISA 9.0, mapa): the address in the CTA of
    /// rank `b` of the cluster that corresponds to address `a`.
    Mapa {
        /// `.shared::cluster` addresses (else generic ones).
        cluster: bool,
        /// The address type (`.u32`, `.u64`, ...).
        ty: Type,
        /// `d`.
        destination: Destination,
        /// `a` (a variable's name is its address: in `.shared` for the `.shared::cluster`
        /// form, its generic address for the generic form).
        address: Source,
        /// `b`, the target CTA's rank.
        rank: Source,
    },
    /// `getctarank{.shared::cluster}.type d, a` (PTX ISA 9.0, getctarank): the rank of the CTA
    /// whose shared memory holds address `a`.
    Getctarank {
        /// A `.shared::cluster` address (else a generic one).
        cluster: bool,
        /// The address type.
        ty: Type,
        /// `d` (32 bits).
        destination: Destination,
        /// `a`.
        address: Source,
    },
    /// `cp.async.bulk` (PTX ISA 9.0, cp.async.bulk): `size` bytes from `source` to
    /// `destination`, then, with `mbarrier`, the mbarrier's transaction count lowered by
    /// `size` (`complete_tx`).
    CpAsyncBulk {
        /// The destination's space.
        destination_space: Space,
        /// The source's space.
        source_space: Space,
        /// `[dstMem]`.
        destination: MemoryOperand,
        /// `[srcMem]`.
        source: MemoryOperand,
        /// `size`.
        size: Source,
        /// `[mbar]` (a `.shared::cluster` address), for `.mbarrier::complete_tx::bytes`.
        mbarrier: Option<MemoryOperand>,
        /// `ctaMask` of `.multicast::cluster`.
        cta_mask: Option<Source>,
    },
    /// `cp.reduce.async.bulk` (PTX ISA 9.0, cp.reduce.async.bulk): each `ty` element of the
    /// `size` bytes at `source` (`.shared::cta`) combined by `op` into the one at
    /// `destination` (`.global`, or `.shared::cluster` then `complete_tx` on `mbarrier`).
    CpReduceAsyncBulk {
        /// The reduction.
        op: ptxsim_isa::ops::AtomOp,
        /// The element type.
        ty: Type,
        /// The destination is `.global` (else `.shared::cluster`).
        global: bool,
        /// `[dstMem]`.
        destination: MemoryOperand,
        /// `[srcMem]`.
        source: MemoryOperand,
        /// `size`.
        size: Source,
        /// `[mbar]`, for the `.shared::cluster` form.
        mbarrier: Option<MemoryOperand>,
    },
    /// `tensormap.replace` (PTX ISA 9.0, tensormap.replace): one field of the tensor map at
    /// `address` (in `space`) replaced by `value`.
    TensormapReplace {
        /// The field.
        field: ptxsim_isa::ops::TensormapField,
        /// `.global`, `.shared::cta` or generic.
        space: Space,
        /// `[addr]`.
        address: MemoryOperand,
        /// `ord` (0 for the fields without one).
        ordinal: u32,
        /// `new_val`.
        value: Source,
    },
    /// `cp.async.bulk.tensor` ([`BulkTensorInstruction`]).
    BulkTensor(Box<BulkTensorInstruction>),
    /// `barrier.cluster.arrive` / `barrier.cluster.wait` (PTX ISA 9.0, barrier.cluster).
    BarrierCluster {
        /// `.arrive` (else `.wait`).
        arrive: bool,
    },
    /// `isspacep.space p, a` (PTX ISA 9.0, isspacep).
    Isspacep {
        /// The space asked about.
        space: Space,
        /// `p`.
        destination: Destination,
        /// `a`, a generic address.
        address: Source,
    },
    /// `elect.sync d|p, membermask` (9.7.13.14). Warp-synchronous.
    Elect {
        /// `d` (`None` for the sink `_`).
        destination: Option<Destination>,
        /// `p`.
        predicate: Option<Destination>,
        /// The membermask.
        membermask: Source,
    },
    /// `mma.sync.aligned` (9.7.14.5.14): warp-collective `D = A * B + C`; every lane supplies
    /// its fragment registers, the whole warp's D is computed at once. Warp-synchronous (all
    /// 32 lanes must arrive).
    Mma {
        /// The shape and types.
        form: ptxsim_isa::mma::MmaForm,
        /// The registers of `d`.
        d: Vec<Destination>,
        /// The registers (or immediates) of `a`, `b` and `c`.
        sources: [Vec<Source>; 3],
        /// `.block_scale`'s `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b,
        /// thread-id-b}`, in that order.
        scales: Option<Box<[Source; 6]>>,
        /// `mma.sp`'s metadata `e` and sparsity selector `f` (9.7.14.6.3).
        sparse: Option<Box<[Source; 2]>>,
    },
    /// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16 d, [p]` (9.7.14.5.15): lanes
    /// `8i..8i+7` give the row addresses of matrix `i`, every lane receives its fragment of
    /// each matrix. Warp-synchronous (all 32 lanes must arrive).
    Ldmatrix {
        /// The number of matrices and `.trans`.
        form: ptxsim_isa::matrix::MatrixForm,
        /// `.shared` (else a generic address into shared memory).
        space: Space,
        /// One register per matrix (`None` for a sink element).
        d: Vec<Option<Destination>>,
        /// `[p]`: this lane's row address.
        address: MemoryOperand,
    },
    /// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16 [p], r` (9.7.14.5.16): the inverse
    /// of [`InstructionKind::Ldmatrix`]. Warp-synchronous (all 32 lanes must arrive).
    Stmatrix {
        /// The number of matrices and `.trans`.
        form: ptxsim_isa::matrix::MatrixForm,
        /// `.shared` (else a generic address into shared memory).
        space: Space,
        /// `[p]`: this lane's row address.
        address: MemoryOperand,
        /// One register (or immediate) per matrix.
        sources: Vec<Source>,
    },
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (9.7.14.5.17): the warp's 8x8 fragment
    /// transposed. Warp-synchronous (all 32 lanes must arrive).
    Movmatrix {
        /// `d` (`None` for the sink).
        d: Option<Destination>,
        /// `a`.
        a: Source,
    },
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}` (9.7.14.4.3):
    /// every lane receives its fragment of the matrix at `p`. Warp-synchronous (all 32 lanes
    /// must arrive).
    WmmaLoad {
        /// The matrix, shape, layout and type.
        form: ptxsim_isa::wmma::WmmaForm,
        /// `.global`, `.shared` or generic.
        space: Space,
        /// The fragment's registers.
        d: Vec<Destination>,
        /// `[p]`.
        address: MemoryOperand,
        /// The stride in elements (`None`: the default, the leading dimension).
        stride: Option<Source>,
    },
    /// `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}` (9.7.14.4.4): the
    /// inverse of [`InstructionKind::WmmaLoad`]. Warp-synchronous.
    WmmaStore {
        /// The shape, layout and type.
        form: ptxsim_isa::wmma::WmmaForm,
        /// `.global`, `.shared` or generic.
        space: Space,
        /// `[p]`.
        address: MemoryOperand,
        /// The fragment's registers (or immediates).
        sources: Vec<Source>,
        /// The stride in elements (`None`: the default).
        stride: Option<Source>,
    },
    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype...ctype d, a, b, c` (9.7.14.4.5):
    /// warp-collective `D = A * B + C`. Warp-synchronous.
    WmmaMma {
        /// The shape and types.
        form: ptxsim_isa::wmma::WmmaForm,
        /// The registers of `d`.
        d: Vec<Destination>,
        /// The registers (or immediates) of `a`, `b` and `c`.
        sources: [Vec<Source>; 3],
    },
    /// `wgmma.mma_async.sync.aligned` (9.7.15.5.2): warpgroup-collective `D = A * B + D`, run
    /// once for the 128 threads of a warpgroup when all have arrived.
    Wgmma(Box<wgmma::Wgmma>),
    /// `tcgen05.*` (9.7.16): Blackwell tensor memory and tensor-core operations; `.sync.aligned`
    /// ones are warp-synchronous ([`tcgen05::Tcgen05::warp_collective`]).
    Tcgen05(Box<tcgen05::Tcgen05>),
    /// `bar.warp.sync membermask` (9.7.13.2). Warp-synchronous.
    BarWarpSync {
        /// The membermask.
        membermask: Source,
    },
    /// `membar`/`fence`: nothing to do in a sequential simulator. Also `cp.async.commit_group`
    /// / `.wait_group` / `.wait_all`: copies complete as they are issued.
    Fence,
    /// `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}` (PTX ISA
    /// 9.7.9.25.3.1): copies `src-size` bytes and zero-fills the rest of `cp-size`, at once
    /// (a program that waits before it reads sees the same bytes).
    CpAsync {
        /// cp-size: 4, 8 or 16.
        bytes: u32,
        /// `[dst]` in `.shared`.
        destination: MemoryOperand,
        /// `[src]` in `.global`.
        source: MemoryOperand,
        /// src-size, when given.
        source_size: Option<Source>,
        /// ignore-src, when given.
        ignore_source: Option<PredicateSource>,
    },
    /// `call`: copy the arguments into the callee's parameters and jump.
    Call {
        /// The callee's first instruction.
        target: usize,
        /// The callee's name, for traces and errors.
        callee: String,
        /// Pairs (caller's argument address, callee's parameter address, bytes), in the
        /// per-thread `.param` space.
        arguments: Vec<(u64, u64, u64)>,
        /// Pairs (callee's return-parameter address, caller's receiving address, bytes),
        /// copied back at `ret`.
        returns: Vec<(u64, u64, u64)>,
        /// `.reg` parameters (`.func f(.reg .b32 x)`): the caller's operand and the callee's
        /// parameter register it is copied to at the call.
        register_arguments: Vec<(Source, Destination)>,
        /// `.reg` return values: the callee's register and the caller's register it is copied
        /// to at `ret`.
        register_returns: Vec<(RegisterId, Destination)>,
    },
    /// An indirect `call` through a function's address (`call (r), %rd, (a), prototype`;
    /// C++ virtual functions, function pointers): the call of the target whose address the
    /// register holds, each target a [`InstructionKind::Call`] of it; an address that is none
    /// of them traps.
    CallIndirect {
        /// The function's address.
        address: Source,
        /// (address, the direct call of the function at it).
        targets: Vec<(u64, InstructionKind)>,
    },
    /// `call` of a function of CUDA's device-side runtime that the module declares without a
    /// body (`.extern .func vprintf`, `__assertfail`, `malloc`, `free`): the executor runs it
    /// as a built-in (docs/executor.md, "Device-side runtime").
    CallRuntime {
        /// Which function.
        function: RuntimeFunction,
        /// The caller's `.param` arguments, in order: (address in the per-thread `.param`
        /// space, bytes).
        arguments: Vec<(u64, u64)>,
        /// The caller's `.param` receiving the return value, if any: (address, bytes).
        result: Option<(u64, u64)>,
    },
    /// `mbarrier.*` and `cp.async.mbarrier.arrive` (PTX ISA 9.7.13.15, 9.7.9.25.3.5) on the
    /// 64-bit mbarrier object at `address`.
    Mbarrier {
        /// The operation.
        op: MbarrierOp,
        /// `.shared` (else a generic address).
        space: Space,
        /// `state` (arrive), `waitComplete` (the waits), `count` (pending_count); `None` for a
        /// sink or where there is none.
        destination: Option<Destination>,
        /// `[addr]` (all but pending_count).
        address: Option<MemoryOperand>,
        /// `count`/`txCount` (init, arrive, expect_tx, complete_tx), the state or phase parity
        /// (waits, pending_count).
        operand: Option<Source>,
    },
    /// `bra target` (`.uni` changes nothing: divergent threads reconverge by themselves).
    Bra {
        /// The index of the target instruction.
        target: usize,
    },
    /// `brx.idx{.uni} index, tlist` (PTX ISA 9.7.12.4): "Index into a list of possible
    /// destination labels, and continue execution from the chosen label"; "Behaviour is
    /// undefined if the value of index is greater than or equal to the length of tlist"
    /// (ptxsim traps). Each lane goes to its own target (`.uni` changes nothing).
    BranchIndexed {
        /// `index` (`.u32`).
        index: Source,
        /// The instructions the labels of `tlist` stand before, in order.
        targets: Vec<usize>,
    },
    /// `add`/`sub`/`mul{.rnd}{.ftz}.f32x2 d, a, b` and `fma.rnd{.ftz}.f32x2 d, a, b, c` (PTX ISA
    /// 9.7.3.3-6): "forms input vectors of single precision (.f32) values from source
    /// operands" (`a[0:31]`, `a[32:63]`), each pair combined as the `.f32` instruction with the
    /// same modifiers combines it, the results packed the same way into the `.b64` `d`.
    FloatPair {
        /// `add`, `sub`, `mul`; `None` for `fma`.
        op: Option<FloatOp>,
        /// The rounding (`.rn` when none is written) and `.ftz`.
        modifiers: FloatModifiers,
        /// `d`.
        destination: Destination,
        /// `a`, `b` (and `c` for `fma`).
        sources: Vec<Source>,
    },
    /// The mixed-precision `add{.rnd}{.sat}.f32.atype d, a, c`, `sub` likewise and
    /// `fma.rnd{.sat}.f32.abtype d, a, b, c` with `.atype`/`.abtype = { .f16, .bf16 }` (PTX ISA
    /// 8.6, 9.7.5): "Converts input operand a from .atype into .f32 type. The converted value is
    /// then used for the addition" (`d = convert(a) + c`, `d = convert(a) - c`, `d =
    /// convert(a) * convert(b) + c`), rounded as the `.f32` instruction rounds; ".sat clamps
    /// the result to [0.0, 1.0]. NaN results are flushed to +0.0f"; "subnormal numbers are
    /// supported".
    FloatMixed {
        /// `add` or `sub`; `None` for `fma`.
        op: Option<FloatOp>,
        /// `.f16` or `.bf16`: the type of `a` (and of `b` for `fma`).
        narrow: Type,
        /// The rounding (`.rn` when none is written) and `.sat`.
        modifiers: FloatModifiers,
        /// `d` (`.f32`).
        destination: Destination,
        /// `a`, `c` for `add`/`sub`; `a`, `b`, `c` for `fma`.
        sources: Vec<Source>,
    },
    /// `min`/`max{.ftz}{.NaN}{.abs}.f32 d, a, b, c` (PTX ISA 8.8, 9.7.3.11-12): "d =
    /// two_inputs_min(d, a, b); if (isPresent(c)) d = two_inputs_min(d, d, c)", after `.abs`
    /// made `a`, `b` and `c` their magnitudes.
    FloatMinMax3 {
        /// `FloatOp::Min` or `FloatOp::Max`.
        op: FloatOp,
        /// `.ftz` and `.NaN`.
        modifiers: FloatModifiers,
        /// `.abs`.
        abs: bool,
        /// `d`.
        destination: Destination,
        /// `a`, `b`, `c`.
        sources: [Source; 3],
    },
    /// `st.async` (PTX ISA 9.7.9.12): "initiates an asynchronous store operation that stores
    /// the value specified by source operand b to the destination memory location specified
    /// by operand a"; with `.mbarrier::complete_tx::bytes`, "upon completion ... a complete-tx
    /// operation will be performed on the mbarrier object specified by the operand mbar, with
    /// completeCount argument equal to the amount of data stored in bytes".
    StAsync {
        /// `SharedCluster` (`.shared::cluster`), `Shared` (`.shared::cta`), `Global` or
        /// `Generic` (no `.ss`: "Generic Addressing is used").
        space: Space,
        /// The element type.
        ty: Type,
        /// `[a]`.
        address: MemoryOperand,
        /// `b`: one value, or the elements of a `.v2`/`.v4` vector.
        sources: Vec<Source>,
        /// `[mbar]` (the mbarrier forms; absent in the release form).
        mbarrier: Option<MemoryOperand>,
    },
    /// `red.async` (PTX ISA 9.7.13.7): "initiates an asynchronous reduction operation
    /// specified by .op, with the operand b and the value at destination shared memory location
    /// specified by operand a", then the complete-tx of `[mbar]` as `st.async`'s.
    RedAsync {
        /// As [`InstructionKind::StAsync`]'s.
        space: Space,
        /// The operation.
        op: AtomOp,
        /// The operand type.
        ty: Type,
        /// `[a]`.
        address: MemoryOperand,
        /// `b`.
        source: Source,
        /// `[mbar]`.
        mbarrier: Option<MemoryOperand>,
    },
    /// `st.bulk{.weak}{.shared::cta} [a], size, 0` (PTX ISA 9.7.9.13): "initializes a region
    /// of shared memory starting from the location specified by destination address operand
    /// a"; `size` bytes, to zero ("The only numeric value allowed for operand initval is 0").
    StBulk {
        /// `Shared` (`.shared::cta`) or `Generic`.
        space: Space,
        /// `[a]`.
        address: MemoryOperand,
        /// `size`, in bytes.
        size: Source,
    },
    /// `clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
    /// {.multicast::cluster::all}.b128 [addr], [mbar]` (PTX ISA 9.7.13.17): "requests
    /// atomically cancelling the launch of a cluster that has not started running yet", writes
    /// the 16-byte response at `addr` and performs a complete-tx of 16 bytes on `mbar` (with
    /// `.multicast::cluster::all`, at the same offsets in every CTA of the cluster).
    ClusterCancel {
        /// `[addr]`: the 16-byte response.
        response: MemoryOperand,
        /// `[mbar]`.
        mbarrier: MemoryOperand,
        /// Both addresses are generic (no `.shared::cta`).
        generic: bool,
        /// `.multicast::cluster::all`.
        multicast: bool,
    },
    /// `clusterlaunchcontrol.query_cancel` (PTX ISA 9.7.13.17): what a `try_cancel` response
    /// (`handle`, a `.b128` register) says.
    ClusterCancelQuery {
        /// `.is_canceled.pred` (`None`), or `.get_first_ctaid` (`Some(None)`: the `.v4.b32`
        /// vector `{x, y, z, _}`; `Some(Some(axis))`: `::x`/`::y`/`::z`, one `.b32`).
        ctaid: Option<Option<Axis>>,
        /// The predicate or the `.b32` destinations (`None`: the sink `_`).
        destinations: Vec<Option<Destination>>,
        /// The response.
        handle: Source,
    },
    /// `ret`: back to the caller, or (from the kernel) the thread exits.
    Ret,
    /// `exit`.
    Exit,
    /// `alloca.type ptr, size{, immAlign}` (PTX ISA 9.7.17.3): "dynamically allocates memory
    /// on the stack frame of the current function and updates the stack pointer accordingly.
    /// The returned pointer ptr points to local memory". The stack is the top
    /// [`Program::stack_bytes`] of each thread's `.local` space and grows down; `align` is
    /// `max(immAlign, 8)` ("8 which is the minimum guaranteed alignment").
    Alloca {
        /// `.u32` or `.u64`.
        ty: Type,
        /// `ptr`.
        destination: Destination,
        /// `size`, in bytes.
        size: Source,
        /// The alignment in bytes (a power of two).
        align: u64,
    },
    /// `stacksave.type d` (9.7.17.1): "d = stackptr".
    StackSave {
        /// `.u32` or `.u64`.
        ty: Type,
        /// `d`.
        destination: Destination,
    },
    /// `stackrestore.type a` (9.7.17.2): "stackptr = a".
    StackRestore {
        /// `.u32` or `.u64`.
        ty: Type,
        /// `a`.
        source: Source,
    },
    /// `trap`: the program aborts (an [`crate::Outcome::Trapped`]).
    Trap,
    /// An instruction the executor does not implement; executing it stops the run with
    /// [`crate::ExecError::Unsupported`].
    Unsupported {
        /// The opcode and modifiers as written, e.g. `add.s32`.
        mnemonic: String,
        /// Why, in words.
        reason: String,
    },
}

/// A function of CUDA's device-side runtime, called by nvcc's code as an `.extern .func` without
/// a body in the module; each has the signature nvcc declares it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeFunction {
    /// `vprintf(.param .b64 format, .param .b64 arguments) -> .b32`: `printf` (the generic
    /// address of the format string and of the argument buffer).
    Vprintf,
    /// `__assertfail(.b64 message, .b64 file, .b32 line, .b64 function, .b64 char_size)`: a
    /// failed `assert`.
    AssertFail,
    /// `malloc(.param .b64 size) -> .b64`: an allocation from the device heap.
    Malloc,
    /// `free(.param .b64 pointer)`.
    Free,
    /// `cudaGraphSetConditional(.param .b64 handle, .param .b32 value)`: sets the value of a
    /// CUDA graph's conditional node handle (CUDA Runtime API, "Graph Management",
    /// `cudaGraphSetConditional`). ptxsim's driver makes a handle the global address of a
    /// 32-bit cell it reads when the conditional node runs, so the call stores `value` there.
    GraphSetConditional,
    /// A function of the device runtime of CUDA Dynamic Parallelism (`__cudaCDP2*`,
    /// `cudaGetParameterBufferV2`/`cudaLaunchDeviceV2`).
    DeviceRuntime(cdp::DeviceRuntimeFunction),
}

impl RuntimeFunction {
    /// Whether it allocates from or frees to the device heap (`malloc`, `free`, and the device
    /// runtime's `cudaMalloc`/`cudaFree`).
    pub fn uses_heap(self) -> bool {
        matches!(
            self,
            Self::Malloc
                | Self::Free
                | Self::DeviceRuntime(
                    cdp::DeviceRuntimeFunction::Malloc | cdp::DeviceRuntimeFunction::Free
                )
        )
    }

    /// The function called `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "vprintf" => Self::Vprintf,
            "__assertfail" => Self::AssertFail,
            "malloc" => Self::Malloc,
            "free" => Self::Free,
            "cudaGraphSetConditional" => Self::GraphSetConditional,
            _ => return cdp::DeviceRuntimeFunction::from_name(name).map(Self::DeviceRuntime),
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Vprintf => "vprintf",
            Self::AssertFail => "__assertfail",
            Self::Malloc => "malloc",
            Self::Free => "free",
            Self::GraphSetConditional => "cudaGraphSetConditional",
            Self::DeviceRuntime(function) => function.name(),
        }
    }

    /// The sizes in bytes of its parameters and of its return value (nvcc's declarations).
    pub fn signature(self) -> (&'static [u64], Option<u64>) {
        match self {
            Self::Vprintf => (&[8, 8], Some(4)),
            Self::AssertFail => (&[8, 8, 4, 8, 8], None),
            Self::Malloc => (&[8], Some(8)),
            Self::Free => (&[8], None),
            Self::GraphSetConditional => (&[8, 4], None),
            Self::DeviceRuntime(function) => function.signature(),
        }
    }
}

/// Which lanes of its warp a warp-synchronous instruction waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpSync {
    /// The non-exited lanes of this membermask (the `.sync` forms: "wait until all non-exited
    /// threads corresponding to membermask have executed" it).
    Members(Source),
    /// The lanes at the same instruction (the forms without `.sync`, and `activemask`, which
    /// reports the lanes executing it together).
    Converged,
    /// The 128 threads of the warpgroup (four consecutive warps, 9.7.15.1) at the same
    /// instruction (`wgmma.mma_async`).
    Warpgroup,
}

impl InstructionKind {
    /// For a warp-synchronous instruction, which lanes it waits for; `None` for the others.
    /// The executor runs such an instruction once for every lane that waits, when all have
    /// arrived (`docs/executor.md`, "Warps").
    pub fn warp_sync(&self) -> Option<WarpSync> {
        let mask = |membermask: &Option<Source>| match membermask {
            Some(mask) => WarpSync::Members(*mask),
            None => WarpSync::Converged,
        };
        match self {
            InstructionKind::Shfl { membermask, .. } | InstructionKind::Vote { membermask, .. } => {
                Some(mask(membermask))
            }
            InstructionKind::Activemask { .. }
            | InstructionKind::Mma { .. }
            | InstructionKind::Ldmatrix { .. }
            | InstructionKind::Stmatrix { .. }
            | InstructionKind::Movmatrix { .. }
            | InstructionKind::WmmaLoad { .. }
            | InstructionKind::WmmaStore { .. }
            | InstructionKind::WmmaMma { .. } => Some(WarpSync::Converged),
            InstructionKind::Wgmma(_) => Some(WarpSync::Warpgroup),
            InstructionKind::Tcgen05(op) if op.warp_collective() => Some(WarpSync::Converged),
            InstructionKind::Redux { membermask, .. }
            | InstructionKind::Match { membermask, .. }
            | InstructionKind::Elect { membermask, .. }
            | InstructionKind::BarWarpSync { membermask } => Some(WarpSync::Members(*membermask)),
            _ => None,
        }
    }

    /// The registers a warp-synchronous instruction writes (for step records).
    pub fn warp_destinations(&self) -> Vec<RegisterId> {
        let pair = |d: &Destination, p: &Option<Destination>| {
            std::iter::once(d.register)
                .chain(p.map(|p| p.register))
                .collect()
        };
        match self {
            InstructionKind::Shfl {
                destination,
                predicate,
                ..
            }
            | InstructionKind::Match {
                destination,
                predicate,
                ..
            } => pair(destination, predicate),
            InstructionKind::Vote { destination, .. }
            | InstructionKind::Activemask { destination }
            | InstructionKind::Redux { destination, .. } => vec![destination.register],
            InstructionKind::Mma { d, .. }
            | InstructionKind::WmmaLoad { d, .. }
            | InstructionKind::WmmaMma { d, .. } => d.iter().map(|d| d.register).collect(),
            InstructionKind::Ldmatrix { d, .. } => d.iter().flatten().map(|d| d.register).collect(),
            InstructionKind::Movmatrix { d, .. } => d.iter().map(|d| d.register).collect(),
            InstructionKind::Wgmma(wgmma) => wgmma.d.iter().map(|d| d.register).collect(),
            InstructionKind::Tcgen05(op) => match &**op {
                tcgen05::Tcgen05::Ld { d, .. } => d.iter().map(|d| d.register).collect(),
                _ => Vec::new(),
            },
            InstructionKind::Elect {
                destination,
                predicate,
                ..
            } => destination
                .iter()
                .chain(predicate)
                .map(|d| d.register)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the instruction neither reads nor changes the program counters, step counts or
    /// statuses of the threads that run it, except by stopping a thread that faults (which
    /// settles them first): the executor may then defer their update for a group in lockstep.
    pub fn keeps_counters(&self) -> bool {
        match self {
            InstructionKind::Mov { .. }
            | InstructionKind::MovPack { .. }
            | InstructionKind::MovUnpack { .. }
            | InstructionKind::MovVector { .. }
            | InstructionKind::Cvt { .. }
            | InstructionKind::CvtPack { .. }
            | InstructionKind::IntBinary { .. }
            | InstructionKind::IntUnary { .. }
            | InstructionKind::Mad { .. }
            | InstructionKind::FloatBinary { .. }
            | InstructionKind::Fma { .. }
            | InstructionKind::FloatPair { .. }
            | InstructionKind::FloatMixed { .. }
            | InstructionKind::FloatMinMax3 { .. }
            | InstructionKind::FloatUnary { .. }
            | InstructionKind::Setp { .. }
            | InstructionKind::Selp { .. }
            | InstructionKind::Prmt { .. }
            | InstructionKind::Lop3 { .. }
            | InstructionKind::IntTernary { .. }
            | InstructionKind::Carry { .. }
            | InstructionKind::IntExtra { .. }
            | InstructionKind::Testp { .. }
            | InstructionKind::Set { .. }
            | InstructionKind::Slct { .. }
            | InstructionKind::Bfe { .. }
            | InstructionKind::Bfi { .. }
            | InstructionKind::Ld { .. }
            | InstructionKind::St { .. }
            | InstructionKind::Cvta { .. }
            | InstructionKind::Atom { .. }
            | InstructionKind::AtomVector { .. }
            | InstructionKind::CpAsync { .. }
            | InstructionKind::Mbarrier { .. }
            | InstructionKind::Texture(_)
            | InstructionKind::Mapa { .. }
            | InstructionKind::CpAsyncBulk { .. }
            | InstructionKind::ClusterCancel { .. }
            | InstructionKind::ClusterCancelQuery { .. }
            | InstructionKind::StAsync { .. }
            | InstructionKind::StMasked { .. }
            | InstructionKind::RedAsync { .. }
            | InstructionKind::StBulk { .. }
            | InstructionKind::BulkTensor(_)
            | InstructionKind::CpReduceAsyncBulk { .. }
            | InstructionKind::TensormapReplace { .. }
            | InstructionKind::Getctarank { .. }
            | InstructionKind::Isspacep { .. }
            | InstructionKind::Fence => true,
            InstructionKind::Barrier { .. }
            | InstructionKind::BarrierCluster { .. }
            | InstructionKind::Shfl { .. }
            | InstructionKind::Vote { .. }
            | InstructionKind::Activemask { .. }
            | InstructionKind::Redux { .. }
            | InstructionKind::Match { .. }
            | InstructionKind::Elect { .. }
            | InstructionKind::Mma { .. }
            | InstructionKind::Ldmatrix { .. }
            | InstructionKind::Stmatrix { .. }
            | InstructionKind::Movmatrix { .. }
            | InstructionKind::WmmaLoad { .. }
            | InstructionKind::WmmaStore { .. }
            | InstructionKind::WmmaMma { .. }
            | InstructionKind::Wgmma(_)
            | InstructionKind::Tcgen05(_)
            | InstructionKind::BarWarpSync { .. }
            | InstructionKind::Call { .. }
            | InstructionKind::CallIndirect { .. }
            | InstructionKind::CallRuntime { .. }
            | InstructionKind::Bra { .. }
            | InstructionKind::Ret
            | InstructionKind::Exit
            | InstructionKind::BranchIndexed { .. }
            | InstructionKind::Alloca { .. }
            | InstructionKind::StackSave { .. }
            | InstructionKind::StackRestore { .. }
            | InstructionKind::Trap
            | InstructionKind::Unsupported { .. } => false,
        }
    }
}
