//! A graph's topology and what hangs off its nodes (CUDA Driver API, "Graph Management"):
//! edges added and removed after the nodes (`cuGraphAddDependencies`,
//! `cuGraphRemoveDependencies`), read back (`cuGraphGetEdges`, `cuGraphGetRootNodes`,
//! `cuGraphNodeGetDependencies`, `cuGraphNodeGetDependentNodes`), nodes destroyed
//! (`cuGraphDestroyNode`), read (`cuGraphKernelNodeGetParams` and the like) and enabled or
//! disabled in an executable graph (`cuGraphNodeSetEnabled`), the order an executable graph
//! runs its nodes in, user objects (`cuUserObjectCreate`, `cuGraphRetainUserObject`) and the
//! DOT description of a graph (`cuGraphDebugDotPrint`).

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{CallResult, CudaError, Failure, Graph, GraphNode, State, state};

/// A user object: its destructor and argument (C function and pointer, as addresses the C
/// boundary calls) and how many references to it are held (by the program and by graphs).
#[derive(Clone, Debug)]
pub struct UserObject {
    /// `CUhostFn destroy`.
    pub destructor: usize,
    /// `void *ptr`, the destructor's argument.
    pub data: usize,
    /// References held.
    pub references: u32,
}

/// The nodes of `graph` in an order that runs each after its dependencies: Kahn's order,
/// taking among the nodes whose dependencies have all been placed the one added first (so a
/// graph whose edges all point forward runs in the order its nodes were added). A cycle
/// cannot run: `CUDA_ERROR_INVALID_VALUE` ("the graph contains a cycle").
pub(super) fn ordered(graph: &Graph) -> CallResult<Vec<(u64, GraphNode)>> {
    let mut waiting: HashMap<u64, usize> = graph.nodes.iter().map(|(h, _)| (*h, 0)).collect();
    for (_, to) in &graph.edges {
        if let Some(count) = waiting.get_mut(to) {
            *count += 1;
        }
    }
    let mut placed = vec![false; graph.nodes.len()];
    let mut order = Vec::with_capacity(graph.nodes.len());
    while order.len() < graph.nodes.len() {
        let next = graph
            .nodes
            .iter()
            .enumerate()
            .find(|(i, (handle, _))| !placed[*i] && waiting[handle] == 0)
            .map(|(i, _)| i)
            .ok_or_else(|| Failure::new(CudaError::InvalidValue, "the graph contains a cycle"))?;
        placed[next] = true;
        let (handle, node) = &graph.nodes[next];
        for (_, to) in graph.edges.iter().filter(|(from, _)| from == handle) {
            if let Some(count) = waiting.get_mut(to) {
                *count -= 1;
            }
        }
        order.push((*handle, node.clone()));
    }
    Ok(order)
}

/// The graph (not executable) that holds `node`, and its handle.
fn holder(state: &State, node: u64) -> CallResult<(u64, &Graph)> {
    state
        .graphs
        .iter()
        .find(|(_, graph)| graph.nodes.iter().any(|(handle, _)| *handle == node))
        .map(|(handle, graph)| (*handle, graph))
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "no graph has this node"))
}

/// A graph of the state by its handle.
fn graph_mut(state: &mut State, graph: u64) -> CallResult<&mut Graph> {
    state
        .graphs
        .get_mut(&graph)
        .ok_or(Failure::from(CudaError::InvalidHandle))
}

/// `cuGraphGetEdges`: the graph's edges, (from, to).
pub fn edges(graph: u64) -> CallResult<Vec<(u64, u64)>> {
    let mut state = state();
    state.current()?;
    Ok(graph_mut(&mut state, graph)?.edges.clone())
}

/// `cuGraphGetRootNodes`: the nodes with no dependencies, in the order they were added.
pub fn roots(graph: u64) -> CallResult<Vec<u64>> {
    let mut state = state();
    state.current()?;
    let graph = graph_mut(&mut state, graph)?;
    Ok(graph
        .nodes
        .iter()
        .map(|(handle, _)| *handle)
        .filter(|handle| !graph.edges.iter().any(|(_, to)| to == handle))
        .collect())
}

/// `cuGraphNodeGetDependencies` (`dependents` false: the nodes `node` depends on) and
/// `cuGraphNodeGetDependentNodes` (true: the nodes that depend on it).
pub fn neighbours(node: u64, dependents: bool) -> CallResult<Vec<u64>> {
    let state = state();
    state.current()?;
    let (_, graph) = holder(&state, node)?;
    Ok(graph
        .edges
        .iter()
        .filter_map(|&(from, to)| match dependents {
            false if to == node => Some(from),
            true if from == node => Some(to),
            _ => None,
        })
        .collect())
}

