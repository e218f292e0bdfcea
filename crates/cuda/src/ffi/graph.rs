//! Stream capture (`cuStreamBeginCapture` to `cuStreamEndCapture`: the work enqueued on a
//! capturing stream becomes nodes of a graph, [`driver::begin_capture`]) and the graph calls
//! beyond kernel and copy nodes: memset, host and empty nodes, node lists, cloning, updating,
//! graph memory nodes and conditional nodes ([`driver::graph`]), `cuGraphAddNode`.

use std::ffi::{CStr, c_char, c_int, c_uint, c_ushort, c_void};
use std::sync::Mutex;

use super::{
    CUdevice, CUdeviceptr, CUresult, CallResult, CudaError, Failure, Handle, KernelNodeParams,
    KernelNodeParamsV2, Memcpy3d, dependencies, guard, handle, null_argument, number, put,
};
use crate::driver::{self, ConditionalKind, GraphNode};

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemsetParams {
    destination: CUdeviceptr,
    pitch: usize,
    value: c_uint,
    element_size: c_uint,
    width: usize,
    height: usize,
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostParams {
    function: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
}

/// `CUmemPoolProps`: the allocation type, handle types, location (type and id), and fields
/// this library does not read.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PoolProps {
    allocation_type: c_int,
    handle_types: c_int,
    location_type: c_int,
    location_id: c_int,
    win32_security_attributes: *mut c_void,
    max_size: usize,
    usage: c_ushort,
    reserved: [u8; 54],
}

impl PoolProps {
    /// The location's type (`CU_MEM_LOCATION_TYPE_DEVICE` is 1) and id.
    pub fn location(&self) -> (c_int, c_int) {
        (self.location_type, self.location_id)
    }
}

/// `CUDA_MEM_ALLOC_NODE_PARAMS` (`_v1` and `_v2` have the same layout): the pool's
/// properties, access descriptors (not read), the size, and the address (an output).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MemAllocParams {
    pool: PoolProps,
    access_descriptors: *const c_void,
    access_descriptor_count: usize,
    bytes: usize,
    address: CUdeviceptr,
}

/// `CUDA_CONDITIONAL_NODE_PARAMS`: the handle, the type, the number of bodies, the array of
/// body graphs (an output, owned by the library) and the context.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ConditionalParams {
    handle: u64,
    kind: c_int,
    size: c_uint,
    graphs_out: *mut Handle,
    context: Handle,
}

/// `CUgraphNodeParams`: the node type, reserved words, a 232-byte union of the node kinds'
/// parameters, and a reserved word.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NodeParams {
    node_type: c_int,
    reserved0: [c_int; 3],
    union: [u64; 29],
    reserved2: i64,
}

/// The offset of `CUgraphNodeParams`'s union.
const NODE_PARAMS_UNION: usize = 16;

// The layouts of cuda.h (CUDA 13.5), as the C compiler gives them.
const _: () = assert!(size_of::<PoolProps>() == 88);
const _: () = assert!(size_of::<MemAllocParams>() == 120);
const _: () = assert!(std::mem::offset_of!(MemAllocParams, address) == 112);
const _: () = assert!(size_of::<ConditionalParams>() == 32);
const _: () = assert!(size_of::<NodeParams>() == 256);
const _: () = assert!(std::mem::offset_of!(NodeParams, union) == NODE_PARAMS_UNION);
// `CUDA_KERNEL_NODE_PARAMS_v3` is `_v2`'s layout; `CUDA_MEMCPY_NODE_PARAMS` ends with a
// `CUDA_MEMCPY3D` at byte 16.
const _: () = assert!(size_of::<KernelNodeParamsV2>() == 72);
const _: () = assert!(size_of::<Memcpy3d>() == 200);

/// `CU_STREAM_SET_CAPTURE_DEPENDENCIES`: `cuStreamUpdateCaptureDependencies` replaces the
/// dependencies (`CU_STREAM_ADD_CAPTURE_DEPENDENCIES`, 0, adds to them).
const SET_CAPTURE_DEPENDENCIES: c_uint = 1;

/// `CU_MEM_ALLOCATION_TYPE_PINNED`, `CU_MEM_LOCATION_TYPE_DEVICE`.
const ALLOCATION_TYPE_PINNED: c_int = 1;
const LOCATION_TYPE_DEVICE: c_int = 1;

/// `CUgraphNodeType`s `cuGraphAddNode` makes.
const NODE_KERNEL: c_int = 0;
const NODE_MEMCPY: c_int = 1;
const NODE_MEMSET: c_int = 2;
const NODE_HOST: c_int = 3;
const NODE_EMPTY: c_int = 5;
const NODE_MEM_ALLOC: c_int = 10;
const NODE_MEM_FREE: c_int = 11;
const NODE_CONDITIONAL: c_int = 13;

/// The arrays of body graphs of conditional nodes (`CUDA_CONDITIONAL_NODE_PARAMS::phGraph_out`,
/// "CUDA-owned ... valid for the lifetime of the conditional node"): kept for the life of the
/// process, as the handles they hold are never reused.
static BODY_ARRAYS: Mutex<Vec<Box<[usize]>>> = Mutex::new(Vec::new());

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct InstantiateParams {
    flags: u64,
    upload_stream: Handle,
    error_node: Handle,
    result: c_int,
}

/// Adds `node` after `count` dependencies; writes its handle to `out`.
///
/// # Safety
/// `out` is NULL (an error) or writable; `depends_on` has `count` readable handles.
unsafe fn add(
    out: *mut Handle,
    graph: Handle,
    depends_on: *const Handle,
    count: usize,
    node: GraphNode,
) -> super::CallResult<()> {
    if out.is_null() {
        return Err(null_argument("phGraphNode"));
    }
    let after = unsafe { dependencies(depends_on, count) }?;
    let value = driver::graph_add(number(graph), &after, node)?;
    unsafe { put(out, handle(value), "phGraphNode") }
}

/// Writes the capture status of `stream` (0 none, 1 active) and its id.
///
/// # Safety
/// `status` is NULL (an error) or writable; `id` is NULL or writable.
unsafe fn capture_status(
    stream: Handle,
    status: *mut c_int,
    id: *mut u64,
) -> super::CallResult<()> {
    let graph = driver::capture_graph(number(stream));
    unsafe { put(status, c_int::from(graph.is_some()), "captureStatus") }?;
    if !id.is_null() {
        unsafe { put(id, graph.unwrap_or(0), "id") }?;
    }
    Ok(())
}

