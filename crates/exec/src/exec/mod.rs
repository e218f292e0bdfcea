//! Running one instruction: the [`Executor`] (the state an instruction works on), the one
//! exhaustive `match` over instruction kinds ([`Executor::execute`], style rule 3), and one
//! module per instruction family, each arm of the match calling one function of it:
//!
//! * [`convert`]: `mov` (all forms), `cvt`, `cvt.pack`;
//! * [`integer`]: integer arithmetic (`add` ... `shr`, the unary operations, `mad`, `mad24`,
//!   `sad`, `shf`);
//! * [`float`]: floating-point arithmetic;
//! * [`compare`]: `setp`, `selp`, `slct`;
//! * [`bits`]: `prmt`, `lop3`, `bfe`, `bfi`;
//! * [`memory`]: `ld`, `st`, `cvta`, `atom`/`red`, `membar`/`fence`, and the state spaces
//!   behind them;
//! * [`control`]: `bar.sync`, `call`, `bra`, `ret`, `exit`, `trap`, unsupported instructions;
//! * [`warp`]: the warp-synchronous instructions (`shfl`, `vote`, `activemask`, `redux`,
//!   `match`, `elect`, `bar.warp.sync`, `mma`), run once for the lanes of a warp that all
//!   arrived;
//! * [`matrix`]: the warp-collective matrix load, store and transpose (`ldmatrix`,
//!   `stmatrix`, `movmatrix`);
//! * [`operands`]: fetching an instruction's operands for all its lanes and writing its results
//!   back (the lockstep machinery every family uses).
//!
//! The semantics themselves are pure functions in [`crate::alu`] (one module per family too),
//! [`crate::cvt`] and [`crate::semantics`]; the functions here fetch operands, call them and
//! write back. Every family function is `#[inline(always)]`, so that the dispatch compiles to
//! one function as before the split, each arm's lane loop specialised in place.

use ptxsim_isa::Type;

use crate::device::Device;
use crate::dim::Dim3;
use crate::error::ExecError;
use crate::ir::{Destination, Instruction, InstructionKind, RegisterId, Source};
use crate::lanes::{Barriers, ClusterLink, Columns, Lanes, Thread, ThreadStatus};
use crate::memory::Fault;
use crate::semantics::Extension;
use crate::step::{MemoryWrite, Outcome, Write};

/// Builds the lane function `$f` from `$lane` (`{|args| parameters => body}`: the operation's
/// parameters are bound by the pattern `parameters` in `body`) and runs `$apply` with it. When `$value` is one of the listed tuples (the
/// common forms in nvcc and Triton code) the parameters are constants in the lane function, so
/// that the semantics function inlined into the lane loop is specialised for them; otherwise
/// they are the values themselves. Every tuple is both a pattern and an expression.
macro_rules! specialise {
    (
        $value:expr => $kind:ty,
        [$($tuple:tt),* $(,)?],
        $lane:tt,
        |$f:ident| $apply:expr
    ) => {
        match $value {
            $($tuple => {
                const K: $kind = $tuple;
                specialise!(@lane K, $lane, $f, $apply)
            })*
            value => specialise!(@lane value, $lane, $f, $apply),
        }
    };
    (@lane $k:expr, {|$($arg:ident),*| $name:pat_param => $body:expr}, $f:ident, $apply:expr) => {{
        let $f = |$($arg: u64),*| {
            let $name = $k;
            $body
        };
        $apply
    }};
}

/// What a `call` instruction carries ([`crate::ir::InstructionKind::Call`]).
#[derive(Clone, Copy)]
struct CallSite<'a> {
    target: usize,
    callee: &'a str,
    arguments: &'a [(u64, u64, u64)],
    returns: &'a [(u64, u64, u64)],
    register_arguments: &'a [(Source, Destination)],
    register_returns: &'a [(RegisterId, Destination)],
}

mod bits;
mod cdp;
mod compare;
mod control;
mod convert;
mod float;
mod integer;
mod matrix;
mod memory;
mod operands;
mod runtime;
mod tcgen05;
mod tensor;
pub(crate) mod texture;
mod warp;
mod wgmma;
mod wmma;

/// Whether the instruction moved the threads' program counters itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    /// Every thread that ran it and can go on continues with the next instruction.
    Next,
    /// The instruction set each thread's program counter or status.
    Done,
}

