//! A kernel's hot code compiled to host code that calls each instruction's semantic function
//! directly, for the functional engine ([`crate::run`]) and the timing model's run-ahead
//! ([`crate::cu::ahead`]).
//!
//! The interpreter calls every instruction's [`ExecFn`](super::ExecFn) from one place, through
//! a pointer loaded from the instruction. The host's branch predictor sees one call site whose
//! target changes at every instruction, and mispredicts many of them: on an AMD Zen host a loop
//! of 26 trivial functions called that way took 9.5 ns a call, called one after the other by
//! name 1.9 ns. Compiled, each instruction is a call at its own site, to a fixed address with
//! the instruction's [`Decoded`] as a constant, so each call site has one target. What the
//! semantics do is unchanged: the code calls the same functions the interpreter does.
//!
//! **A region** is the instructions reachable from a kernel's entry (falling through, and
//! jumping to branch targets; not past `s_endpgm`, `s_branch` or `s_setpc`), compiled as one
//! function. Entered at any of its instructions (a jump table), it runs up to a given number
//! of instructions (what is left of the interpreter's quantum), and follows the wave's jumps
//! inside itself: a region is entered once a quantum, not once a branch. For each
//! instruction it:
//! 1. returns before the instruction if it has run as many as it may;
//! 2. returns before the instruction when MODE has a field set that changes how instructions
//!    execute ([`super::issue::SLOW_MODES`]; the interpreter runs those), looked at after a
//!    jump and after the scalar instructions that may write MODE;
//! 3. sets the wave's `pc` past the instruction (as the interpreter does before calling), and
//!    before a scalar memory instruction (`s_memtime` reads it) the wave's count of
//!    instructions, which the caller brings up to date when the region returns;
//! 4. calls the instruction's semantic function;
//! 5. returns with the outcome unless it is [`Ran::Continue`](super::Ran::Continue);
//! 6. if the instruction (a scalar one) moved the program counter elsewhere, calls the
//!    engine's [`JumpedFn`] (the counts by category of the straight run it leaves, and the
//!    spin detector's look at a backward branch, as the interpreter does) and goes on at the
//!    new `pc`, through the jump table (outside the region: it returns).
//!
//! The common scalar ALU ops and branches are not called but written into the code
//! ([`scalar`]), steps 3 to 6 with them: they set `pc` only where they jump (to their target,
//! then straight to its code), and the region sets it where it returns.
//!
//! It returns [`pack`]ed: the instructions it ran to completion, a code, and the instruction it
//! stopped at. The codes: [`ENDED`] (`pc` is where the wave goes next), [`SLOW_MODE`] (MODE
//! asks for the interpreter for the instruction at `pc`), [`BACK_EDGE`] (a run-ahead region
//! only, below), or [`OUTCOME`] plus the [`Ran`] byte of the instruction it stopped at (whose
//! `pc` was set past it).
//!
//! **The timing model's run-ahead** ([`crate::cu::ahead`]) runs a wave's pure ALU
//! instructions before they issue, and needs their indices: its regions
//! ([`Region::compile_ahead`]) hold only the instructions it may run, write each one's index
//! and its code for the bulk turns to arrays ([`AheadOut`]), and return at a backward jump
//! ([`BACK_EDGE`]).
//!
//! **When**: compiling costs about as much as interpreting 2,000 instructions for each
//! instruction compiled, which a kernel run a few times on small inputs (most of a library's
//! test suite) would not repay. A kernel's [`HotRegion`] counts the quanta its waves run
//! interpreted, over every launch of it, and compiles once they have cost as much as compiling
//! will ([`HOT_QUANTA_PER_INSTRUCTION`]). It is then compiled by a thread of its own, at a
//! low priority, while the engine's threads go on interpreting; from when it is done, every
//! quantum runs compiled. Results do not depend on when that happens.

mod scalar;

use super::issue::SLOW_MODES;
use super::program::{Decoded, Program};
use super::Cx;
use crate::wave::Wave;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, InstBuilder, JumpTableData, MemFlagsData, StackSlotData,
    StackSlotKind,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use gcn_isa::class::Category;
use gcn_isa::Op;
use std::ffi::c_void;
use std::mem::offset_of;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

/// Quanta a kernel's waves run interpreted, per instruction of its region, before the region
/// is compiled: 32 quanta are about 2,000 instructions interpreted, what compiling one costs
/// (60 to 80 µs on a Zen 1 host, for regions of 75 to 990 instructions, most of it Cranelift's
/// register allocation).
pub const HOT_QUANTA_PER_INSTRUCTION: u32 = 32;

/// The largest region compiled, in instructions (a larger kernel stays interpreted).
const MAX_REGION: usize = 1 << 14;

/// `pc` is where the wave goes next.
pub const ENDED: u64 = 0;
/// MODE asks for the interpreter for the instruction at `pc`.
pub const SLOW_MODE: u64 = 1;
/// (A run-ahead region) the instruction stopped at jumped backwards, to `pc`.
pub const BACK_EDGE: u64 = 2;
/// The instruction stopped at had an outcome other than [`Ran::Continue`](super::Ran::Continue):
/// `OUTCOME + ran as u64`.
pub const OUTCOME: u64 = 3;

