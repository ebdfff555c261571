//! The fixed bits of each format with the opcode in place (the inverse of `decode::classify`), and
//! the defaults of fields that text may leave out.

use crate::fields::Enc;
use crate::operand;
use crate::table::{Format, Op, OpInfo};

/// Words with the format's fixed bits, the opcode and the defaults LLVM's assembler uses.
pub fn base_words(info: &OpInfo, enc: Enc) -> [u32; 2] {
    let op = info.opcode;
    let mut w = match info.format {
        Format::Sop2 => [(0b10 << 30) | (op << 23), 0],
        Format::Sopk => [(0b1011 << 28) | (op << 23), 0],
        Format::Sop1 => [(0x17D << 23) | (op << 8), 0],
        Format::Sopc => [(0x17E << 23) | (op << 16), 0],
        Format::Sopp => [(0x17F << 23) | (op << 16), 0],
        Format::Vop1 => [(0x3F << 25) | (op << 9), 0],
        Format::Vopc => [(0x3E << 25) | (op << 17), 0],
        Format::Vop2 => [op << 25, 0],
        Format::Smem => [(0x30 << 26) | (op << 18), 0],
        Format::Exp => [0x31 << 26, 0],
        Format::Vop3p => [(0x1A7 << 23) | (op << 16), 0],
        Format::Vop3 => [(0x34 << 26) | (op << 16), 0],
        Format::Vintrp => [(0x35 << 26) | (op << 16), 0],
        Format::Ds => [(0x36 << 26) | (op << 17), 0],
        Format::Flat => [(0x37 << 26) | (op << 18), 0],
        Format::Scratch => [(0x37 << 26) | (1 << 14) | (op << 18), 0],
        Format::Global => [(0x37 << 26) | (2 << 14) | (op << 18), 0],
        Format::Mubuf => [(0x38 << 26) | (op << 18), 0],
        Format::Mtbuf => [(0x3A << 26) | (op << 15), 0],
        Format::Mimg => [(0x3C << 26) | (op << 18), 0],
    };
    match (info.format, enc) {
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Enc::Sdwa) => {
            w[0] |= operand::SDWA as u32;
            // dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD
            w[1] = match info.format {
                Format::Vopc => (6 << 16) | (6 << 24),
                Format::Vop1 => (6 << 8) | (2 << 11) | (6 << 16),
                _ => (6 << 8) | (2 << 11) | (6 << 16) | (6 << 24),
            };
        }
        (Format::Vop1 | Format::Vop2 | Format::Vopc, Enc::Dpp) => {
            w[0] |= operand::DPP as u32;
            w[1] = 0xff << 24; // row_mask:0xf bank_mask:0xf
        }
        // No SGPR base: `off` (FLAT itself has no saddr; LLVM requires the field to be 0).
        (Format::Global | Format::Scratch, _) => w[1] |= 0x7f << 16,
        // dfmt 1 (BUF_DATA_FORMAT_8), nfmt 0 print as no format at all.
        (Format::Mtbuf, _) => w[0] |= 1 << 19,
        (Format::Vop3p, _)
            // op_sel_hi defaults to all ones for packed math, zero for the mix ops; the MFMAs
            // keep their A/B register-file bits there.
            if !info.facts.mix && !info.is_mfma() => {
                set_op_sel_hi(&mut w, 0b111, 3);
            }
        (Format::Sopp, _) if info.op == Op::S_WAITCNT => w[0] |= 0xcf7f,
        _ => {}
    }
    w
}

/// VOP3P op_sel_hi: bits 0 and 1 live in word 1 [28:27], bit 2 in word 0 [14]. Only the first
/// `n` bits are set from `v`; the others keep their value (LLVM's default for unnamed sources).
pub fn set_op_sel_hi(w: &mut [u32; 2], v: u32, n: usize) {
    for i in 0..n.min(3) as u32 {
        let (word, bit) = if i < 2 { (1, 27 + i) } else { (0, 14) };
        w[word] = (w[word] & !(1 << bit)) | (((v >> i) & 1) << bit);
    }
}
