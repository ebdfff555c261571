//! d16 / d16_hi loads and stores (GLOBAL, FLAT, MUBUF, DS): one half of the VGPR written with a
//! zero- or sign-extended byte or short, the other half kept; stores take bits [31:16].

mod exec_common;
use exec_common::{run, run_with};
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::{AllocKind, Memory};

const BYTES: [u8; 8] = [0x81, 0x7f, 0x34, 0x92, 0, 0, 0, 0];

fn memory() -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(256, AllocKind::Buffer).unwrap();
    mem.write(base, &BYTES).unwrap();
    (mem, base)
}

#[test]
fn global_d16_loads_keep_the_other_half() {
    let (mut mem, base) = memory();
    let w = run_with(
        Target::Gfx900,
        "global_load_ubyte_d16 v2, v[0:1], off\nglobal_load_sbyte_d16_hi v3, v[0:1], off\nglobal_load_short_d16 v4, v[0:1], off offset:2\nglobal_load_short_d16_hi v5, v[0:1], off offset:2\nglobal_load_sbyte_d16 v6, v[0:1], off\nflat_load_ubyte_d16_hi v7, v[0:1] offset:1\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            w.vgpr[0] = [base as u32; 64];
            w.vgpr[1] = [(base >> 32) as u32; 64];
            for r in 2..8 {
                w.vgpr[r] = [0xaaaa_bbbb; 64];
            }
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[2][0], 0xaaaa_0081);
        assert_eq!(w.vgpr[3][0], 0xff81_bbbb); // -127 sign-extended to 16 bits, high half
        assert_eq!(w.vgpr[4][0], 0xaaaa_9234);
        assert_eq!(w.vgpr[5][0], 0x9234_bbbb);
        assert_eq!(w.vgpr[6][0], 0xaaaa_ff81);
        assert_eq!(w.vgpr[7][0], 0x007f_bbbb);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn d16_hi_stores_take_the_high_half() {
    let (mut mem, base) = memory();
    let _w = run_with(
        Target::Gfx900,
        "global_store_short_d16_hi v[0:1], v2, off offset:4\nglobal_store_byte_d16_hi v[0:1], v2, off offset:6\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            w.set_exec(1);
            w.vgpr[0] = [base as u32; 64];
            w.vgpr[1] = [(base >> 32) as u32; 64];
            w.vgpr[2] = [0xcafe_1234; 64];
        },
    )
    .unwrap();
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(mem.bytes(base + 4, 4).unwrap(), &[0xfe, 0xca, 0xfe, 0x00]);
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn buffer_d16_loads_and_out_of_range_reads_zero() {
    let (mut mem, base) = memory();
    let w = run_with(
        Target::Gfx900,
        "buffer_load_short_d16_hi v2, off, s[4:7], 0\nbuffer_load_ubyte_d16 v3, off, s[4:7], 0 offset:3\nbuffer_load_short_d16 v4, off, s[4:7], 0 offset:16\nbuffer_store_short_d16_hi v5, off, s[4:7], 0 offset:6\ns_waitcnt vmcnt(0)",
        &mut mem,
        |w| {
            w.set_exec(1);
            w.sgpr[4] = base as u32;
            w.sgpr[5] = (base >> 32) as u32 & 0xffff; // stride 0
            w.sgpr[6] = 8; // num_records: 8 bytes
            w.sgpr[7] = 0;
            w.vgpr[2] = [0x1111_2222; 64];
            w.vgpr[3] = [0x1111_2222; 64];
            w.vgpr[4] = [0x1111_2222; 64];
            w.vgpr[5] = [0xbeef_0000; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[2][0], 0x7f81_2222);
        assert_eq!(w.vgpr[3][0], 0x1111_0092);
        assert_eq!(w.vgpr[4][0], 0x1111_0000); // past num_records: the half reads 0
        assert_eq!(mem.bytes(base + 6, 2).unwrap(), &[0xef, 0xbe]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn lds_d16_reads_and_writes() {
    let w = run(
        "v_mov_b32_e32 v0, 0\nds_write_b32 v0, v1\nds_write_b16_d16_hi v0, v1 offset:4\nds_read_i8_d16_hi v2, v0 offset:3\nds_read_u16_d16 v3, v0 offset:4\nds_read_u8_d16 v4, v0\ns_waitcnt lgkmcnt(0)",
        |w| {
            w.vgpr[1] = [0x80ff_1234; 64];
            w.vgpr[2] = [0x5555_6666; 64];
            w.vgpr[3] = [0x5555_6666; 64];
            w.vgpr[4] = [0x5555_6666; 64];
        },
    )
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[2][0], 0xff80_6666); // byte 3 = 0x80 sign-extended into the high half
        assert_eq!(w.vgpr[3][0], 0x5555_80ff); // the d16_hi write stored 0x80ff
        assert_eq!(w.vgpr[4][0], 0x5555_0034);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn gds_is_outside_compute_emulation() {
    let e = run("ds_write_b32 v0, v1 gds", |_| {}).unwrap_err();
    assert!(matches!(e, Fault::NotInCompute("ds_write_b32", _)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("not supported in compute emulation"), "{msg}");
}

#[test]
fn graphics_ops_name_themselves() {
    let e = run("v_interp_p1_f32_e32 v0, v1, attr0.x", |_| {}).unwrap_err();
    assert!(
        matches!(e, Fault::NotInCompute("v_interp_p1_f32_e32", _)),
        "{e:?}"
    );
}