/// Runs ahead of the timing model a kernel's waves make interpreted, per instruction of its
/// run-ahead region, before the region is compiled: a run is about 15 instructions, so 128
/// runs are about 2,000 instructions, as [`HOT_QUANTA_PER_INSTRUCTION`] quanta are.
pub const HOT_RUNS_AHEAD_PER_INSTRUCTION: u32 = 128;

/// A region's code: the [`Cx`], the instruction to start at, how many instructions it may
/// run, the engine's state for [`JumpedFn`] (a run-ahead region: the [`AheadOut`] it writes
/// each instruction it runs to); the result [`pack`]ed.
pub type RegionFn = unsafe extern "C-unwind" fn(*mut Cx, u64, u64, *mut c_void) -> u64;

/// Where a run-ahead region writes the instructions it runs, from the first at position 0:
/// each one's index, and the byte its caller keeps with it (the timing model's issue unit and
/// kind of the instruction, [`crate::cu::bulk::Code`]), both known when it is compiled, so the
/// code stores them as constants where its caller looked each byte up after the run.
#[repr(C)]
pub struct AheadOut {
    pub index: *mut u32,
    pub code: *mut u8,
}

/// What the region calls when the wave at the [`Cx`] left instruction `at` (the third
/// argument) for its `pc`: the engine counts the straight run it leaves and shows a backward
/// branch to the spin detector, as its interpreter does. The second argument is the state the
/// engine passed to the region, handed back.
pub type JumpedFn = extern "C-unwind" fn(&mut Cx, *mut c_void, u64);

/// What a region returns: `ran` instructions, `code`, the instruction `at` which it stopped.
pub fn pack(ran: u64, code: u64, at: u64) -> u64 {
    ran | code << 24 | at << 32
}

/// [`pack`]'s fields: (instructions run, code, instruction stopped at).
#[inline(always)]
pub fn unpack(out: u64) -> (u32, u64, u32) {
    (
        (out & 0xff_ffff) as u32,
        out >> 24 & 0xff,
        (out >> 32) as u32,
    )
}

/// The outcome of the instruction a region stopped at, for an [`OUTCOME`] code.
pub fn outcome(code: u64) -> Option<super::Ran> {
    use super::Ran;
    [
        Ran::Continue,
        Ran::Barrier,
        Ran::End,
        Ran::Stall,
        Ran::Faulted,
    ]
    .into_iter()
    .find(|&r| code.checked_sub(OUTCOME) == Some(r as u64))
}

/// When a kernel's code is compiled (`--compile`, `GCNEMU_COMPILE`): by the functional
/// engine, and by the timing model for its runs ahead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compile {
    /// Once its waves have run as long interpreted as compiling takes, over all its launches
    /// ([`HOT_QUANTA_PER_INSTRUCTION`]).
    #[default]
    Hot,
    /// At its first quantum (what the tests that compare the two ways use).
    Always,
    /// Never: every instruction interpreted.
    Never,
}

impl std::str::FromStr for Compile {
    type Err = String;
    fn from_str(s: &str) -> Result<Compile, String> {
        match s {
            "hot" => Ok(Compile::Hot),
            "always" => Ok(Compile::Always),
            "never" => Ok(Compile::Never),
            _ => Err(format!("`{s}`: expected hot, always or never")),
        }
    }
}

/// A kernel's compiled region, made once its waves have run a number of quanta interpreted.
#[derive(Debug)]
pub struct HotRegion {
    entry: u32,
    /// Quanta (runs ahead) run interpreted before it is compiled.
    after: u32,
    quanta: AtomicU32,
    /// For the timing model's run-ahead: the instructions it runs, with the byte it writes
    /// for each (see [`Region::compile_ahead`]).
    ahead: Option<Arc<[Option<u8>]>>,
    /// Set by the thread that compiled it.
    region: Arc<OnceLock<Option<Region>>>,
    /// The thread compiling a hot region in the background (see [`HotRegion::get`]), once
    /// started; joined by [`HotRegion::finish_compiling`].
    compiling: Mutex<Option<JoinHandle<()>>>,
    started: AtomicBool,
}

impl HotRegion {
    /// The region of the kernel entered at instruction `entry`, compiled after `after` quanta.
    pub fn new(entry: u32, after: u32) -> HotRegion {
        HotRegion {
            entry,
            after,
            quanta: AtomicU32::new(0),
            ahead: None,
            region: Arc::new(OnceLock::new()),
            compiling: Mutex::new(None),
            started: AtomicBool::new(false),
        }
    }

    /// The run-ahead region ([`Region::compile_ahead`]) of the kernel entered at instruction
    /// `entry`, made of the instructions `runs` gives a byte, compiled when `compile` says
    /// (counting runs ahead, [`HOT_RUNS_AHEAD_PER_INSTRUCTION`]); `None` as [`HotRegion::of`].
    pub fn ahead(
        program: &Program,
        entry: u32,
        compile: Compile,
        runs: Box<[Option<u8>]>,
    ) -> Option<HotRegion> {
        let after = match compile {
            Compile::Never => return None,
            Compile::Always => 0,
            Compile::Hot => {
                let inside = reachable(&program.insts, entry)?;
                let n = inside
                    .iter()
                    .zip(runs.iter())
                    .filter(|&(&i, r)| i && r.is_some())
                    .count();
                (n as u32).saturating_mul(HOT_RUNS_AHEAD_PER_INSTRUCTION)
            }
        };
        let mut region = HotRegion::new(entry, after);
        region.ahead = Some(runs.into());
        Some(region)
    }

