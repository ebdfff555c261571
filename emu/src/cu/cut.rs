//! A guest stop's cut: what the launch has issued when it stops. Without the speed machinery,
//! a launch that stops in a window has every CU's issues up to that window's end but for the
//! CUs that stopped in it, which have their issues up to their stop (those of its cycle's turn
//! before the stopping instruction included); one that stops between windows (a memory
//! request, the host) has every CU's issues up to the boundary. The counts and the budget are
//! those of the cut.
//!
//! Two parts of the machinery issue past it: a SIMD's bulk turns ([`super::bulk`]) run to the
//! window's end ahead of the CU's other SIMDs, and a CU's lead ([`super::lead`]) runs windows
//! ahead of the dispatcher. So [`Cut`] keeps, for the window being run, the units of the pure
//! instructions the bulk turns issued at each cycle and the other instructions they issued,
//! and at the start of each window of a lead, the counts then: a stop takes back what was
//! issued past it ([`CuSim::cut_after`], [`CuSim::cut_at_boundary`]). (Nothing else issued
//! past it is seen: memory requests issued past it never run, and the statistics are not
//! reported for a launch that stops.)

use super::engine::CuSim;
use crate::launch::{category_index, Counts, CATEGORIES};
use gcn_isa::class::Category;

/// The category ([`Counts::by_category`]) of a pure instruction by the unit its
/// [`super::bulk::Code`] names: vector ALU, scalar ALU, branch.
pub(crate) const PURE_CATEGORY: [usize; 3] = [
    category_index(Category::Valu),
    category_index(Category::Salu),
    category_index(Category::Branch),
];

/// What a CU keeps to take back issues past a stop (the module's doc).
#[derive(Clone, Debug, Default)]
pub(crate) struct Cut {
    /// The first cycle of the window being run.
    start: u64,
    /// By cycle of the window: the units (bit `u` for unit `u` of [`PURE_CATEGORY`]) of the
    /// pure instructions the bulk turns issued at that cycle.
    pub(crate) pure: Vec<u8>,
    /// Instructions the bulk turns issued as the pass issues them, counted there: cycle,
    /// category and the issuing wave's age.
    impure: Vec<(u64, u8, u64)>,
    /// The age of the wave whose issue stopped the window, if one did: the pass issues a
    /// turn's winners oldest first, so the younger ones of its turn did not issue.
    stopper: Option<u64>,
    /// The first cycle of the lead being run, its windows' length, and the counts and the
    /// issues when it began and at the start of its last window.
    lead_start: u64,
    lead_window: u64,
    lead_base: (Counts, u64),
    lead_last: (Counts, u64),
    /// At the start of each window of the lead being run (window `i` begins at
    /// `lead_start + i * lead_window`): what the window before it issued ([`Mark`]; none for
    /// the first). 64 CUs each 256 windows ahead would otherwise hold full counts for each, a
    /// part of a large launch's peak memory.
    marks: Vec<Mark>,
}

/// What one window of a lead issued: [`Counts::by_category`], then
/// [`Counts::wave_instructions`], then the issues counted against the budget. A window that
/// issues more than 16 bits hold of one (only a window far longer than any memory latency
/// could) ends the lead.
type Mark = [u16; CATEGORIES.len() + 2];

impl Cut {
    /// The index in [`Cut::pure`] of cycle `t` of the window.
    #[inline(always)]
    pub(crate) fn at(&self, t: u64) -> usize {
        (t - self.start) as usize
    }
}

