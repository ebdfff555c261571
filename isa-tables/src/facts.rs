//! What the table says about each op beyond its syntax (column 8 of `data/gfx9-ops.tsv`): the
//! special registers it reads and writes without naming them, the memory it touches and in what
//! shape, its atomic operation, its issue rate. The emulator, the timing model and the linter
//! read these facts instead of looking at mnemonics.

/// A set of the special registers instructions use implicitly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Regs(pub(crate) u8);

impl Regs {
    pub const NONE: Regs = Regs(0);
    pub const SCC: Regs = Regs(1);
    pub const VCC: Regs = Regs(2);
    pub const EXEC: Regs = Regs(4);
    pub const M0: Regs = Regs(8);
    /// The program counter (branches, calls, s_setpc).
    pub const PC: Regs = Regs(16);

    pub const fn union(self, o: Regs) -> Regs {
        Regs(self.0 | o.0)
    }
    pub const fn without(self, o: Regs) -> Regs {
        Regs(self.0 & !o.0)
    }
    pub const fn contains(self, o: Regs) -> bool {
        self.0 & o.0 == o.0 && o.0 != 0
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Regs {
    type Output = Regs;
    fn bitor(self, o: Regs) -> Regs {
        self.union(o)
    }
}

/// What a memory instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    Load,
    Store,
    /// An atomic read-modify-write that does not return the old value.
    Atomic,
    /// An atomic that returns the pre-op value (LLVM: `_rtn` for DS, `glc` for buffer/flat).
    AtomicReturn,
    /// Cache control, timers and probes: no data in registers moved to or from memory.
    Other,
}

/// Which half of a VGPR a 16-bit (`d16`) memory op reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum D16 {
    No,
    Lo,
    Hi,
    /// Buffer format ops: two components per VGPR.
    Packed,
}

/// The read-modify-write of an atomic memory op (ISA §9.1.10, §12.13 "DS").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Atomic {
    Swap,
    /// Compare and swap: MEM = (MEM == CMP) ? DATA : MEM.
    CmpSwap,
    Add,
    Sub,
    /// DS only: MEM = DATA - MEM.
    Rsub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    /// MEM = MEM >= DATA ? 0 : MEM + 1.
    Inc,
    /// MEM = (MEM == 0 || MEM > DATA) ? DATA : MEM - 1.
    Dec,
    /// DS only: MEM = (MEM & ~DATA) | DATA2.
    MskOr,
    /// Float add, min, max and compare-and-swap (DS; buffer/flat on gfx908).
    FAdd,
    FMin,
    FMax,
    FCmpSwap,
    /// ds_wrap_rtn_b32: MEM = (MEM >= DATA) ? MEM - DATA : MEM + DATA2.
    Wrap,
    /// ds_condxchg32_rtn_b64: each dword written only if its bit 31 is set.
    CondXchg,
    /// gfx908 buffer/global_atomic_pk_add_f16: two f16 adds.
    PkFAdd,
    /// gfx940 ds/flat/global_atomic_pk_add_bf16: two bf16 adds.
    PkFAddBf16,
}

/// How many cycles a VALU op keeps its SIMD busy, relative to full rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rate {
    Full,
    /// Transcendentals and 32-bit integer multiplies.
    Quarter,
    /// Double precision (its rate depends on the chip).
    Double,
    /// A double-precision transcendental: a quarter of the double rate.
    DoubleQuarter,
}

/// How an op uses its destination slot (sdst or vdst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstUse {
    Write,
    /// The slot holds a source (s_cmpk_*'s SGPR, s_setreg_b32's value, v_interp_*_e64's VGPR).
    Read,
    /// Read and written: accumulators (v_mac_*, v_fmac_*, s_addk_i32), conditional moves,
    /// bit sets, v_writelane_b32 (the other lanes keep their values).
    ReadWrite,
}

/// How a VALU op's result depends on the rounding direction (MODE.FP_ROUND).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// No float result (integer and bit ops; not a VALU op).
    Integer,
    /// A float result that is exact, so the same in every direction.
    Exact,
    /// An f32 result rounded by FP_ROUND[1:0].
    F32,
    /// An f16 or f64 result rounded by FP_ROUND[3:2].
    Wide,
}

/// How a 32-bit literal fills a 64-bit source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal64 {
    /// Zero-extended (bit and unsigned ops).
    Zext,
    /// Sign-extended (`_i64` ops).
    Sext,
    /// The high half of a double (`_f64` ops); the low half is zero.
    High,
}

/// The facts of one table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Special registers read and written without being operands.
    pub reads: Regs,
    pub writes: Regs,
    /// A control op that counts on LGKM_CNT (s_sendmsg, §4.4).
    pub lgkm: bool,
    /// `None` for instructions that do not access memory.
    pub mem: Option<MemKind>,
    /// Bytes accessed per element (per lane for vector and LDS memory); 0 when not one width.
    pub bytes: u8,
    /// A load that sign-extends its byte or short.
    pub sext: bool,
    pub d16: D16,
    /// Buffer format ops: the components (x = 1 ... xyzw = 4); 0 otherwise.
    pub comps: u8,
    pub atomic: Option<Atomic>,
    /// DS two-address ops (read2, write2, wrxchg2); `st64`: their offsets count 64 elements.
    pub dual: bool,
    pub st64: bool,
    /// DS `_src2_` ops: both addresses from the address register, no data operand.
    pub src2: bool,
    /// DS ops whose lanes do not each access their own address (swizzle, permute, append...).
    pub cross: bool,
    pub rate: Rate,
    pub dst: DstUse,
    /// VOP3: the hardware reads the sources as f16, so inline float constants are f16 bit
    /// patterns (2.0 is 0x4000); the printed immediate classes cannot tell (llvm-objdump
    /// prints these like 32-bit floats).
    pub f16src: bool,
    pub round: Rounding,
    /// Buffer/global/scratch loads with an LDS-DMA form (the `lds` bit sends the data to LDS).
    pub lds: bool,
    /// MIMG gather4: always four components.
    pub gather4: bool,
    /// VOP3P packed 16-bit integer ops.
    pub int16x2: bool,
    /// VOP3P mixed-precision ops (v_mad_mix*, v_fma_mix*).
    pub mix: bool,
    pub lit64: Literal64,
}
