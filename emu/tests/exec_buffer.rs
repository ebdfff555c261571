//! Typed buffer ops: buffer_{load,store}_format_* (format from the V#) and tbuffer_* (format
//! from the instruction), d16 and d16_hi forms, every data format with its numeric formats,
//! DST_SEL, missing-component defaults, store clamping, range checking and bad formats. The
//! expected values are worked out by hand from the format definitions (UNORM = v / (2^n - 1),
//! SNORM = max(v / (2^(n-1) - 1), -1), stores clamp and round to nearest).

// Zero fields are spelled out (`0 << 20`) to show the packed layouts.
#![allow(clippy::identity_op)]

mod exec_common;
use exec_common::run_with;
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::{AllocKind, Memory};
use gcnemu::wave::Wave;

/// DST_SEL X, Y, Z, W = 4, 5, 6, 7 (each result its own component).
const IDENTITY: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;

fn word3(dfmt: u32, nfmt: u32) -> u32 {
    IDENTITY | nfmt << 12 | dfmt << 15
}

/// A 256-byte buffer holding `bytes` at offset 0.
fn memory(bytes: &[u8]) -> (Memory, u64) {
    let mut mem = Memory::default();
    let base = mem.alloc(256, AllocKind::Buffer).unwrap();
    mem.write(base, bytes).unwrap();
    (mem, base)
}

/// Lane 0 only, V# in s[4:7]: raw buffer (stride 0) of `num_records` bytes.
fn vsharp(w: &mut Wave, base: u64, num_records: u32, w3: u32) {
    w.set_exec(1);
    w.sgpr[4] = base as u32;
    w.sgpr[5] = (base >> 32) as u32 & 0xffff;
    w.sgpr[6] = num_records;
    w.sgpr[7] = w3;
}