calls! {
    /// `cuStreamBeginCapture_v2`: the stream's work is captured into a new graph (the mode,
    /// which restricts other threads' calls during capture, is not enforced).
    fn cuStreamBeginCapture_v2(stream: Handle, mode: c_int) {
        let _ = mode;
        driver::begin_capture(number(stream))
    }

    /// `cuStreamBeginCapture` (CUDA 10.0's, without a mode).
    fn cuStreamBeginCapture(stream: Handle) {
        driver::begin_capture(number(stream))
    }

    /// `cuStreamEndCapture`: the captured graph (`phGraph` may be NULL after
    /// `cuStreamBeginCaptureToGraph`, whose graph the caller has).
    fn cuStreamEndCapture(stream: Handle, graph: *mut Handle) {
        let into_existing = driver::graph::captures_into_existing(number(stream));
        if graph.is_null() && !into_existing {
            return Err(null_argument("phGraph"));
        }
        let value = driver::end_capture(number(stream))?;
        driver::graph::capture_ended(value);
        if graph.is_null() {
            return Ok(());
        }
        unsafe { put(graph, handle(value), "phGraph") }
    }

    /// `cuStreamBeginCaptureToGraph`: the stream's work is captured into an existing graph,
    /// its first node after `depends_on` (the edge data is not read; the mode is not
    /// enforced).
    fn cuStreamBeginCaptureToGraph(
        stream: Handle,
        graph: Handle,
        depends_on: *const Handle,
        edge_data: *const c_void,
        count: usize,
        mode: c_int,
    ) {
        let _ = (edge_data, mode);
        let after = unsafe { dependencies(depends_on, count) }?;
        driver::graph::begin_capture_to_graph(number(stream), number(graph))?;
        driver::graph::update_capture_dependencies(number(stream), &after, true)
    }

    /// `cuStreamUpdateCaptureDependencies`: the nodes must be nodes of the capture's graph
    /// ([`driver::graph::update_capture_dependencies`]): they replace the dependencies of the
    /// next captured node or are added to them, as the flags say.
    fn cuStreamUpdateCaptureDependencies(
        stream: Handle,
        depends_on: *const Handle,
        count: usize,
        flags: c_uint,
    ) {
        let nodes = unsafe { dependencies(depends_on, count) }?;
        driver::graph::update_capture_dependencies(number(stream), &nodes, flags == SET_CAPTURE_DEPENDENCIES)
    }

    /// `cuStreamUpdateCaptureDependencies_v2`: as the first version, with edge data (not
    /// read).
    fn cuStreamUpdateCaptureDependencies_v2(
        stream: Handle,
        depends_on: *const Handle,
        edge_data: *const c_void,
        count: usize,
        flags: c_uint,
    ) {
        let _ = edge_data;
        let nodes = unsafe { dependencies(depends_on, count) }?;
        driver::graph::update_capture_dependencies(number(stream), &nodes, flags == SET_CAPTURE_DEPENDENCIES)
    }

    /// `cuGraphAddMemAllocNode`: an allocation node; its address, fixed from now on, is
    /// written to `nodeParams->dptr`. The pool must be pinned device memory (the only kind
    /// CUDA 13 allows here); the access descriptors are not read (every context of the
    /// device, and its peers, reach device memory).
    fn cuGraphAddMemAllocNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *mut MemAllocParams,
    ) {
        if node.is_null() {
            return Err(null_argument("phGraphNode"));
        }
        let after = unsafe { dependencies(depends_on, count) }?;
        let (value, _) = unsafe { add_allocation(graph, &after, params) }?;
        unsafe { put(node, handle(value), "phGraphNode") }
    }

    /// `cuGraphAddMemFreeNode`: a free node of a graph allocation.
    fn cuGraphAddMemFreeNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        address: CUdeviceptr,
    ) {
        if node.is_null() {
            return Err(null_argument("phGraphNode"));
        }
        let after = unsafe { dependencies(depends_on, count) }?;
        let value = driver::graph::add_free(number(graph), &after, address)?;
        unsafe { put(node, handle(value), "phGraphNode") }
    }

    /// `cuGraphMemAllocNodeGetParams`: the node's size, address and pool (pinned memory of
    /// its device; no access descriptors).
    fn cuGraphMemAllocNodeGetParams(node: Handle, params: *mut MemAllocParams) {
        match driver::graph::memory_node(number(node))? {
            (GraphNode::MemAlloc { address, bytes }, device) => {
                let value = MemAllocParams {
                    pool: PoolProps {
                        allocation_type: ALLOCATION_TYPE_PINNED,
                        handle_types: 0,
                        location_type: LOCATION_TYPE_DEVICE,
                        location_id: device,
                        win32_security_attributes: std::ptr::null_mut(),
                        max_size: 0,
                        usage: 0,
                        reserved: [0; 54],
                    },
                    access_descriptors: std::ptr::null(),
                    access_descriptor_count: 0,
                    bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                    address,
                };
                unsafe { put(params, value, "params_out") }
            }
            _ => Err(Failure::new(CudaError::InvalidValue, "not an allocation node")),
        }
    }

    /// `cuGraphMemFreeNodeGetParams`: the address the node frees.
    fn cuGraphMemFreeNodeGetParams(node: Handle, address: *mut CUdeviceptr) {
        match driver::graph::memory_node(number(node))? {
            (GraphNode::MemFree { address: value }, _) => unsafe { put(address, value, "dptr_out") },
            _ => Err(Failure::new(CudaError::InvalidValue, "not a free node")),
        }
    }

    /// `cuDeviceGetGraphMemAttribute`: a `cuuint64_t` ([`driver::graph::memory_attribute`]).
    fn cuDeviceGetGraphMemAttribute(device: CUdevice, attribute: c_int, value: *mut c_void) {
        let bytes = driver::graph::memory_attribute(device, attribute)?;
        unsafe { put(value.cast::<u64>(), bytes, "value") }
    }

    /// `cuDeviceSetGraphMemAttribute`: resets a high watermark (a `cuuint64_t` 0).
    fn cuDeviceSetGraphMemAttribute(device: CUdevice, attribute: c_int, value: *mut c_void) {
        if value.is_null() {
            return Err(null_argument("value"));
        }
        let bytes = unsafe { value.cast::<u64>().read_unaligned() };
        driver::graph::set_memory_attribute(device, attribute, bytes)
    }

    /// `cuDeviceGraphMemTrim`: the device's graph memory pool gives back what no live graph
    /// allocation uses.
    fn cuDeviceGraphMemTrim(device: CUdevice) {
        driver::graph::trim(device)
    }

    /// `cuGraphConditionalHandleCreate`: a handle for conditional nodes of `hGraph`, with
    /// its default value and flags (`CU_GRAPH_COND_ASSIGN_DEFAULT`).
    fn cuGraphConditionalHandleCreate(
        handle_out: *mut u64,
        graph: Handle,
        context: Handle,
        default: c_uint,
        flags: c_uint,
    ) {
        if handle_out.is_null() {
            return Err(null_argument("pHandle_out"));
        }
        let value = driver::graph::conditional_create(number(graph), number(context), default, flags)?;
        unsafe { put(handle_out, value, "pHandle_out") }
    }

    /// `cuGraphAddNode` (CUDA 12.2, without edge data): a node of any kind this library
    /// runs ([`add_node`]).
    fn cuGraphAddNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *mut NodeParams,
    ) {
        unsafe { add_node(node, graph, depends_on, count, params) }
    }

    /// `cuGraphAddNode_v2`: as `cuGraphAddNode`, with edge data (not read: nodes run in the
    /// order they were added, after all of their dependencies).
    fn cuGraphAddNode_v2(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        edge_data: *const c_void,
        count: usize,
        params: *mut NodeParams,
    ) {
        let _ = edge_data;
        unsafe { add_node(node, graph, depends_on, count, params) }
    }

    /// `cuGraphAddNode_v3`: as `_v2`.
    fn cuGraphAddNode_v3(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        edge_data: *const c_void,
        count: usize,
        params: *mut NodeParams,
    ) {
        let _ = edge_data;
        unsafe { add_node(node, graph, depends_on, count, params) }
    }

    /// `cuStreamIsCapturing`: `CU_STREAM_CAPTURE_STATUS_ACTIVE` (1) while capturing, else
    /// `_NONE` (0).
    fn cuStreamIsCapturing(stream: Handle, status: *mut c_int) {
        unsafe { capture_status(stream, status, std::ptr::null_mut()) }
    }

    /// `cuStreamGetCaptureInfo_v2`: the status and id; no dependency list.
    fn cuStreamGetCaptureInfo_v2(
        stream: Handle,
        status: *mut c_int,
        id: *mut u64,
        graph: *mut Handle,
        dependencies_out: *mut *const Handle,
        count: *mut usize,
    ) {
        let no_edges = std::ptr::null_mut();
        unsafe { capture_info(stream, status, id, graph, dependencies_out, no_edges, count) }
    }

    /// `cuStreamGetCaptureInfo_v3`: as `_v2`, with no edge data.
    fn cuStreamGetCaptureInfo_v3(
        stream: Handle,
        status: *mut c_int,
        id: *mut u64,
        graph: *mut Handle,
        dependencies_out: *mut *const Handle,
        edges: *mut *const c_void,
        count: *mut usize,
    ) {
        unsafe { capture_info(stream, status, id, graph, dependencies_out, edges, count) }
    }

    /// `cuGraphAddMemsetNode`: a memset of `height` rows of `width` 1-, 2- or 4-byte
    /// elements, `pitch` bytes apart (the context argument is not read).
    fn cuGraphAddMemsetNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *const MemsetParams,
        context: Handle,
    ) {
        let _ = context;
        if params.is_null() {
            return Err(null_argument("memsetParams"));
        }
        let memset = memset_node(unsafe { params.read_unaligned() })?;
        unsafe { add(node, graph, depends_on, count, memset) }
    }

    /// `cuGraphAddHostNode`: a host function called when the graph runs, in node order.
    fn cuGraphAddHostNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        params: *const HostParams,
    ) {
        if params.is_null() {
            return Err(null_argument("nodeParams"));
        }
        let params = unsafe { params.read_unaligned() };
        let function = params.function.ok_or_else(|| null_argument("nodeParams->fn"))?;
        let host = GraphNode::Host {
            function: function as usize,
            data: params.data.expose_provenance(),
        };
        unsafe { add(node, graph, depends_on, count, host) }
    }

    /// `cuGraphAddChildGraphNode`: the child graph cloned into the graph
    /// ([`driver::graph_add_child`]).
    fn cuGraphAddChildGraphNode(
        node: *mut Handle,
        graph: Handle,
        depends_on: *const Handle,
        count: usize,
        child: Handle,
    ) {
        if node.is_null() {
            return Err(null_argument("phGraphNode"));
        }
        let after = unsafe { dependencies(depends_on, count) }?;
        let value = driver::graph_add_child(number(graph), &after, number(child))?;
        unsafe { put(node, handle(value), "phGraphNode") }
    }

    /// `cuGraphAddEmptyNode`.
    fn cuGraphAddEmptyNode(node: *mut Handle, graph: Handle, depends_on: *const Handle, count: usize) {
        unsafe { add(node, graph, depends_on, count, GraphNode::Empty) }
    }

    /// `cuGraphGetNodes`: the count (with `nodes` NULL) or the first `*count` nodes.
    fn cuGraphGetNodes(graph: Handle, nodes: *mut Handle, count: *mut usize) {
        if count.is_null() {
            return Err(null_argument("numNodes"));
        }
        let all = driver::graph_node_handles(number(graph))?;
        if nodes.is_null() {
            return unsafe { put(count, all.len(), "numNodes") };
        }
        let asked = unsafe { count.read_unaligned() };
        for (i, node) in all.iter().take(asked).enumerate() {
            unsafe { put(nodes.add(i), handle(*node), "nodes") }?;
        }
        unsafe { put(count, asked.min(all.len()), "numNodes") }
    }

    /// `cuGraphClone`.
    fn cuGraphClone(clone: *mut Handle, graph: Handle) {
        let value = driver::graph_clone(number(graph))?;
        unsafe { put(clone, handle(value), "phGraphClone") }
    }

    /// `cuGraphExecUpdate_v2`: the executable takes the graph's nodes where the two have the
    /// same shape; the result info says why not ([`driver::graph_exec_update`]).
    fn cuGraphExecUpdate_v2(executable: Handle, graph: Handle, info: *mut [u64; 3]) {
        let result = driver::graph_exec_update(number(executable), number(graph));
        if !info.is_null() {
            // CUgraphExecUpdateResultInfo: result, errorNode, errorFromNode.
            let (code, node) = match &result {
                Ok(()) => (0, 0),
                Err(refusal) => (u64::from(refusal.result), refusal.node),
            };
            unsafe { put(info, [code, node, 0], "resultInfo") }?;
        }
        result.map_err(|refusal| refusal.failure)
    }

    /// `cuGraphUpload`: nothing to upload.
    fn cuGraphUpload(executable: Handle, stream: Handle) {
        let _ = (executable, stream);
        Ok(())
    }

    /// `cuGraphInstantiateWithParams`: as `cuGraphInstantiate`; the result is
    /// `CUDA_GRAPH_INSTANTIATE_SUCCESS` (0).
    fn cuGraphInstantiateWithParams(executable: *mut Handle, graph: Handle, params: *mut InstantiateParams) {
        if executable.is_null() {
            return Err(null_argument("phGraphExec"));
        }
        let flags = if params.is_null() { 0 } else { unsafe { params.read_unaligned() }.flags };
        let value = driver::graph_instantiate(number(graph), flags)?;
        unsafe { put(executable, handle(value), "phGraphExec") }?;
        if !params.is_null() {
            let mut written = unsafe { params.read_unaligned() };
            written.result = 0;
            written.error_node = std::ptr::null_mut();
            unsafe { params.write_unaligned(written) };
        }
        Ok(())
    }
}

