//! The state of a CTA's threads: their registers, program counters, step counts and
//! statuses as arrays ([`Lanes`]), what each thread has besides ([`Thread`]: `.local`,
//! `.param`, the call stack), and the CTA's barriers and place in its cluster.

use crate::dim::{Dim3, flatten};
use crate::ir::{Destination, Program, RegisterId};
use crate::step::Outcome;

/// A call frame: where to go back to and what to copy back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) return_pc: usize,
    /// The caller's stack pointer: `ret` frees what the callee's `alloca`s took (PTX ISA
    /// 9.7.17.3: the memory "is automatically deallocated when the function exits").
    pub(crate) stack: u64,
    pub(crate) callee: usize,
    pub(crate) returns: Vec<(u64, u64, u64)>,
    /// `.reg` return values: the callee's register and the caller's destination.
    pub(crate) register_returns: Vec<(RegisterId, Destination)>,
    /// For a call of a function that is already running in this thread (recursion): the
    /// thread's registers, `.param` space and the callee's `.local` variables as they were
    /// before the call, put back when it returns, so that each invocation has its own.
    pub(crate) saved: Option<Box<SavedState>>,
}

/// A thread's registers and per-thread `.param` space, saved across a recursive call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SavedState {
    pub(crate) registers: Vec<u128>,
    pub(crate) params: Vec<u8>,
    /// The callee's `.local` variables: where they start, and their bytes.
    pub(crate) local: (usize, Vec<u8>),
}

/// Where a thread is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// It can run.
    Ready,
    /// It waits at `bar.sync` for the rest of its CTA.
    AtBarrier,
    /// It waits at a warp-synchronous instruction (`shfl.sync`, `vote.sync`, ...), its program
    /// counter on it, for the lanes of its warp the instruction waits for.
    AtWarpSync,
    /// It finished (exited, trapped or ran out of fuel).
    Done(Outcome),
}

/// What a thread has that instructions seldom touch: its index, `.local` and per-thread
/// `.param` memory and call stack. Registers, program counters, step counts and statuses live
/// in [`Lanes`].
#[derive(Clone, Debug)]
pub(crate) struct Thread {
    pub(crate) tid: Dim3,
    pub(crate) local: Vec<u8>,
    pub(crate) params: Vec<u8>,
    pub(crate) frames: Vec<Frame>,
    /// The stack pointer of `alloca` (a `.local` address; the stack is the top
    /// `Program::stack_bytes` of `local` and grows down from its end).
    pub(crate) stack: u64,
}

impl Thread {
    pub(crate) fn new(program: &Program, tid: Dim3) -> Self {
        Self {
            tid,
            local: vec![0; usize::try_from(program.local_bytes).unwrap_or(0)],
            params: vec![0; usize::try_from(program.thread_param_bytes).unwrap_or(0)],
            frames: Vec::new(),
            stack: program.local_bytes,
        }
    }
}

/// The distance, in registers, between two rows of a CTA's register file (register `r` of
/// thread `t` is at `r * stride + t`) for `threads` threads: the thread count rounded up to
/// whole 64-byte lines, and one line more, so that consecutive rows start in different sets
/// of the host's caches. Compiled code, which runs one thread at a time and so touches one
/// word of many rows, would otherwise find every row of a 1024-thread CTA (8 KiB apart) in
/// the same cache set and evict them from each other.
pub fn register_stride(threads: usize) -> usize {
    threads.div_ceil(8) * 8 + 8
}

/// The per-thread state that every instruction touches, stored as a structure of arrays:
/// register `r` of thread `t` is `registers[r * stride + t]` (`stride`: the thread count
/// padded, [`register_stride`]), so an instruction that runs for
/// the threads of a CTA in lockstep reads and writes each operand's values contiguously.
/// Registers start at zero (PTX leaves them undefined; ptxsim picks zero so that runs are
/// deterministic).
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    /// The distance between two registers' rows ([`register_stride`]).
    pub(crate) stride: usize,
    /// The low 64 bits of every register (all of a register of 64 bits or fewer).
    pub(crate) low: Vec<u64>,
    /// The high 64 bits of the `.b128` registers, in rows numbered by `high_row`.
    pub(crate) high: Vec<u64>,
    /// For each register, its row in `high` when it is wider than 64 bits.
    pub(crate) high_row: Vec<Option<usize>>,
    pub(crate) pc: Vec<usize>,
    pub(crate) steps: Vec<u64>,
    pub(crate) status: Vec<ThreadStatus>,
    /// Whether a thread's last `mbarrier.test_wait`/`try_wait` found the phase incomplete: it
    /// spins, and [`Cta::gather`] lets the other threads run first.
    pub(crate) waiting: Vec<bool>,
    /// Whether a thread has called a function since the CTA started (else no thread has a
    /// call frame, and `ret` ends every thread that runs it).
    pub(crate) calls: bool,
    /// Instructions that the group running in lockstep issued without its threads' program
    /// counters and step counts being updated (see [`Lanes::settle`]).
    pub(crate) pending: u64,
}

