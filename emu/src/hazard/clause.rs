//! XNACK soft clauses: a run of consecutive SMEM, or of consecutive VMEM/FLAT, instructions.
//!
//! With XNACK replay the hardware may issue the members of a clause again after some of them
//! have returned, so no member may write a register that a member of the same clause reads (its
//! own operands included), and a store may not join loads. Software breaks a clause with any
//! other instruction (`s_nop 0`). LLVM checks this in `GCNHazardRecognizer::checkSoftClauseHazards`
//! with the explicit defs of the earlier members and every other register operand as uses.
//!
//! The clause is not cut to LLVM's window: LLVM looks at the last 5 issued instructions (19 in a
//! function that uses AGPRs), so a member further back that writes what the clause reads (or
//! reads what a later member writes) is a hazard its compiler output may still hold.

use super::check::{History, Hit, Step};
use super::model::InstModel;
use super::regs::RegSet;
use super::rules::ClauseKind;

/// Soft clauses longer than this are not followed further back (the counters a clause fills,
/// 6-bit VM_CNT and 4-bit LGKM_CNT, stall the issue far below it).
const MAX_CLAUSE: usize = 64;

pub fn is_member(kind: ClauseKind, m: &InstModel) -> bool {
    match kind {
        ClauseKind::Smem => m.is_smem(),
        ClauseKind::Vmem => m.is_vmem_or_flat(),
    }
}

/// One earlier member of the clause.
struct Member<P> {
    pos: P,
    /// Instructions strictly between it and the consumer.
    distance: u32,
    writes: RegSet,
    reads: RegSet,
    stores: bool,
}

/// The registers of a run of members, and whether the next member would need a break before it.
#[derive(Clone, Copy, Default)]
struct Run {
    defs: RegSet,
    uses: RegSet,
}

impl Run {
    /// A member writing `writes`, reading `reads` must be kept out of this run: the run defines
    /// something, and the member stores or the run with it writes what it reads.
    fn breaks(self, writes: RegSet, reads: RegSet, stores: bool) -> bool {
        if self.defs.is_empty() {
            return false;
        }
        stores || self.defs.union(writes).overlaps(self.uses.union(reads))
    }

    fn add(&mut self, writes: RegSet, reads: RegSet) {
        self.defs = self.defs.union(writes);
        self.uses = self.uses.union(reads);
    }
}

