//! Instruction-level tests: short programs assembled with `gcn_isa::assemble`, run on one wave,
//! checked against values worked out from the ISA definitions (carries, overflow, shifts at and
//! beyond the width, NaN and signed zeros, EXEC masking, cross-lane ops).

mod exec_common;
use gcn_isa::{assemble, Target};
use gcnemu::exec::program::Program;
use gcnemu::exec::DispatchEnv;
use gcnemu::fault::Fault;
use gcnemu::launch::{Counts, Stop};
use gcnemu::lds::Lds;
use gcnemu::memory::Memory;
use gcnemu::run::run_workgroup;
use gcnemu::wave::Wave;

/// Runs `asm` (s_endpgm appended) on one wave prepared by `setup`; returns the wave.
fn run(asm: &str, setup: impl FnOnce(&mut Wave)) -> Result<Wave, Fault> {
    let text = format!("{asm}\ns_endpgm\n");
    let code = assemble(&text, Target::Gfx900).unwrap_or_else(|e| panic!("{e:?}"));
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx900);
    assert!(program.bad.is_empty(), "{:?}", program.bad);
    let mut w = Wave::new(0);
    w.set_exec(u64::MAX);
    setup(&mut w);
    let mut mem = Memory::default();
    exec_common::record::note_asm(Target::Gfx900, asm);
    exec_common::record::note_input(&w, &mem);
    let mut waves = [w];
    let mut lds = Lds::new(4096);
    let env = DispatchEnv {
        private_size: 0,
        ..DispatchEnv::default()
    };
    let (mut budget, mut counts) = (1_000_000u64, Counts::default());
    match run_workgroup(
        &mut waves,
        &program,
        &mut mem,
        &mut lds,
        &env,
        &mut budget,
        &mut counts,
    ) {
        Ok(()) => Ok(waves.into_iter().next().unwrap()),
        Err(Stop::Fault { fault, .. }) => Err(fault),
        Err(other) => panic!("{other:?}"),
    }
}

fn lanes(f: impl Fn(usize) -> u32) -> [u32; 64] {
    std::array::from_fn(f)
}