impl Lanes {
    pub(crate) fn new(program: &Program, count: usize) -> Self {
        let mut wide = 0;
        let high_row: Vec<Option<usize>> = program
            .registers
            .iter()
            .map(|register| {
                (register.bits() > 64).then(|| {
                    wide += 1;
                    wide - 1
                })
            })
            .collect();
        let stride = register_stride(count);
        Self {
            stride,
            low: vec![0; program.registers.len() * stride],
            high: vec![0; wide * stride],
            high_row,
            pc: vec![0; count],
            steps: vec![0; count],
            status: vec![ThreadStatus::Ready; count],
            waiting: vec![false; count],
            calls: false,
            pending: 0,
        }
    }

    /// Register `register` of thread `lane`; an invalid index (a simulator bug: lowering only
    /// produces valid ones) reads as zero rather than panicking.
    #[inline(always)]
    pub(crate) fn get(&self, lane: usize, register: RegisterId) -> u128 {
        let low = self.low.get(register.index() * self.stride + lane).copied();
        let high = match self.high_row.get(register.index()) {
            Some(Some(row)) => self.high.get(row * self.stride + lane).copied(),
            _ => None,
        };
        u128::from(low.unwrap_or(0)) | u128::from(high.unwrap_or(0)) << 64
    }

    /// Sets register `register` of thread `lane` (an invalid index is ignored).
    #[inline(always)]
    pub(crate) fn set(&mut self, lane: usize, register: RegisterId, value: u128) {
        if let Some(slot) = self.low.get_mut(register.index() * self.stride + lane) {
            *slot = value as u64;
        }
        if let Some(Some(row)) = self.high_row.get(register.index()) {
            if let Some(slot) = self.high.get_mut(row * self.stride + lane) {
                *slot = (value >> 64) as u64;
            }
        }
    }

    /// Every register of thread `lane`, in register order.
    pub(crate) fn save(&self, lane: usize) -> Vec<u128> {
        (0..self.high_row.len())
            .map(|index| self.get(lane, RegisterId(index as u32)))
            .collect()
    }

    /// Puts back the registers [`Lanes::save`] gave.
    pub(crate) fn restore(&mut self, lane: usize, registers: &[u128]) {
        for (index, &value) in registers.iter().enumerate() {
            self.set(lane, RegisterId(index as u32), value);
        }
    }

    /// Brings the threads of `group`, which issued [`Lanes::pending`] instructions in lockstep
    /// without their counters being updated, to the instruction `pc`.
    #[inline]
    pub(crate) fn settle(&mut self, group: &[usize], pc: usize) {
        if self.pending == 0 {
            return;
        }
        for &lane in group {
            self.steps[lane] += self.pending;
            self.pc[lane] = pc;
        }
        self.pending = 0;
    }

    /// The low 64 bits of `register` for the consecutive lanes `first..first + count`.
    #[inline(always)]
    pub(crate) fn row(&self, register: RegisterId, first: usize, count: usize) -> Option<&[u64]> {
        let base = register.index() * self.stride + first;
        self.low.get(base..base + count)
    }
}

/// The operand values of one instruction for the lanes it runs on (one entry per lane, in the
/// order of the lanes), reused from instruction to instruction: operands are fetched for all
/// lanes at once, computed in one loop and written back in one loop, so each loop decodes
/// nothing and runs over contiguous memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Columns {
    pub(crate) a: Vec<u64>,
    pub(crate) b: Vec<u64>,
    pub(crate) c: Vec<u64>,
    pub(crate) out: Vec<u64>,
}

/// The first lane of `lanes` when they are consecutive (lanes are sorted and distinct, so this
/// is when the last is `len - 1` after the first).
#[inline(always)]
pub(crate) fn run_start(lanes: &[usize]) -> Option<usize> {
    let (&first, &last) = (lanes.first()?, lanes.last()?);
    (last - first + 1 == lanes.len()).then_some(first)
}

/// The CTA's sixteen barriers (PTX ISA 9.7.13.1) in their current phase: which lanes arrived
/// (a warp has arrived when all its lanes that have not finished did), the thread count the
/// phase waits for, the reduction of `.red`, and the barrier each waiting lane waits at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Barriers {
    /// Per barrier, per warp: the lanes that arrived in this phase (empty: nobody yet).
    pub(crate) arrived: Vec<Vec<u32>>,
    /// Per barrier: `b`, the threads the phase waits for (`None`: all of the CTA).
    pub(crate) count: [Option<u32>; 16],
    /// Per barrier: how many arriving lanes had `c` true, and how many arrived with a `c`.
    pub(crate) popc: [u32; 16],
    pub(crate) voters: [u32; 16],
    /// Per lane: the barrier it waits at (while `AtBarrier`).
    pub(crate) waiting_at: Vec<u8>,
}