/// The dependency arrays `cuStreamGetCaptureInfo` hands out, by stream: the nodes and their
/// default edge data (zeroed `CUgraphEdgeData`), replaced at the stream's next query ("valid
/// until the next API call to the stream" is what callers may rely on).
static CAPTURE_DEPENDENCIES: Mutex<Vec<CaptureDependencies>> = Mutex::new(Vec::new());

/// A stream, the node handles of its capture's dependency set and their edge data.
type CaptureDependencies = (u64, Box<[usize]>, Box<[u64]>);

/// `cuStreamGetCaptureInfo`: the status, id and graph of a capture, and the nodes the next
/// node captured on the stream will depend on (with default edge data).
///
/// # Safety
/// `status` is NULL (an error) or writable; the other outputs are NULL or writable.
unsafe fn capture_info(
    stream: Handle,
    status: *mut c_int,
    id: *mut u64,
    graph: *mut Handle,
    dependencies_out: *mut *const Handle,
    edges: *mut *const c_void,
    count: *mut usize,
) -> super::CallResult<()> {
    unsafe { capture_status(stream, status, id) }?;
    if !graph.is_null() {
        let value = driver::capture_graph(number(stream)).unwrap_or(0);
        unsafe { put(graph, handle(value), "graph_out") }?;
    }
    let nodes = driver::capture_dependencies(number(stream));
    let mut arrays = CAPTURE_DEPENDENCIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    arrays.retain(|(s, _, _)| *s != number(stream));
    let handles: Box<[usize]> = nodes
        .iter()
        .map(|&node| usize::try_from(node).unwrap_or(0))
        .collect();
    let edge_data: Box<[u64]> = vec![0; nodes.len()].into_boxed_slice();
    let (handles_at, edges_at) = if nodes.is_empty() {
        (std::ptr::null(), std::ptr::null())
    } else {
        (
            handles.as_ptr().cast::<Handle>(),
            edge_data.as_ptr().cast::<c_void>(),
        )
    };
    arrays.push((number(stream), handles, edge_data));
    drop(arrays);
    if !dependencies_out.is_null() {
        unsafe { put(dependencies_out, handles_at, "dependencies_out") }?;
    }
    if !edges.is_null() {
        unsafe { put(edges, edges_at, "edgeData_out") }?;
    }
    if !count.is_null() {
        unsafe { put(count, nodes.len(), "numDependencies_out") }?;
    }
    Ok(())
}

