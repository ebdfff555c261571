//! Scalar state ops: trap returns (s_rfe_b64, s_rfe_restore_b64), s_endpgm_saved, s_setkill,
//! s_wakeup, s_sethalt, s_sendmsghalt; s_getreg/s_setreg over MODE, TRAPSTS, HW_ID, GPR_ALLOC,
//! LDS_ALLOC, IB_STS, SH_MEM_BASES; and the SMEM scalar scratch loads and stores. Expected values
//! are worked out by hand from the ISA definitions quoted next to each check.

mod exec_common;
use exec_common::{run, run_with};
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::WaveState;

// ---- trap returns: PC = S0.u64 (a byte address), PRIV = 0 ----

/// s_getpc gives the address of the s_add after it (A). The s_add, s_addc and s_rfe are 4 bytes
/// each, so A + 16 is the second s_mov: the first one is jumped over.
const JUMP_OVER: &str = "s_getpc_b64 s[0:1]
s_add_u32 s0, s0, 16
s_addc_u32 s1, s1, 0
RFE
s_mov_b32 s5, 1
s_mov_b32 s6, 2";

#[test]
fn rfe_b64_jumps_to_the_byte_address_in_s0() {
    let w = run(&JUMP_OVER.replace("RFE", "s_rfe_b64 s[0:1]"), |_| {}).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.sgpr[5], w.sgpr[6]), (0, 2));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn rfe_restore_b64_jumps_and_ignores_inst_atc() {
    let w = run(
        &JUMP_OVER.replace("RFE", "s_rfe_restore_b64 s[0:1], s2"),
        |w| w.sgpr[2] = 1,
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.sgpr[5], w.sgpr[6]), (0, 2));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn rfe_to_the_middle_of_an_instruction_is_a_bad_jump() {
    let e = run(
        &JUMP_OVER
            .replace("16", "14")
            .replace("RFE", "s_rfe_b64 s[0:1]"),
        |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(e, Fault::BadJump { addr } if addr % 4 == 2),
        "{e:?}"
    );
}

// ---- ending, killing, halting ----

