//! Graph memory nodes and conditional nodes (CUDA driver API, "Graph Management"), beside the
//! graph calls of [`super`].
//!
//! # Graph memory
//!
//! An allocation node (`cuGraphAddMemAllocNode`, or `cuMemAllocAsync` on a capturing stream)
//! gets its address when it is made: "the allocation's address remains fixed across
//! instantiations and launches". ptxsim reserves the addresses then
//! ([`DeviceMemory::reserve`](ptxsim_exec::memory::DeviceMemory::reserve)) and makes the
//! memory (zeroed) when the node runs; a free node (`cuGraphAddMemFreeNode`, a captured
//! `cuMemFreeAsync`), `cuMemFree` or `cuMemFreeAsync` frees it. An allocation node that
//! depends directly on a free node of an allocation of the same graph, at least as large and
//! on the same device, reuses that allocation's address (CUDA "can reuse the virtual address"
//! there; graphMemoryNodes and graphMemoryFootprint print whether it did).
//!
//! Launching a graph whose allocation from an earlier launch is still live fails with
//! `CUDA_ERROR_INVALID_VALUE`, unless the graph was instantiated with
//! `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`, which frees it first (`cuGraphLaunch`).
//!
//! Each device has a pool: the memory "allocated for use by the CUDA graphs asynchronous
//! allocator". It grows when the live graph allocations need more than it holds, is kept when
//! they are freed (a later launch reuses it), and shrinks to what is live on
//! `cuDeviceGraphMemTrim`. `cuDeviceGetGraphMemAttribute` reports it as both the used and the
//! reserved memory (launches are synchronous, so no memory is held for work in flight), with
//! high watermarks that `cuDeviceSetGraphMemAttribute` resets.
//!
//! # Conditional nodes
//!
//! A conditional handle (`cuGraphConditionalHandleCreate`) is the device address of a 32-bit
//! cell allocated in its context's memory: kernels set it with `cudaGraphSetConditional(handle,
//! value)`, which the executor runs as a 4-byte global store there (docs/executor.md,
//! "Device-side runtime"); a conditional node reads the cell when it runs. Its default value
//! is written when the handle is made and, with `CU_GRAPH_COND_ASSIGN_DEFAULT`, again at the
//! start of every launch of the graph. IF runs body 0 when the value is not 0 (and body 1, if
//! there is one, when it is 0); WHILE runs body 0 as long as the value is not 0, testing
//! before each run; SWITCH runs body `n` when the value is `n` and none when it is `size` or
//! more (`CUDA_CONDITIONAL_NODE_PARAMS`).

use std::collections::HashMap;

use super::{CallResult, CudaError, Failure, Graph, GraphNode, State, state};

/// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`.
pub const AUTO_FREE_ON_LAUNCH: u64 = 1;

/// `CU_GRAPH_COND_ASSIGN_DEFAULT`.
pub const ASSIGN_DEFAULT: u32 = 1;

/// The kind of a conditional node (`CUgraphConditionalNodeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionalKind {
    /// `CU_GRAPH_COND_TYPE_IF` (0): body 0 if the value is not 0, else body 1 if there is one.
    If,
    /// `CU_GRAPH_COND_TYPE_WHILE` (1): body 0 as long as the value is not 0.
    While,
    /// `CU_GRAPH_COND_TYPE_SWITCH` (2): body `value` if there is one.
    Switch,
}

impl ConditionalKind {
    /// The kind of `CUgraphConditionalNodeType` `value`.
    pub fn from_code(value: i32) -> Option<Self> {
        Some(match value {
            0 => Self::If,
            1 => Self::While,
            2 => Self::Switch,
            _ => return None,
        })
    }

    /// Whether a node of this kind may have `size` bodies: 1 or 2 for IF, 1 for WHILE, any
    /// number above 0 for SWITCH (`CUDA_CONDITIONAL_NODE_PARAMS::size`).
    pub fn allows(self, size: u32) -> bool {
        match self {
            Self::If => matches!(size, 1 | 2),
            Self::While => size == 1,
            Self::Switch => size > 0,
        }
    }