/// The memset node of `params`: `height` rows of `width` 1-, 2- or 4-byte elements, `pitch`
/// bytes apart.
fn memset_node(params: MemsetParams) -> CallResult<GraphNode> {
    let size = usize::try_from(params.element_size).unwrap_or(0);
    if !matches!(size, 1 | 2 | 4) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("element size {size}"),
        ));
    }
    Ok(GraphNode::Memset {
        destination: params.destination,
        pattern: params.value.to_le_bytes()[..size].to_vec(),
        width: params.width as u64,
        height: params.height.max(1) as u64,
        pitch: params.pitch as u64,
    })
}

/// Adds the allocation node `params` describes after `after`; writes its address to
/// `params->dptr`. The node and the address.
///
/// # Safety
/// `params` is NULL (an error) or points to a readable and writable
/// `CUDA_MEM_ALLOC_NODE_PARAMS`.
unsafe fn add_allocation(
    graph: Handle,
    after: &[u64],
    params: *mut MemAllocParams,
) -> CallResult<(u64, u64)> {
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    // SAFETY: not NULL and, by the contract, readable.
    let mut value = unsafe { params.read_unaligned() };
    let pool = value.pool;
    if pool.allocation_type != ALLOCATION_TYPE_PINNED || pool.location_type != LOCATION_TYPE_DEVICE
    {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!(
                "allocation type {} at location type {} (graph allocations are pinned device                  memory: CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE)",
                pool.allocation_type, pool.location_type
            ),
        ));
    }
    let (node, address) =
        driver::graph::add_allocation(number(graph), after, pool.location_id, value.bytes as u64)?;
    value.address = address;
    // SAFETY: not NULL and, by the contract, writable.
    unsafe { params.write_unaligned(value) };
    Ok((node, address))
}

/// Reads the union member of `params` as a `T`.
///
/// # Safety
/// `params` points to a readable `CUgraphNodeParams` (whose union holds a `T`).
unsafe fn member<T>(params: *const NodeParams) -> T {
    // SAFETY: the union lies at its offset inside the 256-byte struct, and every member fits.
    unsafe {
        params
            .cast::<u8>()
            .add(NODE_PARAMS_UNION)
            .cast::<T>()
            .read_unaligned()
    }
}

