//! Hostcalls in a parallel functional dispatch ([`super::groups`]): the workers share the one
//! [`HostServices`] of the device, and whoever finds a request answers it while every other
//! worker is held at the boundary of a round of wave quanta.
//!
//! Why hold the others: the host side changes more than the packets. Device `malloc`/`free`
//! allocate and free device memory, which only the device's own [`Memory`] can do, and every
//! worker's view must then follow the new mapping before its waves touch memory again. Held
//! at a round boundary, no worker is inside an instruction, so the answer is written and the
//! mapping changed with nothing looking. Kernels whose metadata names a hostcall buffer but
//! that do not call the host (rocPRIM's, whose `assert`s fail only on a bug) pay one load of
//! the buffer's ready stack per round, as on one thread, and a read of a shared counter.

use crate::hostcall::HostcallBuffer;
use crate::launch::host::HostServices;
use crate::memory::Memory;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard};

/// What the workers of one dispatch share to answer hostcalls.
pub struct HostHub<'a> {
    host: Mutex<&'a mut (dyn HostServices + Send)>,
    /// The device's memory, which the views were made from.
    main: *mut Memory,
    /// The hostcall buffer of the dispatch.
    buffer: u64,
    /// Every running worker holds this for reading; the one answering holds it for writing.
    world: RwLock<()>,
    /// Workers waiting to answer: while non-zero, the others let go of `world` at their next
    /// round boundary (std's lock makes new readers wait for a waiting writer).
    waiting: AtomicUsize,
    /// Answers given so far: a worker whose count differs follows the device's mapping.
    answers: AtomicU64,
}

// SAFETY: `main` is dereferenced only by a worker holding `world` for writing (to answer,
// with every other worker held outside guest code) or for reading (to copy the mapping, while
// no one can write it). `host` is behind its mutex and is `Send`.
unsafe impl Sync for HostHub<'_> {}

impl<'a> HostHub<'a> {
    /// # Safety
    /// `main` must stay valid and be touched by nothing else while any [`WorkerHost`] of this
    /// hub is alive; the workers' views must have been made from it.
    pub unsafe fn new(
        host: &'a mut (dyn HostServices + Send),
        main: *mut Memory,
        buffer: u64,
    ) -> Self {
        HostHub {
            host: Mutex::new(host),
            main,
            buffer,
            world: RwLock::new(()),
            waiting: AtomicUsize::new(0),
            answers: AtomicU64::new(0),
        }
    }

    /// One worker's access, holding the hub for reading until it is dropped. `view` was made
    /// from the device's memory before the hub answered anything; a worker whose thread starts
    /// after another's hostcall was answered (a device `malloc` that mapped a new slab) follows
    /// the mapping here, before its waves touch memory.
    pub fn worker(&self, view: &mut Memory) -> WorkerHost<'_, 'a> {
        let turn = self.world.read().unwrap_or_else(PoisonError::into_inner);
        let answers = self.answers.load(Ordering::Acquire);
        if answers != 0 {
            // SAFETY: reading `world` keeps any answer, and so any change of `main`, out.
            unsafe { view.follow(&*self.main) };
        }
        WorkerHost {
            hub: self,
            turn: Some(turn),
            answers,
        }
    }
}

/// A worker's side of a [`HostHub`], polled by the run loop once a round with the worker's
/// view of memory.
pub struct WorkerHost<'h, 'a> {
    hub: &'h HostHub<'a>,
    turn: Option<RwLockReadGuard<'h, ()>>,
    /// The hub's answer count when this worker's view last followed the mapping.
    answers: u64,
}

impl WorkerHost<'_, '_> {
    /// Lets a waiting answer go first, then takes the hub for reading again.
    fn yield_turn(&mut self, view: &mut Memory) {
        self.turn = None;
        self.turn = Some(
            self.hub
                .world
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let answers = self.hub.answers.load(Ordering::Acquire);
        if answers != self.answers {
            self.answers = answers;
            // SAFETY: reading `world` keeps any answer, and so any change of `main`, out.
            unsafe { view.follow(&*self.hub.main) };
        }
    }
}

impl HostServices for WorkerHost<'_, '_> {
    fn poll(&mut self, view: &mut Memory) -> Result<(), String> {
        let hub = self.hub;
        if hub.waiting.load(Ordering::Acquire) != 0 {
            self.yield_turn(view);
        }
        let top = view
            .read_u64(hub.buffer.wrapping_add(HostcallBuffer::READY_STACK))
            .map_err(|e| format!("hostcall buffer {:#x} is unreadable: {e}", hub.buffer))?;
        if top == 0 {
            return Ok(());
        }
        hub.waiting.fetch_add(1, Ordering::AcqRel);
        self.turn = None;
        let answered = {
            let _all = hub.world.write().unwrap_or_else(PoisonError::into_inner);
            let mut host = hub.host.lock().unwrap_or_else(PoisonError::into_inner);
            // SAFETY: holding `world` for writing, every other worker is between rounds.
            let r = host.poll(unsafe { &mut *hub.main });
            hub.answers.fetch_add(1, Ordering::AcqRel);
            r
        };
        hub.waiting.fetch_sub(1, Ordering::AcqRel);
        // A wave spinning on its answer, here or on another worker, sees memory change.
        view.announce_write();
        self.yield_turn(view);
        answered
    }
}