/// `cuGraphAddDependencies`: `to[i]` runs after `from[i]`. Both must be nodes of the graph,
/// distinct, and the edge new (`CUDA_ERROR_INVALID_VALUE` otherwise).
pub fn add_edges(graph: u64, pairs: &[(u64, u64)]) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let graph = graph_mut(&mut state, graph)?;
    for &(from, to) in pairs {
        let known = |node: u64| graph.nodes.iter().any(|(handle, _)| *handle == node);
        if !known(from) || !known(to) || from == to {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!(
                    "an edge {from:#x} -> {to:#x} between nodes that are not two of the graph's"
                ),
            ));
        }
        if graph.edges.contains(&(from, to)) {
            return Err(Failure::new(
                CudaError::InvalidValue,
                format!("the edge {from:#x} -> {to:#x} exists already"),
            ));
        }
        graph.edges.push((from, to));
    }
    Ok(())
}

/// `cuGraphRemoveDependencies`: each edge must exist ("Specifying a non-existing dependency
/// will return an error", `CUDA_ERROR_INVALID_VALUE`); none is removed if one does not.
pub fn remove_edges(graph: u64, pairs: &[(u64, u64)]) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let graph = graph_mut(&mut state, graph)?;
    if let Some((from, to)) = pairs.iter().find(|pair| !graph.edges.contains(pair)) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            format!("there is no edge {from:#x} -> {to:#x}"),
        ));
    }
    graph.edges.retain(|edge| !pairs.contains(edge));
    Ok(())
}

/// `cuGraphDestroyNode`: the node and its edges leave their graph.
pub fn destroy_node(node: u64) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let (handle, _) = holder(&state, node)?;
    let graph = graph_mut(&mut state, handle)?;
    graph.nodes.retain(|(h, _)| *h != node);
    graph
        .edges
        .retain(|(from, to)| *from != node && *to != node);
    Ok(())
}

/// `cuGraphKernelNodeGetParams` and the like: what node `node` of a graph does.
pub fn node(node: u64) -> CallResult<GraphNode> {
    let state = state();
    state.current()?;
    let (_, graph) = holder(&state, node)?;
    Ok(graph
        .nodes
        .iter()
        .find(|(handle, _)| *handle == node)
        .map(|(_, node)| node.clone())
        .unwrap_or(GraphNode::Empty))
}

/// `cuGraphNodeGetContainingGraph`.
pub fn containing_graph(node: u64) -> CallResult<u64> {
    let state = state();
    state.current()?;
    Ok(holder(&state, node)?.0)
}

/// `cuGraphNodeFindInClone`: the node of `clone` made from `original` by `cuGraphClone`.
pub fn find_in_clone(original: u64, clone: u64) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    let clone = graph_mut(&mut state, clone)?;
    clone
        .originals
        .get(&original)
        .copied()
        .filter(|node| clone.nodes.iter().any(|(handle, _)| handle == node))
        .ok_or_else(|| Failure::new(CudaError::InvalidValue, "the clone has no such node"))
}

/// `cuGraphNodeSetEnabled`: "Only kernel, memset and memcpy nodes are supported"; a disabled
/// node runs as an empty node ([`super::graph_nodes`]).
pub fn set_enabled(executable: u64, node: u64, enabled: bool) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    let kind = super::executable_node(&mut state, executable, node)?;
    if !matches!(
        kind,
        GraphNode::Kernel { .. }
            | GraphNode::Copy { .. }
            | GraphNode::Copy3d { .. }
            | GraphNode::Memset { .. }
    ) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "only kernel, memset and memcpy nodes can be disabled",
        ));
    }
    let Some(graph) = state.executables.get_mut(&executable) else {
        return Err(CudaError::InvalidHandle.into());
    };
    graph.disabled.retain(|handle| *handle != node);
    if !enabled {
        graph.disabled.push(node);
    }
    Ok(())
}

/// `cuGraphNodeGetEnabled`.
pub fn enabled(executable: u64, node: u64) -> CallResult<bool> {
    let state = state();
    state.current()?;
    let graph = state
        .executables
        .get(&executable)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    if !graph.nodes.iter().any(|(handle, _)| *handle == node) {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "no such node in the graph",
        ));
    }
    Ok(!graph.disabled.contains(&node))
}

/// `cuGraphExecGetFlags`: the flags the executable graph was instantiated with.
pub fn exec_flags(executable: u64) -> CallResult<u64> {
    let state = state();
    state.current()?;
    state
        .executables
        .get(&executable)
        .map(|graph| graph.flags)
        .ok_or(Failure::from(CudaError::InvalidHandle))
}

/// `cuUserObjectCreate`: a user object with `references` references held by the caller.
pub fn user_object_create(destructor: usize, data: usize, references: u32) -> CallResult<u64> {
    let mut state = state();
    state.current()?;
    if references == 0 {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "an initial reference count of 0",
        ));
    }
    let handle = state.handle();
    state.user_objects.insert(
        handle,
        UserObject {
            destructor,
            data,
            references,
        },
    );
    Ok(handle)
}