/// `cuGraphAddNode`: a kernel (`CUDA_KERNEL_NODE_PARAMS_v3`: its `CUkernel` where `func` is
/// NULL), copy (`CUDA_MEMCPY_NODE_PARAMS`, as `cuGraphAddMemcpyNode`), memset, host, empty,
/// memory allocation (its address written to `alloc.dptr`), memory free or conditional node
/// (its body graphs written to `conditional.phGraph_out`); the other kinds are
/// `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// `node` is NULL (an error) or writable; `depends_on` has `count` readable handles; `params`
/// is NULL (an error) or points to a readable and writable `CUgraphNodeParams` whose members
/// keep their calls' contracts (a kernel's parameters as for `cuLaunchKernel`, a copy's host
/// memory valid while the graph may run).
unsafe fn add_node(
    node: *mut Handle,
    graph: Handle,
    depends_on: *const Handle,
    count: usize,
    params: *mut NodeParams,
) -> CallResult<()> {
    if node.is_null() {
        return Err(null_argument("phGraphNode"));
    }
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    // SAFETY: the caller's contract.
    let after = unsafe { dependencies(depends_on, count) }?;
    // SAFETY: not NULL and, by the contract, readable.
    let node_type = unsafe { params.read_unaligned() }.node_type;
    let graph_number = number(graph);
    let value = match node_type {
        NODE_KERNEL => {
            // SAFETY: the union holds a `CUDA_KERNEL_NODE_PARAMS_v3`, which begins as `_v2`.
            let kernel = unsafe { member::<KernelNodeParamsV2>(params) };
            // SAFETY: by the contract, as for `cuGraphAddKernelNode_v2`.
            let first = unsafe { super::first_version(&kernel) }?;
            // SAFETY: by the contract.
            let kernel = unsafe { super::kernel_node(&first) }?;
            driver::graph_add(graph_number, &after, kernel)?
        }
        NODE_MEMCPY => {
            // SAFETY: the union holds a `CUDA_MEMCPY_NODE_PARAMS`: flags, reserved, a context,
            // then the `CUDA_MEMCPY3D` at byte 16.
            let copy = unsafe { member::<[u8; 216]>(params) };
            let copy = copy[16..].as_ptr().cast::<Memcpy3d>();
            // SAFETY: 200 bytes of a `CUDA_MEMCPY3D`, read unaligned by `copy_node`.
            let copy = unsafe { super::copy_node(copy) }?;
            driver::graph_add(graph_number, &after, copy)?
        }
        NODE_MEMSET => {
            // SAFETY: the union holds a `CUDA_MEMSET_NODE_PARAMS_v2`, which begins as the
            // first version.
            let memset = memset_node(unsafe { member::<MemsetParams>(params) })?;
            driver::graph_add(graph_number, &after, memset)?
        }
        NODE_HOST => {
            // SAFETY: the union holds a `CUDA_HOST_NODE_PARAMS_v2`, which begins as the first
            // version.
            let host = unsafe { member::<HostParams>(params) };
            let function = host.function.ok_or_else(|| null_argument("host.fn"))?;
            let host = GraphNode::Host {
                function: function as usize,
                data: host.data.expose_provenance(),
            };
            driver::graph_add(graph_number, &after, host)?
        }
        NODE_EMPTY => driver::graph_add(graph_number, &after, GraphNode::Empty)?,
        NODE_MEM_ALLOC => {
            // SAFETY: the union holds a `CUDA_MEM_ALLOC_NODE_PARAMS_v2`, read and written in
            // place.
            let alloc =
                unsafe { params.cast::<u8>().add(NODE_PARAMS_UNION) }.cast::<MemAllocParams>();
            // SAFETY: as above.
            unsafe { add_allocation(graph, &after, alloc) }?.0
        }
        NODE_MEM_FREE => {
            // SAFETY: the union holds a `CUDA_MEM_FREE_NODE_PARAMS`, one `CUdeviceptr`.
            let address = unsafe { member::<CUdeviceptr>(params) };
            driver::graph::add_free(graph_number, &after, address)?
        }
        NODE_CONDITIONAL => {
            // SAFETY: the union holds a `CUDA_CONDITIONAL_NODE_PARAMS`.
            let mut conditional = unsafe { member::<ConditionalParams>(params) };
            let kind = ConditionalKind::from_code(conditional.kind).ok_or_else(|| {
                Failure::new(
                    CudaError::InvalidValue,
                    format!("conditional node type {}", conditional.kind),
                )
            })?;
            let (value, bodies) = driver::graph::add_conditional(
                graph_number,
                &after,
                conditional.handle,
                kind,
                conditional.size,
            )?;
            let mut array: Box<[usize]> = bodies
                .iter()
                .map(|&body| usize::try_from(body).unwrap_or(0))
                .collect();
            conditional.graphs_out = array.as_mut_ptr().cast::<Handle>();
            BODY_ARRAYS
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(array);
            // SAFETY: the union's `CUDA_CONDITIONAL_NODE_PARAMS`, writable by the contract.
            unsafe {
                params
                    .cast::<u8>()
                    .add(NODE_PARAMS_UNION)
                    .cast::<ConditionalParams>()
                    .write_unaligned(conditional);
            }
            value
        }
        other => {
            return Err(Failure::new(
                CudaError::NotSupported,
                format!(
                    "graph nodes of type {other} (ptxsim adds kernel, memcpy, memset, host, empty, memory and conditional nodes)"
                ),
            ));
        }
    };
    // SAFETY: not NULL, writable by the contract.
    unsafe { put(node, handle(value), "phGraphNode") }
}

/// Kernel parameter blocks handed out by `cuGraphKernelNodeGetParams` ("the returned
/// kernelParams array ... valid until the node is destroyed or its parameters are set"): kept
/// for the life of the process, as handles are never reused.
static PARAMETER_BLOCKS: Mutex<Vec<ParameterBlock>> = Mutex::new(Vec::new());

/// A copy of a kernel node's parameter space and the `kernelParams` array pointing into it.
type ParameterBlock = (Box<[u8]>, Box<[usize]>);

/// Writes the list `all` the way the graph queries do: the count alone where `out` is NULL;
/// else the first `*count` entries (NULL in the entries past the list's end) and, in
/// `*count`, how many were written or the list's length if shorter.
///
/// # Safety
/// `count` is NULL (an error) or readable and writable; `out` is NULL or has `*count`
/// writable entries.
unsafe fn put_list<T: Copy>(
    all: &[T],
    null: T,
    out: *mut T,
    count: *mut usize,
    what: &str,
) -> CallResult<()> {
    if count.is_null() {
        return Err(null_argument(what));
    }
    if out.is_null() {
        return unsafe { put(count, all.len(), what) };
    }
    // SAFETY: not NULL, readable by the contract.
    let asked = unsafe { count.read_unaligned() };
    for i in 0..asked {
        // SAFETY: `asked` writable entries by the contract.
        unsafe {
            out.add(i)
                .write_unaligned(all.get(i).copied().unwrap_or(null))
        };
    }
    unsafe { put(count, asked.min(all.len()), what) }
}

