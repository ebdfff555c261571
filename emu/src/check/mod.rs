//! Sanitizers for GPU code (`--check`): memcheck, racecheck, initcheck and leak check.
//!
//! The emulator sees every lane's every access and every barrier, so it can find these bugs
//! exactly, on code built the normal way. This module holds the sanitizers' vocabulary
//! and state; the state lives beside what it watches: the findings in
//! [`crate::memory::Memory`] ([`GlobalCheck`]), with the per-allocation shadow bits ([`init`])
//! and the tombstones of freed allocations ([`crate::memory::tombstones`]), and the per-byte
//! access history of each workgroup in its [`crate::lds::Lds`] ([`group::GroupShadow`]). The
//! hooks an executing instruction calls are in [`crate::exec::check_global`] and
//! [`crate::exec::check_lds`], reached from the per-lane access helpers
//! ([`crate::exec::access`]) behind one test of an `Option`, so a run without `--check` pays a
//! branch per access and nothing else.
//!
//! Findings are deduplicated per (check, instruction) within a launch, with a count and the first
//! occurrence's details ([`Record`]); the device turns them into [`Finding`]s that name the kernel,
//! the instruction and its source line.

pub(crate) mod group;
pub(crate) mod init;
pub(crate) mod lds_history;
pub(crate) mod race;
pub mod report;

pub use report::Finding;

use hashbrown::HashMap;

/// One of the checks `--check` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    Memcheck,
    Racecheck,
    Initcheck,
    Leaks,
}

impl Check {
    pub const ALL: [Check; 4] = [
        Check::Memcheck,
        Check::Racecheck,
        Check::Initcheck,
        Check::Leaks,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Check::Memcheck => "memcheck",
            Check::Racecheck => "racecheck",
            Check::Initcheck => "initcheck",
            Check::Leaks => "leaks",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The set of checks a run does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckSet(u8);

impl CheckSet {
    pub const NONE: CheckSet = CheckSet(0);

    /// `memcheck,racecheck,initcheck,leaks` in any order and number, or `all`; `none` or an
    /// empty list for no check.
    pub fn parse(text: &str) -> Result<CheckSet, String> {
        let mut set = CheckSet::NONE;
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "all" => Check::ALL.iter().for_each(|&c| set.insert(c)),
                "none" => {}
                _ => match Check::ALL.iter().find(|c| c.name() == word) {
                    Some(&c) => set.insert(c),
                    None => {
                        return Err(format!(
                            "unknown check `{word}`: expected memcheck, racecheck, initcheck, leaks or all"
                        ))
                    }
                },
            }
        }
        Ok(set)
    }

    pub fn insert(&mut self, c: Check) {
        self.0 |= c.bit();
    }

    pub fn has(self, c: Check) -> bool {
        self.0 & c.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The checks, comma-separated, as `parse` reads them.
    pub fn names(self) -> String {
        let names: Vec<&str> = Check::ALL
            .iter()
            .filter(|c| self.has(**c))
            .map(|c| c.name())
            .collect();
        names.join(",")
    }
}

/// What a finding is: its check and its kind within the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// memcheck: outside every live allocation.
    OutOfBounds,
    /// memcheck: inside an allocation that has been freed.
    UseAfterFree,
    /// memcheck: an atomic whose address is not a multiple of its size.
    MisalignedAtomic,
    /// memcheck: LDS access outside the workgroup's allocation.
    LdsOutOfBounds,
    /// memcheck: private (scratch) access outside the work-item's segment.
    PrivateOutOfBounds,
    /// initcheck: device memory nothing has written.
    UninitializedRead,
    /// initcheck: LDS no wave of the workgroup has written.
    UninitializedLdsRead,
    /// racecheck: two waves of a workgroup, same LDS bytes, no barrier between.
    LdsRace,
    /// racecheck: the same for global memory.
    GlobalRace,
    /// leaks: an allocation alive at exit.
    Leak,
}

impl Kind {
    pub fn check(self) -> Check {
        match self {
            Kind::OutOfBounds
            | Kind::UseAfterFree
            | Kind::MisalignedAtomic
            | Kind::LdsOutOfBounds
            | Kind::PrivateOutOfBounds => Check::Memcheck,
            Kind::UninitializedRead | Kind::UninitializedLdsRead => Check::Initcheck,
            Kind::LdsRace | Kind::GlobalRace => Check::Racecheck,
            Kind::Leak => Check::Leaks,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::OutOfBounds => "out-of-bounds",
            Kind::UseAfterFree => "use-after-free",
            Kind::MisalignedAtomic => "misaligned-atomic",
            Kind::LdsOutOfBounds => "lds-out-of-bounds",
            Kind::PrivateOutOfBounds => "private-out-of-bounds",
            Kind::UninitializedRead => "uninitialized-read",
            Kind::UninitializedLdsRead => "uninitialized-lds-read",
            Kind::LdsRace => "lds-race",
            Kind::GlobalRace => "global-race",
            Kind::Leak => "leak",
        }
    }
}

