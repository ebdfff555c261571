//! MUBUF loads with lds=1 (Vega ISA, "buffer load to LDS"): the data goes to LDS at
//! M0[15:0] + inst_offset + TID * 4 instead of VDATA; sub-dword loads store the extended dword;
//! out-of-range lanes store 0. The program reads LDS back with ds_read_b32 to check.

mod exec_common;
use exec_common::run_with;
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::Wave;

const DATA: [u32; 4] = [0x1111_1111, 0x2222_22f2, 0x3333_3333, 0x4444_4444];

fn setup(w: &mut Wave, base: u64, num_records: u32) {
    w.set_exec(0xf);
    w.sgpr[4] = base as u32;
    w.sgpr[5] = (base >> 32) as u32 & 0xffff;
    w.sgpr[6] = num_records;
    w.sgpr[7] = 0;
    w.sgpr[124] = 0x10_0040; // M0: LDS offset 0x40 (bits above 15 are not part of it)
    for l in 0..64 {
        w.vgpr[0][l] = 4 * l as u32; // byte offset of element l
        w.vgpr[1][l] = 0xdead; // VDATA must not change
    }
}

fn memory() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(64, AllocKind::Buffer).unwrap();
    let bytes: Vec<u8> = DATA.iter().flat_map(|v| v.to_le_bytes()).collect();
    mem.write(base, &bytes).unwrap();
    (mem, base)
}

#[test]
fn dword_and_sbyte_loads_land_in_lds() {
    let (mut mem, base) = memory();
    // Lane l loads element l + 1 (offset:4) to LDS 0x40 + 4 + 4l; lane 3 is out of range
    // (num_records 16 bytes) and stores 0. Then sbyte loads of byte 4l to LDS 0x40 + 4l.
    let w = run_with(
        Target::Gfx900,
        "buffer_load_dword v0, s[4:7], 0 offen offset:4 lds\n\
         s_waitcnt vmcnt(0)\n\
         v_add_u32 v2, 0x44, v0\n\
         ds_read_b32 v3, v2\n\
         buffer_load_sbyte v0, s[4:7], 0 offen lds\n\
         s_waitcnt vmcnt(0)\n\
         v_add_u32 v2, 0x40, v0\n\
         ds_read_b32 v4, v2\n\
         s_waitcnt lgkmcnt(0)",
        &mut mem,
        |w| setup(w, base, 16),
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(&w.vgpr[3][..4], &[DATA[1], DATA[2], DATA[3], 0]);
        // Low bytes 0x11, 0xf2, 0x33, 0x44, sign-extended.
        assert_eq!(&w.vgpr[4][..4], &[0x11, 0xffff_fff2, 0x33, 0x44]);
        assert!(w.vgpr[1][..4].iter().all(|&v| v == 0xdead));
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn format_x_load_converts_then_lands_in_lds() {
    let (mut mem, base) = memory();
    // Word 3: DST_SEL_X = 4 (X), NUM_FORMAT 4 (UINT), DATA_FORMAT 4 (32): lane l reads
    // element l unchanged.
    let w = run_with(
        Target::Gfx900,
        "buffer_load_format_x v0, s[4:7], 0 offen lds\n\
         s_waitcnt vmcnt(0)\n\
         v_add_u32 v2, 0x40, v0\n\
         ds_read_b32 v3, v2\n\
         s_waitcnt lgkmcnt(0)",
        &mut mem,
        |w| {
            setup(w, base, 16);
            w.sgpr[7] = 4 | 4 << 12 | 4 << 15;
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(&w.vgpr[3][..4], &DATA);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn lds_dma_outside_the_lds_and_wide_forms_are_named_errors() {
    let (mut mem, base) = memory();
    let e = run_with(
        Target::Gfx900,
        "s_mov_b32 m0, 0xfff8\nbuffer_load_dword v0, s[4:7], 0 offen lds",
        &mut mem,
        |w| setup(w, base, 16),
    )
    .unwrap_err();
    assert!(matches!(e, Fault::Lds { lane: 0, .. }), "{e:?}");
    // buffer_load_dwordx2 with lds=1 (E0551000 80010000) has no LDS form: llvm-mc-15
    // rejects the word for gfx900, and so does the decoder.
    let code = [0x00, 0x10, 0x55, 0xe0, 0x00, 0x00, 0x01, 0x80];
    assert!(gcn_isa::decode(&code, Target::Gfx900).is_err());
}
