//! A CU's memory instructions issued and not yet run ([`Request`]s), kept by completion cycle.
//!
//! The dispatcher asks three things of them at every window boundary: which are due before
//! it (to run them), the earliest completion (the next window with something in it), and
//! whether any due in the next window writes registers (may the CU run ahead,
//! [`super::lead`]). In a memory-bound launch a request waits hundreds of windows, so the
//! first two come from the order the requests are kept in, not from a look at each one, and
//! the third looks at them only when one is due.

use super::deferred::Request;
use super::memory::PENDING;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Requests whose room a CU keeps once none is left.
const KEPT: usize = 64;

/// A request's place in the order a CU's requests due at one cycle run in: (completion
/// cycle, issue cycle, issue number), with its index in [`Requests::slab`].
type Key = (u64, u64, u64, u32);

/// The requests of one CU.
#[derive(Default)]
pub struct Requests {
    /// The requests, where they stay until they run (a request is large; only keys move).
    slab: Vec<Option<Request>>,
    /// Free places of `slab`.
    free: Vec<u32>,
    /// The keys of those whose completion is known, earliest first.
    known: BinaryHeap<Reverse<Key>>,
    /// Places of those whose completion waits for the shared memory system ([`PENDING`]),
    /// in issue number order.
    pending: Vec<u32>,
}

impl Requests {
    /// Adds request `q`, issued now.
    pub fn push(&mut self, q: Request) {
        let (done, issued, seq) = (q.done, q.issued, q.seq);
        let at = match self.free.pop() {
            Some(at) => {
                self.slab[at as usize] = Some(q);
                at
            }
            None => {
                self.slab.push(Some(q));
                (self.slab.len() - 1) as u32
            }
        };
        match done {
            PENDING => self.pending.push(at),
            _ => self.known.push(Reverse((done, issued, seq, at))),
        }
    }

    /// The earliest completion cycle ([`PENDING`] if only pending ones are left), or `None`
    /// if there are none.
    pub fn first_done(&self) -> Option<u64> {
        match self.known.peek() {
            Some(Reverse(k)) => Some(k.0),
            None => (!self.pending.is_empty()).then_some(PENDING),
        }
    }

    /// Sets the completion of the pending request with issue number `seq` (none if it has
    /// run: nothing to do).
    pub fn resolve(&mut self, seq: u64, done: u64) {
        let slab = &mut self.slab;
        // Pending requests are resolved in issue order: the first is (almost always) it.
        let Some(k) = self
            .pending
            .iter()
            .position(|&at| slab[at as usize].as_ref().is_some_and(|q| q.seq == seq))
        else {
            return;
        };
        let at = self.pending.remove(k);
        let q = slab[at as usize].as_mut().expect("a pending request");
        q.done = done;
        self.known.push(Reverse((done, q.issued, seq, at)));
    }

    /// Takes the requests due before `stop`, in (completion cycle, issue cycle, issue number)
    /// order.
    pub fn take_due(&mut self, stop: u64, mut each: impl FnMut(Request)) {
        while let Some(&Reverse((done, _, _, at))) = self.known.peek() {
            if done >= stop {
                break;
            }
            self.known.pop();
            let q = self.slab[at as usize].take().expect("a request runs once");
            self.free.push(at);
            each(q);
        }
        // None left: the places start again from the first, and a burst (every wave's first
        // scalar loads at once) gives back its room rather than hold it into the launch's
        // later peak of memory.
        if self.known.is_empty() && self.pending.is_empty() {
            match self.slab.capacity() > KEPT {
                true => *self = Requests::default(),
                false => {
                    self.slab.clear();
                    self.free.clear();
                }
            }
        }
    }

    /// The requests due before `due`.
    pub fn due_before(&self, due: u64) -> impl Iterator<Item = &Request> {
        // None due: nothing to walk (a CU running ahead asks at every window, with hundreds of
        // requests in flight).
        let any = self.first_done().is_some_and(|d| d < due);
        let keys = if any { self.known.as_slice() } else { &[] };
        // By their keys, in no particular order: the keys are small, the requests large.
        keys.iter()
            .filter(move |Reverse(k)| k.0 < due)
            .filter_map(|Reverse(k)| self.slab[k.3 as usize].as_ref())
    }

    /// Every request, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Request> {
        self.slab.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cu::deferred::Snapshot;

    fn request(done: u64, issued: u64, seq: u64) -> Request {
        Request {
            done,
            issued,
            seq,
            slot: 0,
            group: 0,
            index: seq as u32,
            lands: false,
            snap: Snapshot::empty(),
        }
    }

    /// Requests due at one cycle come out by issue cycle, then issue number (a SIMD's bulk
    /// turns may issue at a later cycle before the pass issues another's), a pending one once
    /// resolved, and places freed by a run are reused.
    #[test]
    fn due_requests_come_in_completion_then_issue_order() {
        let mut r = Requests::default();
        assert_eq!(r.first_done(), None);
        r.push(request(500, 12, 0));
        r.push(request(PENDING, 10, 1));
        r.push(request(300, 11, 2));
        r.push(request(300, 9, 3));
        r.push(request(PENDING, 13, 4));
        assert_eq!(r.first_done(), Some(300));
        r.resolve(4, 300);
        r.resolve(99, 1); // not pending: nothing
        let mut due: Vec<u64> = r.due_before(400).map(|q| q.seq).collect();
        due.sort_unstable();
        assert_eq!(due, [2, 3, 4]);
        let mut order = Vec::new();
        r.take_due(400, |q| order.push(q.seq));
        assert_eq!(order, [3, 2, 4]);
        assert_eq!(r.first_done(), Some(500));
        r.push(request(450, 20, 5));
        r.resolve(1, 600);
        assert_eq!(r.iter().count(), 3);
        r.take_due(u64::MAX, |q| order.push(q.seq));
        assert_eq!(order, [3, 2, 4, 5, 0, 1]);
        assert_eq!(r.first_done(), None);
    }
}