impl Barriers {
    pub(crate) fn new(threads: usize) -> Self {
        Barriers {
            arrived: vec![Vec::new(); 16],
            count: [None; 16],
            popc: [0; 16],
            voters: [0; 16],
            waiting_at: vec![0; threads],
        }
    }

    /// Back to [`Barriers::new`]'s state for `threads` lanes, keeping the allocations (a CTA
    /// run after another on the same host thread).
    pub(crate) fn clear(&mut self, threads: usize) {
        self.arrived.iter_mut().for_each(Vec::clear);
        self.arrived.resize(16, Vec::new());
        self.count = [None; 16];
        self.popc = [0; 16];
        self.voters = [0; 16];
        self.waiting_at.clear();
        self.waiting_at.resize(threads, 0);
    }

    /// Lane `lane` arrives at barrier `id` (0..16) of a phase of `count` threads, with `c` for
    /// `.red`.
    pub(crate) fn arrive(&mut self, lane: usize, id: usize, count: Option<u32>, c: Option<bool>) {
        let warps = self.waiting_at.len().div_ceil(32);
        let arrived = &mut self.arrived[id];
        if arrived.is_empty() {
            arrived.resize(warps, 0);
            self.count[id] = count;
        }
        arrived[lane / 32] |= 1 << (lane % 32);
        if let Some(c) = c {
            self.voters[id] += 1;
            self.popc[id] += u32::from(c);
        }
    }

    pub(crate) fn reset(&mut self, id: usize) {
        self.arrived[id].clear();
        self.count[id] = None;
        self.popc[id] = 0;
        self.voters[id] = 0;
    }
}

/// The barrier number [`Barriers::waiting_at`] holds for a lane that waits at
/// `barrier.cluster.wait`.
pub(crate) const CLUSTER_BARRIER: u8 = 16;

/// A CTA's place in its thread-block cluster (PTX ISA 9.0, 2.2.1 "Cluster of Cooperative
/// Thread Arrays"): its rank, the shared memory of the other CTAs while it runs (distributed
/// shared memory, `.shared::cluster`), and the cluster barrier (`barrier.cluster`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterLink {
    /// `%cluster_ctarank`.
    pub(crate) rank: u32,
    /// `%cluster_nctarank`.
    pub(crate) size: u32,
    /// The shared memory of the cluster's CTAs by rank while this one runs: the runner of a
    /// cluster lends them to the running CTA for its time slice ([`crate::grid`]); this CTA's
    /// own slot is empty (its memory is [`Cta::shared`]), and so is every slot of a cluster of
    /// one.
    pub(crate) peers: Vec<Vec<u8>>,
    /// The tensor memories of the cluster's CTAs by rank, lent as [`ClusterLink::peers`] are
    /// (`tcgen05` `.cta_group::2` reaches the peer CTA's).
    pub(crate) tmem: Vec<crate::tensor_memory::TensorMemory>,
    /// Per lane: the `barrier.cluster.arrive`s it made.
    pub(crate) arrivals: Vec<u64>,
    /// The completed phases of the cluster barrier: a lane that arrived `n` times waits at
    /// `barrier.cluster.wait` until `phase >= n`.
    pub(crate) phase: u64,
}

impl ClusterLink {
    /// The link of CTA `ctaid` of `threads` threads in clusters of shape `shape` (`size` CTAs).
    pub(crate) fn new(shape: Dim3, size: u32, ctaid: Dim3, threads: usize) -> Self {
        let within = [0, 1, 2].map(|axis| ctaid[axis] % shape[axis].max(1));
        Self {
            rank: flatten(within, shape) as u32,
            size,
            peers: Vec::new(),
            tmem: Vec::new(),
            arrivals: vec![0; threads],
            phase: 0,
        }
    }

    /// [`ClusterLink::new`] in place, keeping the allocations.
    pub(crate) fn relink(&mut self, shape: Dim3, size: u32, ctaid: Dim3, threads: usize) {
        let within = [0, 1, 2].map(|axis| ctaid[axis] % shape[axis].max(1));
        self.rank = flatten(within, shape) as u32;
        self.size = size;
        self.peers.clear();
        self.tmem.clear();
        self.arrivals.clear();
        self.arrivals.resize(threads, 0);
        self.phase = 0;
    }

    /// Where this CTA's shared memory starts in `.shared` addresses: `%cluster_ctarank *
    /// CLUSTER_RANK_STRIDE` (docs/clusters.md, "Addresses": ptxas computes a shared variable's
    /// address as `(SR_CgaCtaId << 24) + offset`); 0 outside a launch with clusters.
    pub(crate) fn shared_base(&self) -> u64 {
        u64::from(self.rank) * crate::memory::CLUSTER_RANK_STRIDE
    }

    /// Whether `lane` arrived at the cluster barrier in its current phase.
    pub(crate) fn arrived(&self, lane: usize) -> bool {
        self.arrivals.get(lane).is_some_and(|&n| n > self.phase)
    }
}