/// Where and how a result lands: the destination register and Table 28's rule, decided once
/// per instruction.
#[derive(Clone, Copy, Debug)]
struct Put {
    register: RegisterId,
    extension: Extension,
}

impl Put {
    fn new(destination: Destination, ty: Type) -> Self {
        Self {
            register: destination.register,
            extension: Extension::new(ty, destination.ty),
        }
    }
}

/// The state one instruction works on: the CTA's threads, of which the instruction runs on
/// the lanes it is given (one lane when stepping a single thread, all the threads at the same
/// instruction when a CTA runs in lockstep).
pub(crate) struct Executor<'a, 'p> {
    pub(crate) device: &'a Device<'p>,
    pub(crate) ctaid: Dim3,
    pub(crate) shared: &'a mut Vec<u8>,
    pub(crate) threads: &'a mut [Thread],
    pub(crate) lanes: &'a mut Lanes,
    pub(crate) columns: &'a mut Columns,
    pub(crate) barriers: &'a mut Barriers,
    /// The CTA's tensor memory (`tcgen05`).
    pub(crate) tmem: &'a mut crate::tensor_memory::TensorMemory,
    pub(crate) cluster: &'a mut ClusterLink,
    pub(crate) printed: &'a mut crate::runtime::PrintBuffer,
    pub(crate) writes: Option<&'a mut Vec<Write>>,
    pub(crate) memory: Option<&'a mut Vec<MemoryWrite>>,
    /// Whether a lane stopped or left the group (it must be formed again).
    pub(crate) stopped: bool,
    /// The group the lanes belong to and the instruction's index (to settle deferred
    /// counters before a thread stops).
    pub(crate) group: &'a [usize],
    pub(crate) pc: usize,
}

impl Executor<'_, '_> {
    /// Stops thread `lane` with `outcome`; its program counter stays at the instruction.
    fn stop(&mut self, lane: usize, outcome: Outcome) {
        self.lanes.settle(self.group, self.pc);
        self.stopped = true;
        self.lanes.status[lane] = ThreadStatus::Done(outcome);
    }

    pub(crate) fn trap(&mut self, lane: usize, instruction: &Instruction, message: String) {
        self.stop(
            lane,
            Outcome::Trapped {
                message,
                location: instruction.location,
            },
        );
    }

    fn fault(&mut self, lane: usize, instruction: &Instruction, fault: Fault) {
        let [x, y, z] = self.threads[lane].tid;
        let [bx, by, bz] = self.ctaid;
        let message = format!(
            "{fault} in `{}` (thread ({x},{y},{z}) of block ({bx},{by},{bz}))",
            instruction.text
        );
        self.trap(lane, instruction, message);
    }

