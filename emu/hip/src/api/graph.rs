//! Graph management: create, destroy and clone graphs; add nodes of every kind; edges; node
//! queries and parameters. The graphs themselves are data in [`crate::graph`]; executable
//! graphs and launches are in `graph_exec.rs`.
//!
//! Error codes follow hipamd 5.2 (`hip_graph.cpp`): a null or unknown handle, a null out-pointer
//! and a node of the wrong type for the call are `hipErrorInvalidValue`; "count then fill"
//! queries write the count when the array is null, otherwise fill up to the count given and set
//! the entries past the real count to null.

use super::{call, put};
use crate::error::*;
use crate::graph::*;
use crate::runtime::{ArgSource, Runtime};
use crate::types::memcpy_kind::*;
use crate::types::*;
use std::ffi::{c_int, c_uint, c_void};

pub(crate) fn graph_id(rt: &Runtime, g: hipGraph_t) -> Result<GraphId, hipError_t> {
    rt.graphs.graph(g as usize)?;
    Ok(g as usize)
}

pub(crate) fn node_id(rt: &Runtime, n: hipGraphNode_t) -> Result<NodeId, hipError_t> {
    rt.graphs.node(n as usize)?;
    Ok(n as usize)
}

/// The handles of a C array of `count` nodes; null is allowed only for none.
pub(crate) fn handles(p: *const hipGraphNode_t, count: usize) -> Result<Vec<usize>, hipError_t> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: the program passes `count` node handles at `p`.
    let s = unsafe { std::slice::from_raw_parts(p, count) };
    Ok(s.iter().map(|h| *h as usize).collect())
}

/// HIP's "count then fill" answer for a list of nodes (or of edge ends).
fn fill_list(
    out: *mut hipGraphNode_t,
    count: *mut usize,
    list: &[usize],
) -> Result<(), hipError_t> {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    if out.is_null() {
        return put(count, list.len());
    }
    // SAFETY: `count` is the program's in/out count of entries at `out`.
    let room = unsafe { *count };
    for i in 0..room {
        let v = list.get(i).copied().unwrap_or(0);
        unsafe { *out.add(i) = v as hipGraphNode_t };
    }
    if room > list.len() {
        put(count, list.len())?;
    }
    Ok(())
}

/// A kernel node from `hipKernelNodeParams`, its arguments copied now. Stream capture passes
/// `kernelParams` only; the explicit API must pass exactly one of `kernelParams` and `extra`
/// (hipamd), unless the kernel takes no arguments.
pub(crate) fn kernel_node(
    rt: &mut Runtime,
    p: &hipKernelNodeParams,
) -> Result<NodeKind, hipError_t> {
    if p.func.is_null() {
        return Err(INVALID_VALUE);
    }
    let (module, name) = rt.kernel_of(p.func as usize)?;
    crate::runtime::check_dims(p.gridDim, p.blockDim)?;
    let args = match (p.kernelParams.is_null(), p.extra.is_null()) {
        (false, true) => ArgSource::Pointers(p.kernelParams as *const *const c_void),
        (true, false) => ArgSource::Buffer(super::launch::extra_buffer(p.extra)?),
        (true, true) => ArgSource::Buffer(&[]),
        (false, false) => return Err(INVALID_VALUE),
    };
    let args = rt.kernel_args(module, &name, args)?;
    Ok(NodeKind::Kernel(Kernel::new(
        p.func as usize,
        module,
        name,
        p.gridDim,
        p.blockDim,
        p.sharedMemBytes,
        args.into_iter().map(Vec::into_boxed_slice).collect(),
    )))
}

fn check_kind(kind: c_int) -> Result<(), hipError_t> {
    if (HOST_TO_HOST..=DEFAULT).contains(&kind) {
        Ok(())
    } else {
        Err(INVALID_MEMCPY_DIRECTION)
    }
}