    /// The region of the kernel of `program` entered at instruction `entry`, compiled when
    /// `compile` says; `None` for [`Compile::Never`] and for a region too large to compile.
    pub fn of(program: &Program, entry: u32, compile: Compile) -> Option<HotRegion> {
        let after = match compile {
            Compile::Never => return None,
            Compile::Always => 0,
            Compile::Hot => {
                let n = reachable(&program.insts, entry)?
                    .iter()
                    .filter(|&&i| i)
                    .count();
                (n as u32).saturating_mul(HOT_QUANTA_PER_INSTRUCTION)
            }
        };
        Some(HotRegion::new(entry, after))
    }

    /// The compiled region, counting a quantum run interpreted until it is hot; `None` while
    /// cold or being compiled, and for a region that could not be compiled.
    ///
    /// A region compiled at once ([`Compile::Always`]) is compiled by the first thread to ask
    /// (the others wait for it). A hot one is compiled by a thread of its own while the
    /// engine's threads go on interpreting: compiling costs as much as the quanta it took to
    /// get hot, and a test suite's host code leaves a core idle for it (rocPRIM's block radix
    /// sort compiles 243 kernels, 8.7 s in all). Results do not depend on when the code is
    /// ready. The caller keeps `program`'s instructions where they are until
    /// [`HotRegion::finish_compiling`] has returned (a [`crate::device::Module`] does it when
    /// dropped).
    #[inline]
    pub fn get(&self, program: &Program, jumped: JumpedFn) -> Option<&Region> {
        if let Some(r) = self.region.get() {
            return r.as_ref();
        }
        self.when_hot(program, jumped)
    }

    /// As [`HotRegion::get`], for a run-ahead region (whose code calls no [`JumpedFn`]).
    #[inline]
    pub fn get_ahead(&self, program: &Program) -> Option<&Region> {
        extern "C-unwind" fn never(_: &mut Cx, _: *mut c_void, _: u64) {}
        debug_assert!(self.ahead.is_some(), "a run-ahead region");
        self.get(program, never)
    }

    /// Counts a quantum until it is hot, then compiles, or starts compiling.
    #[cold]
    fn when_hot(&self, program: &Program, jumped: JumpedFn) -> Option<&Region> {
        let mode = |runs: &Option<Arc<[Option<u8>]>>| match runs {
            Some(runs) => Mode::Ahead(runs.clone()),
            None => Mode::Run(jumped),
        };
        if self.after == 0 {
            let code =
                || Region::compile_as(&program.insts, &program.bad, self.entry, mode(&self.ahead));
            return self.region.get_or_init(code).as_ref();
        }
        if self.quanta.fetch_add(1, Ordering::Relaxed) < self.after
            || self.started.swap(true, Ordering::Relaxed)
        {
            return None;
        }
        let insts = Insts(program.insts.as_ptr(), program.insts.len());
        let bad = program.bad.clone();
        let (entry, mode, cell) = (self.entry, mode(&self.ahead), self.region.clone());
        let compile = move || {
            let insts = insts;
            yield_to_the_engine();
            // SAFETY: the instructions stay where they are until `finish_compiling` has
            // joined this thread (`get`'s contract).
            let insts = unsafe { std::slice::from_raw_parts(insts.0, insts.1) };
            let _ = cell.set(Region::compile_as(insts, &bad, entry, mode));
        };
        match std::thread::Builder::new()
            .name("gcnemu-compile".into())
            .spawn(compile)
        {
            Ok(thread) => *self.lock_compiling() = Some(thread),
            Err(e) => {
                tracing::warn!("no thread to compile a kernel in, so it runs interpreted: {e}");
                let _ = self.region.set(None);
            }
        }
        None
    }

    fn lock_compiling(&self) -> std::sync::MutexGuard<'_, Option<JoinHandle<()>>> {
        self.compiling
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a compile started in the background to end (a compile that panicked leaves
    /// the kernel interpreted).
    pub fn finish_compiling(&self) {
        let thread = self.lock_compiling().take();
        if let Some(thread) = thread {
            if thread.join().is_err() {
                tracing::warn!("compiling a kernel failed, and it runs interpreted");
                let _ = self.region.set(None);
            }
        }
    }
}

impl Drop for HotRegion {
    fn drop(&mut self) {
        self.finish_compiling();
    }
}

/// Lowers the calling thread's priority, so that a compile in the background takes a core
/// the engine's threads leave idle rather than time from them (Linux gives each thread a
/// nice value of its own).
fn yield_to_the_engine() {
    #[cfg(target_os = "linux")]
    // SAFETY: `setpriority` reads no memory; who 0 is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS as _, 0, 10);
    }
}

/// A program's instructions, handed to the thread that compiles a region of them.
struct Insts(*const Decoded, usize);

// SAFETY: the instructions are shared read-only (a `Program` is shared by the engine's
// threads), and `HotRegion::get`'s caller keeps them in place until the thread is joined.
unsafe impl Send for Insts {}

