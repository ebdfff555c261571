//! HIP graphs as data: graphs, their nodes and edges, executable graphs, and the stream captures
//! that build graphs. The runtime holds one [`Graphs`]; the exported functions (`api/graph.rs`,
//! `api/capture.rs`) validate their arguments and run the nodes.
//!
//! Handles are opaque numbers from their own range, so a stream or event handle passed as a
//! graph or node (or one already destroyed) is simply not found: `hipErrorInvalidValue`, never a
//! dereference.

use crate::error::*;
use crate::types::*;
use std::collections::{HashMap, HashSet};
use std::thread::ThreadId;

pub(crate) type GraphId = usize;
pub(crate) type NodeId = usize;
pub(crate) type CaptureId = u64;

/// `hipGraphNodeType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeType {
    Kernel = 1,
    Memcpy = 2,
    Memset = 3,
    Host = 4,
    Graph = 5,
    Empty = 6,
    WaitEvent = 7,
    EventRecord = 8,
    Memcpy1D = 9,
    MemcpyFromSymbol = 10,
    MemcpyToSymbol = 11,
}

/// A kernel node: the kernel and a copy of its arguments, taken when the node was made or set
/// (HIP's `kernelParams` point at host values that may be gone by launch time).
#[derive(Debug)]
pub(crate) struct Kernel {
    /// `func` as the program gave it: a host stub or a `hipFunction_t`.
    pub(crate) func: usize,
    pub(crate) module: usize,
    pub(crate) name: String,
    pub(crate) grid: dim3,
    pub(crate) block: dim3,
    pub(crate) shared: u32,
    pub(crate) args: Vec<Box<[u8]>>,
    /// One pointer per argument into `args`: the `kernelParams` array
    /// `hipGraphKernelNodeGetParams` hands out.
    pub(crate) arg_pointers: Vec<usize>,
}

impl Kernel {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        func: usize,
        module: usize,
        name: String,
        grid: dim3,
        block: dim3,
        shared: u32,
        args: Vec<Box<[u8]>>,
    ) -> Kernel {
        let arg_pointers = args.iter().map(|a| a.as_ptr() as usize).collect();
        Kernel {
            func,
            module,
            name,
            grid,
            block,
            shared,
            args,
            arg_pointers,
        }
    }
}

impl Clone for Kernel {
    /// A clone owns its own argument bytes, so its pointers are made afresh.
    fn clone(&self) -> Kernel {
        Kernel::new(
            self.func,
            self.module,
            self.name.clone(),
            self.grid,
            self.block,
            self.shared,
            self.args.clone(),
        )
    }
}

/// A pitched linear buffer of `hipMemcpy3DParms` (arrays are not supported here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pitched {
    pub(crate) ptr: u64,
    pub(crate) pitch: u64,
    pub(crate) xsize: u64,
    pub(crate) ysize: u64,
}

/// `hipMemcpy3DParms` between linear buffers; positions and the extent's width in bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Copy3d {
    pub(crate) src: Pitched,
    pub(crate) src_pos: [u64; 3],
    pub(crate) dst: Pitched,
    pub(crate) dst_pos: [u64; 3],
    pub(crate) extent: [u64; 3],
    pub(crate) kind: i32,
    /// The `hipMemcpy3DParms` a node was given, as its bytes, so that
    /// `hipGraphMemcpyNodeGetParams` gives them back as they were (arrays, pitched pointers'
    /// sizes), not as the copy they resolved to.
    pub(crate) given: Option<Box<[u64; 20]>>,
}

/// `hipMemsetParams`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Memset {
    pub(crate) dst: u64,
    pub(crate) element_size: u32,
    pub(crate) value: u32,
    pub(crate) width: u64,
    pub(crate) height: u64,
    pub(crate) pitch: u64,
}