/// Whether `m` must be kept out of the clause it would join, and with which member it clashes.
///
/// Every member that needs a break is reported at itself, so the members after it are checked
/// against the clause as that break would leave it: the run from that member on. One missing
/// break is one finding, and its fix (a break right before the member) is the whole fix. The
/// run is the union over all paths; a break is assumed only where one member is at that
/// distance (a clause reached along several paths keeps every path's members).
pub fn soft_clause<H: History>(
    kind: ClauseKind,
    m: &InstModel,
    history: &H,
) -> Option<Hit<H::Pos>> {
    if !is_member(kind, m) {
        return None;
    }
    let mut members: Vec<Member<H::Pos>> = Vec::new();
    history.walk_back(&mut |pos, prev, distance| {
        if !is_member(kind, prev) || distance as usize >= MAX_CLAUSE {
            return Step::Stop;
        }
        members.push(Member {
            pos,
            distance,
            writes: prev.writes,
            reads: prev.reads,
            stores: prev.may_store(),
        });
        Step::Continue
    });
    // Oldest first: members at the same distance (several paths) form one step.
    members.sort_by_key(|m| std::cmp::Reverse(m.distance));
    let mut run = Run::default();
    let mut start = 0;
    let mut i = 0;
    while i < members.len() {
        let at = members[i].distance;
        let end = i + members[i..].iter().take_while(|x| x.distance == at).count();
        if let [one] = &members[i..end] {
            if run.breaks(one.writes, one.reads, one.stores) {
                run = Run::default();
                start = i;
            }
        }
        for x in &members[i..end] {
            run.add(x.writes, x.reads);
        }
        i = end;
    }
    let clause = &members[start..];
    if !run.breaks(m.writes, m.reads, m.may_store()) {
        return None;
    }
    let hit = |x: &Member<H::Pos>| Hit {
        producer: x.pos,
        provided: 0,
        required: 1,
    };
    let nearest_first = || clause.iter().rev();
    if m.may_store() {
        // The nearest member that defines something is the one the store must not join.
        return nearest_first().find(|x| !x.writes.is_empty()).map(hit);
    }
    // Blame the nearest member whose defs clash with the clause's uses, or whose uses clash with
    // `m`'s defs.
    let uses = run.uses.union(m.reads);
    nearest_first()
        .find(|x| {
            x.writes.overlaps(uses) || x.reads.overlaps(m.writes) || x.writes.overlaps(m.reads)
        })
        .or(clause.last())
        .map(hit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcn_isa::{assemble_inst, Target};

    /// A straight line of instructions, newest last.
    struct Line(Vec<InstModel>);

    impl History for Line {
        type Pos = usize;

        fn walk_back(&self, visit: &mut dyn FnMut(usize, &InstModel, u32) -> Step) {
            let mut between = 0;
            for (k, m) in self.0.iter().enumerate().rev() {
                if visit(k, m, between) == Step::Stop {
                    return;
                }
                between += m.wait_states as u32;
            }
        }
    }

    /// The (consumer, producer) index of every member the rule reports.
    fn findings(kind: ClauseKind, lines: &[&str]) -> Vec<(usize, usize)> {
        let models: Vec<InstModel> = lines
            .iter()
            .map(|l| InstModel::new(assemble_inst(l, Target::Gfx90a).expect(l)))
            .collect();
        (0..models.len())
            .filter_map(|k| {
                let before = Line(models[..k].to_vec());
                soft_clause(kind, &models[k], &before).map(|h| (k, h.producer))
            })
            .collect()
    }

    #[test]
    fn a_missing_break_is_reported_once_at_the_member_it_goes_before() {
        let found = findings(
            ClauseKind::Vmem,
            &[
                "global_load_dword v4, v[0:1], off",
                "global_load_dword v5, v[2:3], off",
                "global_load_dwordx2 v[0:1], v[6:7], off",
                "global_load_dword v8, v[10:11], off",
                "global_load_dword v9, v[12:13], off",
            ],
        );
        assert_eq!(found, vec![(2, 0)]);
    }

    #[test]
    fn after_a_break_the_run_from_that_member_counts() {
        // The member at 2 needs a break; 3 then overwrites what 2 read, a clash of its own.
        let found = findings(
            ClauseKind::Vmem,
            &[
                "global_load_dword v4, v[0:1], off",
                "global_load_dword v5, v[2:3], off",
                "global_load_dwordx2 v[0:1], v[6:7], off",
                "global_load_dwordx2 v[6:7], v[10:11], off",
            ],
        );
        assert_eq!(found, vec![(2, 0), (3, 2)]);
    }

    #[test]
    fn a_clash_further_back_than_llvm_looks_is_reported() {
        let mut lines = vec!["s_load_dword s0, s[4:5], 0x4"];
        lines.extend(["s_load_dword s10, s[6:7], 0x0"; 6]);
        lines.push("s_load_dwordx2 s[4:5], s[6:7], 0x40");
        assert_eq!(findings(ClauseKind::Smem, &lines), vec![(7, 0)]);
    }

    #[test]
    fn a_store_after_a_break_joins_the_new_run() {
        // The store at 2 needs a break; the load after it defines something, so the next store
        // needs one too.
        let found = findings(
            ClauseKind::Vmem,
            &[
                "global_load_dword v4, v[0:1], off",
                "global_store_dword v[2:3], v5, off",
                "global_load_dword v6, v[8:9], off",
                "global_store_dword v[10:11], v7, off",
            ],
        );
        assert_eq!(found, vec![(1, 0), (3, 2)]);
    }
}