/// `cuUserObjectRetain`: `count` more references.
pub fn user_object_retain(object: u64, count: u32) -> CallResult<()> {
    let mut state = state();
    let user = state
        .user_objects
        .get_mut(&object)
        .ok_or(Failure::from(CudaError::InvalidValue))?;
    user.references = user.references.saturating_add(count);
    Ok(())
}

/// Releases `count` references of `object`; its destructor and argument when that was the
/// last (the object is gone then).
pub(super) fn release_locked(state: &mut State, object: u64, count: u32) -> Option<(usize, usize)> {
    let user = state.user_objects.get_mut(&object)?;
    user.references = user.references.saturating_sub(count);
    if user.references > 0 {
        return None;
    }
    let user = state.user_objects.remove(&object)?;
    Some((user.destructor, user.data))
}

/// `cuUserObjectRelease`: the destructor to run when the last reference went.
pub fn user_object_release(object: u64, count: u32) -> CallResult<Option<(usize, usize)>> {
    let mut state = state();
    if !state.user_objects.contains_key(&object) {
        return Err(CudaError::InvalidValue.into());
    }
    Ok(release_locked(&mut state, object, count))
}

/// `cuGraphRetainUserObject`: the graph holds `count` references, new ones or (`moved`,
/// `CU_GRAPH_USER_OBJECT_MOVE`) the caller's.
pub fn graph_retain_user_object(
    graph: u64,
    object: u64,
    count: u32,
    moved: bool,
) -> CallResult<()> {
    let mut state = state();
    state.current()?;
    if !state.user_objects.contains_key(&object) {
        return Err(Failure::new(CudaError::InvalidValue, "no such user object"));
    }
    *graph_mut(&mut state, graph)?
        .user_objects
        .entry(object)
        .or_default() += count;
    if !moved {
        user_object_retain_locked(&mut state, object, count);
    }
    Ok(())
}

/// `count` more references to `object`.
fn user_object_retain_locked(state: &mut State, object: u64, count: u32) {
    if let Some(user) = state.user_objects.get_mut(&object) {
        user.references = user.references.saturating_add(count);
    }
}

/// `cuGraphReleaseUserObject`: the graph gives up `count` of its references; the destructor
/// to run when they were the last.
pub fn graph_release_user_object(
    graph: u64,
    object: u64,
    count: u32,
) -> CallResult<Option<(usize, usize)>> {
    let mut state = state();
    state.current()?;
    let held = graph_mut(&mut state, graph)?
        .user_objects
        .entry(object)
        .or_default();
    if *held < count {
        return Err(Failure::new(
            CudaError::InvalidValue,
            "the graph holds fewer references to the user object",
        ));
    }
    *held -= count;
    Ok(release_locked(&mut state, object, count))
}

/// `cuGraphDebugDotPrint`: the graph in Graphviz's DOT language, one node per line with its
/// kind (and, for `verbose`, what it does), then one line per edge.
pub fn dot(graph: u64, verbose: bool) -> CallResult<String> {
    let state = state();
    state.current()?;
    let graph = state
        .graphs
        .get(&graph)
        .ok_or(Failure::from(CudaError::InvalidHandle))?;
    let mut text = String::from("digraph dot {\n");
    for (index, (handle, node)) in graph.nodes.iter().enumerate() {
        let (kind, detail) = match node {
            GraphNode::Kernel {
                grid,
                block,
                dynamic_shared,
                ..
            } => (
                "KERNEL",
                format!("grid {grid:?} block {block:?} dynamic shared {dynamic_shared}"),
            ),
            GraphNode::Copy { bytes, .. } => ("MEMCPY", format!("{bytes} bytes")),
            GraphNode::Copy3d { extent, .. } => (
                "MEMCPY",
                format!("{} x {} x {} bytes", extent[0], extent[1], extent[2]),
            ),
            GraphNode::Memset { width, height, .. } => ("MEMSET", format!("{width} x {height}")),
            GraphNode::Host { .. } => ("HOST", String::new()),
            GraphNode::Empty => ("EMPTY", String::new()),
            GraphNode::MemAlloc { bytes, .. } => ("MEM_ALLOC", format!("{bytes} bytes")),
            GraphNode::MemFree { address } => ("MEM_FREE", format!("{address:#x}")),
            GraphNode::Conditional { kind, .. } => ("CONDITIONAL", kind.name().to_string()),
        };
        let label = if verbose && !detail.is_empty() {
            format!("{index}: {kind}\\n{detail}")
        } else {
            format!("{index}: {kind}")
        };
        let _ = writeln!(text, "  \"node{handle:x}\" [label=\"{label}\"];");
    }
    for (from, to) in &graph.edges {
        let _ = writeln!(text, "  \"node{from:x}\" -> \"node{to:x}\";");
    }
    text.push_str("}\n");
    Ok(text)
}