/// One compiled region.
pub struct Region {
    /// Owns the code. Never freed while the region may run: dropped with its kernel's module.
    module: Option<JITModule>,
    code: RegionFn,
    /// Which instructions are in the region.
    span: Span,
}

/// The instructions of a region, as flags over the indices from its first to its last: a code
/// object holds every kernel of a program (a rocPRIM test's has hundreds of thousands of
/// instructions), and a jump table over all of them, most leading out, made Cranelift take
/// half a second for any region however small, where the kernel's own indices take
/// milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Span {
    /// The first instruction's index.
    lo: usize,
    /// Whether each instruction from `lo` on is in the region.
    inside: Vec<bool>,
}

impl Span {
    /// The span of the instructions `inside` marks (indexed from 0).
    fn of(inside: &[bool]) -> Span {
        let lo = inside.iter().position(|&i| i).unwrap_or(0);
        let hi = inside.iter().rposition(|&i| i).map_or(lo, |h| h + 1);
        Span {
            lo,
            inside: inside[lo..hi].to_vec(),
        }
    }

    #[inline(always)]
    fn contains(&self, index: usize) -> bool {
        index
            .checked_sub(self.lo)
            .and_then(|k| self.inside.get(k))
            .is_some_and(|&i| i)
    }

    /// The indices it covers, in or out of the region.
    fn indices(&self) -> std::ops::Range<usize> {
        self.lo..self.lo + self.inside.len()
    }

    /// The element of `per` (one per index it covers) for instruction `index`.
    fn at<T: Copy>(&self, per: &[Option<T>], index: usize) -> Option<T> {
        index
            .checked_sub(self.lo)
            .and_then(|k| per.get(k))
            .copied()
            .flatten()
    }
}

// SAFETY: after `finalize_definitions` the module's code is read-only, executable memory that
// no method of `Region` changes; it is freed only in `drop`, which has the only reference.
unsafe impl Send for Region {}
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: no region runs any more: the module that owns it is dropped.
            unsafe { module.free_memory() };
        }
    }
}

impl Region {
    /// The code, if instruction `index` is in the region.
    #[inline(always)]
    pub fn entry(&self, index: u32) -> Option<RegionFn> {
        match self.span.contains(index as usize) {
            true => Some(self.code),
            false => None,
        }
    }

    /// Compiles the region of `program` reachable from instruction `entry`. The program's
    /// instructions must not move while the region lives (their addresses are constants in
    /// the code). `None` when the host has no code generator or the region is too large.
    pub fn compile(program: &Program, entry: u32, jumped: JumpedFn) -> Option<Region> {
        Region::compile_as(&program.insts, &program.bad, entry, Mode::Run(jumped))
    }

    /// Compiles the region of the timing model's run-ahead ([`crate::cu::ahead`]): the
    /// instructions reachable from `entry` that `runs` gives a byte. It differs from a
    /// [`Region::compile`]d one in that it
    /// - writes the index of each instruction it runs, and its byte, to the [`AheadOut`] its
    ///   caller passes (in place of the state for [`JumpedFn`], which it does not call), the
    ///   first at position 0, before running it;
    /// - returns [`BACK_EDGE`] after an instruction that jumped backwards (to or before
    ///   itself), for the caller to decide whether the run goes on.
    pub fn compile_ahead(program: &Program, entry: u32, runs: &[Option<u8>]) -> Option<Region> {
        Region::compile_as(
            &program.insts,
            &program.bad,
            entry,
            Mode::Ahead(runs.into()),
        )
    }

    /// Compiles the region of `insts` (of which those in `bad` did not decode) reachable from
    /// instruction `entry`.
    fn compile_as(
        insts: &[Decoded],
        bad: &[(u32, String)],
        entry: u32,
        mode: Mode,
    ) -> Option<Region> {
        let mut inside = reachable(insts, entry)?;
        if let Mode::Ahead(runs) = &mode {
            for (i, inside) in inside.iter_mut().enumerate() {
                *inside &= runs.get(i).is_some_and(Option::is_some);
            }
        }
        let mut flags = settings::builder();
        // The code is calls and compares: Cranelift's optimisations do not speed it up, and
        // its register allocator is most of the compile time (the single-pass one spills
        // around every call, which costs more than it saves).
        flags.set("opt_level", "none").ok()?;
        flags.set("enable_verifier", "false").ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        if let Mode::Run(jumped) = &mode {
            builder.symbol("gcnemu_jumped", *jumped as *const u8);
        }
        let mut module = JITModule::new(builder);
        let mut ctx = module.make_context();
        let mut fbc = FunctionBuilderContext::new();
        let ahead = match &mode {
            Mode::Ahead(runs) => Some(runs.clone()),
            Mode::Run(_) => None,
        };
        // (Words that did not decode stand as `s_nop`s whose semantic function faults.)
        let mut undecodable = vec![false; insts.len()];
        for &(i, _) in bad {
            undecodable[i as usize] = true;
        }
        let span = Span::of(&inside);
        let region = Blocks {
            insts,
            span: &span,
            undecodable: &undecodable,
        };
        build(
            &mut module,
            &mut ctx.func,
            &mut fbc,
            &region,
            ahead.as_deref(),
        )?;
        let id = module
            .declare_anonymous_function(&ctx.func.signature)
            .ok()?;
        if let Err(e) = module.define_function(id, &mut ctx) {
            // (Cranelift's backends do not all have every instruction; the kernel then runs
            // interpreted, which a test of every inline op catches on the hosts it runs on.)
            tracing::warn!("the kernel's code did not compile, and runs interpreted: {e}");
            return None;
        }
        module.finalize_definitions().ok()?;
        let code = module.get_finalized_function(id);
        // SAFETY: `build` made the function with `RegionFn`'s signature.
        let code = unsafe { std::mem::transmute::<*const u8, RegionFn>(code) };
        Some(Region {
            module: Some(module),
            code,
            span,
        })
    }
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.span.inside.iter().filter(|&&i| i).count();
        write!(f, "Region({n} instructions)")
    }
}