    /// Runs `instruction` on every lane of `lanes` (threads whose guard passed), in order:
    /// the one exhaustive match over instruction kinds (style rule 3), each arm calling the
    /// function of its family with the loop over lanes inside, so that a CTA running in
    /// lockstep decodes each instruction once. A thread that faults or traps stops (`Done`)
    /// with its program counter at the instruction; the other lanes still run it.
    pub(crate) fn execute(
        &mut self,
        instruction: &Instruction,
        lanes: &[usize],
    ) -> Result<Control, (usize, Box<ExecError>)> {
        match &instruction.kind {
            InstructionKind::Mov {
                ty,
                destination,
                source,
            } => self.mov(lanes, *ty, *destination, *source),
            InstructionKind::MovPack {
                ty,
                destination,
                elements,
            } => self.mov_pack(lanes, *ty, *destination, elements),
            InstructionKind::MovVector {
                ty,
                destinations,
                sources,
            } => self.mov_vector(lanes, *ty, destinations, sources),
            InstructionKind::MovUnpack {
                ty,
                elements,
                source,
            } => self.mov_unpack(lanes, *ty, elements, *source),
            InstructionKind::Cvt {
                op,
                destination,
                sources,
            } => self.cvt(lanes, op, *destination, sources),
            InstructionKind::CvtPack {
                ty,
                destination,
                a,
                b,
                c,
            } => self.cvt_pack(lanes, *ty, *destination, *a, *b, *c),
            InstructionKind::IntBinary {
                op,
                ty,
                sat,
                relu,
                destination,
                a,
                b,
            } => self.int_binary(lanes, *op, *ty, *sat, *relu, *destination, *a, *b),
            InstructionKind::IntUnary {
                op,
                ty,
                destination,
                a,
            } => self.int_unary(lanes, *op, *ty, *destination, *a),
            InstructionKind::Mad {
                mode,
                ty,
                sat,
                destination,
                sources,
            } => self.mad(lanes, *mode, *ty, *sat, *destination, *sources),
            InstructionKind::IntTernary {
                op,
                ty,
                destination,
                sources,
            } => self.int_ternary(lanes, *op, *ty, *destination, *sources),
            InstructionKind::Carry {
                op,
                ty,
                destination,
                sources,
                carry_in,
                carry_out,
            } => self.carry(
                lanes,
                *op,
                *ty,
                *destination,
                *sources,
                *carry_in,
                *carry_out,
            ),
            InstructionKind::IntExtra {
                op,
                destination,
                sources,
            } => self.int_extra(lanes, *op, *destination, *sources),
            InstructionKind::Testp {
                op,
                ty,
                destination,
                a,
            } => self.testp(lanes, *op, *ty, *destination, *a),
            InstructionKind::Set {
                compare,
                dtype,
                stype,
                ftz,
                combine,
                destination,
                a,
                b,
            } => self.set(
                lanes,
                *compare,
                *dtype,
                *stype,
                *ftz,
                *combine,
                *destination,
                *a,
                *b,
            ),
            InstructionKind::FloatBinary {
                op,
                ty,
                modifiers,
                destination,
                a,
                b,
            } => self.float_binary(lanes, *op, *ty, *modifiers, *destination, *a, *b),
            InstructionKind::Fma {
                ty,
                modifiers,
                destination,
                sources,
            } => self.fma(lanes, *ty, *modifiers, *destination, *sources),
            InstructionKind::FloatMinMax3 {
                op,
                modifiers,
                abs,
                destination,
                sources,
            } => self.float_min_max_3(lanes, *op, *modifiers, *abs, *destination, *sources),
            InstructionKind::FloatPair {
                op,
                modifiers,
                destination,
                sources,
            } => self.float_pair(lanes, *op, *modifiers, *destination, sources),
            InstructionKind::FloatMixed {
                op,
                narrow,
                modifiers,
                destination,
                sources,
            } => self.float_mixed(lanes, *op, *narrow, *modifiers, *destination, sources),
            InstructionKind::FloatUnary {
                op,
                ty,
                modifiers,
                destination,
                a,
            } => self.float_unary(lanes, *op, *ty, *modifiers, *destination, *a),
            InstructionKind::Setp {
                compare,
                ty,
                ftz,
                combine,
                p,
                q,
                a,
                b,
            } => self.setp(lanes, *compare, *ty, *ftz, *combine, *p, *q, *a, *b),
            InstructionKind::Selp {
                ty,
                destination,
                a,
                b,
                c,
            } => self.selp(lanes, *ty, *destination, *a, *b, *c),
            InstructionKind::Slct {
                ty,
                float_selector,
                ftz,
                destination,
                sources,
            } => self.slct(lanes, *ty, *float_selector, *ftz, *destination, *sources),
            InstructionKind::Prmt {
                mode,
                destination,
                sources,
            } => self.prmt(lanes, *mode, *destination, *sources),
            InstructionKind::Lop3 {
                destination,
                sources,
                lut,
            } => self.lop3(lanes, *destination, *sources, *lut),
            InstructionKind::Bfe {
                ty,
                destination,
                sources,
            } => self.bfe(lanes, *ty, *destination, *sources),
            InstructionKind::Bfi {
                ty,
                destination,
                sources,
            } => self.bfi(lanes, *ty, *destination, *sources),
            InstructionKind::Ld {
                space,
                ty,
                destinations,
                address,
            } => self.ld(instruction, lanes, *space, *ty, destinations, *address),
            InstructionKind::St {
                space,
                ty,
                address,
                sources,
            } => self.st(instruction, lanes, *space, *ty, *address, sources),
            InstructionKind::Cvta {
                to,
                space,
                ty,
                destination,
                source,
            } => self.cvta(lanes, *to, *space, *ty, *destination, *source),
            InstructionKind::Atom {
                space,
                op,
                ty,
                destination,
                address,
                b,
                c,
            } => self.atom(
                instruction,
                lanes,
                *space,
                *op,
                *ty,
                *destination,
                *address,
                *b,
                *c,
            ),
            InstructionKind::AtomVector {
                space,
                op,
                ty,
                destinations,
                address,
                sources,
            } => self.atom_vector(
                instruction,
                lanes,
                *space,
                *op,
                *ty,
                destinations,
                *address,
                sources,
            ),
            InstructionKind::Fence => self.fence(),
            InstructionKind::Texture(op) => self.texture(instruction, lanes, op),
            InstructionKind::Mbarrier {
                op,
                space,
                destination,
                address,
                operand,
            } => self.mbarrier(
                instruction,
                lanes,
                *op,
                *space,
                *destination,
                *address,
                *operand,
            ),
            InstructionKind::CpAsync {
                bytes,
                destination,
                source,
                source_size,
                ignore_source,
            } => self.cp_async(
                instruction,
                lanes,
                *bytes,
                *destination,
                *source,
                *source_size,
                *ignore_source,
            ),
            InstructionKind::Barrier {
                op,
                id,
                count,
                predicate,
                ..
            } => return self.barrier(instruction, lanes, *op, *id, *count, *predicate),
            InstructionKind::Shfl {
                mode,
                destination,
                predicate,
                sources,
                ..
            } => self.shfl(lanes, *mode, *destination, *predicate, *sources),
            InstructionKind::Vote {
                mode,
                destination,
                a,
                membermask,
            } => self.vote(lanes, *mode, *destination, *a, *membermask),
            InstructionKind::Activemask { destination } => self.activemask(lanes, *destination),
            InstructionKind::Redux {
                op,
                ty,
                abs,
                nan,
                destination,
                a,
                membermask,
            } => self.redux(lanes, *op, (*ty, *abs, *nan), *destination, *a, *membermask),
            InstructionKind::Match {
                all,
                ty,
                destination,
                predicate,
                a,
                membermask,
            } => self.match_sync(
                lanes,
                (*all, *ty),
                *destination,
                *predicate,
                *a,
                *membermask,
            ),
            InstructionKind::Elect {
                destination,
                predicate,
                ..
            } => self.elect(lanes, *destination, *predicate),
            InstructionKind::Mapa {
                cluster,
                ty,
                destination,
                address,
                rank,
            } => self.mapa(
                instruction,
                lanes,
                *cluster,
                *ty,
                *destination,
                *address,
                *rank,
            ),
            InstructionKind::Getctarank {
                cluster,
                ty,
                destination,
                address,
            } => self.getctarank(lanes, *cluster, *ty, *destination, *address),
            InstructionKind::Isspacep {
                space,
                destination,
                address,
            } => self.isspacep(lanes, *space, *destination, *address),
            InstructionKind::CpAsyncBulk {
                destination_space,
                source_space,
                destination,
                source,
                size,
                mbarrier,
                cta_mask,
            } => self.cp_async_bulk(
                instruction,
                lanes,
                (*destination_space, *destination),
                (*source_space, *source),
                *size,
                (*mbarrier, *cta_mask),
            ),
            InstructionKind::StMasked {
                space,
                ty,
                address,
                sources,
            } => self.st_masked(instruction, lanes, (*space, *ty), *address, sources),
            InstructionKind::StAsync {
                space,
                ty,
                address,
                sources,
                mbarrier,
            } => self.st_async(
                instruction,
                lanes,
                (*space, *ty),
                *address,
                sources,
                *mbarrier,
            ),
            InstructionKind::RedAsync {
                space,
                op,
                ty,
                address,
                source,
                mbarrier,
            } => self.red_async(
                instruction,
                lanes,
                (*space, *op, *ty),
                *address,
                *source,
                *mbarrier,
            ),
            InstructionKind::StBulk {
                space,
                address,
                size,
            } => self.st_bulk(instruction, lanes, *space, *address, *size),
            InstructionKind::ClusterCancel {
                response,
                mbarrier,
                generic,
                multicast,
            } => self.cluster_cancel(
                instruction,
                lanes,
                (*response, *mbarrier),
                *generic,
                *multicast,
            ),
            InstructionKind::ClusterCancelQuery {
                ctaid,
                destinations,
                handle,
            } => self.cluster_cancel_query(lanes, *ctaid, destinations, *handle),
            InstructionKind::BulkTensor(op) => self.bulk_tensor(instruction, lanes, op),
            InstructionKind::TensormapReplace {
                field,
                space,
                address,
                ordinal,
                value,
            } => self.tensormap_replace(
                instruction,
                lanes,
                (*field, *space),
                *address,
                *ordinal,
                *value,
            ),
            InstructionKind::CpReduceAsyncBulk {
                op,
                ty,
                global,
                destination,
                source,
                size,
                mbarrier,
            } => self.cp_reduce_async_bulk(
                instruction,
                lanes,
                (*op, *ty, *global),
                (*destination, *source),
                *size,
                *mbarrier,
            ),
            InstructionKind::BarrierCluster { arrive } => {
                return self.barrier_cluster(instruction, lanes, *arrive);
            }
            InstructionKind::Mma {
                form,
                d,
                sources,
                scales,
                sparse,
            } => self.mma(
                instruction,
                lanes,
                form,
                d,
                sources,
                scales.as_deref(),
                sparse.as_deref(),
            ),
            InstructionKind::Ldmatrix {
                form,
                space,
                d,
                address,
            } => self.ldmatrix(instruction, lanes, *form, *space, d, *address),
            InstructionKind::Stmatrix {
                form,
                space,
                address,
                sources,
            } => self.stmatrix(instruction, lanes, *form, *space, *address, sources),
            InstructionKind::Movmatrix { d, a } => self.movmatrix(instruction, lanes, *d, *a),
            InstructionKind::WmmaLoad {
                form,
                space,
                d,
                address,
                stride,
            } => self.wmma_load(instruction, lanes, form, *space, d, *address, *stride),
            InstructionKind::WmmaStore {
                form,
                space,
                address,
                sources,
                stride,
            } => self.wmma_store(instruction, lanes, form, *space, *address, sources, *stride),
            InstructionKind::WmmaMma { form, d, sources } => {
                self.wmma_mma(instruction, lanes, form, d, sources)
            }
            InstructionKind::Wgmma(wgmma) => self.wgmma(instruction, lanes, wgmma),
            InstructionKind::Tcgen05(op) => self.tcgen05(instruction, lanes, op),
            InstructionKind::BarWarpSync { .. } => {}
            InstructionKind::Call {
                target,
                callee,
                arguments,
                returns,
                register_arguments,
                register_returns,
            } => {
                let call = CallSite {
                    target: *target,
                    callee,
                    arguments,
                    returns,
                    register_arguments,
                    register_returns,
                };
                return self.call(instruction, lanes, &call);
            }
            InstructionKind::CallIndirect { address, targets } => {
                return self.call_indirect(instruction, lanes, *address, targets);
            }
            InstructionKind::CallRuntime {
                function,
                arguments,
                result,
            } => return self.call_runtime(instruction, lanes, *function, arguments, *result),
            InstructionKind::Bra { target } => return self.bra(lanes, *target),
            InstructionKind::BranchIndexed { index, targets } => {
                return Ok(self.branch_indexed(instruction, lanes, *index, targets));
            }
            InstructionKind::Ret => {
                let control = self.ret(lanes);
                self.tmem_left_allocated(instruction, lanes);
                return control;
            }
            InstructionKind::Exit => {
                let control = self.exit(lanes);
                self.tmem_left_allocated(instruction, lanes);
                return control;
            }
            InstructionKind::Trap => self.trap_instruction(instruction, lanes),
            &InstructionKind::Alloca {
                ty,
                destination,
                size,
                align,
            } => self.alloca(instruction, lanes, (ty, destination, size, align)),
            &InstructionKind::StackSave { ty, destination } => {
                self.stack_pointer(lanes, ty, Some(destination), None)
            }
            &InstructionKind::StackRestore { ty, source } => {
                self.stack_pointer(lanes, ty, None, Some(source))
            }
            InstructionKind::Unsupported { mnemonic, reason } => {
                return self.unsupported(instruction, lanes, mnemonic, reason);
            }
        }
        Ok(Control::Next)
    }
}