    /// Its name in `cuda.h` without the prefix.
    pub fn name(self) -> &'static str {
        match self {
            Self::If => "IF",
            Self::While => "WHILE",
            Self::Switch => "SWITCH",
        }
    }

    /// The body to run for `value`, given `size` bodies (`None`: none). For WHILE, the body to
    /// run once more.
    pub fn body(self, value: u32, size: usize) -> Option<usize> {
        match self {
            Self::If if value != 0 => Some(0),
            Self::If => (size == 2).then_some(1),
            Self::While => (value != 0).then_some(0),
            Self::Switch => usize::try_from(value).ok().filter(|&n| n < size),
        }
    }
}

/// Where an allocation node's addresses are reserved.
#[derive(Clone, Copy, Debug)]
struct Reservation {
    /// The device.
    device: i32,
    /// The context the memory belongs to when it exists (the graph's).
    context: u64,
    /// Bytes reserved (an allocation reusing the addresses may be smaller).
    bytes: u64,
}

/// A device's graph memory pool, in bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Pool {
    /// Memory the pool holds (used and reserved memory).
    held: u64,
    /// Memory of live graph allocations.
    live: u64,
    /// The highest `held` since the last reset of `CU_GRAPH_MEM_ATTR_USED_MEM_HIGH`.
    used_high: u64,
    /// The highest `held` since the last reset of `CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH`.
    reserved_high: u64,
}

/// A conditional handle.
#[derive(Clone, Copy, Debug)]
struct Conditional {
    /// The value written at creation and, with [`ASSIGN_DEFAULT`], at each launch.
    default: u32,
    /// `CU_GRAPH_COND_ASSIGN_DEFAULT`.
    assign_default: bool,
    /// The graph it was made for.
    graph: u64,
}

/// The driver's graph memory and conditional handles (a field of the driver's state).
#[derive(Debug, Default)]
pub struct GraphState {
    /// The addresses allocation nodes reserved, by their start.
    reservations: HashMap<u64, Reservation>,
    /// Graph allocations that exist now: their start and size.
    live: HashMap<u64, u64>,
    /// Each device's pool.
    pools: HashMap<i32, Pool>,
    /// Conditional handles, by their cell's address.
    conditionals: HashMap<u64, Conditional>,
    /// Graphs that streams capture into that existed before (`cuStreamBeginCaptureToGraph`).
    captured_into: Vec<u64>,
}

/// Whether a graph holding `node` cannot be cloned (memory and conditional nodes).
pub(super) fn not_clonable(node: &GraphNode) -> bool {
    matches!(
        node,
        GraphNode::MemAlloc { .. } | GraphNode::MemFree { .. } | GraphNode::Conditional { .. }
    )
}

/// A graph of the state, or `CUDA_ERROR_INVALID_HANDLE`.
fn graph_of(state: &State, graph: u64) -> CallResult<&Graph> {
    state
        .graphs
        .get(&graph)
        .ok_or(Failure::from(CudaError::InvalidHandle))
}

/// The address of a new allocation node of `bytes` bytes on `device` in `graph` after
/// `dependencies`: a free node among them of an allocation of this graph that is large
/// enough (and that no allocation node reused yet) gives its address; else new addresses.
fn allocation_address(
    state: &mut State,
    graph: u64,
    dependencies: &[u64],
    device: i32,
    bytes: u64,
) -> CallResult<u64> {
    let context = graph_of(state, graph)?.context;
    let nodes = &graph_of(state, graph)?.nodes;
    for dependency in dependencies {
        let Some(position) = nodes.iter().position(|(node, _)| node == dependency) else {
            continue;
        };
        let GraphNode::MemFree { address } = nodes[position].1 else {
            continue;
        };
        let fits = state
            .graph_state
            .reservations
            .get(&address)
            .is_some_and(|r| r.device == device && r.bytes >= bytes);
        let allocated_here = nodes[..position].iter().any(
            |(_, node)| matches!(node, GraphNode::MemAlloc { address: a, .. } if *a == address),
        );
        let reused = nodes[position..].iter().any(
            |(_, node)| matches!(node, GraphNode::MemAlloc { address: a, .. } if *a == address),
        );
        if fits && allocated_here && !reused {
            return Ok(address);
        }
    }
    let memory = state
        .memory
        .get_mut(usize::try_from(device).unwrap_or(usize::MAX))
        .ok_or(Failure::from(CudaError::InvalidDevice))?;
    let address = memory
        .reserve(bytes)
        .ok_or(Failure::from(CudaError::OutOfMemory))?;
    state.graph_state.reservations.insert(
        address,
        Reservation {
            device,
            context,
            bytes,
        },
    );
    Ok(address)
}

