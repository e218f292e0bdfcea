//! Stream capture (`cuStreamBeginCapture` to `cuStreamEndCapture`: the work enqueued on a
//! capturing stream becomes nodes of a graph, [`driver::begin_capture`]) and the graph calls
//! beyond kernel and copy nodes: memset, host and empty nodes, node lists, cloning, updating.

use std::ffi::{c_int, c_uint, c_void};

use super::{
    CUdeviceptr, CUresult, CudaError, Failure, Handle, dependencies, guard, handle, null_argument,
    number, put,
};
use crate::driver::{self, GraphNode};

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

    /// `cuStreamEndCapture`: the captured graph.
    fn cuStreamEndCapture(stream: Handle, graph: *mut Handle) {
        if graph.is_null() {
            return Err(null_argument("phGraph"));
        }
        let value = driver::end_capture(number(stream))?;
        unsafe { put(graph, handle(value), "phGraph") }
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
        let params = unsafe { params.read_unaligned() };
        let size = usize::try_from(params.element_size).unwrap_or(0);
        if !matches!(size, 1 | 2 | 4) {
            return Err(Failure::new(CudaError::InvalidValue, format!("element size {size}")));
        }
        let memset = GraphNode::Memset {
            destination: params.destination,
            pattern: params.value.to_le_bytes()[..size].to_vec(),
            width: params.width as u64,
            height: params.height.max(1) as u64,
            pitch: params.pitch as u64,
        };
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
    /// same shape; the result info is `CU_GRAPH_EXEC_UPDATE_SUCCESS` (0) or `_ERROR` (1).
    fn cuGraphExecUpdate_v2(executable: Handle, graph: Handle, info: *mut [u64; 3]) {
        let result = driver::graph_exec_update(number(executable), number(graph));
        if !info.is_null() {
            let code = u64::from(result.is_err());
            unsafe { put(info, [code, 0, 0], "resultInfo") }?;
        }
        result
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
        let value = driver::graph_instantiate(number(graph))?;
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

/// `cuStreamGetCaptureInfo`: the status, id and graph of a capture; no dependencies or edges.
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
    if !dependencies_out.is_null() {
        unsafe { put(dependencies_out, std::ptr::null(), "dependencies_out") }?;
    }
    if !edges.is_null() {
        unsafe { put(edges, std::ptr::null(), "edgeData_out") }?;
    }
    if !count.is_null() {
        unsafe { put(count, 0, "numDependencies_out") }?;
    }
    Ok(())
}