#[test]
fn scalar_add_carry_and_signed_overflow() {
    let w = run(
        "s_add_u32 s2, s0, s1\ns_cselect_b32 s3, 1, 0\ns_addc_u32 s4, 0, 0\ns_add_i32 s5, s6, 1\ns_cselect_b32 s7, 1, 0",
        |w| {
            w.sgpr[0] = 0xffff_ffff;
            w.sgpr[1] = 2;
            w.sgpr[6] = 0x7fff_ffff;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[2], 1); // wraps
        assert_eq!(w.sgpr[3], 1); // SCC = carry out
        assert_eq!(w.sgpr[4], 1); // 0 + 0 + SCC
        assert_eq!(w.sgpr[5], 0x8000_0000);
        assert_eq!(w.sgpr[7], 1); // SCC = signed overflow
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn scalar_shifts_use_low_bits_of_the_amount() {
    let w = run(
        "s_lshl_b32 s2, s0, 33\ns_lshr_b64 s[4:5], s[0:1], 64\ns_ashr_i32 s6, s1, 31\ns_bfe_u32 s7, s0, 0x40004",
        |w| {
            w.sgpr[0] = 0x1234_5678;
            w.sgpr[1] = 0x8000_0000;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[2], 0x2468_acf0); // 33 & 31 = 1
        assert_eq!((w.sgpr[4], w.sgpr[5]), (0x1234_5678, 0x8000_0000)); // 64 & 63 = 0
        assert_eq!(w.sgpr[6], 0xffff_ffff);
        assert_eq!(w.sgpr[7], 0x7); // bits [7:4] of 0x78
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn vector_carry_chain_64_bit_add() {
    // v[0:1] + v[2:3] with carry through VCC, only in lanes 0-31 (EXEC).
    let w = run(
        "v_add_co_u32_e32 v4, vcc, v0, v2\nv_addc_co_u32_e32 v5, vcc, v1, v3, vcc",
        |w| {
            w.set_exec(0xffff_ffff);
            w.vgpr[0] = lanes(|l| 0xffff_fff0u32.wrapping_add(l as u32));
            w.vgpr[1] = lanes(|l| l as u32);
            w.vgpr[2] = [0x10; 64];
            w.vgpr[3] = [0xffff_ffff; 64];
            w.vgpr[4] = [0xdead; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        for l in 0..32 {
            let a = (l as u64) << 32 | 0xffff_fff0u32.wrapping_add(l as u32) as u64;
            let b = 0xffff_ffff_0000_0010u64;
            let s = a.wrapping_add(b);
            assert_eq!(
                (w.vgpr[4][l], w.vgpr[5][l]),
                (s as u32, (s >> 32) as u32),
                "lane {l}"
            );
        }
        assert_eq!(w.vgpr[4][40], 0xdead, "inactive lane written");
        // Carry out of the high half: a_hi + 0xffffffff + 1 overflows for every lane.
        assert_eq!(w.vcc(), 0xffff_ffff);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn sub_borrow_and_mad_u64_u32() {
    let w = run(
        "v_sub_co_u32_e32 v2, vcc, v0, v1\nv_mad_u64_u32 v[4:5], s[0:1], v0, v1, v[6:7]",
        |w| {
            w.vgpr[0] = lanes(|l| l as u32);
            w.vgpr[1] = [5; 64];
            w.vgpr[6] = [0xffff_fffb; 64];
            w.vgpr[7] = [0xffff_ffff; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][3], 3u32.wrapping_sub(5));
        assert_eq!(w.vcc(), 0b11111); // borrow in lanes 0-4
                                      // l*5 + (2^64 - 5): carries out of 64 bits for l >= 1.
        assert_eq!((w.vgpr[4][0], w.vgpr[5][0]), (0xffff_fffb, 0xffff_ffff));
        assert_eq!((w.vgpr[4][2], w.vgpr[5][2]), (5, 0));
        assert_eq!(w.pair(0), !1u64);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn vector_64_bit_shifts_and_mul_hi() {
    let w = run(
        "v_lshlrev_b64 v[2:3], 63, v[0:1]\nv_lshrrev_b64 v[4:5], 64, v[0:1]\nv_ashrrev_i64 v[6:7], 36, v[0:1]\nv_mul_hi_u32 v8, v1, v1\nv_mul_hi_i32 v9, v1, v1",
        |w| {
            w.vgpr[0] = [0x0000_0003; 64];
            w.vgpr[1] = [0x8000_0001; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!((w.vgpr[2][0], w.vgpr[3][0]), (0, 0x8000_0000));
        assert_eq!((w.vgpr[4][0], w.vgpr[5][0]), (3, 0x8000_0001)); // 64 & 63 = 0
        let x = 0x8000_0001_0000_0003u64 as i64 >> 36;
        assert_eq!((w.vgpr[6][0], w.vgpr[7][0]), (x as u32, (x >> 32) as u32));
        assert_eq!(w.vgpr[8][0], ((0x8000_0001u64 * 0x8000_0001) >> 32) as u32);
        let s = 0x8000_0001u32 as i32 as i64;
        assert_eq!(w.vgpr[9][0], ((s * s) >> 32) as u32);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn float_min_max_nan_and_signed_zero() {
    let w = run(
        "v_min_f32_e32 v2, v0, v1\nv_max_f32_e32 v3, v0, v1\nv_add_f32_e64 v4, -v0, |v1|\nv_cvt_u32_f32_e32 v5, v0\nv_cvt_i32_f32_e32 v6, v1",
        |w| {
            w.vgpr[0] = [f32::NAN.to_bits(), 0.0f32.to_bits(), 1e10f32.to_bits(), (-3.5f32).to_bits()]
                .into_iter()
                .cycle()
                .take(64)
                .collect::<Vec<_>>()
                .try_into()
                .unwrap();
            w.vgpr[1] = [2.0f32.to_bits(), (-0.0f32).to_bits(), (-1e10f32).to_bits(), f32::NAN.to_bits()]
                .into_iter()
                .cycle()
                .take(64)
                .collect::<Vec<_>>()
                .try_into()
                .unwrap();
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 2.0f32.to_bits()); // NaN loses
        assert_eq!(w.vgpr[2][1], 0x8000_0000); // min(+0, -0) = -0
        assert_eq!(w.vgpr[3][1], 0); // max(+0, -0) = +0
        assert_eq!(w.vgpr[3][3], (-3.5f32).to_bits());
        assert_eq!(w.vgpr[4][2], 0.0f32.to_bits()); // -1e10 + |-1e10|
        assert_eq!(w.vgpr[5][2], 1e10f32 as u32); // saturates to 0xffffffff
        assert_eq!(w.vgpr[5][2], u32::MAX);
        assert_eq!(w.vgpr[5][0], 0); // NaN -> 0
        assert_eq!(w.vgpr[5][3], 0); // negative -> 0
        assert_eq!(w.vgpr[6][2], i32::MIN as u32);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn compare_saveexec_and_branch_on_execz() {
    // Lanes with v0 < 10 add 100; the others skip; EXEC is restored.
    let w = run(
        "v_cmp_gt_u32_e32 vcc, 10, v0\ns_and_saveexec_b64 s[0:1], vcc\ns_cbranch_execz skip\nv_add_u32_e32 v0, 100, v0\nskip:\ns_or_b64 exec, exec, s[0:1]",
        |w| w.vgpr[0] = lanes(|l| l as u32),
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[0][9], 109);
        assert_eq!(w.vgpr[0][10], 10);
        assert_eq!(w.pair(0), u64::MAX);
        assert_eq!(w.exec(), u64::MAX);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn lane_ops_mbcnt_readlane_writelane_bpermute() {
    let w = run(
        "v_mbcnt_lo_u32_b32 v1, -1, 0\nv_mbcnt_hi_u32_b32 v1, -1, v1\nv_readlane_b32 s2, v0, 37\nv_writelane_b32 v3, s4, 5\nv_lshlrev_b32_e32 v4, 2, v1\nv_xor_b32_e32 v4, 4, v4\nds_bpermute_b32 v5, v4, v0\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.vgpr[0] = lanes(|l| 1000 + l as u32);
            w.sgpr[4] = 77;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1], lanes(|l| l as u32));
        assert_eq!(w.sgpr[2], 1037);
        assert_eq!(w.vgpr[3][5], 77);
        // Lane l reads lane l ^ 1.
        assert_eq!(w.vgpr[5], lanes(|l| 1000 + (l ^ 1) as u32));
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn lds_write_read2_and_atomic_return() {
    let w = run(
        "v_lshlrev_b32_e32 v1, 2, v0\nds_write_b32 v1, v0\nds_read2_b32 v[2:3], v1 offset1:1\nds_add_rtn_u32 v4, v1, v0\nds_read_b32 v5, v1\ns_waitcnt lgkmcnt(0)",
        |w| w.vgpr[0] = lanes(|l| l as u32),
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][7], 7);
        assert_eq!(w.vgpr[3][7], 8);
        assert_eq!(w.vgpr[3][63], 0); // past the last written word
        assert_eq!(w.vgpr[4][9], 9); // old value
        assert_eq!(w.vgpr[5][9], 18);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn lds_out_of_range_is_a_fault_naming_the_lane() {
    let e = run("ds_read_b32 v1, v0", |w| {
        w.vgpr[0] = lanes(|l| if l == 3 { 4094 } else { 0 })
    })
    .unwrap_err();
    assert_eq!(
        e,
        Fault::Lds {
            lane: 3,
            what: "load",
            addr: 4094,
            len: 4,
            size: 4096
        }
    );
}

#[test]
fn division_helpers_f64_sequence() {
    // The sequence LLVM emits for a / b in f64 (minus the Newton steps' constants) on ordinary
    // values: div_scale leaves operands alone, div_fixup restores the sign.
    let w = run(
        "v_div_scale_f64 v[4:5], vcc, v[2:3], v[2:3], v[0:1]\nv_div_fixup_f64 v[6:7], v[8:9], v[2:3], v[0:1]",
        |w| {
            let put = |w: &mut Wave, r: usize, v: f64| {
                w.vgpr[r] = [v.to_bits() as u32; 64];
                w.vgpr[r + 1] = [(v.to_bits() >> 32) as u32; 64];
            };
            put(w, 0, 10.0);
            put(w, 2, -4.0);
            put(w, 8, 2.5);
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        let get = |r: usize| f64::from_bits(w.vgpr[r][0] as u64 | (w.vgpr[r + 1][0] as u64) << 32);
        assert_eq!(get(4), -4.0);
        assert_eq!(w.vcc(), 0);
        assert_eq!(get(6), -2.5);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn every_op_of_every_target_has_semantics() {
    // A program lists the ops it holds that have no semantics (`Program::gaps`, which `gcnemu
    // run` names before it starts); every op of gfx900 to gfx90a has some now, graphics ops
    // included (they stop with a named "not in compute" fault).
    for target in [
        Target::Gfx900,
        Target::Gfx906,
        Target::Gfx908,
        Target::Gfx90a,
    ] {
        let missing: Vec<&str> = gcn_isa::all_ops()
            .iter()
            .filter(|op| op.targets & target.op_set().bit() != 0)
            .filter(|op| {
                matches!(
                    gcnemu::exec::op_semantics(op),
                    gcnemu::exec::Semantics::NotEmulated(_)
                )
            })
            .map(|op| op.name)
            .collect();
        assert_eq!(missing, Vec::<&str>::new(), "{target}");
    }
    let code = assemble("v_pk_fmac_f16 v0, v1, v2\ns_endpgm", Target::Gfx908).unwrap();
    let program = Program::decode(&code.bytes, 0x1000, Target::Gfx908);
    assert!(program.gaps.is_empty());
}

#[test]
fn trap_is_a_guest_fault() {
    assert_eq!(run("s_trap 2", |_| {}).unwrap_err(), Fault::Trap(2));
}

#[test]
fn integer_clamp_saturates_and_float_conversions_take_input_modifiers() {
    let w = run(
        "v_add_u32_e64 v2, v0, v1 clamp\nv_sub_u32_e64 v3, v1, v0 clamp\nv_add_i32 v4, v5, v1 clamp\n\
         v_add_u32_e64 v6, v0, v1\nv_cvt_u32_f32_e64 v7, |v8|\nv_cvt_i32_f32_e64 v9, -v8\n\
         v_readfirstlane_b32 s10, v0",
        |w| {
            for l in 0..64 {
                w.vgpr[0][l] = 0xffff_fff0 + (l as u32 & 1);
                w.vgpr[1][l] = 0x20;
                w.vgpr[5][l] = 0x7fff_fff0;
                w.vgpr[8][l] = (-3.75f32).to_bits();
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], u32::MAX); // 0xfffffff0 + 0x20 saturates
        assert_eq!(w.vgpr[3][0], 0); // 0x20 - 0xfffffff0 saturates at 0
        assert_eq!(w.vgpr[4][0], i32::MAX as u32); // signed saturation
        assert_eq!(w.vgpr[6][0], 0x10); // without clamp it wraps
        assert_eq!(w.vgpr[7][0], 3); // |-3.75| truncates to 3
        assert_eq!(w.vgpr[9][0], 3); // -(-3.75) = 3.75 truncates to 3
        assert_eq!(w.sgpr[10], 0xffff_fff0); // readfirstlane writes its SGPR
        assert_eq!(w.sgpr[106], 0, "readfirstlane must not write VCC");
    };
    chk(&w);
    exec_common::vet(&w, chk);
}
