//! The control-flow graph of one function, built from its entry by following SOPP branches,
//! `s_cbranch_i_fork`, calls and fall-through. Only reachable bytes are decoded, so padding
//! and data after `s_endpgm` never become instructions.
//!
//! Calls (`s_swappc_b64`, `s_call_b64`) return to the next instruction; the callee is not
//! followed, and the return edge is counted as the callee's one `s_setpc_b64` of wait states.
//! `s_setpc_b64` ends a path (a return or an indirect jump); so do `s_endpgm*` and `s_rfe_b64`.
//! `s_cbranch_g_fork` and `s_cbranch_join` jump through SGPRs: only their fall-through is known.
//! A branch out of the function is a tail jump and ends the path.

use super::check::{History, Step};
use super::model::InstModel;
use std::collections::{BTreeSet, HashMap};

/// One reachable instruction.
#[derive(Debug)]
pub struct Node {
    pub addr: u64,
    pub model: InstModel,
    pub succs: Vec<Edge>,
    pub preds: Vec<Edge>,
}

/// A control-flow edge (`node` is the other end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub node: usize,
    /// A return from a call: the callee ran in between.
    pub call_return: bool,
}

/// A reachable word that does not decode (the path through it ends there).
#[derive(Clone, Debug)]
pub struct DecodeProblem {
    pub addr: u64,
    pub message: String,
}

/// The instructions of one function reachable from its entry, in address order.
#[derive(Debug, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub problems: Vec<DecodeProblem>,
}

/// Wait states the shortest callee (a lone `s_setpc_b64`) provides across a call.
pub const CALL_RETURN_WAIT_STATES: u32 = 1;

/// Upper bound on instructions decoded for one function (a 16 MiB function at 4 bytes each);
/// keeps a malformed input from exhausting memory.
const MAX_NODES: usize = 1 << 22;

impl Graph {
    /// Decodes and links the function starting at `entry` in `bytes` (which start at address
    /// `base`), staying within `[entry, end)`.
    pub fn build(bytes: &[u8], base: u64, entry: u64, end: u64, target: gcn_isa::Target) -> Graph {
        let mut decoded: HashMap<u64, (InstModel, Vec<(u64, bool)>)> = HashMap::new();
        let mut problems = Vec::new();
        let mut work = vec![entry];
        let in_range = |a: u64| a >= entry && a < end;
        while let Some(addr) = work.pop() {
            if decoded.contains_key(&addr) || decoded.len() >= MAX_NODES {
                continue;
            }
            let offset = (addr - base) as usize;
            let rest = bytes.get(offset..).unwrap_or(&[]);
            let rest = &rest[..rest.len().min((end - addr) as usize)];
            let inst = match gcn_isa::decode(rest, target) {
                Ok(inst) => inst,
                Err(e) => {
                    problems.push(DecodeProblem {
                        addr,
                        message: format!("reachable bytes do not decode: {e}"),
                    });
                    continue;
                }
            };
            let model = InstModel::new(inst);
            let next = addr + inst.len() as u64;
            let succs: Vec<(u64, bool)> = successors(&model, addr, next)
                .into_iter()
                .filter(|(a, _)| in_range(*a))
                .collect();
            work.extend(succs.iter().map(|(a, _)| *a));
            decoded.insert(addr, (model, succs));
        }
        let order: BTreeSet<u64> = decoded.keys().copied().collect();
        let index: HashMap<u64, usize> = order.iter().enumerate().map(|(i, a)| (*a, i)).collect();
        let mut nodes: Vec<Node> = Vec::with_capacity(order.len());
        let mut links = Vec::with_capacity(order.len());
        for addr in &order {
            let (model, succs) = decoded.remove(addr).expect("address came from the map");
            nodes.push(Node {
                addr: *addr,
                model,
                succs: Vec::new(),
                preds: Vec::new(),
            });
            links.push(succs);
        }
        for (from, succs) in links.into_iter().enumerate() {
            for (addr, call_return) in succs {
                // An instruction that overlaps another's bytes was never decoded on its own.
                let Some(&to) = index.get(&addr) else {
                    continue;
                };
                nodes[from].succs.push(Edge {
                    node: to,
                    call_return,
                });
                nodes[to].preds.push(Edge {
                    node: from,
                    call_return,
                });
            }
        }
        problems.sort_by_key(|p| p.addr);
        Graph { nodes, problems }
    }

    /// The node at byte address `addr`.
    pub fn find(&self, addr: u64) -> Option<usize> {
        self.nodes.binary_search_by_key(&addr, |n| n.addr).ok()
    }

    /// The history before node `at`, for evaluating rules there.
    pub fn history(&self, at: usize) -> CfgHistory<'_> {
        CfgHistory { graph: self, at }
    }
}

/// Where control can go after the instruction at `addr` (`next` is the following address);
/// the flag marks the return edge of a call.
fn successors(m: &InstModel, addr: u64, next: u64) -> Vec<(u64, bool)> {
    let name = m.name;
    let target = m.inst.branch_target(addr);
    match name {
        "s_endpgm"
        | "s_endpgm_saved"
        | "s_endpgm_ordered_ps_done"
        | "s_setpc_b64"
        | "s_rfe_b64"
        | "s_rfe_restore_b64" => vec![],
        "s_branch" => target.into_iter().map(|t| (t, false)).collect(),
        "s_swappc_b64" | "s_call_b64" => vec![(next, true)],
        _ if name.starts_with("s_cbranch_") => {
            let mut out = vec![(next, false)];
            out.extend(target.map(|t| (t, false)));
            out
        }
        _ => vec![(next, false)],
    }
}

/// The instructions before one node, walked backwards through the CFG.
pub struct CfgHistory<'g> {
    graph: &'g Graph,
    at: usize,
}

impl History for CfgHistory<'_> {
    type Pos = usize;

    fn walk_back(&self, visit: &mut dyn FnMut(usize, &InstModel, u32) -> Step) {
        let nodes = &self.graph.nodes;
        // Depth-first over predecessors; a node is walked past again only when reached with
        // fewer wait states than before, which gives the minimum over paths and ends loops.
        let mut best: HashMap<usize, u32> = HashMap::new();
        let mut stack: Vec<(usize, u32)> = nodes[self.at]
            .preds
            .iter()
            .map(|e| (e.node, edge_wait_states(e)))
            .collect();
        while let Some((n, between)) = stack.pop() {
            match best.get(&n) {
                Some(&b) if b <= between => continue,
                _ => {}
            }
            best.insert(n, between);
            let node = &nodes[n];
            if visit(n, &node.model, between) == Step::Stop {
                continue;
            }
            let after = between + node.model.wait_states as u32;
            for e in &node.preds {
                stack.push((e.node, after + edge_wait_states(e)));
            }
        }
    }
}

fn edge_wait_states(e: &Edge) -> u32 {
    if e.call_return {
        CALL_RETURN_WAIT_STATES
    } else {
        0
    }
}