impl CuSim<'_> {
    /// A window `[start, stop)` begins: nothing was issued in it yet.
    pub(crate) fn cut_window(&mut self, start: u64, stop: u64) {
        let c = &mut self.cut;
        c.start = start;
        c.pure.clear();
        c.pure.resize((stop - start) as usize, 0);
        c.impure.clear();
        c.stopper = None;
    }

    /// The bulk turns issued at cycle `t` wave `s`'s instruction of category `category` as
    /// the pass issues it.
    pub(crate) fn cut_impure(&mut self, t: u64, s: usize, category: u8) {
        self.cut.impure.push((t, category, self.slots[s].age));
    }

    /// Wave `s`'s issue stopped the window.
    pub(crate) fn cut_stopped_by(&mut self, s: usize) {
        self.cut.stopper = Some(self.slots[s].age);
    }

    /// The bulk turns issued pure instructions, `by_unit` of each unit of [`PURE_CATEGORY`]:
    /// they count.
    #[inline(always)]
    pub(crate) fn count_pure(&mut self, by_unit: [u64; 3]) {
        for (u, n) in by_unit.into_iter().enumerate() {
            self.counts.by_category[PURE_CATEGORY[u]] += n;
            self.counts.wave_instructions += n;
            self.issued += n;
        }
    }

    /// The window stopped at cycle `t`: what the bulk turns issued after it is taken back,
    /// and at `t` what waves younger than the stopping one issued (the bulk issues the waves
    /// at an s_waitcnt of its horizon before the others of that turn; the pass, oldest first,
    /// never reaches the younger ones).
    pub(crate) fn cut_after(&mut self, t: u64) {
        let from = (t + 1).saturating_sub(self.cut.start) as usize;
        let mut by_unit = [0u64; 3];
        for units in self.cut.pure.get(from..).unwrap_or(&[]) {
            for (u, n) in by_unit.iter_mut().enumerate() {
                *n += (units >> u & 1) as u64;
            }
        }
        for (u, n) in by_unit.into_iter().enumerate() {
            self.take_back(PURE_CATEGORY[u], n);
        }
        let late: Vec<u8> = self
            .cut
            .impure
            .iter()
            .filter(|&&(at, _, age)| at > t || at == t && self.cut.stopper.is_some_and(|a| age > a))
            .map(|&(_, category, _)| category)
            .collect();
        for category in late {
            self.take_back(category as usize, 1);
        }
    }

    fn take_back(&mut self, category: usize, n: u64) {
        self.counts.by_category[category] -= n;
        self.counts.wave_instructions -= n;
        self.issued -= n;
    }

    /// A lead begins: no window of it has been run.
    pub(crate) fn cut_lead(&mut self, start: u64, window: u64) {
        self.cut.marks.clear();
        self.cut.lead_start = start;
        self.cut.lead_window = window;
        self.cut.lead_base = (self.counts.clone(), self.issued);
        self.cut.lead_last = self.cut.lead_base.clone();
    }

    /// The next window of the lead begins: what the one before it issued is kept. False if
    /// that does not fit a [`Mark`]: the lead ends before this window.
    pub(crate) fn cut_mark(&mut self) -> bool {
        let (last, issued) = &self.cut.lead_last;
        // Nothing issued in the window before (every count grows with `issued`).
        if *issued == self.issued {
            self.cut.marks.push([0; CATEGORIES.len() + 2]);
            return true;
        }
        // Counts only grow during a lead (a stop ends it before anything is taken back).
        let now = self
            .counts
            .by_category
            .iter()
            .chain([&self.counts.wave_instructions, &self.issued]);
        let then = last
            .by_category
            .iter()
            .chain([&last.wave_instructions, issued]);
        let mut mark: Mark = [0; CATEGORIES.len() + 2];
        for (m, (&now, &then)) in mark.iter_mut().zip(now.zip(then)) {
            match u16::try_from(now - then) {
                Ok(n) => *m = n,
                Err(_) => return false,
            }
        }
        self.cut.marks.push(mark);
        self.cut.lead_last = (self.counts.clone(), self.issued);
        true
    }

    /// `windows` windows of the lead pass with nothing issued in them (the one before them
    /// marked already, [`CuSim::cut_mark`]).
    pub(crate) fn cut_idle(&mut self, windows: u64) {
        let none = [0; CATEGORIES.len() + 2];
        self.cut.marks.extend((0..windows).map(|_| none));
    }

    /// The launch stopped with the dispatcher at boundary `b`: if this CU ran windows ahead
    /// past it, what it issued from `b` is taken back.
    pub(crate) fn cut_at_boundary(&mut self, b: u64) {
        if self.lead_until <= b {
            return;
        }
        let c = &self.cut;
        let d = b.wrapping_sub(c.lead_start);
        let at_window = b >= c.lead_start && c.lead_window > 0 && d.is_multiple_of(c.lead_window);
        let Some(marks) = at_window
            .then(|| c.marks.get(..=(d / c.lead_window) as usize))
            .flatten()
        else {
            debug_assert!(false, "a lead past {b} marked each of its windows");
            return;
        };
        let (mut counts, mut issued) = c.lead_base.clone();
        for mark in marks {
            for (c, &m) in counts.by_category.iter_mut().zip(mark) {
                *c += m as u64;
            }
            counts.wave_instructions += mark[CATEGORIES.len()] as u64;
            issued += mark[CATEGORIES.len() + 1] as u64;
        }
        (self.counts, self.issued) = (counts, issued);
    }
}
