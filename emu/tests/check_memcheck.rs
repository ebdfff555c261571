//! memcheck at the instruction level: an LDS access past the workgroup's allocation, a scalar
//! load outside memory, a scratch access past the private segment and a misaligned atomic are
//! reported (with lane and address) and dropped, where without `--check` each is a fault (or,
//! for the atomic, goes through); and
//! initcheck on LDS written by buffer loads.

mod exec_common;

use gcn_isa::Target;
use gcnemu::check::{CheckSet, Kind, Record};
use gcnemu::memory::{AllocKind, Memory};

fn checked_memory() -> Memory {
    let mut mem = Memory::new(1 << 20);
    mem.enable_checks(CheckSet::parse("memcheck").unwrap());
    mem
}

fn findings(mem: &mut Memory) -> Vec<Record> {
    mem.check_state().unwrap().findings.take()
}

#[test]
fn lds_access_past_the_allocation() {
    let asm = "v_mov_b32 v1, 7\nds_write_b32 v0, v1\nds_read_b32 v2, v0";
    // The harness gives the workgroup 4096 bytes of LDS; lane 5 goes 4 bytes past them.
    let setup = |w: &mut gcnemu::wave::Wave| {
        let mut a = [0u32; 64];
        for (l, v) in a.iter_mut().enumerate() {
            *v = 4 * l as u32;
        }
        a[5] = 4096;
        w.vgpr[0] = a;
        w.vgpr[2] = [9; 64];
    };
    let e =
        exec_common::run_with(Target::Gfx900, asm, &mut Memory::new(1 << 20), setup).unwrap_err();
    assert!(
        e.to_string()
            .contains("outside the workgroup's 4096-byte LDS"),
        "{e}"
    );
    let mut mem = checked_memory();
    let w = exec_common::run_with(Target::Gfx900, asm, &mut mem, setup).unwrap();
    // The other lanes wrote and read back; lane 5's store was dropped and its load read 0.
    assert_eq!((w.vgpr[2][4], w.vgpr[2][5]), (7, 0));
    let f = findings(&mut mem);
    let kinds: Vec<(Kind, u8, u64)> = f.iter().map(|r| (r.kind, r.site.lane, r.addr)).collect();
    assert_eq!(
        kinds,
        [
            (Kind::LdsOutOfBounds, 5, 4096),
            (Kind::LdsOutOfBounds, 5, 4096)
        ]
    );
    assert_eq!(f[0].detail, "outside the workgroup's 4096-byte LDS");
}

#[test]
fn scratch_access_past_the_private_segment() {
    // The harness's private segment is 256 bytes per work-item.
    let asm = "scratch_store_dword v0, v1, off";
    let setup = |w: &mut gcnemu::wave::Wave| {
        w.vgpr[0] = [256; 64];
        w.set_exec(1 << 3);
    };
    let e =
        exec_common::run_with(Target::Gfx900, asm, &mut Memory::new(1 << 20), setup).unwrap_err();
    assert!(e.to_string().contains("private segment"), "{e}");
    let mut mem = checked_memory();
    exec_common::run_with(Target::Gfx900, asm, &mut mem, setup).unwrap();
    let f = findings(&mut mem);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].kind, f[0].site.lane, f[0].addr),
        (Kind::PrivateOutOfBounds, 3, 256)
    );
}

#[test]
fn misaligned_atomic() {
    let asm = "global_atomic_add v[0:1], v2, off";
    let mut mem = checked_memory();
    let buf = mem.alloc(64, AllocKind::Buffer).unwrap();
    mem.write(buf, &[0; 64]).unwrap();
    let setup = |w: &mut gcnemu::wave::Wave| {
        w.vgpr[0] = [(buf + 2) as u32; 64];
        w.vgpr[1] = [(buf >> 32) as u32; 64];
        w.vgpr[2] = [1; 64];
        w.set_exec(1);
    };
    exec_common::run_with(Target::Gfx900, asm, &mut mem, setup).unwrap();
    let f = findings(&mut mem);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].kind, f[0].addr), (Kind::MisalignedAtomic, buf + 2));
    assert!(
        f[0].detail.contains("is not a multiple of 4"),
        "{}",
        f[0].detail
    );
    // Dropped: memory is unchanged.
    assert_eq!(mem.read_u32(buf).unwrap(), 0);
}

/// initcheck on LDS: bytes a buffer load with `lds` wrote count as written; others do not.
#[test]
fn lds_bytes_written_by_buffer_loads_count_as_written() {
    let mut mem = Memory::new(1 << 20);
    mem.enable_checks(CheckSet::parse("initcheck").unwrap());
    let base = mem.alloc(64, AllocKind::Buffer).unwrap();
    mem.write(base, &[1; 64]).unwrap();
    let asm = "buffer_load_dword v0, s[4:7], 0 offen lds\n\
               s_waitcnt vmcnt(0)\n\
               ds_read_b32 v3, v0\n\
               ds_read_b32 v4, v0 offset:256\n\
               s_waitcnt lgkmcnt(0)";
    exec_common::run_with(Target::Gfx900, asm, &mut mem, |w| {
        w.set_exec(0xf);
        w.sgpr[4] = base as u32;
        w.sgpr[5] = (base >> 32) as u32 & 0xffff;
        w.sgpr[6] = 64;
        w.sgpr[124] = 0; // M0: LDS offset 0
        for l in 0..64 {
            w.vgpr[0][l] = 4 * l as u32;
        }
    })
    .unwrap();
    let f = findings(&mut mem);
    let kinds: Vec<(Kind, u64)> = f.iter().map(|r| (r.kind, r.addr)).collect();
    // Only the second read, 256 bytes up, reads LDS nothing wrote.
    assert_eq!(kinds, [(Kind::UninitializedLdsRead, 256)]);
}

#[test]
fn scalar_load_outside_memory() {
    let asm = "s_load_dword s0, s[2:3], 0x0\ns_waitcnt lgkmcnt(0)";
    let setup = |w: &mut gcnemu::wave::Wave| {
        w.sgpr[0] = 5;
        w.sgpr[2] = 0xdead_0000;
        w.sgpr[3] = 0x7;
    };
    let e =
        exec_common::run_with(Target::Gfx900, asm, &mut Memory::new(1 << 20), setup).unwrap_err();
    assert!(e.to_string().contains("outside device memory"), "{e}");
    let mut mem = checked_memory();
    let w = exec_common::run_with(Target::Gfx900, asm, &mut mem, setup).unwrap();
    assert_eq!(w.sgpr[0], 0);
    let f = findings(&mut mem);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].kind, f[0].addr), (Kind::OutOfBounds, 0x7_dead_0000));
}
