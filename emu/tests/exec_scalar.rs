//! SALU additions (M0-relative moves, write-EXEC forms, bitreplicate) and SMEM stores/atomics,
//! checked against hand-worked values.

mod exec_common;
use exec_common::{run, run_with};
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::{AllocKind, Memory};

#[test]
fn movrel_reads_and_writes_relative_to_m0() {
    let w = run(
        "s_mov_b32 m0, 3\ns_movrels_b32 s20, s10\ns_movrels_b64 s[22:23], s[10:11]\ns_movreld_b32 s30, s1\ns_movreld_b64 s[40:41], s[2:3]",
        |w| {
            w.sgpr[13] = 0x1313;
            w.sgpr[14] = 0x1414;
            w.sgpr[1] = 0xabc;
            w.sgpr[2] = 0x22;
            w.sgpr[3] = 0x33;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.sgpr[20], 0x1313);
        assert_eq!((w.sgpr[22], w.sgpr[23]), (0x1313, 0x1414));
        assert_eq!(w.sgpr[33], 0xabc);
        assert_eq!((w.sgpr[43], w.sgpr[44]), (0x22, 0x33));
        assert_eq!(w.sgpr[30], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn movrel_past_the_sgprs_is_a_named_fault() {
    let e = run("s_mov_b32 m0, 100\ns_movrels_b32 s0, s10", |_| {}).unwrap_err();
    match e {
        Fault::Guest(msg) => assert!(msg.contains("s_movrels_b32") && msg.contains("m0 (100)")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn wrexec_forms_and_bitreplicate() {
    let w = run(
        "s_andn1_wrexec_b64 s[0:1], s[2:3]\ns_cselect_b32 s4, 1, 0\ns_bitreplicate_b64_b32 s[6:7], s8",
        |w| {
            w.set_exec(0xffff_0000_ffff_00ff);
            w.sgpr[2] = 0x0000_000f;
            w.sgpr[3] = 0xffff_ffff;
            w.sgpr[8] = 0x8000_0005;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        // EXEC = ~S0 & EXEC.
        assert_eq!(w.exec(), 0x0000_0000_ffff_00f0);
        assert_eq!(w.pair(0), 0x0000_0000_ffff_00f0);
        assert_eq!(w.sgpr[4], 1);
        // bits 0, 2, 31 -> pairs 0-1, 4-5, 62-63.
        assert_eq!(w.pair(6), 0xc000_0000_0000_0033);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let w = run(
        "s_andn2_wrexec_b64 s[0:1], s[2:3]\ns_cselect_b32 s4, 1, 0",
        |w| {
            w.set_exec(u64::MAX);
            w.sgpr[2] = 0xffff;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.exec(), 0); // S0 & ~EXEC
        assert_eq!(w.sgpr[4], 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn scalar_stores_and_atomics() {
    let mut mem = Memory::default();
    let base = mem.alloc(64, AllocKind::Buffer).unwrap();
    mem.write(base + 16, &7u32.to_le_bytes()).unwrap();
    mem.write(base + 24, &u64::MAX.to_le_bytes()).unwrap();
    let w = run_with(
        Target::Gfx900,
        "s_store_dwordx2 s[4:5], s[0:1], 0x8\ns_atomic_add s6, s[0:1], 0x10 glc\ns_atomic_inc_x2 s[8:9], s[0:1], 0x18 glc\ns_atomic_cmpswap s[10:11], s[0:1], 0x10\ns_buffer_store_dword s12, s[16:19], 0x0\ns_buffer_store_dword s12, s[16:19], 0x20\ns_waitcnt lgkmcnt(0)",
        &mut mem,
        |w| {
            w.sgpr[0] = base as u32;
            w.sgpr[1] = (base >> 32) as u32;
            w.sgpr[4] = 0x1111;
            w.sgpr[5] = 0x2222;
            w.sgpr[6] = 5;
            w.sgpr[8] = 1; // inc limit: old (MAX) >= 1 -> 0
            w.sgpr[9] = 0;
            w.sgpr[10] = 99; // new value
            w.sgpr[11] = 12; // comparand (7 + 5)
            w.sgpr[12] = 0xfeed;
            w.sgpr[16] = base as u32;
            w.sgpr[17] = (base >> 32) as u32 & 0xffff;
            w.sgpr[18] = 0x20; // num_records: the store at 0x20 is dropped
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        let word = |o: u64| u32::from_le_bytes(mem.bytes(base + o, 4).unwrap().try_into().unwrap());
        assert_eq!((word(8), word(12)), (0x1111, 0x2222));
        assert_eq!(w.sgpr[6], 7); // old value returned (glc)
        assert_eq!((w.sgpr[8], w.sgpr[9]), (u32::MAX, u32::MAX));
        assert_eq!((word(24), word(28)), (0, 0));
        assert_eq!(word(16), 99); // 12 matched the comparand
        assert_eq!(w.sgpr[10], 99); // no glc: SDATA unchanged
        assert_eq!(word(0), 0xfeed);
        assert_eq!(word(0x20), 0);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}