/// What a region is compiled for.
enum Mode {
    /// The functional engine, whose [`JumpedFn`] the code calls at each jump.
    Run(JumpedFn),
    /// The timing model's run-ahead, of the instructions given a byte
    /// ([`Region::compile_ahead`]).
    Ahead(Arc<[Option<u8>]>),
}

/// The instructions reachable from `entry`, or `None` past [`MAX_REGION`] of them.
fn reachable(insts: &[Decoded], entry: u32) -> Option<Vec<bool>> {
    let mut inside = vec![false; insts.len()];
    let mut todo = vec![entry as usize];
    let mut n = 0;
    while let Some(i) = todo.pop() {
        let Some(d) = insts.get(i) else { continue };
        if std::mem::replace(&mut inside[i], true) {
            continue;
        }
        n += 1;
        if n > MAX_REGION {
            return None;
        }
        let op = d.inst.info().op;
        let falls_through = !matches!(
            op,
            Op::S_ENDPGM
                | Op::S_ENDPGM_SAVED
                | Op::S_ENDPGM_ORDERED_PS_DONE
                | Op::S_SETPC_B64
                | Op::S_RFE_B64
                | Op::S_RFE_RESTORE_B64
                | Op::S_BRANCH
        );
        if falls_through {
            todo.push(i + 1);
        }
        if d.class.is_branch() {
            todo.push(d.target as usize);
        }
    }
    Some(inside)
}

/// Whether `d` may change MODE or the program counter: only scalar ALU and program control
/// instructions do (`s_setreg`, `s_setvskip`, `s_set_gpr_idx_*`; branches, `s_setpc`); after
/// the others the code needs to look at neither.
fn scalar(d: &Decoded) -> bool {
    matches!(
        d.class.category,
        Category::Salu | Category::Control | Category::Branch
    )
}

/// What a region is built from: the program's instructions, which of them are in it, and
/// which did not decode (never written inline: their semantic function faults).
struct Blocks<'a> {
    insts: &'a [Decoded],
    span: &'a Span,
    undecodable: &'a [bool],
}

