//! VGPR index mode (s_set_gpr_idx_on/off/mode/idx) and MODE.vskip (s_setvskip), which act on the
//! instructions that follow through `gcnemu::exec::issue::execute`. Expected registers are worked
//! out by hand from SQ_M0_GPR_IDX_WORD: M0[7:0] index, M0[12] src0, [13] src1, [14] src2, [15] dst.

mod exec_common;
use exec_common::MODE_DENORMS;
use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::{issue, Cx, DispatchEnv, Flow};
use gcnemu::fault::Fault;
use gcnemu::lds::Lds;
use gcnemu::memory::Memory;
use gcnemu::wave::Wave;

const GPR_IDX_EN: u32 = 1 << 27;
const VSKIP: u32 = 1 << 28;

/// Runs `asm` (s_endpgm appended) on one wave, every instruction through `issue::execute`, the
/// entry point a scheduler calls.
fn run(asm: &str, setup: impl FnOnce(&mut Wave)) -> Result<Wave, Fault> {
    let code =
        assemble(&format!("{asm}\ns_endpgm\n"), Target::Gfx900).unwrap_or_else(|e| panic!("{e:?}"));
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx900);
    assert!(program.bad.is_empty() && program.gaps.is_empty());
    let mut w = Wave::new(0);
    w.set_exec(u64::MAX);
    w.mode = MODE_DENORMS;
    setup(&mut w);
    let mut mem = Memory::default();
    exec_common::record::note_asm(Target::Gfx900, asm);
    exec_common::record::note_input(&w, &mem);
    let mut lds = Lds::new(4096);
    let env = DispatchEnv {
        private_size: 256,
        ..DispatchEnv::default()
    };
    let mut cx = Cx {
        wave: &mut w,
        mem: &mut mem,
        lds: &mut lds,
        program: &program,
        env: &env,
    };
    for _ in 0..1000 {
        let at = cx.wave.pc;
        let d = &program.insts[at as usize];
        cx.wave.pc = at + 1;
        match issue::execute(&mut cx, d)? {
            Flow::Continue => {}
            Flow::End => return Ok(w),
            other => panic!("{other:?}"),
        }
    }
    panic!("no s_endpgm reached");
}

/// VGPR `r` holds `r * 1000 + lane` in every lane, so a read names its register.
fn numbered(w: &mut Wave) {
    for r in 0..256 {
        for l in 0..64 {
            w.vgpr[r][l] = (r * 1000 + l) as u32;
        }
    }
}

