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
use gcn_isa::{Op, Regs};
use hashbrown::HashMap;

/// One reachable instruction.
#[derive(Debug)]
pub struct Node {
    pub addr: u64,
    pub model: InstModel,
    /// At most two: fall-through and branch target.
    pub succs: Succs,
    pub preds: Vec<Edge>,
}

/// The (at most two) successors of a node, kept inline.
#[derive(Clone, Copy, Debug, Default)]
pub struct Succs {
    edges: [Edge; 2],
    len: u8,
}

impl Succs {
    fn push(&mut self, e: Edge) {
        if (self.len as usize) < self.edges.len() {
            self.edges[self.len as usize] = e;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Succs {
    type Target = [Edge];
    fn deref(&self) -> &[Edge] {
        &self.edges[..self.len as usize]
    }
}

/// A control-flow edge (`node` is the other end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Some path leaves the graph: a branch outside `[entry, end)`, or a jump, call or return
    /// through a register (whose target the graph does not know).
    pub escapes: bool,
}

/// Wait states the shortest callee (a lone `s_setpc_b64`) provides across a call.
pub const CALL_RETURN_WAIT_STATES: u32 = 1;

/// Whether `op` may take a path the graph does not hold: a call (whose callee the graph does
/// not follow), a return or jump through registers, or `s_cbranch_g_fork`/`s_cbranch_join`,
/// which jump through SGPRs.
pub fn leaves_graph(op: Op) -> bool {
    matches!(
        op,
        Op::S_SETPC_B64
            | Op::S_SWAPPC_B64
            | Op::S_CALL_B64
            | Op::S_RFE_B64
            | Op::S_RFE_RESTORE_B64
            | Op::S_CBRANCH_G_FORK
            | Op::S_CBRANCH_JOIN
    )
}

/// Upper bound on instructions decoded for one function (a 16 MiB function at 4 bytes each);
/// keeps a malformed input from exhausting memory.
const MAX_NODES: usize = 1 << 22;

/// Slot mark for a reachable address whose bytes do not decode.
const UNDECODABLE: u32 = u32::MAX - 1;

impl Graph {
    /// Decodes and links the function starting at `entry` in `bytes` (which start at address
    /// `base`), staying within `[entry, end)`.
    pub fn build(bytes: &[u8], base: u64, entry: u64, end: u64, target: gcn_isa::Target) -> Graph {
        // Instructions are dword-aligned, so `(addr - entry) / 4` indexes a dense slot table.
        let slots = ((end - entry) / 4) as usize;
        let mut slot_of: Vec<u32> = vec![u32::MAX; slots.min(MAX_NODES * 4)];
        let mut decoded: Vec<Option<(u64, InstModel, Targets)>> = Vec::new();
        let mut problems = Vec::new();
        let mut escapes = false;
        let mut work = vec![entry];
        let in_range = |a: u64| a >= entry && a < end && a % 4 == entry % 4;
        while let Some(addr) = work.pop() {
            let slot = ((addr - entry) / 4) as usize;
            if slot >= slot_of.len() || slot_of[slot] != u32::MAX || decoded.len() >= MAX_NODES {
                continue;
            }
            let offset = (addr - base) as usize;
            let rest = bytes.get(offset..).unwrap_or(&[]);
            let rest = &rest[..rest.len().min((end - addr) as usize)];
            let inst = match gcn_isa::decode(rest, target) {
                Ok(inst) => inst,
                Err(e) => {
                    slot_of[slot] = UNDECODABLE;
                    problems.push(DecodeProblem {
                        addr,
                        message: format!("reachable bytes do not decode: {e}"),
                    });
                    continue;
                }
            };
            let model = InstModel::new(inst);
            let next = addr + inst.len() as u64;
            let mut succs = successors(&model, addr, next);
            escapes |= leaves_graph(model.op);
            for s in succs.iter_mut() {
                escapes |= s.is_some_and(|(a, _)| !in_range(a));
                *s = s.filter(|(a, _)| in_range(*a));
                if let Some((a, _)) = s {
                    work.push(*a);
                }
            }
            slot_of[slot] = decoded.len() as u32;
            decoded.push(Some((addr, model, succs)));
        }
        // Number the nodes in address order (slot order), without moving the models twice.
        let mut order = Vec::with_capacity(decoded.len());
        for slot in slot_of.iter_mut() {
            if (*slot as usize) < decoded.len() {
                order.push(*slot as usize);
                *slot = (order.len() - 1) as u32;
            }
        }
        let index = |addr: u64| -> Option<usize> {
            let slot = *slot_of.get(((addr - entry) / 4) as usize)?;
            ((slot as usize) < order.len()).then_some(slot as usize)
        };
        let mut nodes: Vec<Node> = Vec::with_capacity(order.len());
        let mut links = Vec::with_capacity(order.len());
        for k in order.iter() {
            let (addr, model, succs) = decoded[*k].take().expect("each slot once");
            links.push(succs.map(|s| s.and_then(|(a, call)| Some((index(a)?, call)))));
            nodes.push(Node {
                addr,
                model,
                succs: Succs::default(),
                preds: Vec::new(),
            });
        }
        for (from, succs) in links.into_iter().enumerate() {
            for (to, call_return) in succs.into_iter().flatten() {
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
        Graph {
            nodes,
            problems,
            escapes,
        }
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

/// Up to two successor addresses, each flagged when it is the return edge of a call.
type Targets = [Option<(u64, bool)>; 2];

/// Where control can go after the instruction at `addr` (`next` is the following address);
/// the flag marks the return edge of a call.
fn successors(m: &InstModel, addr: u64, next: u64) -> Targets {
    let target = m.inst.branch_target(addr);
    match m.op {
        Op::S_ENDPGM
        | Op::S_ENDPGM_SAVED
        | Op::S_ENDPGM_ORDERED_PS_DONE
        | Op::S_SETPC_B64
        | Op::S_RFE_B64
        | Op::S_RFE_RESTORE_B64 => [None, None],
        Op::S_BRANCH => [target.map(|t| (t, false)), None],
        Op::S_SWAPPC_B64 | Op::S_CALL_B64 => [Some((next, true)), None],
        // The conditional branches, forks and joins: fall through or jump.
        _ if m.class.writes.contains(Regs::PC) => [Some((next, false)), target.map(|t| (t, false))],
        _ => [Some((next, false)), None],
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
        let mut best = Best::default();
        let mut stack: Vec<(usize, u32)> = nodes[self.at]
            .preds
            .iter()
            .map(|e| (e.node, edge_wait_states(e)))
            .collect();
        while let Some((n, between)) = stack.pop() {
            if !best.improve(n, between) {
                continue;
            }
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

/// The fewest wait states each node was reached with: a short list for the usual few-step
/// walks, a hash map once a walk grows long (the stale-VCCZ walk may cover a function).
#[derive(Default)]
struct Best {
    few: Vec<(usize, u32)>,
    many: HashMap<usize, u32>,
}

impl Best {
    /// Records `between` for `n`; false if `n` was already reached with no more wait states.
    fn improve(&mut self, n: usize, between: u32) -> bool {
        if self.many.is_empty() {
            if let Some(entry) = self.few.iter_mut().find(|(k, _)| *k == n) {
                if entry.1 <= between {
                    return false;
                }
                entry.1 = between;
                return true;
            }
            if self.few.len() < 32 {
                self.few.push((n, between));
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        match self.many.get_mut(&n) {
            Some(b) if *b <= between => false,
            Some(b) => {
                *b = between;
                true
            }
            None => {
                self.many.insert(n, between);
                true
            }
        }
    }
}