/// `cuGraphAddMemAllocNode`: an allocation node of `bytes` bytes on `device` after
/// `dependencies`; the node and the allocation's address.
pub fn add_allocation(
    graph: u64,
    dependencies: &[u64],
    device: i32,
    bytes: u64,
) -> CallResult<(u64, u64)> {
    let mut state = state();
    state.current()?;
    state.device(device)?;
    if bytes == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "a size of 0 bytes"));
    }
    graph_of(&state, graph)?;
    let address = allocation_address(&mut state, graph, dependencies, device, bytes)?;
    let node = super::graph_add_locked(
        &mut state,
        graph,
        dependencies,
        GraphNode::MemAlloc { address, bytes },
    )?;
    Ok((node, address))
}

/// Checks that a free node of `address` may be added to `graph`: `address` is the start of
/// an allocation node's memory, not freed already in this graph ("an allocation twice in the
/// same graph", "an address that was not returned by an allocation node":
/// `CUDA_ERROR_INVALID_VALUE`).
fn check_free(state: &State, graph: u64, address: u64) -> CallResult<()> {
    if !state.graph_state.reservations.contains_key(&address) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{address:#x} was not returned by a graph allocation node"),
        ));
    }
    let nodes = &graph_of(state, graph)?.nodes;
    let count = |free: bool| {
        nodes
            .iter()
            .filter(|(_, node)| match node {
                GraphNode::MemAlloc { address: a, .. } => !free && *a == address,
                GraphNode::MemFree { address: a } => free && *a == address,
                _ => false,
            })
            .count()
    };
    let (allocations, frees) = (count(false), count(true));
    if frees >= allocations.max(1) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{address:#x} is freed twice in the graph"),
        ));
    }
    Ok(())
}

/// `cuGraphAddMemFreeNode`: a free node of the graph allocation at `address`.
pub fn add_free(graph: u64, dependencies: &[u64], address: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    check_free(&state, graph, address)?;
    super::graph_add_locked(
        &mut state,
        graph,
        dependencies,
        GraphNode::MemFree { address },
    )
}

/// `cuMemAllocAsync` on a stream: where the stream captures, an allocation node of `bytes`
/// bytes on the current context's device and its address; `None` where it does not capture.
pub fn capture_allocation(stream: u64, bytes: u64) -> CallResult<Option<u64>> {
    let mut state = state();
    let Some(&graph) = state.capture.get(&stream) else {
        return Ok(None);
    };
    let context = state.current()?;
    let device = state.device_of(context)?;
    if bytes == 0 {
        return Err(Failure::new(CudaError::InvalidValue, "a size of 0 bytes"));
    }
    let after = state
        .capture_tails
        .get(&stream)
        .cloned()
        .unwrap_or_default();
    let address = allocation_address(&mut state, graph, &after, device, bytes)?;
    super::capture_add(
        &mut state,
        stream,
        graph,
        GraphNode::MemAlloc { address, bytes },
    )?;
    Ok(Some(address))
}

/// `cuMemFreeAsync` on a stream: where the stream captures, a free node of `address` (a
/// graph allocation) and `true`.
pub fn capture_free(stream: u64, address: u64) -> CallResult<bool> {
    let mut state = state();
    let Some(&graph) = state.capture.get(&stream) else {
        return Ok(false);
    };
    state.current()?;
    check_free(&state, graph, address)?;
    super::capture_add(&mut state, stream, graph, GraphNode::MemFree { address })?;
    Ok(true)
}

/// `cuGraphMemAllocNodeGetParams` / `cuGraphMemFreeNodeGetParams`: a memory node of any graph
/// (with, for an allocation, its device).
pub fn memory_node(node: u64) -> CallResult<(GraphNode, i32)> {
    let state = state();
    state.current()?;
    let found = state
        .graphs
        .values()
        .flat_map(|graph| &graph.nodes)
        .find(|(handle, _)| *handle == node)
        .map(|(_, node)| node.clone())
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "no such graph node"))?;
    match found {
        GraphNode::MemAlloc { address, .. } => {
            let device = state
                .graph_state
                .reservations
                .get(&address)
                .map_or(0, |r| r.device);
            Ok((found, device))
        }
        GraphNode::MemFree { .. } => Ok((found, 0)),
        _ => Err(Failure::new(
            CudaError::InvalidValue,
            "the node is not a memory node",
        )),
    }
}

