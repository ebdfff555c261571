//! Waitcnt lint: a forward dataflow over the CFG of which registers outstanding memory
//! instructions will still write (or, for exports and GDS, still read), and how many later
//! instructions of the same ordered kind were issued after each one.
//!
//! With `younger` such instructions issued after a load, `s_waitcnt vmcnt(N)` with `N <= younger`
//! proves the load done, because VM_CNT returns in issue order (Vega ISA §4.4). LGKM_CNT is in
//! order only within LDS (FLAT's LDS half included, as LLVM counts it) and within GDS; SMEM
//! returns out of order, so only `lgkmcnt(0)` covers it. At a merge the state is the union of
//! pending writes with the smaller `younger` counts, so a use is clean only if clean on every path.

use super::cfg::Graph;
use super::model::InstModel;
use super::regs::RegSet;
use super::rules::LoadKind;
use gcn_isa::{Category, MemKind, Op};

/// The LGKM_CNT ordering classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LgkmType {
    Lds,
    Gds,
    Smem,
    Message,
}

/// One outstanding memory instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pending {
    producer: usize,
    kind: LoadKind,
    regs: RegSet,
    /// Later VM_CNT instructions (saturating), while VM_CNT still covers this one.
    vm: Option<u8>,
    lgkm: Option<(LgkmType, u8)>,
    exp: Option<u8>,
}

impl Pending {
    fn done(&self) -> bool {
        self.vm.is_none() && self.lgkm.is_none() && self.exp.is_none()
    }

    /// The `s_waitcnt` that would cover this instruction now.
    fn needed_wait(&self) -> String {
        let mut parts = Vec::new();
        if let Some(y) = self.vm {
            parts.push(format!("vmcnt({y})"));
        }
        if let Some((t, y)) = self.lgkm {
            parts.push(format!(
                "lgkmcnt({})",
                if t == LgkmType::Smem { 0 } else { y.min(15) }
            ));
        }
        if let Some(y) = self.exp {
            parts.push(format!("expcnt({})", y.min(7)));
        }
        format!("s_waitcnt {}", parts.join(" "))
    }
}

type State = Vec<Pending>;

/// A use of a register an outstanding instruction still owns.
#[derive(Clone, Debug)]
pub struct WaitFinding {
    pub kind: LoadKind,
    pub consumer: usize,
    pub producer: usize,
    pub regs: RegSet,
    /// The wait that covers it, e.g. `s_waitcnt vmcnt(2)`.
    pub needed: String,
}

/// Cap on outstanding instructions tracked per program point; far above what the counters
/// can hold (vmcnt 63, lgkmcnt 15, expcnt 7), it only bounds hostile input.
const MAX_PENDING: usize = 128;

/// Runs the dataflow over `graph` and returns every uncovered use.
pub fn analyse(graph: &Graph) -> Vec<WaitFinding> {
    let nodes = &graph.nodes;
    if nodes.is_empty() {
        return Vec::new();
    }
    // States are kept at block leaders only; a block is a straight run in which every node
    // but the first has its predecessor just before it as its only one.
    let leader: Vec<bool> = (0..nodes.len())
        .map(|i| {
            i == 0
                || match nodes[i].preds.as_slice() {
                    [only] => {
                        only.node != i - 1 || only.call_return || nodes[only.node].succs.len() != 1
                    }
                    _ => true,
                }
        })
        .collect();
    let block_end = |start: usize| {
        (start + 1..nodes.len())
            .find(|&k| leader[k])
            .unwrap_or(nodes.len())
    };
    let mut state_in: Vec<Option<State>> = vec![None; nodes.len()];
    state_in[0] = Some(Vec::new());
    // The entry is the lowest reachable address, node 0.
    let mut work: std::collections::BTreeSet<usize> = [0].into();
    let mut scratch = Vec::new();
    while let Some(start) = work.pop_first() {
        let mut state = state_in[start].clone().unwrap_or_default();
        let end = block_end(start);
        for i in start..end {
            transfer(graph, i, &mut state, &mut scratch);
        }
        scratch.clear();
        for e in nodes[end - 1].succs.iter() {
            let out = if e.call_return {
                // The callee waits for everything at entry and before it returns (LLVM's
                // calling convention); what it leaves behind is not this function's.
                Vec::new()
            } else {
                state.clone()
            };
            let changed = match &mut state_in[e.node] {
                slot @ None => {
                    *slot = Some(out);
                    true
                }
                Some(existing) => merge(existing, &out),
            };
            if changed {
                work.insert(e.node);
            }
        }
    }
    let mut findings = Vec::new();
    for start in (0..nodes.len()).filter(|&i| leader[i]) {
        if let Some(state) = &state_in[start] {
            let mut state = state.clone();
            for i in start..block_end(start) {
                transfer(graph, i, &mut state, &mut findings);
            }
        }
    }
    findings
}