/// Whether an access reads, writes or does both atomically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
    Atomic,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Load => "load",
            Access::Store => "store",
            Access::Atomic => "atomic",
        }
    }
}

/// Where and by whom an access was made: the wave's position and the instruction's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    pub group: [u32; 3],
    pub wave: u32,
    pub lane: u8,
    /// Instruction index in the program.
    pub index: u32,
}

/// One deduplicated finding of a launch, before the device names its instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    /// The first occurrence.
    pub site: Site,
    pub access: Access,
    pub addr: u64,
    pub len: u32,
    /// What the address is (`4 bytes past the end of buffer 0x... (16 bytes)`).
    pub detail: String,
    /// racecheck: the other access of the pair (its site and what it did).
    pub other: Option<(Site, Access)>,
    pub count: u64,
}

/// The findings of one launch, keyed by (kind, instruction index), in order of first sight.
#[derive(Debug, Default)]
pub struct Findings {
    index: HashMap<(Kind, u32), usize>,
    records: Vec<Record>,
}

impl Findings {
    /// Counts an occurrence; `make` builds the record the first time only.
    pub fn note(&mut self, kind: Kind, index: u32, make: impl FnOnce() -> Record) {
        match self.index.get(&(kind, index)) {
            Some(&i) => self.records[i].count += 1,
            None => {
                self.index.insert((kind, index), self.records.len());
                self.records.push(make());
            }
        }
    }

    /// Counts another occurrence of a finding already seen; false when it is new.
    pub fn bump(&mut self, kind: Kind, index: u32) -> bool {
        match self.index.get(&(kind, index)) {
            Some(&i) => {
                self.records[i].count += 1;
                true
            }
            None => false,
        }
    }

    pub fn take(&mut self) -> Vec<Record> {
        self.index.clear();
        std::mem::take(&mut self.records)
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// The device-wide sanitizer state, kept in [`crate::memory::Memory`].
#[derive(Debug)]
pub struct GlobalCheck {
    pub set: CheckSet,
    pub findings: Findings,
    /// Accesses reported and dropped that would have faulted without `--check` (the HIP runtime
    /// still gives the program the error a fault gives).
    pub would_fault: u64,
}

impl GlobalCheck {
    pub fn new(set: CheckSet) -> GlobalCheck {
        GlobalCheck {
            set,
            findings: Findings::default(),
            would_fault: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_lists() {
        let all = CheckSet::parse("all").unwrap();
        assert!(Check::ALL.iter().all(|&c| all.has(c)));
        let two = CheckSet::parse("memcheck, initcheck").unwrap();
        assert!(two.has(Check::Memcheck) && two.has(Check::Initcheck));
        assert!(!two.has(Check::Racecheck) && !two.has(Check::Leaks));
        assert_eq!(two.names(), "memcheck,initcheck");
        assert!(CheckSet::parse("none").unwrap().is_empty());
        let e = CheckSet::parse("memcheck,bounds").unwrap_err();
        assert!(e.contains("unknown check `bounds`"), "{e}");
    }

    #[test]
    fn findings_count_per_instruction() {
        let mut f = Findings::default();
        let site = Site {
            group: [0; 3],
            wave: 0,
            lane: 1,
            index: 7,
        };
        let rec = |lane| Record {
            kind: Kind::OutOfBounds,
            site: Site { lane, ..site },
            access: Access::Store,
            addr: 0x10,
            len: 4,
            detail: String::new(),
            other: None,
            count: 1,
        };
        f.note(Kind::OutOfBounds, 7, || rec(1));
        f.note(Kind::OutOfBounds, 7, || rec(2));
        f.note(Kind::UninitializedRead, 7, || Record {
            kind: Kind::UninitializedRead,
            ..rec(3)
        });
        let r = f.take();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].count, r[0].site.lane), (2, 1));
        assert_eq!(r[1].kind, Kind::UninitializedRead);
        assert!(f.is_empty());
    }
}