/// The start of a launch of executable graph `executable` (`cuGraphLaunch`): an allocation
/// of its previous launch still live is freed with `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`,
/// else the launch fails (`CUDA_ERROR_INVALID_VALUE`, as `cuGraphLaunch` documents); the
/// conditional handles made with `CU_GRAPH_COND_ASSIGN_DEFAULT` get their default value.
pub fn launch_begin(executable: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let graph = state
        .executables
        .get(&executable)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    let auto_free = graph.auto_free;
    // An address appears once per allocation node that has it (a reused one more than once).
    let mut still_live: Vec<u64> = graph
        .nodes
        .iter()
        .filter_map(|(_, node)| match node {
            GraphNode::MemAlloc { address, .. } => Some(*address),
            _ => None,
        })
        .filter(|address| state.graph_state.live.contains_key(address))
        .collect();
    still_live.sort_unstable();
    still_live.dedup();
    if let Some(address) = still_live.first().filter(|_| !auto_free) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "the graph's allocation at {address:#x} from an earlier launch is still live \
                 (free it, or instantiate with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)"
            ),
        ));
    }
    for address in still_live {
        free_locked(&mut state, address)?;
    }
    let mut defaults = Vec::new();
    let mut pending = vec![executable];
    while let Some(graph) = pending.pop() {
        let Some(graph) = state.executables.get(&graph) else {
            continue;
        };
        for handle in &graph.handles {
            if let Some(conditional) = state.graph_state.conditionals.get(handle) {
                if conditional.assign_default {
                    defaults.push((*handle, conditional.default));
                }
            }
        }
        for (_, node) in &graph.nodes {
            if let GraphNode::Conditional { bodies, .. } = node {
                pending.extend(bodies);
            }
        }
    }
    for (handle, value) in defaults {
        write_cell(&mut state, handle, value)?;
    }
    Ok(())
}

/// An allocation node runs: the memory at `address` is made, `bytes` zero bytes, in the
/// device's memory and its graph pool.
pub fn allocate(address: u64, bytes: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let reservation = *state
        .graph_state
        .reservations
        .get(&address)
        .ok_or(Failure::from(CudaError::InvalidValue))?;
    let device = reservation.device;
    let memory = state.memory_with_room(
        device,
        bytes,
        &format!("a graph allocation of {bytes} bytes"),
    )?;
    let name = format!("graph allocation of {bytes} bytes");
    if !memory.allocate_at(name, address, bytes) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("the graph allocation at {address:#x} is live already"),
        ));
    }
    state.owners.insert(address, reservation.context);
    state.graph_state.live.insert(address, bytes);
    let pool = state.graph_state.pools.entry(device).or_default();
    pool.live += bytes;
    pool.held = pool.held.max(pool.live);
    pool.used_high = pool.used_high.max(pool.held);
    pool.reserved_high = pool.reserved_high.max(pool.held);
    Ok(())
}

/// A free node runs: the graph allocation at `address` is freed (it must be live).
pub fn free(address: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    free_locked(&mut state, address)
}

/// [`free`] with the state held.
fn free_locked(state: &mut State, address: u64) -> CallResult<()> {
    if !state.graph_state.live.contains_key(&address) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("the graph allocation at {address:#x} is not live"),
        ));
    }
    state.owners.remove(&address);
    for memory in &mut state.memory {
        memory.free(address);
    }
    released(state, address);
    Ok(())
}

/// The memory at `address` was freed (by a free node, `cuMemFree`, `cuMemFreeAsync` or the
/// destruction of its context): if it was a graph allocation, its pool's live bytes shrink
/// (the pool keeps the memory until trimmed).
pub(super) fn released(state: &mut State, address: u64) {
    let Some(bytes) = state.graph_state.live.remove(&address) else {
        return;
    };
    let device = state
        .graph_state
        .reservations
        .get(&address)
        .map_or(0, |r| r.device);
    if let Some(pool) = state.graph_state.pools.get_mut(&device) {
        pool.live = pool.live.saturating_sub(bytes);
    }
}

