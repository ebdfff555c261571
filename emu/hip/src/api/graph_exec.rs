//! Executable graphs: instantiate, launch, update, per-node parameters, destroy.
//!
//! Instantiation copies the graph (so later changes to it do not reach the executable graph) and
//! rejects a cycle. A launch queues a copy of the executable graph on its stream; when the
//! stream gets to it, the executor puts the graph's nodes in its place, in topological order,
//! child graphs inline, each run as the stream call it stands for would be. Host nodes run on
//! the executor without the runtime's lock, as `hipLaunchHostFunc`'s do, so they may call HIP.
//! A launch on a capturing stream becomes a child graph node of the capture instead.

use super::graph::*;
use super::{call, call_async, put};
use crate::error::*;
use crate::graph::*;
use crate::runtime::{ArgSource, Runtime};
use crate::types::*;
use std::ffi::{c_char, c_int, c_ulonglong, c_void};

fn exec_of(rt: &Runtime, exec: hipGraphExec_t) -> Result<&Exec, hipError_t> {
    rt.graphs.execs.get(&(exec as usize)).ok_or(INVALID_VALUE)
}

fn instantiate(
    out: *mut hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
) -> hipError_t {
    call(|rt| {
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        let g = graph_id(rt, graph)?;
        if let Err(n) = rt.graphs.check_acyclic(g) {
            if !error_node.is_null() {
                put(error_node, n as hipGraphNode_t)?;
            }
            return Err(INVALID_VALUE);
        }
        let (copy, clones) = rt.graphs.clone_graph(g, None);
        let id = rt.graphs.new_handle();
        rt.graphs.execs.insert(
            id,
            Exec {
                graph: copy,
                clones,
            },
        );
        put(out, id as hipGraphExec_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiate(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    log: *mut c_char,
    log_size: usize,
) -> hipError_t {
    let code = instantiate(exec, graph, error_node);
    if code != SUCCESS && !log.is_null() && log_size > 0 {
        let text = c"the graph has a cycle or an invalid handle";
        let n = text.to_bytes().len().min(log_size - 1);
        // SAFETY: the program's buffer of `log_size` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), log, n);
            *log.add(n) = 0;
        }
    }
    code
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiateWithFlags(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    flags: c_ulonglong,
) -> hipError_t {
    // hipGraphInstantiateFlagAutoFreeOnLaunch is the only flag, and no graph allocates here.
    if flags > 1 {
        return set_last(INVALID_VALUE);
    }
    instantiate(exec, graph, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecDestroy(exec: hipGraphExec_t) -> hipError_t {
    call(|rt| {
        let e = rt
            .graphs
            .execs
            .remove(&(exec as usize))
            .ok_or(INVALID_VALUE)?;
        rt.graphs.destroy(e.graph);
        Ok(())
    })
}

/// One step of a launch: a host function (run without the lock) or any other node.
pub(crate) enum Step {
    Host(unsafe extern "C" fn(*mut c_void), usize),
    Work(NodeKind),
}

/// The graph's nodes in topological order, child graphs inline.
pub(crate) fn flatten(graphs: &Graphs, g: GraphId, out: &mut Vec<Step>) -> Result<(), hipError_t> {
    let order = graphs.topological_order(g).map_err(|_| INVALID_VALUE)?;
    for n in order {
        match &graphs.nodes[&n].kind {
            NodeKind::Graph(child) => flatten(graphs, *child, out)?,
            NodeKind::Host { func, user_data } => out.push(Step::Host(*func, *user_data)),
            NodeKind::Empty => {}
            k => out.push(Step::Work(k.clone())),
        }
    }
    Ok(())
}

/// Runs one node's work on `stream`.
pub(crate) fn run(
    rt: &mut Runtime,
    kind: &NodeKind,
    stream: hipStream_t,
) -> Result<(), hipError_t> {
    match kind {
        NodeKind::Kernel(k) => {
            let ptrs: Vec<*const c_void> = k.args.iter().map(|a| a.as_ptr().cast()).collect();
            rt.launch(
                k.module,
                &k.name,
                k.grid,
                k.block,
                k.shared as u64,
                stream,
                ArgSource::Pointers(ptrs.as_ptr()),
            )
        }
        NodeKind::Memcpy(c) => run_copy_3d(rt, c),
        NodeKind::Memcpy1D {
            dst,
            src,
            count,
            kind,
        } => super::memory::copy(rt, *dst, *src, *count, *kind),
        NodeKind::MemcpyFromSymbol {
            dst,
            symbol,
            count,
            offset,
            kind,
        } => super::symbols::from_symbol(
            rt,
            *dst as *mut c_void,
            *symbol as *const c_void,
            *count as usize,
            *offset as usize,
            *kind,
        ),
        NodeKind::MemcpyToSymbol {
            symbol,
            src,
            count,
            offset,
            kind,
        } => super::symbols::to_symbol(
            rt,
            *symbol as *const c_void,
            *src as *const c_void,
            *count as usize,
            *offset as usize,
            *kind,
        ),
        NodeKind::Memset(m) => {
            for row in 0..m.height {
                let dst = m.dst + row * m.pitch;
                let v = m.value;
                match m.element_size {
                    1 => super::memory::fill_now(rt, dst, [v as u8], m.width)?,
                    2 => super::memory::fill_now(rt, dst, (v as u16).to_le_bytes(), m.width)?,
                    _ => super::memory::fill_now(rt, dst, v.to_le_bytes(), m.width)?,
                }
            }
            Ok(())
        }
        NodeKind::EventRecord(e) => {
            let now = rt.device_ns;
            if let Some(ev) = rt.events.get_mut(e) {
                ev.recorded = Some(now);
            }
            Ok(())
        }
        NodeKind::Host { .. } | NodeKind::Graph(_) | NodeKind::Empty | NodeKind::WaitEvent(_) => {
            Ok(())
        }
    }
}

/// A 3D copy, row by row (`pitch` bytes per row, `ysize` rows per slice).
pub(crate) fn run_copy_3d(rt: &mut Runtime, c: &Copy3d) -> Result<(), hipError_t> {
    let [width, height, depth] = c.extent;
    let at = |p: &Pitched, pos: &[u64; 3], y: u64, z: u64| {
        let rows = if p.ysize == 0 { height } else { p.ysize };
        p.ptr + ((pos[2] + z) * rows + pos[1] + y) * p.pitch + pos[0]
    };
    for z in 0..depth {
        for y in 0..height {
            let dst = at(&c.dst, &c.dst_pos, y, z);
            let src = at(&c.src, &c.src_pos, y, z);
            super::memory::copy(rt, dst, src, width, c.kind)?;
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphLaunch(exec: hipGraphExec_t, stream: hipStream_t) -> hipError_t {
    // Captured, a copy of the graph as it is now becomes a child graph node; else its nodes as
    // they are now are queued on the stream, in an order its edges allow.
    call_async(|rt| {
        let g = exec_of(rt, exec)?.graph;
        rt.check_stream(stream).map_err(|_| INVALID_VALUE)?;
        if super::capture::capturing(rt, stream) {
            super::capture::captured(rt, stream, |rt| {
                Ok(NodeKind::Graph(rt.graphs.clone_graph(g, None).0))
            })?;
            return Ok(());
        }
        super::capture::no_node(rt, stream)?;
        super::stream_ops::push_graph(rt, stream, g)
    })
}

/// The executable graph's copy of `node` (a node of the graph it was instantiated from).
fn clone_of(
    rt: &Runtime,
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
) -> Result<NodeId, hipError_t> {
    exec_of(rt, exec)?
        .clones
        .get(&(node as usize))
        .copied()
        .ok_or(INVALID_VALUE)
}

/// Sets the parameters of the executable graph's copy of `node`.
fn exec_set(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    make: impl FnOnce(&mut Runtime) -> Result<NodeKind, hipError_t>,
) -> hipError_t {
    call(|rt| {
        let n = clone_of(rt, exec, node)?;
        let kind = make(rt)?;
        set_kind(rt, n, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecKernelNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    // The kernel may change too (HIP and CUDA since 11 allow it).
    exec_set(exec, node, |rt| kernel_from(rt, params))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *mut hipMemcpy3DParms,
) -> hipError_t {
    exec_set(exec, node, |rt| memcpy_from(rt, params))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParams1D(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    exec_set(exec, node, |rt| {
        check_set_copy(count, dst, src)?;
        memcpy_1d(rt, dst, src, count, kind)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParamsFromSymbol(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    exec_set(exec, node, |rt| {
        check_set_copy(count, dst, symbol)?;
        from_symbol(rt, dst, symbol, count, offset, kind)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParamsToSymbol(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    exec_set(exec, node, |rt| {
        check_set_copy(count, symbol, src)?;
        to_symbol(rt, symbol, src, count, offset, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemsetNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const hipMemsetParams,
) -> hipError_t {
    exec_set(exec, node, |rt| memset_from(rt, params))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecHostNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const hipHostNodeParams,
) -> hipError_t {
    exec_set(exec, node, |_| host(params))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecEventRecordNodeSetEvent(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    e: hipEvent_t,
) -> hipError_t {
    exec_set(exec, node, |rt| event_kind(rt, NodeType::EventRecord, e))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecEventWaitNodeSetEvent(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    e: hipEvent_t,
) -> hipError_t {
    exec_set(exec, node, |rt| event_kind(rt, NodeType::WaitEvent, e))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecChildGraphNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    child: hipGraph_t,
) -> hipError_t {
    call(|rt| {
        let n = clone_of(rt, exec, node)?;
        let NodeKind::Graph(mine) = rt.graphs.node(n)?.kind else {
            return Err(INVALID_VALUE);
        };
        let new = graph_id(rt, child)?;
        update(rt, mine, new).map_err(|_| INVALID_VALUE)
    })
}

/// Why an update was refused, and at which node of the new graph.
struct Refusal {
    result: c_int,
    node: Option<NodeId>,
}

/// Makes the executable graph's copy `mine` take the parameters of `new`, if both have the same
/// nodes (in the order they were added), types and edges; changes nothing otherwise. Kernel
/// nodes may change their function, as HIP and CUDA allow.
fn update(rt: &mut Runtime, mine: GraphId, new: GraphId) -> Result<(), Refusal> {
    let mut pairs = Vec::new();
    pair_up(&rt.graphs, mine, new, &mut pairs)?;
    for (m, n) in pairs {
        let kind = rt.graphs.nodes[&n].kind.clone();
        if let NodeKind::Graph(_) = kind {
            continue; // its nodes are paired themselves
        }
        rt.graphs.nodes.get_mut(&m).unwrap().kind = kind;
    }
    Ok(())
}

/// Pairs the nodes of two graphs of the same shape, child graphs included.
fn pair_up(
    graphs: &Graphs,
    mine: GraphId,
    new: GraphId,
    pairs: &mut Vec<(NodeId, NodeId)>,
) -> Result<(), Refusal> {
    let (a, b) = (&graphs.graphs[&mine].nodes, &graphs.graphs[&new].nodes);
    let topology = |node| Refusal {
        result: UPDATE_ERROR_TOPOLOGY_CHANGED,
        node,
    };
    if a.len() != b.len() {
        return Err(topology(None));
    }
    let index = |list: &[NodeId], n: &NodeId| list.iter().position(|m| m == n);
    for (m, n) in a.iter().zip(b) {
        let (x, y) = (&graphs.nodes[m], &graphs.nodes[n]);
        if x.kind.node_type() != y.kind.node_type() {
            return Err(Refusal {
                result: UPDATE_ERROR_NODE_TYPE_CHANGED,
                node: Some(*n),
            });
        }
        let mut dx: Vec<_> = x.deps.iter().map(|d| index(a, d)).collect();
        let mut dy: Vec<_> = y.deps.iter().map(|d| index(b, d)).collect();
        dx.sort();
        dy.sort();
        if dx != dy {
            return Err(topology(Some(*n)));
        }
        if let (NodeKind::Graph(p), NodeKind::Graph(q)) = (&x.kind, &y.kind) {
            pair_up(graphs, *p, *q, pairs)?;
        }
        pairs.push((*m, *n));
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphExecUpdate(
    exec: hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    result: *mut c_int,
) -> hipError_t {
    call(|rt| {
        if error_node.is_null() || result.is_null() {
            return Err(INVALID_VALUE);
        }
        let mine = exec_of(rt, exec)?.graph;
        let new = graph_id(rt, graph)?;
        match update(rt, mine, new) {
            Ok(()) => {
                put(error_node, std::ptr::null_mut())?;
                put(result, UPDATE_SUCCESS)
            }
            Err(r) => {
                put(error_node, r.node.unwrap_or(0) as hipGraphNode_t)?;
                put(result, r.result)?;
                Err(GRAPH_EXEC_UPDATE_FAILURE)
            }
        }
    })
}