/// Writes zeroed `CUgraphEdgeData` (default edges: 8 bytes each) for `count` edges, where
/// `edge_data` is not NULL.
///
/// # Safety
/// `edge_data` is NULL or has `count` writable 8-byte entries.
unsafe fn put_default_edges(edge_data: *mut u64, count: usize) {
    if edge_data.is_null() {
        return;
    }
    for i in 0..count {
        // SAFETY: `count` writable entries by the contract.
        unsafe { edge_data.add(i).write_unaligned(0) };
    }
}

/// Reads `count` (from, to) node pairs.
///
/// # Safety
/// `from` and `to` are NULL (an error, unless `count` is 0) or have `count` readable handles.
unsafe fn pairs(
    from: *const Handle,
    to: *const Handle,
    count: usize,
) -> CallResult<Vec<(u64, u64)>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if from.is_null() || to.is_null() {
        return Err(null_argument("from/to"));
    }
    // SAFETY: `count` readable handles each, by the contract.
    let (from, to) = unsafe {
        (
            std::slice::from_raw_parts(from, count),
            std::slice::from_raw_parts(to, count),
        )
    };
    Ok(from
        .iter()
        .zip(to)
        .map(|(&f, &t)| (number(f), number(t)))
        .collect())
}

/// The edges of `graph` into `from`/`to`/`edge_data` (`cuGraphGetEdges`).
///
/// # Safety
/// As [`put_list`] for `from`, `to` and `count`; `edge_data` NULL or with `*count` entries.
unsafe fn get_edges(
    graph: Handle,
    from: *mut Handle,
    to: *mut Handle,
    edge_data: *mut u64,
    count: *mut usize,
) -> CallResult<()> {
    let edges = driver::topology::edges(number(graph))?;
    if count.is_null() {
        return Err(null_argument("numEdges"));
    }
    if from.is_null() != to.is_null() {
        return Err(null_argument("from/to"));
    }
    let froms: Vec<Handle> = edges.iter().map(|(f, _)| handle(*f)).collect();
    let tos: Vec<Handle> = edges.iter().map(|(_, t)| handle(*t)).collect();
    let asked = if from.is_null() {
        0
    } else {
        unsafe { count.read_unaligned() }
    };
    unsafe { put_list(&froms, std::ptr::null_mut(), from, count, "numEdges") }?;
    if !to.is_null() {
        unsafe { put_list(&tos, std::ptr::null_mut(), to, &mut { asked }, "numEdges") }?;
        unsafe { put_default_edges(edge_data, asked) };
    }
    Ok(())
}

/// The dependencies (or dependents) of `node` (`cuGraphNodeGetDependencies`,
/// `cuGraphNodeGetDependentNodes`).
///
/// # Safety
/// As [`put_list`]; `edge_data` NULL or with `*count` entries.
unsafe fn get_neighbours(
    node: Handle,
    dependents: bool,
    out: *mut Handle,
    edge_data: *mut u64,
    count: *mut usize,
) -> CallResult<()> {
    let nodes: Vec<Handle> = driver::topology::neighbours(number(node), dependents)?
        .into_iter()
        .map(handle)
        .collect();
    let asked = if out.is_null() || count.is_null() {
        0
    } else {
        unsafe { count.read_unaligned() }
    };
    unsafe { put_list(&nodes, std::ptr::null_mut(), out, count, "numDependencies") }?;
    unsafe { put_default_edges(edge_data, asked) };
    Ok(())
}

/// Writes the `CUDA_KERNEL_NODE_PARAMS` of kernel node `node` (its `kernelParams` point into a
/// copy of the node's parameter space kept for the process); `v2` also writes the
/// `CUkernel` of `CUDA_KERNEL_NODE_PARAMS_v2` (the library kernel the function comes from,
/// by which the runtime knows its kernels, NULL for a module's function) and its `CUcontext`
/// (NULL: the current one).
///
/// # Safety
/// `params` is NULL (an error) or a writable `CUDA_KERNEL_NODE_PARAMS` (`_v2` where `v2`).
unsafe fn kernel_node_params(
    node: Handle,
    params: *mut KernelNodeParams,
    v2: bool,
) -> CallResult<()> {
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    let GraphNode::Kernel {
        function,
        grid,
        block,
        dynamic_shared,
        params: space,
    } = driver::topology::node(number(node))?
    else {
        return Err(Failure::new(CudaError::InvalidValue, "not a kernel node"));
    };
    let (layout, _) = driver::parameters(function)?;
    let mut bytes: Box<[u8]> = space.into_boxed_slice();
    let base = bytes.as_mut_ptr();
    let mut pointers: Box<[usize]> = layout
        .iter()
        // The parameter space holds every parameter's bytes (its layout made it).
        .map(|&(offset, _)| base.wrapping_add(offset).expose_provenance())
        .collect();
    let array = pointers.as_mut_ptr().cast::<*mut c_void>();
    PARAMETER_BLOCKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push((bytes, pointers));
    let written = KernelNodeParams {
        func: handle(function),
        grid_x: grid[0],
        grid_y: grid[1],
        grid_z: grid[2],
        block_x: block[0],
        block_y: block[1],
        block_z: block[2],
        shared_bytes: dynamic_shared,
        kernel_params: array,
        extra: std::ptr::null_mut(),
    };
    if v2 {
        let kernel = driver::function_kernel(function).map_or(std::ptr::null_mut(), handle);
        let written = KernelNodeParamsV2 {
            first: written,
            kernel,
            context: std::ptr::null_mut(),
        };
        // SAFETY: a writable `_v2` by the contract.
        unsafe { params.cast::<KernelNodeParamsV2>().write_unaligned(written) };
    } else {
        // SAFETY: writable by the contract.
        unsafe { params.write_unaligned(written) };
    }
    Ok(())
}