/// `cuDeviceGraphMemTrim`: the pool of `device` gives back what live allocations do not use.
pub fn trim(device: i32) -> CallResult<()> {
    let mut state = state();
    state.device(device)?;
    if let Some(pool) = state.graph_state.pools.get_mut(&device) {
        pool.held = pool.live;
    }
    Ok(())
}

/// `CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT`, `_USED_MEM_HIGH`, `_RESERVED_MEM_CURRENT`,
/// `_RESERVED_MEM_HIGH`.
const USED_MEM_CURRENT: i32 = 0;
const USED_MEM_HIGH: i32 = 1;
const RESERVED_MEM_CURRENT: i32 = 2;
const RESERVED_MEM_HIGH: i32 = 3;

/// `cuDeviceGetGraphMemAttribute`: bytes of the pool of `device` (see the module's
/// documentation).
pub fn memory_attribute(device: i32, attribute: i32) -> CallResult<u64> {
    let state = state();
    state.device(device)?;
    let pool = state
        .graph_state
        .pools
        .get(&device)
        .copied()
        .unwrap_or_default();
    match attribute {
        USED_MEM_CURRENT | RESERVED_MEM_CURRENT => Ok(pool.held),
        USED_MEM_HIGH => Ok(pool.used_high),
        RESERVED_MEM_HIGH => Ok(pool.reserved_high),
        _ => Err(Failure::new(
            CudaError::InvalidValue,
            format!("graph memory attribute {attribute}"),
        )),
    }
}

/// `cuDeviceSetGraphMemAttribute`: only the high watermarks can be set, and only to 0, which
/// resets them (to the current amount).
pub fn set_memory_attribute(device: i32, attribute: i32, value: u64) -> CallResult<()> {
    let mut state = state();
    state.device(device)?;
    if value != 0 || !matches!(attribute, USED_MEM_HIGH | RESERVED_MEM_HIGH) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "graph memory attribute {attribute} set to {value} (only the high watermarks, \
                 1 and 3, can be set, to 0)"
            ),
        ));
    }
    let pool = state.graph_state.pools.entry(device).or_default();
    if attribute == USED_MEM_HIGH {
        pool.used_high = pool.held;
    } else {
        pool.reserved_high = pool.held;
    }
    Ok(())
}

/// Writes `value` to the cell of conditional handle `handle`.
fn write_cell(state: &mut State, handle: u64, value: u32) -> CallResult<()> {
    let memory = state.memory_at(handle, 4)?;
    memory
        .write(handle, &value.to_le_bytes())
        .map_err(|fault| Failure::new(CudaError::InvalidValue, fault.describe()))
}

/// `cuGraphConditionalHandleCreate`: a handle for conditional nodes of `graph`, in `context`
/// (0: the current one), with its default value and flags (`CU_GRAPH_COND_ASSIGN_DEFAULT`).
pub fn conditional_create(graph: u64, context: u64, default: u32, flags: u32) -> CallResult<u64> {
    let mut state = state();
    let current = state.current()?;
    let context = if context == 0 { current } else { context };
    state.usable(context)?;
    graph_of(&state, graph)?;
    if flags & !ASSIGN_DEFAULT != 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("conditional handle flags {flags:#x}"),
        ));
    }
    let device = state.device_of(context)?;
    let memory = state
        .memory
        .get_mut(usize::try_from(device).unwrap_or(usize::MAX))
        .ok_or(Failure::from(CudaError::InvalidDevice))?;
    let handle = memory
        .allocate("conditional handle", 4)
        .ok_or(Failure::from(CudaError::OutOfMemory))?;
    state.owners.insert(handle, context);
    write_cell(&mut state, handle, default)?;
    state.graph_state.conditionals.insert(
        handle,
        Conditional {
            default,
            assign_default: flags & ASSIGN_DEFAULT != 0,
            graph,
        },
    );
    if let Some(graph) = state.graphs.get_mut(&graph) {
        graph.handles.push(handle);
    }
    Ok(handle)
}