fn run(asm: &str, mem: &mut Memory, setup: impl FnOnce(&mut Wave)) -> Wave {
    run_with(
        Target::Gfx900,
        &format!("{asm}\ns_waitcnt vmcnt(0)"),
        mem,
        setup,
    )
    .unwrap_or_else(|e| panic!("{asm}: {e}"))
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// buffer_load_format_xyzw of one element with data format `dfmt`, numeric format `nfmt`.
fn load4(dfmt: u32, nfmt: u32, bytes: &[u8]) -> [u32; 4] {
    let (mut mem, base) = memory(bytes);
    let w = run(
        "buffer_load_format_xyzw v[4:7], off, s[4:7], 0",
        &mut mem,
        |w| vsharp(w, base, 64, word3(dfmt, nfmt)),
    );
    [w.vgpr[4][0], w.vgpr[5][0], w.vgpr[6][0], w.vgpr[7][0]]
}

const UNORM: u32 = 0;
const SNORM: u32 = 1;
const USCALED: u32 = 2;
const SSCALED: u32 = 3;
const UINT: u32 = 4;
const SINT: u32 = 5;
const FLOAT: u32 = 7;

#[test]
fn loads_convert_every_data_format() {
    let one = f(1.0);
    // (dfmt, nfmt, element bytes, X Y Z W)
    let cases: &[(u32, u32, Vec<u8>, [u32; 4])] = &[
        // 8: missing Y, Z are 0 and W is 1 (1.0 for float results).
        (1, UNORM, vec![0xff], [one, 0, 0, one]),
        (1, UNORM, vec![0x80], [f(128.0 / 255.0), 0, 0, one]),
        // SNORM: -128 / 127 clamps to -1; -127 / 127 is -1 exactly.
        (1, SNORM, vec![0x80], [f(-1.0), 0, 0, one]),
        (1, SNORM, vec![0xc0], [f(-64.0 / 127.0), 0, 0, one]),
        (1, USCALED, vec![200], [f(200.0), 0, 0, one]),
        (1, SSCALED, vec![0xff], [f(-1.0), 0, 0, one]),
        (1, UINT, vec![0xff], [255, 0, 0, 1]),
        (1, SINT, vec![0xff], [0xffff_ffff, 0, 0, 1]),
        // 16
        (2, FLOAT, vec![0x00, 0x3c], [one, 0, 0, one]),
        (
            2,
            FLOAT,
            vec![0x00, 0xfc],
            [f(f32::NEG_INFINITY), 0, 0, one],
        ),
        (2, UNORM, vec![0xff, 0xff], [one, 0, 0, one]),
        (2, SNORM, vec![0x01, 0x80], [f(-1.0), 0, 0, one]),
        (2, SINT, vec![0x00, 0x80], [0xffff_8000, 0, 0, 1]),
        // 8_8
        (3, UNORM, vec![0x00, 0x80], [0, f(128.0 / 255.0), 0, one]),
        (3, UINT, vec![0x12, 0xfe], [0x12, 0xfe, 0, 1]),
        // 32: float bits pass through (a NaN payload too).
        (
            4,
            FLOAT,
            0x7fa0_0001u32.to_le_bytes().to_vec(),
            [0x7fa0_0001, 0, 0, one],
        ),
        (
            4,
            SINT,
            0x8000_0000u32.to_le_bytes().to_vec(),
            [0x8000_0000, 0, 0, 1],
        ),
        // 16_16
        (
            5,
            SINT,
            vec![0x00, 0x80, 0xff, 0x7f],
            [0xffff_8000, 0x7fff, 0, 1],
        ),
        (
            5,
            FLOAT,
            vec![0x00, 0xb8, 0x00, 0x7c],
            [f(-0.5), f(f32::INFINITY), 0, one],
        ),
        (
            5,
            USCALED,
            vec![0xff, 0xff, 0x02, 0x00],
            [f(65535.0), f(2.0), 0, one],
        ),
        // 10_11_11: X 11-bit float 1.0 (15 << 6), Y 2.0 (16 << 6), Z 10-bit float 0.5 (14 << 5).
        (
            6,
            FLOAT,
            (0x3c0u32 | 0x400 << 11 | 0x1c0 << 22)
                .to_le_bytes()
                .to_vec(),
            [one, f(2.0), f(0.5), one],
        ),
        // 11_11_10 as integers: X 10 bits, Y 11, Z 11.
        (
            7,
            UINT,
            (0x3ffu32 | 0x7ff << 10 | 0x400 << 21)
                .to_le_bytes()
                .to_vec(),
            [0x3ff, 0x7ff, 0x400, 1],
        ),
        // 11_11_10 float: X 10-bit denormal 1 (2^-14 / 32), Y infinity, Z NaN.
        (
            7,
            FLOAT,
            (1u32 | (31 << 6) << 10 | ((31 << 6) | 1) << 21)
                .to_le_bytes()
                .to_vec(),
            [f(2f32.powi(-19)), f(f32::INFINITY), 0x7fc0_0000, one],
        ),
        // 10_10_10_2: X is the 2-bit field at the bottom.
        (
            8,
            UNORM,
            (3u32 | 0 << 2 | 0x3ff << 12 | 0x200 << 22)
                .to_le_bytes()
                .to_vec(),
            [one, 0, one, f(512.0 / 1023.0)],
        ),
        // 2_10_10_10: W is the 2-bit field at the top; SNORM 2-bit: 1 -> 1.0, -2 -> -1.
        (
            9,
            SNORM,
            (0x200u32 | 0x1ff << 10 | 0 << 20 | 2 << 30)
                .to_le_bytes()
                .to_vec(),
            [f(-1.0), one, 0, f(-1.0)],
        ),
        (
            9,
            UINT,
            (1u32 | 2 << 10 | 3 << 20 | 3 << 30).to_le_bytes().to_vec(),
            [1, 2, 3, 3],
        ),
        // 8_8_8_8
        (
            10,
            SSCALED,
            vec![0x80, 0x7f, 0x00, 0xff],
            [f(-128.0), f(127.0), 0, f(-1.0)],
        ),
        (
            10,
            UNORM,
            vec![0xff, 0x00, 0x33, 0x66],
            [one, 0, f(0.2), f(0.4)],
        ),
        // 32_32, 16_16_16_16, 32_32_32, 32_32_32_32
        (
            11,
            SINT,
            vec![1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff],
            [1, 0xffff_fffe, 0, 1],
        ),
        (
            12,
            SSCALED,
            vec![0, 0x80, 1, 0, 0xff, 0xff, 0, 0],
            [f(-32768.0), one, f(-1.0), 0],
        ),
        (
            13,
            UINT,
            vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
            [1, 2, 3, 1],
        ),
        (
            14,
            FLOAT,
            [1.5f32, -2.0, 0.0, -0.0]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            [f(1.5), f(-2.0), 0, 0x8000_0000],
        ),
    ];
    for (dfmt, nfmt, bytes, expect) in cases {
        let got = load4(*dfmt, *nfmt, bytes);
        assert_eq!(got, *expect, "dfmt {dfmt} nfmt {nfmt} bytes {bytes:x?}");
    }
}

#[test]
fn fewer_components_and_dst_sel() {
    let (mut mem, base) = memory(&[0x11, 0x22, 0x33, 0x44]);
    let w = run(
        "buffer_load_format_x v1, off, s[4:7], 0\nbuffer_load_format_xy v[2:3], off, s[4:7], 0\nbuffer_load_format_xyz v[4:6], off, s[4:7], 0",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(10, UINT));
            for r in 1..8 {
                w.vgpr[r][0] = 0xeeee;
            }
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        let v = |r: usize| w.vgpr[r][0];
        assert_eq!(v(1), 0x11);
        assert_eq!([v(2), v(3)], [0x11, 0x22]);
        assert_eq!([v(4), v(5), v(6), v(7)], [0x11, 0x22, 0x33, 0xeeee]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // DST_SEL: X <- W (the default 1), Y <- one, Z <- zero, W <- X.
    let (mut mem, base) = memory(&[0x05, 0x00, 0x09, 0x00]);
    let sel = 7 | 1 << 3 | 0 << 6 | 4 << 9;
    let w = run(
        "buffer_load_format_xyzw v[4:7], off, s[4:7], 0",
        &mut mem,
        |w| vsharp(w, base, 64, sel | UINT << 12 | 5 << 15),
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(
            [w.vgpr[4][0], w.vgpr[5][0], w.vgpr[6][0], w.vgpr[7][0]],
            [1, 1, 0, 5]
        );
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn out_of_range_loads_read_zero_and_stores_are_dropped() {
    // num_records = 4: the 8-byte 32_32 element at 0 is out of range; so is anything at 4.
    let (mut mem, base) = memory(&[1, 0, 0, 0, 2, 0, 0, 0]);
    let w = run(
        "buffer_load_format_xy v[2:3], off, s[4:7], 0\nbuffer_load_format_xyzw v[4:7], off, s[4:7], 0\nbuffer_store_format_x v8, off, s[4:7], 0 offset:4",
        &mut mem,
        |w| {
            vsharp(w, base, 4, word3(11, UINT));
            w.vgpr[2][0] = 0xeeee;
            w.vgpr[8][0] = 0x77;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!([w.vgpr[2][0], w.vgpr[3][0]], [0, 0]);
        // Every component reads 0, even the W a 32_32 element lacks (its DST_SEL is W, not 1).
        assert_eq!(
            [w.vgpr[4][0], w.vgpr[5][0], w.vgpr[6][0], w.vgpr[7][0]],
            [0, 0, 0, 0]
        );
        assert_eq!(mem.bytes(base + 4, 4).unwrap(), &[2, 0, 0, 0]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // DST_SEL = 1 still gives one out of range (1.0 for a float format).
    let w = run(
        "buffer_load_format_xyzw v[4:7], off, s[4:7], 0",
        &mut mem,
        |w| {
            vsharp(
                w,
                base,
                4,
                (4 | 5 << 3 | 1 << 6 | 1 << 9) | FLOAT << 12 | 11 << 15,
            )
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(
            [w.vgpr[4][0], w.vgpr[5][0], w.vgpr[6][0], w.vgpr[7][0]],
            [0, 0, f(1.0), f(1.0)]
        );
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn structured_format_access_uses_index_and_stride() {
    // Stride 6, idxen: element 2 plus offset 2 is at 14; num_records counts elements.
    let (mut mem, base) = memory(&[0; 32]);
    let w = run(
        "buffer_store_format_xy v[2:3], v0, s[4:7], 0 idxen offset:2\nbuffer_load_format_xy v[4:5], v0, s[4:7], 0 idxen offset:2\nbuffer_load_format_x v6, v1, s[4:7], 0 idxen",
        &mut mem,
        |w| {
            vsharp(w, base, 3, word3(5, UINT));
            w.sgpr[5] |= 6 << 16;
            w.vgpr[0][0] = 2;
            w.vgpr[1][0] = 3; // index 3 >= num_records 3: out of range
            w.vgpr[2][0] = 0xabcd;
            w.vgpr[3][0] = 0x1_2345; // UINT 16 clamps to 0xffff
            w.vgpr[6][0] = 0xeeee;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(mem.bytes(base + 14, 4).unwrap(), &[0xcd, 0xab, 0xff, 0xff]);
        assert_eq!([w.vgpr[4][0], w.vgpr[5][0]], [0xabcd, 0xffff]);
        assert_eq!(w.vgpr[6][0], 0);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

/// buffer_store_format_xyzw of `vals` with (dfmt, nfmt); returns the element's bytes.
fn store4(dfmt: u32, nfmt: u32, vals: [u32; 4], bytes: usize) -> Vec<u8> {
    let (mut mem, base) = memory(&[0xaa; 16]);
    run(
        "buffer_store_format_xyzw v[4:7], off, s[4:7], 0",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(dfmt, nfmt));
            for (i, v) in vals.iter().enumerate() {
                w.vgpr[4 + i][0] = *v;
            }
        },
    );
    mem.bytes(base, bytes).unwrap().to_vec()
}

#[test]
fn stores_convert_and_clamp() {
    let nan = 0x7fc0_0000;
    // UNORM 8: 1.5 clamps to 255, -0.5 to 0, 0.5 * 255 = 127.5 rounds to 128, NaN gives 0.
    assert_eq!(
        store4(10, UNORM, [f(1.5), f(-0.5), f(0.5), nan], 4),
        [255, 0, 128, 0]
    );
    // SNORM 8: -2 clamps to -127; +-0.5 * 127 = +-63.5 round away from zero.
    assert_eq!(
        store4(10, SNORM, [f(-2.0), f(0.5), f(-0.5), f(1.0)], 4),
        [0x81, 64, 0xc0, 127]
    );
    // Scaled: truncate toward zero, clamp to the field.
    assert_eq!(
        store4(10, USCALED, [f(1.7), f(-3.0), f(300.0), f(254.9)], 4),
        [1, 0, 255, 254]
    );
    assert_eq!(
        store4(10, SSCALED, [f(-1.7), f(200.0), f(-200.0), f(3.0)], 4),
        [0xff, 127, 0x80, 3]
    );
    // Integers saturate.
    assert_eq!(
        store4(10, UINT, [300, 255, 0xffff_ffff, 7], 4),
        [255, 255, 255, 7]
    );
    assert_eq!(
        store4(10, SINT, [(-200i32) as u32, 200, 0xffff_ffff, 5], 4),
        [0x80, 127, 0xff, 5]
    );
    // f16: 65520 rounds (to nearest even) past the largest half, to +inf.
    assert_eq!(
        store4(12, FLOAT, [f(1.0), f(65520.0), f(-0.0), f(0.1)], 8),
        [0, 0x3c, 0, 0x7c, 0, 0x80, 0x66, 0x2e]
    );
    // 32-bit formats store the bits.
    assert_eq!(
        store4(13, FLOAT, [nan, 1, 2, 3], 12),
        [0, 0, 0xc0, 0x7f, 1, 0, 0, 0, 2, 0, 0, 0]
    );
    // 10_11_11 float: 1.0 -> 15 << 6; negative -> 0; too large -> largest 10-bit float (30 << 5 | 31).
    let packed = 0x3c0u32 | 0 << 11 | (30 << 5 | 31) << 22;
    assert_eq!(
        store4(6, FLOAT, [f(1.0), f(-1.0), f(1e6), 0], 4),
        packed.to_le_bytes()
    );
    // 11_11_10 float: X (10-bit) 0.5 -> 14 << 5, Y +inf -> 31 << 6, Z 2^-20 -> denormal 1.
    let packed = (14u32 << 5) | (31 << 6) << 10 | 1 << 21;
    assert_eq!(
        store4(
            7,
            FLOAT,
            [f(0.5), f(f32::INFINITY), f(2f32.powi(-20)), 0],
            4
        ),
        packed.to_le_bytes()
    );
    // 2_10_10_10 UNORM: 0.25 * 1023 = 255.75 -> 256; W is 2 bits: 1.0 -> 3.
    let packed = 0x3ffu32 << 10 | 256 << 20 | 3 << 30;
    assert_eq!(
        store4(9, UNORM, [f(0.0), f(1.0), f(0.25), f(1.0)], 4),
        packed.to_le_bytes()
    );
    // 10_10_10_2 SINT: X is the 2-bit field (-1 -> 3), Y 511 saturates at 511, Z -600 -> -512.
    let packed = 3u32 | 511 << 2 | 0x200 << 12 | 7 << 22;
    assert_eq!(
        store4(8, SINT, [(-1i32) as u32, 600, (-600i32) as u32, 7], 4),
        packed.to_le_bytes()
    );
}

#[test]
fn narrower_stores_keep_the_other_components() {
    let (mut mem, base) = memory(&[0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, 0x55, 0x66, 0x77, 0x88]);
    let _w = run(
        "buffer_store_format_x v1, off, s[4:7], 0\nbuffer_store_format_xy v[2:3], off, s[4:7], 0 offset:4\nbuffer_store_format_xyz v[4:6], off, s[4:7], 0 offset:8",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(10, UINT));
            for (r, v) in [(1, 0x99), (2, 1), (3, 2), (4, 7), (5, 8), (6, 9)] {
                w.vgpr[r][0] = v;
            }
        },
    );
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(
            mem.bytes(base, 12).unwrap(),
            &[0x99, 0x22, 0x33, 0x44, 1, 2, 0, 0, 7, 8, 9, 0x88]
        );
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn d16_loads_pack_halves() {
    let (mut mem, base) = memory(&[0xff, 0x00, 0x80, 0xff, 0x01, 0x00, 0x02, 0x00]);
    let w = run(
        "buffer_load_format_d16_x v1, off, s[4:7], 0\nbuffer_load_format_d16_xy v2, off, s[4:7], 0\nbuffer_load_format_d16_hi_x v3, off, s[4:7], 0",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(3, UNORM)); // 8_8 UNORM: X = 1.0, Y = 0
            for r in 1..4 {
                w.vgpr[r][0] = 0x5555_6666;
            }
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!(w.vgpr[1][0], 0x5555_3c00); // f16 1.0 low, high half kept
        assert_eq!(w.vgpr[2][0], 0x0000_3c00);
        assert_eq!(w.vgpr[3][0], 0x3c00_6666);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // 16_16_16_16 SINT: 16-bit integers; xyz keeps the high half of the second VGPR.
    let w = run(
        "buffer_load_format_d16_xyz v[1:2], off, s[4:7], 0\nbuffer_load_format_d16_xyzw v[3:4], off, s[4:7], 0\nbuffer_load_format_d16_xyzw v[5:6], off, s[4:7], 0 offset:8",
        &mut mem,
        |w| {
            vsharp(w, base, 12, word3(12, SINT));
            for r in 1..7 {
                w.vgpr[r][0] = 0x5555_6666;
            }
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!([w.vgpr[1][0], w.vgpr[2][0]], [0xff80_00ff, 0x5555_0001]);
        assert_eq!([w.vgpr[3][0], w.vgpr[4][0]], [0xff80_00ff, 0x0002_0001]);
        // Element at 8 is past num_records 12 (needs 8 bytes): all zero.
        assert_eq!([w.vgpr[5][0], w.vgpr[6][0]], [0, 0]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
    // 16_16 FLOAT with d16_xyzw: the missing W is f16 1.0.
    let w = run(
        "buffer_load_format_d16_xyzw v[1:2], off, s[4:7], 0",
        &mut mem,
        |w| vsharp(w, base, 64, word3(5, FLOAT)),
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        assert_eq!([w.vgpr[1][0], w.vgpr[2][0]], [0xff80_00ff, 0x3c00_0000]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn d16_stores_take_halves() {
    let (mut mem, base) = memory(&[0xaa; 16]);
    run(
        "buffer_store_format_d16_xy v1, off, s[4:7], 0\nbuffer_store_format_d16_x v2, off, s[4:7], 0 offset:4\nbuffer_store_format_d16_hi_x v3, off, s[4:7], 0 offset:6",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(3, UNORM));
            w.vgpr[1][0] = 0x3800_3c00; // X 1.0 -> 255, Y 0.5 -> 128
            w.vgpr[2][0] = 0x3c00_0000; // X 0.0
            w.vgpr[3][0] = 0xbc00_3c00; // high half -1.0 -> 0
        },
    );
    assert_eq!(
        mem.bytes(base, 8).unwrap(),
        &[255, 128, 0xaa, 0xaa, 0, 0xaa, 0, 0xaa]
    );
    let _w = run(
        "buffer_store_format_d16_xyz v[1:2], off, s[4:7], 0\nbuffer_store_format_d16_xyzw v[3:4], off, s[4:7], 0 offset:8",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(12, SINT));
            w.vgpr[1][0] = 0x8000_0001;
            w.vgpr[2][0] = 0xdead_7fff;
            w.vgpr[3][0] = 0x0003_0002;
            w.vgpr[4][0] = 0x0005_0004;
        },
    );
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        assert_eq!(
            mem.bytes(base, 16).unwrap(),
            &[1, 0, 0, 0x80, 0xff, 0x7f, 0, 0xaa, 2, 0, 3, 0, 4, 0, 5, 0]
        );
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn tbuffer_formats_come_from_the_instruction() {
    let (mut mem, base) = memory(&[0x80, 0x7f, 0xff, 0x01, 0, 0, 0, 0]);
    // The V# says 32 FLOAT; the instructions' formats win.
    let w = run(
        "tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_SINT]\ntbuffer_load_format_xy v[2:3], off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_UINT]\ntbuffer_load_format_xyz v[4:6], off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_USCALED]\ntbuffer_load_format_xyzw v[7:10], off, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SINT]\ntbuffer_load_format_d16_x v11, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UNORM]\ntbuffer_load_format_d16_xy v12, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SINT]\ntbuffer_load_format_d16_xyz v[13:14], off, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT]\ntbuffer_load_format_d16_xyzw v[15:16], off, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT]",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(4, FLOAT));
            w.vgpr[14][0] = 0x5555_6666;
        },
    );
    let chk = |w: &gcnemu::wave::Wave, _mem: &gcnemu::memory::Memory| {
        let v = |r: usize| w.vgpr[r][0];
        assert_eq!(v(1), 0xffff_ff80);
        assert_eq!([v(2), v(3)], [0x80, 0x7f]);
        assert_eq!([v(4), v(5), v(6)], [f(128.0), f(127.0), f(255.0)]);
        assert_eq!([v(7), v(8), v(9), v(10)], [0x7f80, 0x1ff, 0, 1]);
        // f16(128 / 255 = 0.50196): 0.5 + 4 * 2^-11 -> 0x3804 (the high half was 0).
        assert_eq!(v(11), 0x3804);
        assert_eq!(v(12), 0x007f_ff80);
        assert_eq!([v(13), v(14)], [0x007f_0080, 0x5555_00ff]);
        assert_eq!([v(15), v(16)], [0x01ff_7f80, 0x0001_0000]);
    };
    chk(&w, &mem);
    exec_common::vet_mem(&w, &mut mem, chk);
}

#[test]
fn tbuffer_stores() {
    let (mut mem, base) = memory(&[0xaa; 48]);
    let _w = run(
        "tbuffer_store_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UNORM]\ntbuffer_store_format_xy v[1:2], off, s[4:7], 0 offset:4 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM]\ntbuffer_store_format_xyz v[1:3], off, s[4:7], 0 offset:8 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_FLOAT]\ntbuffer_store_format_xyzw v[1:4], off, s[4:7], 0 offset:20 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_SNORM]\ntbuffer_store_format_d16_x v5, off, s[4:7], 0 offset:24 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT]\ntbuffer_store_format_d16_xy v5, off, s[4:7], 0 offset:28 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_UNORM]\ntbuffer_store_format_d16_xyz v[5:6], off, s[4:7], 0 offset:32 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_UINT]\ntbuffer_store_format_d16_xyzw v[5:6], off, s[4:7], 0 offset:40 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM]",
        &mut mem,
        |w| {
            vsharp(w, base, 64, word3(0, 0)); // an INVALID V# format is not used by tbuffer
            w.vgpr[1][0] = f(1.0);
            w.vgpr[2][0] = f(-1.0);
            w.vgpr[3][0] = f(0.5);
            w.vgpr[4][0] = f(2.0);
            w.vgpr[5][0] = 0x3800_3c00; // f16 0.5 : 1.0
            w.vgpr[6][0] = 0x0000_bc00; // f16 0 : -1.0
        },
    );
    let chk = |_w: &gcnemu::wave::Wave, mem: &gcnemu::memory::Memory| {
        let m = mem.bytes(base, 48).unwrap();
        assert_eq!(m[0..2], [255, 0xaa]);
        assert_eq!(m[4..8], [0xff, 0x7f, 0x01, 0x80]); // 32767, -32767
        assert_eq!(
            m[8..20],
            [0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf, 0, 0, 0, 0x3f]
        );
        assert_eq!(m[20..24], [127, 0x81, 64, 127]); // 0.5 * 127 = 63.5 -> 64; 2.0 clamps
        assert_eq!(m[24..28], [0x00, 0x3c, 0xaa, 0xaa]);
        assert_eq!(m[28..30], [255, 128]);
        // UINT from f16 bit patterns as 16-bit integers: 0x3c00, 0x3800, 0xbc00; W kept.
        assert_eq!(m[32..40], [0x00, 0x3c, 0x00, 0x38, 0x00, 0xbc, 0xaa, 0xaa]);
        // UNORM from f16: 1.0, 0.5, -1.0 -> 0, 0.
        assert_eq!(m[40..44], [255, 128, 0, 0]);
    };
    chk(&_w, &mem);
    exec_common::vet_mem(&_w, &mut mem, chk);
}

#[test]
fn undefined_formats_are_errors_naming_the_format() {
    for (w3, what) in [
        (word3(0, UINT), "INVALID"),
        (
            word3(4, UNORM),
            "data format 32 (4) with numeric format UNORM",
        ),
        (
            word3(1, FLOAT),
            "data format 8 (1) with numeric format FLOAT",
        ),
        (word3(2, 6), "reserved (6)"),
        (word3(15, UINT), "reserved (15)"),
    ] {
        let (mut mem, base) = memory(&[0; 4]);
        let e = run_with(
            Target::Gfx900,
            "buffer_load_format_x v1, off, s[4:7], 0",
            &mut mem,
            |w| vsharp(w, base, 64, w3),
        )
        .unwrap_err();
        match e {
            Fault::Guest(msg) => {
                assert!(msg.starts_with("buffer_load_format_x: "), "{msg}");
                assert!(msg.contains(what), "{msg}");
            }
            other => panic!("{other:?}"),
        }
    }
}