/// What a node does.
#[derive(Clone, Debug)]
pub(crate) enum NodeKind {
    Kernel(Kernel),
    Memcpy(Copy3d),
    Memcpy1D {
        dst: u64,
        src: u64,
        count: u64,
        kind: i32,
    },
    MemcpyFromSymbol {
        dst: u64,
        symbol: usize,
        count: u64,
        offset: u64,
        kind: i32,
    },
    MemcpyToSymbol {
        symbol: usize,
        src: u64,
        count: u64,
        offset: u64,
        kind: i32,
    },
    Memset(Memset),
    Host {
        func: unsafe extern "C" fn(*mut std::ffi::c_void),
        user_data: usize,
    },
    /// A child graph, owned by the node (a clone of the graph the program gave).
    Graph(GraphId),
    Empty,
    WaitEvent(usize),
    EventRecord(usize),
}

impl NodeKind {
    pub(crate) fn node_type(&self) -> NodeType {
        match self {
            NodeKind::Kernel(_) => NodeType::Kernel,
            NodeKind::Memcpy(_) => NodeType::Memcpy,
            NodeKind::Memcpy1D { .. } => NodeType::Memcpy1D,
            NodeKind::MemcpyFromSymbol { .. } => NodeType::MemcpyFromSymbol,
            NodeKind::MemcpyToSymbol { .. } => NodeType::MemcpyToSymbol,
            NodeKind::Memset(_) => NodeType::Memset,
            NodeKind::Host { .. } => NodeType::Host,
            NodeKind::Graph(_) => NodeType::Graph,
            NodeKind::Empty => NodeType::Empty,
            NodeKind::WaitEvent(_) => NodeType::WaitEvent,
            NodeKind::EventRecord(_) => NodeType::EventRecord,
        }
    }
}

pub(crate) struct Node {
    pub(crate) graph: GraphId,
    pub(crate) kind: NodeKind,
    /// The nodes this one depends on, in the order the edges were added.
    pub(crate) deps: Vec<NodeId>,
    /// The node of the original graph this one is a clone of (`hipGraphNodeFindInClone`).
    pub(crate) cloned_from: Option<NodeId>,
}

pub(crate) struct Graph {
    /// In the order they were added: `hipGraphGetNodes` lists them so, and ties of the
    /// topological order are broken by it, so a launch runs in a reproducible order.
    pub(crate) nodes: Vec<NodeId>,
    pub(crate) cloned_from: Option<GraphId>,
    /// A child graph's node: the graph goes when its node goes.
    pub(crate) owner: Option<NodeId>,
}

/// An executable graph: a private clone of the graph it was instantiated from, so later
/// changes to that graph do not reach it, and which node of the clone each original node is.
pub(crate) struct Exec {
    pub(crate) graph: GraphId,
    pub(crate) clones: HashMap<NodeId, NodeId>,
}

/// One stream capture (`hipStreamBeginCapture` to `hipStreamEndCapture`).
pub(crate) struct Capture {
    pub(crate) graph: GraphId,
    /// `hipStreamCaptureMode`.
    pub(crate) mode: i32,
    pub(crate) invalidated: bool,
    /// The stream that began the capture; only it may end it.
    pub(crate) origin: usize,
    pub(crate) thread: ThreadId,
}

/// A stream taking part in a capture: the nodes its next operation will depend on.
pub(crate) struct StreamCapture {
    pub(crate) capture: CaptureId,
    pub(crate) deps: Vec<NodeId>,
}

pub(crate) struct Graphs {
    pub(crate) graphs: HashMap<GraphId, Graph>,
    pub(crate) nodes: HashMap<NodeId, Node>,
    pub(crate) execs: HashMap<usize, Exec>,
    pub(crate) captures: HashMap<CaptureId, Capture>,
    /// Streams in a capture, by stream handle.
    pub(crate) capturing: HashMap<usize, StreamCapture>,
    /// Events recorded on a capturing stream: the capture and the nodes before the record, which
    /// a stream that waits for the event depends on.
    pub(crate) captured_events: HashMap<usize, (CaptureId, Vec<NodeId>)>,
    /// Streams destroyed while they captured: ending their capture is
    /// `hipErrorContextIsDestroyed`, as in hipamd.
    pub(crate) destroyed_while_capturing: HashSet<usize>,
    next_handle: usize,
    next_capture: CaptureId,
}