/// `cuGraphAddNode` of a conditional node: the node and its `size` new, empty body graphs.
/// The handle must have been made for this graph.
pub fn add_conditional(
    graph: u64,
    dependencies: &[u64],
    handle: u64,
    kind: ConditionalKind,
    size: u32,
) -> CallResult<(u64, Vec<u64>)> {
    let mut state = state();
    state.current()?;
    let context = graph_of(&state, graph)?.context;
    match state.graph_state.conditionals.get(&handle) {
        Some(conditional) if conditional.graph == graph => {}
        _ => {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("{handle:#x} is not a conditional handle made for this graph"),
            ));
        }
    }
    if !kind.allows(size) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "a conditional node of type {} with {size} bodies (IF takes 1 or 2, WHILE 1, \
                 SWITCH 1 or more)",
                kind.name()
            ),
        ));
    }
    let bodies: Vec<u64> = (0..size)
        .map(|_| {
            let body = state.handle();
            state.graphs.insert(body, Graph::new(context));
            body
        })
        .collect();
    let node = GraphNode::Conditional {
        handle,
        kind,
        bodies: bodies.clone(),
    };
    match super::graph_add_locked(&mut state, graph, dependencies, node) {
        Ok(node) => Ok((node, bodies)),
        Err(failure) => {
            for body in bodies {
                state.graphs.remove(&body);
            }
            Err(failure)
        }
    }
}

/// The value of conditional handle `handle` now (a conditional node runs).
pub fn conditional_value(handle: u64) -> CallResult<u32> {
    let mut state = state();
    state.current()?;
    let memory = state.memory_at(handle, 4)?;
    let mut bytes = [0u8; 4];
    memory
        .read(handle, &mut bytes)
        .map_err(|fault| Failure::new(CudaError::InvalidValue, fault.describe()))?;
    Ok(u32::from_le_bytes(bytes))
}

/// `cuStreamBeginCaptureToGraph`: the stream's work is captured into `graph`, which exists.
pub fn begin_capture_to_graph(stream: u64, graph: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    state.stream(stream)?;
    graph_of(&state, graph)?;
    if stream < super::FIRST_HANDLE {
        return Err(Failure::new(
            CudaError::StreamCaptureUnsupported,
            "the legacy default stream cannot capture",
        ));
    }
    if state.capture.contains_key(&stream) {
        return Err(Failure::new(
            CudaError::IllegalState,
            "the stream is capturing already",
        ));
    }
    state.capture.insert(stream, graph);
    state.capture_tails.remove(&stream);
    state.graph_state.captured_into.push(graph);
    Ok(())
}

/// Whether `stream` captures into a graph that existed before the capture
/// (`cuStreamBeginCaptureToGraph`), whose `cuStreamEndCapture` may pass no output.
pub fn captures_into_existing(stream: u64) -> bool {
    let state = state();
    state
        .capture
        .get(&stream)
        .is_some_and(|graph| state.graph_state.captured_into.contains(graph))
}

/// A capture into `graph` ended.
pub fn capture_ended(graph: u64) {
    let mut state = state();
    state.graph_state.captured_into.retain(|g| *g != graph);
}

/// `cuStreamUpdateCaptureDependencies`: the nodes must be nodes of the graph `stream`
/// captures into; they become the dependencies of the next node captured on the stream
/// (`replace`: `CU_STREAM_SET_CAPTURE_DEPENDENCIES`) or are added to them
/// (`CU_STREAM_ADD_CAPTURE_DEPENDENCIES`).
pub fn update_capture_dependencies(stream: u64, nodes: &[u64], replace: bool) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let graph = state
        .capture
        .get(&stream)
        .ok_or_else(|| Failure::new(CudaError::IllegalState, "the stream is not capturing"))?;
    let graph = graph_of(&state, *graph)?;
    if let Some(unknown) = nodes
        .iter()
        .find(|node| !graph.nodes.iter().any(|(handle, _)| handle == *node))
    {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("{unknown:#x} is not a node of the capture's graph"),
        ));
    }
    let tail = state.capture_tails.entry(stream).or_default();
    if replace {
        tail.clear();
    }
    for &node in nodes {
        if !tail.contains(&node) {
            tail.push(node);
        }
    }
    Ok(())
}