/// Builds the region's function (see the module doc) into `func`; `ahead` (each instruction's
/// byte) for the timing model's run-ahead ([`Region::compile_ahead`]).
fn build(
    module: &mut JITModule,
    func: &mut cranelift_codegen::ir::Function,
    fbc: &mut FunctionBuilderContext,
    region: &Blocks,
    ahead: Option<&[Option<u8>]>,
) -> Option<()> {
    let (insts, span) = (region.insts, region.span);
    let ptr = module.target_config().pointer_type();
    let i64t = types::I64;
    for ty in [ptr, i64t, i64t, ptr] {
        func.signature.params.push(AbiParam::new(ty));
    }
    func.signature.returns.push(AbiParam::new(i64t));
    let mut exec_sig = module.make_signature();
    exec_sig.params.push(AbiParam::new(ptr));
    exec_sig.params.push(AbiParam::new(ptr));
    exec_sig.returns.push(AbiParam::new(types::I8));
    let mut jumped_sig = module.make_signature();
    for ty in [ptr, ptr, i64t] {
        jumped_sig.params.push(AbiParam::new(ty));
    }
    let jumped_ref = match ahead {
        Some(_) => None,
        None => {
            let id = module
                .declare_function("gcnemu_jumped", Linkage::Import, &jumped_sig)
                .ok()?;
            Some(module.declare_func_in_func(id, func))
        }
    };

    let mut b = FunctionBuilder::new(func, fbc);
    let exec_sig = b.import_signature(exec_sig);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    // The exit, which returns (code, the instruction it stopped at) from `out`; the code
    // leaves through a block of its own at each place ([`Leaves`]).
    let exit = b.create_block();
    let out = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
    let mut leaves = Leaves::default();
    // The jump table's block: the instruction to go on at, from `next_slot`. (Stack slots,
    // not block parameters, for the exit and the jump table: a parameter is one value with
    // each of the region's hundreds of ways out as a definition, and the register allocator's
    // time grew faster than the region with it, 92 µs an instruction for a region of 340 and
    // 210 for one of 990 in rocPRIM's block radix sort; with slots both take about 65.)
    let dispatch = b.create_block();
    let next_slot =
        b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
    // Each instruction's code: from where MODE is looked at, and from after that.
    // (Both by position in the span: `span.at` finds an instruction's.)
    let at: Vec<_> = span
        .inside
        .iter()
        .map(|&i| i.then(|| b.create_block()))
        .collect();
    let bodies: Vec<_> = span
        .inside
        .iter()
        .map(|&i| i.then(|| b.create_block()))
        .collect();
    // Instructions run so far, in a stack slot rather than a value: a value live across
    // every block needs a block parameter at each join, which made the register allocator
    // (most of the compile time) several times slower.
    let ran = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));

    b.switch_to_block(entry);
    let mem = MemFlagsData::trusted();
    let (cx, start, limit, jumps) = {
        let p = b.block_params(entry);
        (p[0], p[1], p[2], p[3])
    };
    let zero = b.ins().iconst(i64t, 0);
    b.ins().stack_store(ptr, zero, ran, 0);
    // The wave's fields, through `Cx::wave` (fixed while the region runs).
    let wave = b
        .ins()
        .load(ptr, mem, cx, offset_of!(Cx<'static>, wave) as i32);
    let pc_at = offset_of!(Wave, pc) as i32;
    let mode_at = offset_of!(Wave, mode) as i32;
    let count_at = offset_of!(Wave, instructions) as i32;
    let count0 = b.ins().load(i64t, mem, wave, count_at);
    b.ins().stack_store(ptr, start, next_slot, 0);
    b.ins().jump(dispatch, &[]);

    // The jump table: the span's indices, from its first; an instruction not in the region,
    // out.
    b.switch_to_block(dispatch);
    let index = b.ins().stack_load(ptr, i64t, next_slot, 0);
    // (Constants are made where they are used: live across the whole function, each would
    // take a register or a spill slot everywhere, and the register allocator's time.)
    let out_of_region = leaves.to(&mut b, Leave::Code(ENDED), Leave::Value(index));
    let outside = b.func.dfg.block_call(out_of_region, &[]);
    let targets: Vec<_> = at
        .iter()
        .map(|l| match l {
            Some(l) => b.func.dfg.block_call(*l, &[]),
            None => outside,
        })
        .collect();
    let table = b.create_jump_table(JumpTableData::new(outside, &targets));
    // (An index below the span wraps to past it; indices past `u32::MAX` are not
    // instructions, and the table's default takes those that wrap into its range too, since
    // no program has 2^32 instructions.)
    let offset = b.ins().iadd_imm_s(index, -(span.lo as i64));
    let in_range = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedLessThan, offset, span.inside.len() as i64);
    let lookup = b.create_block();
    b.ins().brif(in_range, lookup, &[], out_of_region, &[]);
    b.switch_to_block(lookup);
    b.seal_block(lookup);
    let offset32 = b.ins().ireduce(types::I32, offset);
    b.ins().br_table(offset32, table);

    for i in span.indices() {
        let d = &insts[i];
        let (Some(checked), Some(body)) = (span.at(&at, i), span.at(&bodies, i)) else {
            continue;
        };
        let i = i as i64;
        b.switch_to_block(checked);
        // 2. MODE (first where it may have changed: see `scalar`).
        let mode = b.ins().load(types::I32, mem, wave, mode_at);
        let slow = b.ins().band_imm_u(mode, SLOW_MODES as i64);
        let slow_mode = leaves.to(&mut b, Leave::Code(SLOW_MODE), Leave::At(i));
        b.ins().brif(slow, slow_mode, &[], body, &[]);
        b.switch_to_block(body);
        let here = b.ins().iconst(i64t, i);
        // 1. As many as it may.
        let n = b.ins().stack_load(ptr, i64t, ran, 0);
        let full = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, n, limit);
        let run = b.create_block();
        let stop = leaves.to(&mut b, Leave::Code(ENDED), Leave::At(i));
        b.ins().brif(full, stop, &[], run, &[]);
        b.switch_to_block(run);
        b.seal_block(run);
        // (Run ahead: the instruction's index and byte, at its position in the caller's
        // arrays.)
        if let Some(codes) = ahead {
            let indices = b
                .ins()
                .load(ptr, mem, jumps, offset_of!(AheadOut, index) as i32);
            let offset = b.ins().ishl_imm_u(n, 2);
            let slot = b.ins().iadd(indices, offset);
            let index = b.ins().iconst(types::I32, i);
            b.ins().store(mem, index, slot, 0);
            let bytes = b
                .ins()
                .load(ptr, mem, jumps, offset_of!(AheadOut, code) as i32);
            let slot = b.ins().iadd(bytes, n);
            // (Every instruction in the region has its byte: `compile_as` keeps only those.)
            let code = codes.get(i as usize).copied().flatten().unwrap_or(0);
            let code = b.ins().iconst(types::I8, code as i64);
            b.ins().store(mem, code, slot, 0);
        }
        let written = match region.undecodable[i as usize] {
            true => None,
            false => scalar::inline(d),
        };
        if let Some(op) = written {
            // Where it goes when it does not jump: the next one's code, or out (the wave goes
            // on at the next one) when that is not in the region.
            let straight = match span.at(&bodies, i as usize + 1) {
                Some(next) => next,
                None => leaves.to(&mut b, Leave::Code(ENDED), Leave::At(i + 1)),
            };
            let regs = scalar::Regs { wave };
            if let scalar::Inline::Waitcnt(limit) = op {
                // A wait not yet satisfied stalls, and does not count.
                let within = regs.within(&mut b, limit);
                let on = b.create_block();
                let stall = OUTCOME + super::Ran::Stall as u64;
                let stall = leaves.to(&mut b, Leave::Code(stall), Leave::At(i));
                b.ins().brif(within, on, &[], stall, &[]);
                b.switch_to_block(on);
                b.seal_block(on);
            }
            let n = b.ins().iadd_imm_s(n, 1);
            b.ins().stack_store(ptr, n, ran, 0);
            let (cond, target) = match op {
                scalar::Inline::Alu(alu) => {
                    regs.alu(&mut b, &alu);
                    b.ins().jump(straight, &[]);
                    continue;
                }
                scalar::Inline::Waitcnt(_) => {
                    b.ins().jump(straight, &[]);
                    continue;
                }
                scalar::Inline::Branch { cond, target } => (cond, target),
            };
            let taken = regs.taken(&mut b, cond);
            let jump = b.create_block();
            b.ins().brif(taken, jump, &[], straight, &[]);
            b.switch_to_block(jump);
            b.seal_block(jump);
            let to = b.ins().iconst(types::I32, target as i64);
            b.ins().store(mem, to, wave, pc_at);
            match jumped_ref {
                Some(jumped) => {
                    b.ins().call(jumped, &[cx, jumps, here]);
                }
                // Run ahead, a backward jump returns.
                None if target as i64 <= i => {
                    let back_edge = leaves.to(&mut b, Leave::Code(BACK_EDGE), Leave::At(i));
                    b.ins().jump(back_edge, &[]);
                    continue;
                }
                None => {}
            }
            // (Branches leave MODE as it is.)
            let to = match span.at(&bodies, target as usize) {
                Some(to) => to,
                None => leaves.to(&mut b, Leave::Code(ENDED), Leave::At(target as i64)),
            };
            b.ins().jump(to, &[]);
            continue;
        }
        // 3. pc past the instruction; for the scalar memory instructions (s_memtime and
        // s_memrealtime read it), the instructions the wave has run.
        let next = b.ins().iconst(types::I32, i + 1);
        b.ins().store(mem, next, wave, pc_at);
        if d.class.category == Category::Smem {
            let count = b.ins().iadd(count0, n);
            b.ins().store(mem, count, wave, count_at);
        }
        // 4. The call.
        let f = b.ins().iconst(ptr, d.exec as usize as i64);
        let inst = b.ins().iconst(ptr, d as *const Decoded as i64);
        let call = b.ins().call_indirect(exec_sig, f, &[cx, inst]);
        let outcome = b.inst_results(call)[0];
        // 5. On, or out with the outcome.
        let on = b.create_block();
        let with_outcome = leaves.to(&mut b, Leave::Outcome(outcome), Leave::At(i));
        b.ins().brif(outcome, with_outcome, &[], on, &[]);
        b.switch_to_block(on);
        b.seal_block(on);
        let n = b.ins().iadd_imm_s(n, 1);
        b.ins().stack_store(ptr, n, ran, 0);
        // 6. Straight on, or a jump (only scalar instructions move the program counter).
        let next = i as usize + 1;
        let straight = match scalar(d) {
            true => span.at(&at, next),
            false => span.at(&bodies, next),
        };
        let straight = match straight {
            Some(next) => next,
            None => leaves.to(&mut b, Leave::Code(ENDED), Leave::At(i + 1)),
        };
        if !scalar(d) {
            b.ins().jump(straight, &[]);
            continue;
        }
        let pc = b.ins().load(types::I32, mem, wave, pc_at);
        let jumps_away = b.ins().icmp_imm_u(IntCC::NotEqual, pc, i + 1);
        let away = b.create_block();
        b.ins().brif(jumps_away, away, &[], straight, &[]);
        b.switch_to_block(away);
        b.seal_block(away);
        let target = b.ins().uextend(i64t, pc);
        match jumped_ref {
            Some(jumped) => {
                b.ins().call(jumped, &[cx, jumps, here]);
            }
            None => {
                // Run ahead, a backward jump returns.
                let back = b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, pc, i);
                let forward = b.create_block();
                let back_edge = leaves.to(&mut b, Leave::Code(BACK_EDGE), Leave::At(i));
                b.ins().brif(back, back_edge, &[], forward, &[]);
                b.switch_to_block(forward);
                b.seal_block(forward);
            }
        }
        b.ins().stack_store(ptr, target, next_slot, 0);
        b.ins().jump(dispatch, &[]);
    }
    for l in at.iter().chain(&bodies).flatten() {
        b.seal_block(*l);
    }
    b.seal_block(dispatch);
    b.seal_block(entry);
    leaves.fill(&mut b, ptr, out, exit);
    b.switch_to_block(exit);
    b.seal_block(exit);
    let code = b.ins().stack_load(ptr, i64t, out, 0);
    let stopped = b.ins().stack_load(ptr, i64t, out, 8);
    // The program counter, where instructions written inline left it behind: the
    // instruction stopped at, for the codes that have the wave go on there.
    let pc = b.ins().load(types::I32, mem, wave, pc_at);
    let stopped32 = b.ins().ireduce(types::I32, stopped);
    let goes_on = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, code, SLOW_MODE as i64);
    let pc = b.ins().select(goes_on, stopped32, pc);
    b.ins().store(mem, pc, wave, pc_at);
    // `pack`, in the generated code.
    let n = b.ins().stack_load(ptr, i64t, ran, 0);
    let code = b.ins().ishl_imm_u(code, 24);
    let stopped = b.ins().ishl_imm_u(stopped, 32);
    let result = b.ins().bor(n, code);
    let result = b.ins().bor(result, stopped);
    b.ins().return_(&[result]);
    b.finalize(module.target_config());
    Some(())
}