/// Runs user objects' destructors (`CUhostFn` and argument) after the state was released.
pub(super) fn run_destructors(destructors: &[(usize, usize)]) {
    for &(function, data) in destructors {
        if function == 0 {
            continue;
        }
        // SAFETY: `function` is the `CUhostFn` the program gave `cuUserObjectCreate` (not
        // NULL), called once with the pointer it gave, as the call's contract says.
        let function: unsafe extern "C" fn(*mut c_void) =
            unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void)>(function) };
        unsafe { function(std::ptr::with_exposed_provenance_mut(data)) };
    }
}

/// `CU_GRAPH_USER_OBJECT_MOVE`: the graph takes over the caller's references.
const USER_OBJECT_MOVE: c_uint = 1;
/// `CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE`.
const DOT_VERBOSE: c_uint = 1;

calls! {
    /// `cuGraphGetEdges`: the graph's edges (the count alone where `from` and `to` are NULL).
    fn cuGraphGetEdges(graph: Handle, from: *mut Handle, to: *mut Handle, count: *mut usize) {
        unsafe { get_edges(graph, from, to, std::ptr::null_mut(), count) }
    }

    /// `cuGraphGetEdges_v2`: as the first version, each edge's `CUgraphEdgeData` the
    /// default (zeros).
    fn cuGraphGetEdges_v2(
        graph: Handle,
        from: *mut Handle,
        to: *mut Handle,
        edge_data: *mut u64,
        count: *mut usize,
    ) {
        unsafe { get_edges(graph, from, to, edge_data, count) }
    }

    /// `cuGraphGetRootNodes`: the nodes without dependencies.
    fn cuGraphGetRootNodes(graph: Handle, nodes: *mut Handle, count: *mut usize) {
        let roots: Vec<Handle> = driver::topology::roots(number(graph))?.into_iter().map(handle).collect();
        unsafe { put_list(&roots, std::ptr::null_mut(), nodes, count, "numRootNodes") }
    }

    /// `cuGraphNodeGetDependencies`.
    fn cuGraphNodeGetDependencies(node: Handle, nodes: *mut Handle, count: *mut usize) {
        unsafe { get_neighbours(node, false, nodes, std::ptr::null_mut(), count) }
    }

    /// `cuGraphNodeGetDependencies_v2`: with default edge data.
    fn cuGraphNodeGetDependencies_v2(node: Handle, nodes: *mut Handle, edge_data: *mut u64, count: *mut usize) {
        unsafe { get_neighbours(node, false, nodes, edge_data, count) }
    }

    /// `cuGraphNodeGetDependentNodes`.
    fn cuGraphNodeGetDependentNodes(node: Handle, nodes: *mut Handle, count: *mut usize) {
        unsafe { get_neighbours(node, true, nodes, std::ptr::null_mut(), count) }
    }

    /// `cuGraphNodeGetDependentNodes_v2`: with default edge data.
    fn cuGraphNodeGetDependentNodes_v2(node: Handle, nodes: *mut Handle, edge_data: *mut u64, count: *mut usize) {
        unsafe { get_neighbours(node, true, nodes, edge_data, count) }
    }

    /// `cuGraphAddDependencies`: `to[i]` runs after `from[i]`
    /// ([`driver::topology::add_edges`]).
    fn cuGraphAddDependencies(graph: Handle, from: *const Handle, to: *const Handle, count: usize) {
        let pairs = unsafe { pairs(from, to, count) }?;
        driver::topology::add_edges(number(graph), &pairs)
    }

    /// `cuGraphAddDependencies_v2`: as the first version; the edge data (ports and types of
    /// programmatic edges) is not read, every edge waits for the whole node.
    fn cuGraphAddDependencies_v2(
        graph: Handle,
        from: *const Handle,
        to: *const Handle,
        edge_data: *const u64,
        count: usize,
    ) {
        let _ = edge_data;
        let pairs = unsafe { pairs(from, to, count) }?;
        driver::topology::add_edges(number(graph), &pairs)
    }

    /// `cuGraphRemoveDependencies` ([`driver::topology::remove_edges`]).
    fn cuGraphRemoveDependencies(graph: Handle, from: *const Handle, to: *const Handle, count: usize) {
        let pairs = unsafe { pairs(from, to, count) }?;
        driver::topology::remove_edges(number(graph), &pairs)
    }

    /// `cuGraphRemoveDependencies_v2`: as the first version (the edge data is not read).
    fn cuGraphRemoveDependencies_v2(
        graph: Handle,
        from: *const Handle,
        to: *const Handle,
        edge_data: *const u64,
        count: usize,
    ) {
        let _ = edge_data;
        let pairs = unsafe { pairs(from, to, count) }?;
        driver::topology::remove_edges(number(graph), &pairs)
    }

    /// `cuGraphDestroyNode`: the node and its edges leave the graph.
    fn cuGraphDestroyNode(node: Handle) {
        driver::topology::destroy_node(number(node))
    }

    /// `cuGraphKernelNodeGetParams` ([`kernel_node_params`]).
    fn cuGraphKernelNodeGetParams(node: Handle, params: *mut KernelNodeParams) {
        unsafe { kernel_node_params(node, params, false) }
    }

    /// `cuGraphKernelNodeGetParams_v2`.
    fn cuGraphKernelNodeGetParams_v2(node: Handle, params: *mut KernelNodeParamsV2) {
        unsafe { kernel_node_params(node, params.cast::<KernelNodeParams>(), true) }
    }

    /// `cuGraphMemsetNodeGetParams`: the memset as it was given.
    fn cuGraphMemsetNodeGetParams(node: Handle, params: *mut MemsetParams) {
        let GraphNode::Memset { destination, pattern, width, height, pitch } =
            driver::topology::node(number(node))?
        else {
            return Err(Failure::new(CudaError::InvalidValue, "not a memset node"));
        };
        let mut value = [0u8; 4];
        value[..pattern.len()].copy_from_slice(&pattern);
        let written = MemsetParams {
            destination,
            pitch: pitch as usize,
            value: c_uint::from_le_bytes(value),
            element_size: pattern.len() as c_uint,
            width: width as usize,
            height: height as usize,
        };
        unsafe { put(params, written, "nodeParams") }
    }

    /// `cuGraphMemsetNodeSetParams`.
    fn cuGraphMemsetNodeSetParams(node: Handle, params: *const MemsetParams) {
        if params.is_null() {
            return Err(null_argument("nodeParams"));
        }
        let memset = memset_node(unsafe { params.read_unaligned() })?;
        driver::graph_node_set(number(node), memset)
    }

    /// `cuGraphHostNodeGetParams`.
    fn cuGraphHostNodeGetParams(node: Handle, params: *mut HostParams) {
        let GraphNode::Host { function, data } = driver::topology::node(number(node))? else {
            return Err(Failure::new(CudaError::InvalidValue, "not a host node"));
        };
        // SAFETY: `function` is the `CUhostFn` the node was made with (not NULL).
        let function = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void)>(function) };
        let written = HostParams {
            function: Some(function),
            data: std::ptr::with_exposed_provenance_mut(data),
        };
        unsafe { put(params, written, "nodeParams") }
    }

    /// `cuGraphHostNodeSetParams`.
    fn cuGraphHostNodeSetParams(node: Handle, params: *const HostParams) {
        let host = unsafe { host_node(params) }?;
        driver::graph_node_set(number(node), host)
    }

    /// `cuGraphExecHostNodeSetParams`: the executable's node calls another function or
    /// passes another argument.
    fn cuGraphExecHostNodeSetParams(executable: Handle, node: Handle, params: *const HostParams) {
        let host = unsafe { host_node(params) }?;
        driver::graph_exec_set(number(executable), number(node), host)
    }

    /// `cuGraphExecMemsetNodeSetParams`: the executable's memset node sets other memory or
    /// another value (the context argument is not read).
    fn cuGraphExecMemsetNodeSetParams(
        executable: Handle,
        node: Handle,
        params: *const MemsetParams,
        context: Handle,
    ) {
        let _ = context;
        if params.is_null() {
            return Err(null_argument("memsetParams"));
        }
        let memset = memset_node(unsafe { params.read_unaligned() })?;
        driver::graph_exec_set(number(executable), number(node), memset)
    }

    /// `cuGraphNodeSetEnabled` ([`driver::topology::set_enabled`]).
    fn cuGraphNodeSetEnabled(executable: Handle, node: Handle, enabled: c_uint) {
        driver::topology::set_enabled(number(executable), number(node), enabled != 0)
    }

    /// `cuGraphNodeGetEnabled`.
    fn cuGraphNodeGetEnabled(executable: Handle, node: Handle, enabled: *mut c_uint) {
        let value = driver::topology::enabled(number(executable), number(node))?;
        unsafe { put(enabled, c_uint::from(value), "isEnabled") }
    }

    /// `cuGraphExecGetFlags`: the flags of its instantiation.
    fn cuGraphExecGetFlags(executable: Handle, flags: *mut u64) {
        let value = driver::topology::exec_flags(number(executable))?;
        unsafe { put(flags, value, "flags") }
    }

    /// `cuGraphNodeFindInClone`.
    fn cuGraphNodeFindInClone(node: *mut Handle, original: Handle, clone: Handle) {
        let value = driver::topology::find_in_clone(number(original), number(clone))?;
        unsafe { put(node, handle(value), "phNode") }
    }

    /// `cuGraphNodeGetContainingGraph`.
    fn cuGraphNodeGetContainingGraph(node: Handle, graph: *mut Handle) {
        let value = driver::topology::containing_graph(number(node))?;
        unsafe { put(graph, handle(value), "phGraph") }
    }

    /// `cuUserObjectCreate`: the destructor runs when the last reference is released (by the
    /// program or by the graphs holding it); the flags (`CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`,
    /// required) need nothing more.
    fn cuUserObjectCreate(
        object: *mut Handle,
        data: *mut c_void,
        destroy: Option<unsafe extern "C" fn(*mut c_void)>,
        references: c_uint,
        flags: c_uint,
    ) {
        let _ = flags;
        let destroy = destroy.ok_or_else(|| null_argument("destroy"))?;
        if object.is_null() {
            return Err(null_argument("object_out"));
        }
        let value = driver::topology::user_object_create(
            destroy as usize,
            data.expose_provenance(),
            references,
        )?;
        unsafe { put(object, handle(value), "object_out") }
    }

    /// `cuUserObjectRetain`.
    fn cuUserObjectRetain(object: Handle, count: c_uint) {
        driver::topology::user_object_retain(number(object), count)
    }

    /// `cuUserObjectRelease`: the destructor runs when this was the last reference.
    fn cuUserObjectRelease(object: Handle, count: c_uint) {
        let destructor = driver::topology::user_object_release(number(object), count)?;
        run_destructors(destructor.as_slice());
        Ok(())
    }

    /// `cuGraphRetainUserObject`: the graph holds references (the caller's with
    /// `CU_GRAPH_USER_OBJECT_MOVE`), released when it is destroyed; an executable graph
    /// instantiated from it, or a clone, holds references of its own.
    fn cuGraphRetainUserObject(graph: Handle, object: Handle, count: c_uint, flags: c_uint) {
        driver::topology::graph_retain_user_object(
            number(graph),
            number(object),
            count,
            flags & USER_OBJECT_MOVE != 0,
        )
    }

    /// `cuGraphReleaseUserObject`.
    fn cuGraphReleaseUserObject(graph: Handle, object: Handle, count: c_uint) {
        let destructor = driver::topology::graph_release_user_object(number(graph), number(object), count)?;
        run_destructors(destructor.as_slice());
        Ok(())
    }

    /// `cuGraphDebugDotPrint`: the graph in the DOT language written to `path`
    /// ([`driver::topology::dot`]; `CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE` adds each node's
    /// parameters).
    fn cuGraphDebugDotPrint(graph: Handle, path: *const c_char, flags: c_uint) {
        if path.is_null() {
            return Err(null_argument("path"));
        }
        // SAFETY: a NUL-terminated string by the contract.
        let path = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
        let text = driver::topology::dot(number(graph), flags & DOT_VERBOSE != 0)?;
        std::fs::write(&path, text).map_err(|error| {
            Failure::new(CudaError::InvalidValue, format!("writing {path}: {error}"))
        })
    }
}

/// The host node `params` describes.
///
/// # Safety
/// `params` is NULL (an error) or a readable `CUDA_HOST_NODE_PARAMS`.
unsafe fn host_node(params: *const HostParams) -> CallResult<GraphNode> {
    if params.is_null() {
        return Err(null_argument("nodeParams"));
    }
    // SAFETY: not NULL, readable by the contract.
    let params = unsafe { params.read_unaligned() };
    let function = params
        .function
        .ok_or_else(|| null_argument("nodeParams->fn"))?;
    Ok(GraphNode::Host {
        function: function as usize,
        data: params.data.expose_provenance(),
    })
}