/// Merges `other` into `into`; returns whether `into` changed.
fn merge(into: &mut State, other: &State) -> bool {
    let mut changed = false;
    for p in other {
        let found = into
            .iter()
            .position(|q| q.producer == p.producer && q.kind == p.kind);
        match found {
            Some(k) => {
                let q = &mut into[k];
                let before = q.clone();
                q.regs = q.regs.union(p.regs);
                q.vm = min_opt(q.vm, p.vm);
                q.lgkm = match (q.lgkm, p.lgkm) {
                    (Some((t, a)), Some((_, b))) => Some((t, a.min(b))),
                    (a, b) => a.or(b),
                };
                q.exp = min_opt(q.exp, p.exp);
                changed |= *q != before;
            }
            None if into.len() < MAX_PENDING => {
                into.push(p.clone());
                changed = true;
            }
            None => {}
        }
    }
    changed
}

fn min_opt(a: Option<u8>, b: Option<u8>) -> Option<u8> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The effect of node `i` on `state`, reporting uses of pending registers into `out`.
fn transfer(graph: &Graph, i: usize, state: &mut State, out: &mut Vec<WaitFinding>) {
    let m = &graph.nodes[i].model;
    if m.op == Op::S_WAITCNT {
        apply_waitcnt(state, m.inst.simm16());
        return;
    }
    check_uses(i, m, state, out);
    issue(i, m, state);
}

/// s_waitcnt simm16 on gfx9: vmcnt = [3:0] | [15:14] << 4, expcnt = [6:4], lgkmcnt = [11:8].
fn apply_waitcnt(state: &mut State, simm16: u16) {
    let vmcnt = ((simm16 & 0xf) | ((simm16 >> 14) << 4)) as u8;
    let expcnt = ((simm16 >> 4) & 7) as u8;
    let lgkmcnt = ((simm16 >> 8) & 0xf) as u8;
    for p in state.iter_mut() {
        if p.vm.is_some_and(|y| y >= vmcnt) {
            p.vm = None;
        }
        if let Some((t, y)) = p.lgkm {
            let covered = if t == LgkmType::Smem {
                lgkmcnt == 0
            } else {
                y >= lgkmcnt
            };
            if covered {
                p.lgkm = None;
            }
        }
        if p.exp.is_some_and(|y| y >= expcnt) {
            p.exp = None;
        }
    }
    state.retain(|p| !p.done());
}

fn check_uses(i: usize, m: &InstModel, state: &mut State, out: &mut Vec<WaitFinding>) {
    let touched = m.reads.union(m.writes);
    let mut k = 0;
    while k < state.len() {
        let p = &state[k];
        let clash = if p.kind == LoadKind::ExportData {
            // The hardware still reads these VGPRs: only an overwrite is a problem.
            m.writes.intersect(p.regs)
        } else {
            touched.intersect(p.regs)
        };
        if clash.is_empty() || same_order_overwrite(m, p, clash) {
            k += 1;
            continue;
        }
        out.push(WaitFinding {
            kind: p.kind,
            consumer: i,
            producer: p.producer,
            regs: clash,
            needed: p.needed_wait(),
        });
        // Report each outstanding write once per use site chain: assume the fix is applied.
        let p = &mut state[k];
        p.regs = p.regs.minus(clash);
        if p.regs.is_empty() {
            state.remove(k);
        } else {
            k += 1;
        }
    }
}