#[test]
fn on_sets_m0_and_mode_and_indexes_src0() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0)\nv_mov_b32 v1, v10\ns_set_gpr_idx_off\nv_mov_b32 v2, v10",
        |w| {
            numbered(w);
            w.sgpr[2] = 0x1234_5603; // only [7:0] = 3 is the index
            w.sgpr[124] = 0xffff_ffff;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // M0[7:0] = 3, M0[15:12] = 0b0001, other bits kept.
        assert_eq!(w.sgpr[124], 0xffff_0f03 | 1 << 12);
        assert_eq!(
            w.mode & GPR_IDX_EN,
            0,
            "s_set_gpr_idx_off clears MODE.gpr_idx_en"
        );
        assert_eq!(w.vgpr[1][0], 13_000);
        assert_eq!(w.vgpr[1][63], 13_063);
        // After off, v10 is v10 again although M0 still holds the index.
        assert_eq!(w.vgpr[2][5], 10_005);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn mode_bit_is_visible_while_on() {
    let w = run(
        "s_set_gpr_idx_on 0, gpr_idx()\ns_getreg_b32 s4, hwreg(HW_REG_MODE, 27, 1)",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[4], 1);
        assert_ne!(w.mode & GPR_IDX_EN, 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn dst_indexing_writes_the_moved_register_only() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(DST)\nv_mov_b32 v20, v1\ns_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 5;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(
            w.vgpr[25][7], 1_007,
            "v20 + 5 receives v1 (src0 not indexed)"
        );
        assert_eq!(w.vgpr[20][7], 20_007, "v20 itself is untouched");
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn src1_and_src2_indexing_in_vop2_and_vop3() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC1,SRC2)\n\
         v_add_u32_e32 v0, v1, v2\n\
         v_mad_u32_u24 v3, v1, v2, v4\n\
         v_add_u32_e32 v5, s7, v2\n\
         s_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 4;
            w.sgpr[7] = 9;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // v1 + v6 (src1 moved by 4).
        assert_eq!(w.vgpr[0][2], 1_002 + 6_002);
        // v1 * v6 + v8: 24-bit operands, so worked in u64 and wrapped.
        let want = (1_002u64 * 6_002 + 8_002) as u32;
        assert_eq!(w.vgpr[3][2], want);
        // An SGPR src0 is not indexed even if SRC0 were on; here src1 v2 -> v6.
        assert_eq!(w.vgpr[5][2], 9 + 6_002);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sgpr_operands_and_sgpr_destinations_are_not_moved() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)\n\
         v_add_u32_e32 v0, s7, v1\n\
         v_readfirstlane_b32 s8, v10\n\
         v_cmp_eq_u32_e64 s[10:11], v10, v13\n\
         s_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 3;
            w.sgpr[7] = 100;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // src0 is an SGPR (unchanged), src1 not enabled, dst v0 -> v3.
        assert_eq!(w.vgpr[3][1], 100 + 1_001);
        assert_eq!(w.vgpr[0][1], 1, "v0 keeps its value");
        // v_readfirstlane reads v13 lane 0 into s8 (an SGPR destination is not a VGPR number).
        assert_eq!(w.sgpr[8], 13_000);
        // v_cmp: src0 v10 -> v13 compared with v13: all lanes equal; written to s[10:11].
        assert_eq!(w.pair(10), u64::MAX);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn wide_operands_move_their_base() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0)\nv_lshlrev_b64 v[0:1], 0, v[10:11]\ns_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 2;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // src0 is the shift amount (constant 0, not moved); src1 v[10:11] is not enabled.
        assert_eq!((w.vgpr[0][0], w.vgpr[1][0]), (10_000, 11_000));
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC1)\nv_lshlrev_b64 v[0:1], 0, v[10:11]\ns_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 2;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.vgpr[0][0], w.vgpr[1][0]), (12_000, 13_000));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn mode_and_idx_change_one_field_each() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0)\n\
         s_set_gpr_idx_mode gpr_idx(DST)\n\
         v_mov_b32 v1, v10\n\
         s_set_gpr_idx_idx s3\n\
         v_mov_b32 v2, v10\n\
         s_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 1;
            w.sgpr[3] = 0xab07; // index 7
            w.sgpr[124] = 0x8000_0000;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // Enables now DST only (M0[15]) with index 1: v1 -> v2 gets v10.
        assert_eq!(w.vgpr[2][0], 10_000);
        // Then index 7: v2 -> v9 gets v10; src0 not moved.
        assert_eq!(w.vgpr[9][3], 10_003);
        assert_eq!(w.sgpr[124], 0x8000_0000 | 1 << 15 | 7);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn index_past_v255_selects_v0() {
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0)\nv_mov_b32 v1, v100\ns_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 200; // v300 does not exist
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1][4], 4, "read from v0");
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run(
        "s_set_gpr_idx_on s2, gpr_idx(SRC0)\nv_mov_b32 v1, v55\ns_set_gpr_idx_off",
        |w| {
            numbered(w);
            w.sgpr[2] = 200; // v255 is the last VGPR
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1][4], 255_004);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn lds_addresses_are_not_indexed() {
    let w = run(
        "s_mov_b32 m0, -1\n\
         ds_write_b32 v1, v2\n\
         s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)\n\
         ds_read_b32 v3, v1\n\
         s_set_gpr_idx_off",
        |w| {
            for l in 0..64 {
                w.vgpr[1][l] = 4 * l as u32;
                w.vgpr[2][l] = 0x100 + l as u32;
            }
            w.sgpr[2] = 1;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // s_set_gpr_idx_on kept M0[31:16] and set [15:12] and [7:0]: the LDS limit stays large.
        assert_eq!(w.vgpr[3][9], 0x109);
        assert_eq!(w.vgpr[4][9], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn setvskip_skips_vector_instructions_only() {
    let w = run(
        "s_setvskip s0, s1\n\
         v_mov_b32 v0, 7\n\
         ds_write_b32 v1, v2\n\
         s_mov_b32 s3, 9\n\
         s_getreg_b32 s4, hwreg(HW_REG_MODE, 28, 1)\n\
         s_setvskip 0, 0\n\
         v_mov_b32 v5, 8\n\
         s_mov_b32 m0, -1\n\
         ds_read_b32 v6, v1",
        |w| {
            w.sgpr[0] = 1 << 5;
            w.sgpr[1] = 37; // S1[4:0] = 5
            w.vgpr[2] = [0xdead; 64];
            w.vgpr[6] = [1; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[0][0], 0, "v_mov skipped");
        assert_eq!(
            w.vgpr[6][0], 0,
            "ds_write skipped: the later read finds LDS still zero"
        );
        assert_eq!(w.sgpr[3], 9, "scalar ops still run");
        assert_eq!(w.sgpr[4], 1, "MODE.vskip reads back as 1");
        assert_eq!(w.mode & VSKIP, 0);
        assert_eq!(w.vgpr[5][0], 8, "vector ops run again once cleared");
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn setvskip_bit_clear_leaves_vskip_off() {
    let w = run("s_setvskip s0, s1\nv_mov_b32 v0, 7", |w| {
        w.sgpr[0] = !(1 << 3);
        w.sgpr[1] = 3;
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[0][0], 7);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn setreg_of_mode_vskip_also_skips() {
    let w = run(
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1\nv_mov_b32 v0, 7\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0\nv_mov_b32 v1, 3",
        |_| {},
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.vgpr[0][0], w.vgpr[1][0]), (0, 3));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// The hipcc-compiled fixture `tests/fixtures/hip/gpr_idx.hip`: a uniform-indexed register
/// array, read and written in VGPR index mode (see the source for the instructions). Runs
/// through `Device::launch`, so it needs the run loop to call `exec::issue::execute`.
#[test]
fn hip_fixture_indexes_a_register_array() {
    use gcnemu::{Arg, Device, DeviceConfig, Dims, LaunchOptions};
    for (target, file) in [
        (Target::Gfx900, "gpr_idx.gfx900.co"),
        (Target::Gfx906, "gpr_idx.gfx906.co"),
    ] {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/hip")
            .join(file);
        let bytes = std::fs::read(&path).unwrap();
        let mut dev = Device::new(DeviceConfig {
            target,
            ..Default::default()
        });
        let module = dev.load(file, &bytes).unwrap();
        for (k, j) in [(3, 9), (21, 5), (7, 7), (15, 0)] {
            let out = dev.alloc(64 * 4).unwrap();
            let dims = Dims {
                grid: [1, 1, 1],
                block: [64, 1, 1],
            };
            let args = [Arg::I32(k), Arg::I32(j), Arg::Ptr(out)];
            dev.launch(&module, "gpr_idx", dims, &args, &LaunchOptions::default())
                .unwrap();
            let got = dev.read(out, 64 * 4).unwrap();
            for t in 0..64 {
                let v = f32::from_le_bytes(got[4 * t..4 * t + 4].try_into().unwrap());
                // CPU reference of the kernel.
                let mut a: [f32; 16] = std::array::from_fn(|i| (t * 100 + i) as f32);
                a[(j & 15) as usize] = -1.0;
                assert_eq!(v, a[(k & 15) as usize], "{file} k={k} j={j} t={t}");
            }
        }
    }
}