/// A 3D copy between linear buffers (`super::array::copy_3d` takes arrays too).
pub(crate) fn copy_3d(p: &hipMemcpy3DParms) -> Result<Copy3d, hipError_t> {
    if !p.srcArray.is_null() || !p.dstArray.is_null() {
        return Err(INVALID_VALUE);
    }
    if p.srcPtr.ptr.is_null() || p.dstPtr.ptr.is_null() {
        return Err(INVALID_VALUE);
    }
    check_kind(p.kind)?;
    let pitched = |q: &hipPitchedPtr| Pitched {
        ptr: q.ptr as u64,
        pitch: q.pitch as u64,
        xsize: q.xsize as u64,
        ysize: q.ysize as u64,
    };
    let c = Copy3d {
        src: pitched(&p.srcPtr),
        src_pos: [p.srcPos.x as u64, p.srcPos.y as u64, p.srcPos.z as u64],
        dst: pitched(&p.dstPtr),
        dst_pos: [p.dstPos.x as u64, p.dstPos.y as u64, p.dstPos.z as u64],
        extent: [
            p.extent.width as u64,
            p.extent.height as u64,
            p.extent.depth as u64,
        ],
        kind: p.kind,
        given: None,
    };
    // A row longer than its pitch would overlap the next one.
    if c.extent[1] * c.extent[2] > 1
        && (c.src_pos[0] + c.extent[0] > c.src.pitch || c.dst_pos[0] + c.extent[0] > c.dst.pitch)
    {
        return Err(INVALID_PITCH_VALUE);
    }
    Ok(c)
}

fn copy_3d_params(c: &Copy3d) -> hipMemcpy3DParms {
    let pitched = |q: &Pitched| hipPitchedPtr {
        ptr: q.ptr as *mut c_void,
        pitch: q.pitch as usize,
        xsize: q.xsize as usize,
        ysize: q.ysize as usize,
    };
    let pos = |p: &[u64; 3]| hipPos {
        x: p[0] as usize,
        y: p[1] as usize,
        z: p[2] as usize,
    };
    hipMemcpy3DParms {
        srcArray: std::ptr::null_mut(),
        srcPos: pos(&c.src_pos),
        srcPtr: pitched(&c.src),
        dstArray: std::ptr::null_mut(),
        dstPos: pos(&c.dst_pos),
        dstPtr: pitched(&c.dst),
        extent: hipExtent {
            width: c.extent[0] as usize,
            height: c.extent[1] as usize,
            depth: c.extent[2] as usize,
        },
        kind: c.kind,
    }
}

/// A memset node's parameters, checked against the allocation they fill (hipamd's
/// `ihipGraphAddMemsetNode`).
pub(crate) fn memset(rt: &Runtime, p: &hipMemsetParams) -> Result<Memset, hipError_t> {
    if p.dst.is_null() || p.height == 0 || ![1, 2, 4].contains(&p.elementSize) {
        return Err(INVALID_VALUE);
    }
    let row = (p.width as u64)
        .checked_mul(p.elementSize as u64)
        .ok_or(INVALID_VALUE)?;
    if p.height > 1 && row > p.pitch as u64 {
        return Err(INVALID_VALUE);
    }
    let span = (p.height as u64 - 1) * p.pitch as u64 + row;
    rt.check_device_range(p.dst as u64, span)?;
    Ok(Memset {
        dst: p.dst as u64,
        element_size: p.elementSize,
        value: p.value,
        width: p.width as u64,
        height: p.height as u64,
        pitch: p.pitch as u64,
    })
}