/// A later load of the same in-order kind overwriting a pending load's destination (and not
/// reading it) returns after it, so no wait is needed (as in LLVM's SIInsertWaitcnts).
fn same_order_overwrite(m: &InstModel, p: &Pending, clash: RegSet) -> bool {
    if m.reads.overlaps(clash) {
        return false;
    }
    match (p.kind, load_kind(m)) {
        (LoadKind::Vmem, Some(LoadKind::Vmem)) => true,
        (LoadKind::Ds, Some(LoadKind::Ds)) => lgkm_type(m) == p.lgkm.map(|(t, _)| t),
        _ => false,
    }
}

fn load_kind(m: &InstModel) -> Option<LoadKind> {
    match m.class.category {
        Category::Vmem => Some(LoadKind::Vmem),
        Category::Flat => Some(LoadKind::Flat),
        Category::Ds => Some(LoadKind::Ds),
        Category::Smem => Some(LoadKind::Smem),
        _ => None,
    }
}

fn lgkm_type(m: &InstModel) -> Option<LgkmType> {
    if !m.class.counters.lgkm {
        return None;
    }
    Some(match m.class.category {
        Category::Smem => LgkmType::Smem,
        Category::Ds if m.inst.bits(0, 16, 1) != 0 => LgkmType::Gds,
        Category::Ds | Category::Flat => LgkmType::Lds,
        _ => LgkmType::Message,
    })
}

fn is_gds(m: &InstModel) -> bool {
    m.class.category == Category::Ds && m.inst.bits(0, 16, 1) != 0
}

fn issue(i: usize, m: &InstModel, state: &mut State) {
    let counters = m.class.counters;
    let lgkm = lgkm_type(m);
    let exp = counters.exp || is_gds(m);
    if !(counters.vm || lgkm.is_some() || exp) {
        return;
    }
    for p in state.iter_mut() {
        if counters.vm {
            p.vm = p.vm.map(|y| y.saturating_add(1).min(63));
        }
        if let (Some(t), Some((pt, y))) = (lgkm, p.lgkm) {
            if t == pt && t != LgkmType::Smem {
                p.lgkm = Some((pt, y.saturating_add(1).min(15)));
            }
        }
        if exp {
            p.exp = p.exp.map(|y| y.saturating_add(1).min(7));
        }
    }
    let returns = matches!(
        m.class.mem,
        Some(MemKind::Load | MemKind::AtomicReturn | MemKind::Other)
    );
    let dest = m.writes.minus(super::regs::EXEC).minus(super::regs::VCC);
    if returns && !dest.is_empty() {
        if let Some(kind) = load_kind(m) {
            let flat = kind == LoadKind::Flat;
            push(
                state,
                Pending {
                    producer: i,
                    kind,
                    regs: dest,
                    vm: (counters.vm).then_some(0),
                    lgkm: lgkm
                        .filter(|_| counters.lgkm && (flat || kind != LoadKind::Vmem))
                        .map(|t| (t, 0)),
                    exp: None,
                },
            );
        }
    }
    if exp {
        let held = m.reads.vgprs();
        if !held.is_empty() {
            push(
                state,
                Pending {
                    producer: i,
                    kind: LoadKind::ExportData,
                    regs: held,
                    vm: None,
                    lgkm: None,
                    exp: Some(0),
                },
            );
        }
    }
}

fn push(state: &mut State, p: Pending) {
    // A newer instruction from the same node (a loop) replaces the older record.
    state.retain(|q| !(q.producer == p.producer && q.kind == p.kind));
    if state.len() < MAX_PENDING {
        state.push(p);
    }
}