#[test]
fn endpgm_saved_ends_the_wave() {
    let w = run("s_mov_b32 s0, 1\ns_endpgm_saved\ns_mov_b32 s0, 2", |_| {}).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 1);
        assert_eq!(w.state, WaveState::Ended);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn setkill_1_terminates_setkill_0_does_not() {
    let w = run(
        "s_setkill 0\ns_mov_b32 s0, 1\ns_setkill 1\ns_mov_b32 s0, 2",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 1);
        assert_eq!(w.state, WaveState::Ended);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn wakeup_is_a_functional_no_op() {
    let w = run("s_wakeup\ns_mov_b32 s0, 3", |_| {}).unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 3);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sethalt_0_continues_sethalt_1_is_a_named_error() {
    let w = run("s_sethalt 0\ns_mov_b32 s0, 3", |_| {}).unwrap();
    assert_eq!(w.sgpr[0], 3);
    match run("s_sethalt 1\ns_mov_b32 s0, 3", |_| {}).unwrap_err() {
        Fault::Guest(m) => assert!(m.contains("s_sethalt") && m.contains("halted"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn sendmsghalt_halts_after_the_message() {
    match run("s_sendmsghalt sendmsg(MSG_INTERRUPT)", |_| {}).unwrap_err() {
        Fault::Guest(m) => assert!(m.contains("s_sendmsghalt") && m.contains("halted"), "{m}"),
        other => panic!("{other:?}"),
    }
}

// ---- hardware registers ----

#[test]
fn mode_csp_field_reads_the_control_stack_pointer() {
    // MODE.CSP is [31:29]; s_setreg of it moves the pointer s_cbranch_join compares with.
    let w = run(
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5\n\
         s_getreg_b32 s0, hwreg(HW_REG_MODE, 29, 3)\n\
         s_getreg_b32 s1, hwreg(HW_REG_MODE)",
        |w| w.mode = 0x3f0,
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 5);
        assert_eq!(w.csp, 5);
        assert_eq!(w.sgpr[1], 0x3f0 | 5 << 29);
        assert_eq!(
            w.mode, 0x3f0,
            "CSP lives in the stack pointer, not in the mode bits"
        );
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn mode_round_set_by_setreg_directs_later_f32_adds() {
    // 1 + 1.5 * 2^-24 lies between 1 and 1 + 2^-23: nearest-even rounds up, toward zero down.
    let x = 1.5f32 * 2f32.powi(-24);
    let w = run(
        "v_add_f32 v1, v0, v2\n\
         s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\n\
         s_nop 1\n\
         v_add_f32 v3, v0, v2",
        |w| {
            w.vgpr[0] = [1f32.to_bits(); 64];
            w.vgpr[2] = [x.to_bits(); 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(f32::from_bits(w.vgpr[1][0]), 1.0 + 2f32.powi(-23));
        assert_eq!(f32::from_bits(w.vgpr[3][0]), 1.0);
        assert_eq!(w.mode & 3, 3);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn trapsts_is_kept_and_v_clrexcp_clears_the_alu_exceptions() {
    // TRAPSTS.EXCP[8:0]: bits 0-6 are ALU exceptions (invalid ... int div0), 7-8 memory.
    let w = run(
        "s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS), 0x1ff\n\
         s_getreg_b32 s0, hwreg(HW_REG_TRAPSTS)\n\
         v_clrexcp\n\
         s_getreg_b32 s1, hwreg(HW_REG_TRAPSTS)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 0x1ff);
        assert_eq!(w.sgpr[1], 0x180);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn read_only_registers_ignore_writes() {
    let w = run(
        "s_setreg_imm32_b32 hwreg(HW_REG_HW_ID), 0xffffffff\n\
         s_getreg_b32 s0, hwreg(HW_REG_HW_ID)\n\
         s_setreg_imm32_b32 hwreg(HW_REG_IB_STS), 0xffffffff\n\
         s_getreg_b32 s1, hwreg(HW_REG_IB_STS)",
        |w| w.index = 6,
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // Wave 6 of its workgroup: SIMD 6 % 4 = 2 at [5:4], WAVE_ID 6 / 4 = 1 at [3:0].
        assert_eq!(w.sgpr[0], 2 << 4 | 1);
        // Nothing outstanding: all counters 0.
        assert_eq!(w.sgpr[1], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn lds_alloc_reports_the_workgroup_lds_in_256_byte_units() {
    // The harness gives the workgroup 4096 bytes of LDS: 4096 / 256 = 16 at [20:12].
    let w = run(
        "s_getreg_b32 s0, hwreg(HW_REG_LDS_ALLOC)\ns_getreg_b32 s1, hwreg(HW_REG_LDS_ALLOC, 12, 9)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 16 << 12);
        assert_eq!(w.sgpr[1], 16);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sh_mem_bases_gives_the_aperture_high_bits() {
    // LLVM's gfx9 aperture sequence: s_getreg(SH_MEM_BASES, 16, 16) << 16 is the high dword
    // of the shared base; offset 0 gives the private one. Compare with src_*_base.
    let w = run(
        "s_getreg_b32 s0, hwreg(HW_REG_SH_MEM_BASES, 16, 16)\n\
         s_lshl_b32 s0, s0, 16\n\
         s_getreg_b32 s1, hwreg(HW_REG_SH_MEM_BASES, 0, 16)\n\
         s_lshl_b32 s1, s1, 16\n\
         s_mov_b64 s[2:3], src_shared_base\n\
         s_mov_b64 s[4:5], src_private_base",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], w.sgpr[3]);
        assert_eq!(w.sgpr[1], w.sgpr[5]);
        assert_ne!(w.sgpr[0], w.sgpr[1]);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn gpr_alloc_reports_the_wave_allocation() {
    // The harness's dispatch gives the whole file: 256 VGPRs (VGPR_SIZE 63) and 112 SGPRs
    // (SGPR_SIZE 6); both bases 0.
    let w = run(
        "s_getreg_b32 s0, hwreg(HW_REG_GPR_ALLOC)\n\
         s_getreg_b32 s1, hwreg(HW_REG_GPR_ALLOC, 8, 6)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[0], 63 << 8 | 6 << 24);
        assert_eq!(w.sgpr[1], 63);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn gpr_alloc_counts_vgprs_in_the_targets_granule() {
    // 128 VGPRs: 32 blocks of 4 on gfx900, 16 of 8 on gfx90a (whose unified file of 512 needs
    // the larger unit to fit VGPR_SIZE's six bits).
    for (target, granule, size) in [(Target::Gfx900, 4, 31), (Target::Gfx90a, 8, 15)] {
        let code = gcn_isa::assemble(
            "s_getreg_b32 s0, hwreg(HW_REG_GPR_ALLOC, 8, 6)\ns_endpgm\n",
            target,
        )
        .unwrap();
        let env = gcnemu::exec::DispatchEnv {
            vgprs: 128,
            vgpr_granule: granule,
            ..Default::default()
        };
        let w = exec_common::run_code_in(target, &code.bytes, &mut Memory::default(), &env, |_| {})
            .unwrap();
        assert_eq!(w.sgpr[0], size, "{target}");
    }
}

// ---- SMEM scalar scratch ----
// ADDR = SBASE + (IMM_OFFSET & ~3) + (SGPR_OFFSET & ~3) * 64 (SGPR offsets count one lane's
// private bytes; scratch is swizzled in dwords across 64 lanes).

fn scratch_mem() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(4096, AllocKind::Scratch).unwrap();
    (mem, base)
}

#[test]
fn scratch_loads_use_imm_and_scaled_sgpr_offsets() {
    let (mut mem, base) = scratch_mem();
    for i in 0..1024u64 {
        mem.write_u32(base + 4 * i, 0x1000 + i as u32).unwrap();
    }
    let w = run_with(
        Target::Gfx900,
        "s_scratch_load_dword s10, s[2:3], 0x24\n\
         s_scratch_load_dwordx2 s[12:13], s[2:3], s4\n\
         s_scratch_load_dwordx4 s[16:19], s[2:3], s4 offset:0x10\n\
         s_waitcnt lgkmcnt(0)",
        &mut mem,
        |w| {
            w.set_pair(2, base);
            w.sgpr[4] = 8 | 3; // low two bits ignored: lane byte offset 8 -> 8 * 64 = 512
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        // 0x24 bytes = dword 9.
        assert_eq!(w.sgpr[10], 0x1000 + 9);
        // 512 bytes = dword 128, then 129.
        assert_eq!((w.sgpr[12], w.sgpr[13]), (0x1000 + 128, 0x1000 + 129));
        // 512 + 0x10 = dword 132 ... 135.
        assert_eq!(&w.sgpr[16..20], &[0x1084, 0x1085, 0x1086, 0x1087]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn scratch_stores_write_consecutive_dwords() {
    let (mut mem, base) = scratch_mem();
    let _w = run_with(
        Target::Gfx900,
        "s_scratch_store_dword s10, s[2:3], 0x7\n\
         s_scratch_store_dwordx2 s[12:13], s[2:3], s4\n\
         s_scratch_store_dwordx4 s[16:19], s[2:3], 0x200",
        &mut mem,
        |w| {
            w.set_pair(2, base);
            w.sgpr[4] = 5; // (5 & ~3) * 64 = 256
            w.sgpr[10] = 0xaaaa;
            w.sgpr[12] = 0xbbbb;
            w.sgpr[13] = 0xcccc;
            for i in 0..4 {
                w.sgpr[16 + i] = 0xd000 + i as u32;
            }
        },
    )
    .unwrap();
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        // 0x7 & ~3 = 4: dword 1 only.
        assert_eq!(mem.read_u32(base).unwrap(), 0);
        assert_eq!(mem.read_u32(base + 4).unwrap(), 0xaaaa);
        assert_eq!(mem.read_u32(base + 8).unwrap(), 0);
        assert_eq!(mem.read_u32(base + 0x100).unwrap(), 0xbbbb);
        assert_eq!(mem.read_u32(base + 0x104).unwrap(), 0xcccc);
        assert_eq!(mem.read_u32(base + 0x108).unwrap(), 0);
        for i in 0..4u64 {
            assert_eq!(
                mem.read_u32(base + 0x200 + 4 * i).unwrap(),
                0xd000 + i as u32
            );
        }
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn scratch_access_outside_memory_is_a_named_fault() {
    let (mut mem, base) = scratch_mem();
    let e = run_with(
        Target::Gfx900,
        "s_scratch_load_dwordx4 s[16:19], s[2:3], s4",
        &mut mem,
        |w| {
            w.set_pair(2, base);
            w.sgpr[4] = 64; // 64 * 64 = 4096: just past the allocation
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, Fault::ScalarMemory { what: "scratch load", addr, .. } if addr == base + 4096),
        "{e:?}"
    );
}