/// A 1D copy node, its ranges checked now as hipamd's `ihipMemcpy_validate` does.
pub(crate) fn memcpy_1d(
    rt: &Runtime,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> Result<NodeKind, hipError_t> {
    if dst.is_null() || src.is_null() {
        return Err(INVALID_VALUE);
    }
    super::memory::check_copy(rt, dst as u64, src as u64, count as u64, kind)?;
    Ok(NodeKind::Memcpy1D {
        dst: dst as u64,
        src: src as u64,
        count: count as u64,
        kind,
    })
}

/// The device address of `offset..offset+count` of the variable `symbol`, checked to lie
/// inside it.
fn check_symbol(
    rt: &mut Runtime,
    symbol: *const c_void,
    count: usize,
    offset: usize,
) -> Result<u64, hipError_t> {
    if symbol.is_null() {
        return Err(INVALID_SYMBOL);
    }
    let (addr, size) = rt.var_address(symbol)?;
    match (offset as u64).checked_add(count as u64) {
        Some(end) if end <= size => Ok(addr + offset as u64),
        _ => Err(INVALID_VALUE),
    }
}

/// What hipamd's `SetParams` calls of copy nodes refuse beyond what adding the node does: an
/// empty copy, or one whose two sides are the same pointer.
pub(crate) fn check_set_copy(
    count: usize,
    a: *const c_void,
    b: *const c_void,
) -> Result<(), hipError_t> {
    if count == 0 || a == b {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

pub(crate) fn from_symbol(
    rt: &mut Runtime,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> Result<NodeKind, hipError_t> {
    let addr = check_symbol(rt, symbol, count, offset)?;
    if dst.is_null() {
        return Err(INVALID_VALUE);
    }
    super::memory::check_copy(rt, dst as u64, addr, count as u64, kind)?;
    Ok(NodeKind::MemcpyFromSymbol {
        dst: dst as u64,
        symbol: symbol as usize,
        count: count as u64,
        offset: offset as u64,
        kind,
    })
}

pub(crate) fn to_symbol(
    rt: &mut Runtime,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> Result<NodeKind, hipError_t> {
    let addr = check_symbol(rt, symbol, count, offset)?;
    if src.is_null() {
        return Err(INVALID_VALUE);
    }
    super::memory::check_copy(rt, addr, src as u64, count as u64, kind)?;
    Ok(NodeKind::MemcpyToSymbol {
        symbol: symbol as usize,
        src: src as u64,
        count: count as u64,
        offset: offset as u64,
        kind,
    })
}

pub(crate) fn host(p: *const hipHostNodeParams) -> Result<NodeKind, hipError_t> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a non-null pointer to the program's parameters.
    let p = unsafe { *p };
    match p.fn_ {
        Some(func) => Ok(NodeKind::Host {
            func,
            user_data: p.userData as usize,
        }),
        None => Err(INVALID_VALUE),
    }
}

fn event(rt: &Runtime, e: hipEvent_t) -> Result<usize, hipError_t> {
    match rt.events.contains_key(&(e as usize)) {
        true => Ok(e as usize),
        false => Err(INVALID_VALUE),
    }
}

/// Adds the node `make` builds (after the common checks) to `graph`.
fn add(
    out: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    make: impl FnOnce(&mut Runtime) -> Result<NodeKind, hipError_t>,
) -> hipError_t {
    call(|rt| {
        if out.is_null() || graph.is_null() {
            return Err(INVALID_VALUE);
        }
        let deps = handles(deps, count)?;
        let g = graph_id(rt, graph)?;
        let kind = make(rt)?;
        let id = rt.graphs.add_node(g, kind, &deps);
        if let Ok(n) = id {
            // A child graph belongs to its node.
            if let NodeKind::Graph(child) = rt.graphs.nodes[&n].kind {
                rt.graphs.graphs.get_mut(&child).unwrap().owner = Some(n);
            }
        }
        put(out, id? as hipGraphNode_t)
    })
}

/// The node `node` if it is of type `t`.
fn node_of(rt: &Runtime, node: hipGraphNode_t, t: NodeType) -> Result<&Node, hipError_t> {
    let n = rt.graphs.node(node as usize)?;
    if n.kind.node_type() != t {
        return Err(INVALID_VALUE);
    }
    Ok(n)
}

/// Replaces the parameters of `node` (of type `t`) with `kind`.
pub(crate) fn set_kind(rt: &mut Runtime, node: usize, kind: NodeKind) -> Result<(), hipError_t> {
    let n = rt.graphs.node_mut(node)?;
    if n.kind.node_type() != kind.node_type() {
        return Err(INVALID_VALUE);
    }
    n.kind = kind;
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphCreate(graph: *mut hipGraph_t, flags: c_uint) -> hipError_t {
    call(|rt| {
        if graph.is_null() || flags != 0 {
            return Err(INVALID_VALUE);
        }
        let g = rt.graphs.create(None, None);
        put(graph, g as hipGraph_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphDestroy(graph: hipGraph_t) -> hipError_t {
    call(|rt| {
        if graph.is_null() {
            return Err(INVALID_VALUE);
        }
        // hipamd: a graph already destroyed is an illegal state.
        let g = rt.graphs.graph(graph as usize).map_err(|_| ILLEGAL_STATE)?;
        if g.owner.is_some() {
            // A child graph goes with its node.
            return Err(INVALID_VALUE);
        }
        rt.graphs.destroy(graph as usize);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphClone(clone: *mut hipGraph_t, graph: hipGraph_t) -> hipError_t {
    call(|rt| {
        if clone.is_null() {
            return Err(INVALID_VALUE);
        }
        let g = graph_id(rt, graph)?;
        let (copy, _) = rt.graphs.clone_graph(g, None);
        put(clone, copy as hipGraph_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeFindInClone(
    node: *mut hipGraphNode_t,
    original: hipGraphNode_t,
    clone: hipGraph_t,
) -> hipError_t {
    call(|rt| {
        if node.is_null() || original.is_null() {
            return Err(INVALID_VALUE);
        }
        let g = rt.graphs.graph(graph_id(rt, clone)?)?;
        if g.cloned_from.is_none() {
            return Err(INVALID_VALUE);
        }
        let found = g
            .nodes
            .iter()
            .find(|n| rt.graphs.nodes[*n].cloned_from == Some(original as usize))
            .ok_or(INVALID_VALUE)?;
        put(node, *found as hipGraphNode_t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddKernelNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        if params.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a non-null pointer to the program's parameters.
        let p = unsafe { *params };
        if p.kernelParams.is_null() && p.extra.is_null() {
            let (module, name) = rt.kernel_of(p.func as usize)?;
            if !rt
                .kernel_args(module, &name, ArgSource::Buffer(&[]))?
                .is_empty()
            {
                return Err(INVALID_VALUE);
            }
        }
        kernel_node(rt, &p)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemcpyNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    params: *const hipMemcpy3DParms,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        if params.is_null() {
            return Err(INVALID_VALUE);
        }
        memcpy_node(rt, params)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNode1D(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        memcpy_1d(rt, dst, src, size, kind)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNodeFromSymbol(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        from_symbol(rt, dst, symbol, size, offset, kind)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNodeToSymbol(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        to_symbol(rt, symbol, src, size, offset, kind)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemsetNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    params: *const hipMemsetParams,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        if params.is_null() {
            return Err(INVALID_VALUE);
        }
        // SAFETY: a non-null pointer to the program's parameters.
        Ok(NodeKind::Memset(memset(rt, unsafe { &*params })?))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddHostNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    params: *const hipHostNodeParams,
) -> hipError_t {
    add(node, graph, deps, count, |_| host(params))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddChildGraphNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    child: hipGraph_t,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        let c = graph_id(rt, child)?;
        // The node holds a copy, taken before the node is added (so a graph may be its own
        // child): later changes to `child` do not reach it, as in HIP.
        Ok(NodeKind::Graph(rt.graphs.clone_graph(c, None).0))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEmptyNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
) -> hipError_t {
    add(node, graph, deps, count, |_| Ok(NodeKind::Empty))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventRecordNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    e: hipEvent_t,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        Ok(NodeKind::EventRecord(event(rt, e)?))
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventWaitNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    count: usize,
    e: hipEvent_t,
) -> hipError_t {
    add(node, graph, deps, count, |rt| {
        Ok(NodeKind::WaitEvent(event(rt, e)?))
    })
}

/// Checks an edge list and the graph it belongs to.
fn edges(
    rt: &Runtime,
    graph: hipGraph_t,
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    count: usize,
) -> Result<Vec<(NodeId, NodeId)>, hipError_t> {
    if from.is_null() || to.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = graph_id(rt, graph)?;
    let (from, to) = (handles(from, count)?, handles(to, count)?);
    for n in from.iter().chain(&to) {
        if rt.graphs.node(*n)?.graph != g {
            return Err(INVALID_VALUE);
        }
    }
    Ok(from.into_iter().zip(to).collect())
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphAddDependencies(
    graph: hipGraph_t,
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    count: usize,
) -> hipError_t {
    call(|rt| {
        if count == 0 {
            return graph_id(rt, graph).map(|_| ());
        }
        let list = edges(rt, graph, from, to, count)?;
        // Check every edge before adding any: a self edge or one already there is invalid.
        for (i, (f, t)) in list.iter().enumerate() {
            if f == t || rt.graphs.nodes[t].deps.contains(f) || list[..i].contains(&(*f, *t)) {
                return Err(INVALID_VALUE);
            }
        }
        for (f, t) in list {
            rt.graphs.node_mut(t)?.deps.push(f);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphRemoveDependencies(
    graph: hipGraph_t,
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    count: usize,
) -> hipError_t {
    call(|rt| {
        let list = edges(rt, graph, from, to, count)?;
        if list
            .iter()
            .any(|(f, t)| !rt.graphs.nodes[t].deps.contains(f))
        {
            return Err(INVALID_VALUE);
        }
        for (f, t) in list {
            rt.graphs.node_mut(t)?.deps.retain(|d| *d != f);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphGetEdges(
    graph: hipGraph_t,
    from: *mut hipGraphNode_t,
    to: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        if count.is_null() || from.is_null() != to.is_null() {
            return Err(INVALID_VALUE);
        }
        let list = rt.graphs.edges(graph_id(rt, graph)?)?;
        let froms: Vec<usize> = list.iter().map(|e| e.0).collect();
        let tos: Vec<usize> = list.iter().map(|e| e.1).collect();
        // SAFETY: the program's in/out count, read before either list is written.
        let room = unsafe { *count };
        fill_list(from, count, &froms)?;
        if !to.is_null() {
            put(count, room)?;
            fill_list(to, count, &tos)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphGetNodes(
    graph: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        let list = rt.graphs.graph(graph_id(rt, graph)?)?.nodes.clone();
        fill_list(nodes, count, &list)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphGetRootNodes(
    graph: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        let list = rt.graphs.roots(graph_id(rt, graph)?)?;
        fill_list(nodes, count, &list)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependencies(
    node: hipGraphNode_t,
    deps: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        let list = rt.graphs.node(node as usize)?.deps.clone();
        fill_list(deps, count, &list)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependentNodes(
    node: hipGraphNode_t,
    dependents: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    call(|rt| {
        let list = rt.graphs.dependents(node as usize)?;
        fill_list(dependents, count, &list)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetType(node: hipGraphNode_t, t: *mut c_int) -> hipError_t {
    call(|rt| {
        let n = rt.graphs.node(node as usize)?;
        put(t, n.kind.node_type() as c_int)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphDestroyNode(node: hipGraphNode_t) -> hipError_t {
    call(|rt| rt.graphs.destroy_node(node as usize))
}

pub(crate) fn kernel_params(k: &Kernel) -> hipKernelNodeParams {
    hipKernelNodeParams {
        blockDim: k.block,
        extra: std::ptr::null_mut(),
        func: k.func as *mut c_void,
        gridDim: k.grid,
        kernelParams: k.arg_pointers.as_ptr() as *mut *mut c_void,
        sharedMemBytes: k.shared,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipKernelNodeParams,
) -> hipError_t {
    call(|rt| match &node_of(rt, node, NodeType::Kernel)?.kind {
        NodeKind::Kernel(k) => put(params, kernel_params(k)),
        _ => Err(INVALID_VALUE),
    })
}

/// The kernel node `params` describes, read from the program's pointer.
pub(crate) fn kernel_from(
    rt: &mut Runtime,
    params: *const hipKernelNodeParams,
) -> Result<NodeKind, hipError_t> {
    if params.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a non-null pointer to the program's parameters.
    kernel_node(rt, unsafe { &*params })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    call(|rt| {
        node_of(rt, node, NodeType::Kernel)?;
        let k = kernel_from(rt, params)?;
        set_kind(rt, node as usize, k)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipMemcpy3DParms,
) -> hipError_t {
    call(|rt| match &node_of(rt, node, NodeType::Memcpy)?.kind {
        NodeKind::Memcpy(c) => match &c.given {
            // SAFETY: the bytes of a `hipMemcpy3DParms` the program passed.
            Some(words) => put(params, unsafe {
                std::mem::transmute::<[u64; 20], hipMemcpy3DParms>(**words)
            }),
            None => put(params, copy_3d_params(c)),
        },
        _ => Err(INVALID_VALUE),
    })
}

pub(crate) fn memcpy_from(
    rt: &Runtime,
    params: *const hipMemcpy3DParms,
) -> Result<NodeKind, hipError_t> {
    if params.is_null() {
        return Err(INVALID_VALUE);
    }
    memcpy_node(rt, params)
}

/// A memcpy node of the program's (non-null) `hipMemcpy3DParms`, which it keeps as given.
fn memcpy_node(rt: &Runtime, params: *const hipMemcpy3DParms) -> Result<NodeKind, hipError_t> {
    // SAFETY: a non-null pointer to the program's parameters, plain data of 160 bytes.
    let p = unsafe { &*params };
    let mut c = super::array::copy_3d(rt, p)?;
    c.given = Some(Box::new(unsafe {
        std::ptr::read_unaligned(params as *const [u64; 20])
    }));
    Ok(NodeKind::Memcpy(c))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipMemcpy3DParms,
) -> hipError_t {
    call(|rt| set_kind(rt, node_id(rt, node)?, memcpy_from(rt, params)?))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParams1D(
    node: hipGraphNode_t,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        check_set_copy(count, dst, src)?;
        set_kind(
            rt,
            node_id(rt, node)?,
            memcpy_1d(rt, dst, src, count, kind)?,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParamsFromSymbol(
    node: hipGraphNode_t,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        check_set_copy(count, dst, symbol)?;
        let k = from_symbol(rt, dst, symbol, count, offset, kind)?;
        set_kind(rt, node_id(rt, node)?, k)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParamsToSymbol(
    node: hipGraphNode_t,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    call(|rt| {
        check_set_copy(count, symbol, src)?;
        let k = to_symbol(rt, symbol, src, count, offset, kind)?;
        set_kind(rt, node_id(rt, node)?, k)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemsetNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipMemsetParams,
) -> hipError_t {
    call(|rt| match &node_of(rt, node, NodeType::Memset)?.kind {
        NodeKind::Memset(m) => put(
            params,
            hipMemsetParams {
                dst: m.dst as *mut c_void,
                elementSize: m.element_size,
                height: m.height as usize,
                pitch: m.pitch as usize,
                value: m.value,
                width: m.width as usize,
            },
        ),
        _ => Err(INVALID_VALUE),
    })
}

pub(crate) fn memset_from(
    rt: &Runtime,
    params: *const hipMemsetParams,
) -> Result<NodeKind, hipError_t> {
    if params.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: a non-null pointer to the program's parameters.
    Ok(NodeKind::Memset(memset(rt, unsafe { &*params })?))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphMemsetNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipMemsetParams,
) -> hipError_t {
    call(|rt| set_kind(rt, node_id(rt, node)?, memset_from(rt, params)?))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipHostNodeParams,
) -> hipError_t {
    call(|rt| match node_of(rt, node, NodeType::Host)?.kind {
        NodeKind::Host { func, user_data } => put(
            params,
            hipHostNodeParams {
                fn_: Some(func),
                userData: user_data as *mut c_void,
            },
        ),
        _ => Err(INVALID_VALUE),
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipHostNodeParams,
) -> hipError_t {
    call(|rt| set_kind(rt, node_id(rt, node)?, host(params)?))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphChildGraphNodeGetGraph(
    node: hipGraphNode_t,
    graph: *mut hipGraph_t,
) -> hipError_t {
    call(|rt| match node_of(rt, node, NodeType::Graph)?.kind {
        NodeKind::Graph(g) => put(graph, g as hipGraph_t),
        _ => Err(INVALID_VALUE),
    })
}

fn event_of(rt: &Runtime, node: hipGraphNode_t, t: NodeType) -> Result<usize, hipError_t> {
    match node_of(rt, node, t)?.kind {
        NodeKind::EventRecord(e) | NodeKind::WaitEvent(e) => Ok(e),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) fn event_kind(rt: &Runtime, t: NodeType, e: hipEvent_t) -> Result<NodeKind, hipError_t> {
    let e = event(rt, e)?;
    Ok(match t {
        NodeType::EventRecord => NodeKind::EventRecord(e),
        _ => NodeKind::WaitEvent(e),
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphEventRecordNodeGetEvent(
    node: hipGraphNode_t,
    e: *mut hipEvent_t,
) -> hipError_t {
    call(|rt| put(e, event_of(rt, node, NodeType::EventRecord)? as hipEvent_t))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphEventRecordNodeSetEvent(
    node: hipGraphNode_t,
    e: hipEvent_t,
) -> hipError_t {
    call(|rt| {
        let k = event_kind(rt, NodeType::EventRecord, e)?;
        set_kind(rt, node_id(rt, node)?, k)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphEventWaitNodeGetEvent(
    node: hipGraphNode_t,
    e: *mut hipEvent_t,
) -> hipError_t {
    call(|rt| put(e, event_of(rt, node, NodeType::WaitEvent)? as hipEvent_t))
}

#[no_mangle]
pub unsafe extern "C" fn hipGraphEventWaitNodeSetEvent(
    node: hipGraphNode_t,
    e: hipEvent_t,
) -> hipError_t {
    call(|rt| {
        let k = event_kind(rt, NodeType::WaitEvent, e)?;
        set_kind(rt, node_id(rt, node)?, k)
    })
}