impl Default for Graphs {
    fn default() -> Graphs {
        Graphs {
            graphs: HashMap::new(),
            nodes: HashMap::new(),
            execs: HashMap::new(),
            captures: HashMap::new(),
            capturing: HashMap::new(),
            captured_events: HashMap::new(),
            destroyed_while_capturing: HashSet::new(),
            // Far above the runtime's other handles, so that no stream or event handle is ever
            // also a graph, node or executable graph.
            next_handle: 1 << 44,
            next_capture: 0,
        }
    }
}

impl Graphs {
    pub(crate) fn new_handle(&mut self) -> usize {
        self.next_handle += 16;
        self.next_handle
    }

    pub(crate) fn new_capture_id(&mut self) -> CaptureId {
        self.next_capture += 1;
        self.next_capture
    }

    pub(crate) fn create(
        &mut self,
        cloned_from: Option<GraphId>,
        owner: Option<NodeId>,
    ) -> GraphId {
        let id = self.new_handle();
        self.graphs.insert(
            id,
            Graph {
                nodes: Vec::new(),
                cloned_from,
                owner,
            },
        );
        id
    }

    /// A live graph.
    pub(crate) fn graph(&self, g: usize) -> Result<&Graph, hipError_t> {
        self.graphs.get(&g).ok_or(INVALID_VALUE)
    }

    pub(crate) fn node(&self, n: usize) -> Result<&Node, hipError_t> {
        self.nodes.get(&n).ok_or(INVALID_VALUE)
    }

    pub(crate) fn node_mut(&mut self, n: usize) -> Result<&mut Node, hipError_t> {
        self.nodes.get_mut(&n).ok_or(INVALID_VALUE)
    }

    /// Adds a node depending on `deps`, each a node of `graph`, listed once.
    pub(crate) fn add_node(
        &mut self,
        graph: GraphId,
        kind: NodeKind,
        deps: &[NodeId],
    ) -> Result<NodeId, hipError_t> {
        self.graph(graph)?;
        let mut seen = HashSet::new();
        for d in deps {
            if self.node(*d)?.graph != graph || !seen.insert(*d) {
                return Err(INVALID_VALUE);
            }
        }
        let id = self.new_handle();
        self.nodes.insert(
            id,
            Node {
                graph,
                kind,
                deps: deps.to_vec(),
                cloned_from: None,
            },
        );
        self.graphs.get_mut(&graph).unwrap().nodes.push(id);
        Ok(id)
    }

    /// Destroys a graph, its nodes and their child graphs.
    pub(crate) fn destroy(&mut self, g: GraphId) {
        if let Some(graph) = self.graphs.remove(&g) {
            for n in graph.nodes {
                if let Some(node) = self.nodes.remove(&n) {
                    if let NodeKind::Graph(child) = node.kind {
                        self.destroy(child);
                    }
                }
            }
        }
    }

    /// Removes a node and every edge to or from it.
    pub(crate) fn destroy_node(&mut self, n: NodeId) -> Result<(), hipError_t> {
        let node = self.nodes.remove(&n).ok_or(INVALID_VALUE)?;
        if let Some(g) = self.graphs.get_mut(&node.graph) {
            g.nodes.retain(|&m| m != n);
            for m in g.nodes.clone() {
                if let Some(other) = self.nodes.get_mut(&m) {
                    other.deps.retain(|&d| d != n);
                }
            }
        }
        if let NodeKind::Graph(child) = node.kind {
            self.destroy(child);
        }
        for s in self.capturing.values_mut() {
            s.deps.retain(|&d| d != n);
        }
        Ok(())
    }