/// What a place the code leaves from stores in the exit's slot: a code, or the outcome of the
/// instruction's call (stored as [`OUTCOME`] plus it), and the instruction it stopped at.
#[derive(Clone, Copy)]
enum Leave {
    Code(u64),
    Outcome(cranelift_codegen::ir::Value),
    At(i64),
    Value(cranelift_codegen::ir::Value),
}

/// The blocks through which the code leaves, one for each place, filled once every
/// instruction's code is (a block cannot be filled while another is half made).
#[derive(Default)]
struct Leaves {
    blocks: Vec<(cranelift_codegen::ir::Block, Leave, Leave)>,
}

impl Leaves {
    /// A new block that leaves with `code` at `at`.
    fn to(
        &mut self,
        b: &mut FunctionBuilder,
        code: Leave,
        at: Leave,
    ) -> cranelift_codegen::ir::Block {
        let block = b.create_block();
        self.blocks.push((block, code, at));
        block
    }

    /// Fills the blocks: each stores its code and instruction in `out` and jumps to `exit`.
    fn fill(
        self,
        b: &mut FunctionBuilder,
        ptr: types::Type,
        out: cranelift_codegen::ir::StackSlot,
        exit: cranelift_codegen::ir::Block,
    ) {
        let i64t = types::I64;
        for (block, code, at) in self.blocks {
            b.switch_to_block(block);
            b.seal_block(block);
            for (k, v) in [code, at].into_iter().enumerate() {
                let v = match v {
                    Leave::Code(c) => b.ins().iconst(i64t, c as i64),
                    Leave::At(i) => b.ins().iconst(i64t, i),
                    Leave::Value(v) => v,
                    Leave::Outcome(o) => {
                        let o = b.ins().uextend(i64t, o);
                        b.ins().iadd_imm_s(o, OUTCOME as i64)
                    }
                };
                b.ins().stack_store(ptr, v, out, 8 * k as i32);
            }
            b.ins().jump(exit, &[]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, reachable, unpack, OUTCOME};

    /// The fields of a region's result come back as they went in, at their widths.
    #[test]
    fn a_result_unpacks_to_its_fields() {
        for (ran, code, at) in [(0, 0, 0), (64, OUTCOME + 4, 0xffff_ffff), (0xff_ffff, 1, 7)] {
            assert_eq!(unpack(pack(ran, code, at)), (ran as u32, code, at as u32));
        }
    }

    use crate::exec::program::Program;
    use gcn_isa::{assemble, Target};

    /// A loop, an `s_branch` over an `s_nop`, and a second kernel after the first's
    /// `s_endpgm`.
    const TWO_KERNELS: &str = "
        s_mov_b32 s0, 0
        again:
        s_add_u32 s0, s0, 1
        s_cmp_lt_u32 s0, 40
        s_cbranch_scc1 again
        s_branch done
        s_nop 0
        done:
        s_endpgm
        s_mov_b32 s1, 0
        s_endpgm";

    /// The region follows fall-through and branch targets, and stops at s_endpgm and
    /// s_branch: the code after them (another kernel) is not in it.
    #[test]
    fn a_region_is_what_the_entry_reaches() {
        let code = assemble(TWO_KERNELS, Target::Gfx900).unwrap();
        let p = Program::decode(&code.bytes, 0, Target::Gfx900);
        let inside = reachable(&p.insts, 0).unwrap();
        assert_eq!(
            inside,
            [true, true, true, true, true, false, true, false, false]
        );
        let second = reachable(&p.insts, 7).unwrap();
        assert_eq!(
            second,
            [false, false, false, false, false, false, false, true, true]
        );
    }

    /// A hot region is asked for as many quanta as it takes to get hot, then compiled in the
    /// background: the quantum that starts the compile, and those while it runs, are
    /// interpreted (`None`); once it is done, every quantum gets the code, which covers what
    /// a region compiled at once covers.
    #[test]
    fn a_hot_region_compiles_in_the_background_after_its_quanta() {
        use super::{HotRegion, Region};
        extern "C-unwind" fn jumped(_: &mut crate::exec::Cx, _: *mut std::ffi::c_void, _: u64) {}
        let code = assemble(TWO_KERNELS, Target::Gfx900).unwrap();
        let p = Program::decode(&code.bytes, 0, Target::Gfx900);
        let Some(at_once) = Region::compile(&p, 0, jumped) else {
            return; // (a host Cranelift has no code generator for)
        };
        let hot = HotRegion::new(0, 3);
        for quantum in 0..3 {
            assert!(hot.get(&p, jumped).is_none(), "cold at quantum {quantum}");
        }
        assert!(hot.get(&p, jumped).is_none(), "compiling in the background");
        hot.finish_compiling();
        for _ in 0..2 {
            let region = hot.get(&p, jumped).expect("compiled");
            assert_eq!(region.span, at_once.span);
            assert!(region.entry(3).is_some() && region.entry(5).is_none());
        }
    }
}