    /// The nodes that depend on `n`, in the order of the graph's nodes.
    pub(crate) fn dependents(&self, n: NodeId) -> Result<Vec<NodeId>, hipError_t> {
        let g = self.graph(self.node(n)?.graph)?;
        Ok(g.nodes
            .iter()
            .copied()
            .filter(|m| self.nodes[m].deps.contains(&n))
            .collect())
    }

    /// Every edge `(from, to)` of a graph.
    pub(crate) fn edges(&self, g: GraphId) -> Result<Vec<(NodeId, NodeId)>, hipError_t> {
        Ok(self
            .graph(g)?
            .nodes
            .iter()
            .flat_map(|&to| self.nodes[&to].deps.iter().map(move |&from| (from, to)))
            .collect())
    }

    pub(crate) fn roots(&self, g: GraphId) -> Result<Vec<NodeId>, hipError_t> {
        Ok(self
            .graph(g)?
            .nodes
            .iter()
            .copied()
            .filter(|n| self.nodes[n].deps.is_empty())
            .collect())
    }

    /// The nodes in an order their edges allow (ties in the order they were added), or a node on
    /// a cycle.
    pub(crate) fn topological_order(&self, g: GraphId) -> Result<Vec<NodeId>, NodeId> {
        let nodes = &self.graphs[&g].nodes;
        let mut waiting: HashMap<NodeId, usize> = nodes
            .iter()
            .map(|n| (*n, self.nodes[n].deps.len()))
            .collect();
        let mut order = Vec::with_capacity(nodes.len());
        let mut done = HashSet::new();
        while order.len() < nodes.len() {
            let Some(&next) = nodes
                .iter()
                .find(|n| !done.contains(*n) && waiting[*n] == 0)
            else {
                let stuck = nodes.iter().find(|n| !done.contains(*n));
                return Err(*stuck.unwrap());
            };
            done.insert(next);
            order.push(next);
            for n in nodes {
                if self.nodes[n].deps.contains(&next) {
                    *waiting.get_mut(n).unwrap() -= 1;
                }
            }
        }
        Ok(order)
    }

    /// Checks a graph and its child graphs for cycles: the first node found on one.
    pub(crate) fn check_acyclic(&self, g: GraphId) -> Result<(), NodeId> {
        for n in self.topological_order(g)? {
            if let NodeKind::Graph(child) = &self.nodes[&n].kind {
                self.check_acyclic(*child)?;
            }
        }
        Ok(())
    }

    /// A deep copy of a graph (child graphs copied too) and which new node each old one became.
    pub(crate) fn clone_graph(
        &mut self,
        g: GraphId,
        owner: Option<NodeId>,
    ) -> (GraphId, HashMap<NodeId, NodeId>) {
        let copy = self.create(Some(g), owner);
        let old: Vec<NodeId> = self.graphs[&g].nodes.clone();
        let mut map = HashMap::new();
        for n in &old {
            map.insert(*n, self.new_handle());
        }
        for n in &old {
            let node = &self.nodes[n];
            let deps = node.deps.iter().map(|d| map[d]).collect();
            let kind = node.kind.clone();
            let id = map[n];
            let kind = match kind {
                NodeKind::Graph(child) => NodeKind::Graph(self.clone_graph(child, Some(id)).0),
                k => k,
            };
            self.nodes.insert(
                id,
                Node {
                    graph: copy,
                    kind,
                    deps,
                    cloned_from: Some(*n),
                },
            );
            self.graphs.get_mut(&copy).unwrap().nodes.push(id);
        }
        (copy, map)
    }

    /// `nodes` and every node they depend on, directly or not.
    pub(crate) fn with_ancestors(&self, nodes: &[NodeId]) -> HashSet<NodeId> {
        let mut seen = HashSet::new();
        let mut stack = nodes.to_vec();
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                if let Some(node) = self.nodes.get(&n) {
                    stack.extend(node.deps.iter().copied());
                }
            }
        }
        seen
    }
}
