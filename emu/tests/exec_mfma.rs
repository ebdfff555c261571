//! The matrix ops and the AGPR moves on one wave, from machine code (llvm-mc-15's encodings,
//! quoted at each use: the modifiers and A/B AGPR bits are beyond what our assembler took when
//! these were written). Expected values are worked out from the ISA's layouts by hand (the
//! literal spot checks) and, for whole matrices, by the ISA's formula D = C + A·B evaluated
//! here over the layout the ISA's chapter states.

mod exec_common;
use exec_common::run_code;
use gcn_isa::Target;
use gcnemu::fault::Fault;
use gcnemu::memory::Memory;
use gcnemu::wave::{RegFile, Row, Wave};

/// The instructions, then s_endpgm.
fn code(words: &[[u8; 8]]) -> Vec<u8> {
    let mut c = words.concat();
    c.extend([0x00, 0x00, 0x81, 0xbf]);
    c
}

fn a(w: &Wave, n: usize) -> Row {
    *w.vgpr.row(w.vgpr.agpr_row(n).unwrap()).unwrap()
}

fn set_a(w: &mut Wave, n: usize, row: Row) {
    let r = w.vgpr.agpr_row(n).unwrap();
    *w.vgpr.row_mut(r).unwrap() = row;
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn run908(bytes: &[u8], setup: impl FnOnce(&mut Wave)) -> Result<Wave, Fault> {
    run_code(Target::Gfx908, bytes, &mut Memory::default(), setup)
}

// v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[4:7]
const MFMA_4X4X1: [u8; 8] = [0x00, 0x00, 0xc2, 0xd3, 0x00, 0x03, 0x12, 0x04];
// v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[4:7] cbsz:2 abid:1 blgp:3
const MFMA_4X4X1_BCAST: [u8; 8] = [0x00, 0x0a, 0xc2, 0xd3, 0x00, 0x03, 0x12, 0x64];
// v_mfma_f32_4x4x1f32 a[0:3], a0, a1, a[4:7]
const MFMA_4X4X1_AB_AGPR: [u8; 8] = [0x00, 0x00, 0xc2, 0xd3, 0x00, 0x03, 0x12, 0x1c];

/// A[b,i] = 4b + i in lane 4b + i; B[b,j] = 1 + j in lane 4b + j; C = 0.5.
fn setup_4x4(w: &mut Wave) {
    w.vgpr[0] = std::array::from_fn(|l| f(l as f32));
    w.vgpr[1] = std::array::from_fn(|l| f(1.0 + (l % 4) as f32));
    for r in 4..8 {
        set_a(w, r, [f(0.5); 64]);
    }
}

#[test]
fn mfma_4x4x1_f32_layout() {
    let w = run908(&code(&[MFMA_4X4X1]), setup_4x4).unwrap();
    // D[1,1,2]: register i = 1, lane 4b + j = 6: 0.5 + 5 · 3.
    assert_eq!(a(&w, 1)[6], f(15.5));
    // D[15,3,3]: a3 lane 63: 0.5 + 63 · 4.
    assert_eq!(a(&w, 3)[63], f(252.5));
    for i in 0..4 {
        for l in 0..64 {
            let (b, j) = (l / 4, l % 4);
            let want = 0.5 + (4 * b + i) as f32 * (1 + j) as f32;
            assert_eq!(a(&w, i)[l], f(want), "a{i} lane {l}");
        }
    }
}

#[test]
fn mfma_ignores_exec() {
    let w = run908(&code(&[MFMA_4X4X1]), |w| {
        setup_4x4(w);
        w.set_exec(1);
    })
    .unwrap();
    assert_eq!(a(&w, 3)[63], f(252.5));
}

#[test]
fn mfma_cbsz_abid_blgp() {
    let w = run908(&code(&[MFMA_4X4X1_BCAST]), |w| {
        setup_4x4(w);
        w.vgpr[1] = std::array::from_fn(|l| f(1.0 + l as f32));
    })
    .unwrap();
    // Block 0 takes A of block 1 (cbsz 2: groups of 4 blocks, abid 1), lane 0 of B takes
    // lane 16 (blgp 3): D[0,0,0] = 0.5 + A[1,0] · B(lane 16) = 0.5 + 4 · 17.
    assert_eq!(a(&w, 0)[0], f(68.5));
    // D[5,2,1] (a2, lane 21): A of block 5 (= 4 + abid), row 2 is 22; B from lane 37 is 38.
    assert_eq!(a(&w, 2)[21], f(0.5 + 22.0 * 38.0));
    for i in 0..4 {
        for l in 0..64 {
            let (b, j) = (l / 4, l % 4);
            let ab = (b / 4) * 4 + 1;
            let bv = 1.0 + ((4 * b + j + 16) % 64) as f32;
            assert_eq!(
                a(&w, i)[l],
                f(0.5 + (4 * ab + i) as f32 * bv),
                "a{i} lane {l}"
            );
        }
    }
}

#[test]
fn mfma_reads_a_and_b_from_agprs_when_their_acc_bits_say() {
    let w = run908(&code(&[MFMA_4X4X1_AB_AGPR]), |w| {
        setup_4x4(w);
        // The VGPRs hold something else: the AGPRs are what counts.
        let (v0, v1) = (w.vgpr[0], w.vgpr[1]);
        set_a(w, 0, v0);
        set_a(w, 1, v1);
        w.vgpr[0] = [f(1000.0); 64];
        w.vgpr[1] = [f(1000.0); 64];
    })
    .unwrap();
    assert_eq!(a(&w, 1)[6], f(15.5));
    assert_eq!(a(&w, 3)[63], f(252.5));
}

#[test]
fn mfma_32x32x1_two_blocks_layout() {
    // v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]
    let op = [0x00, 0x00, 0xc0, 0xd3, 0x00, 0x03, 0x02, 0x04];
    let w = run908(&code(&[op]), |w| {
        w.vgpr[0] = std::array::from_fn(|l| f(l as f32));
        w.vgpr[1] = [f(1.0); 64];
    })
    .unwrap();
    // A[b,i] = 32b + i (lane l holds A[l/32, l%32]); B = 1, C = 0: D[b,i,j] = 32b + i, in
    // register 16b + 4(i/8) + i%4, lane j + 32((i/4)%2).
    assert_eq!(a(&w, 5)[3], f(9.0)); // D[0,9,3]
    assert_eq!(a(&w, 21)[40], f(45.0)); // D[1,13,8]
    for b in 0..2 {
        for i in 0..32 {
            for j in 0..32 {
                let r = 16 * b + 4 * (i / 8) + i % 4;
                let l = j + 32 * ((i / 4) % 2);
                assert_eq!(a(&w, r)[l], f((32 * b + i) as f32), "D[{b},{i},{j}]");
            }
        }
    }
}

#[test]
fn mfma_i8_wraps_modulo_2_32() {
    // v_mfma_i32_4x4x4i8 a[0:3], v0, v1, a[4:7]
    let op = [0x00, 0x00, 0xd2, 0xd3, 0x00, 0x03, 0x12, 0x04];
    let w = run908(&code(&[op]), |w| {
        w.vgpr[0] = [0x7f7f_7f7f; 64];
        // Lanes 0-31: B = 127 in each byte; lanes 32-63: -127.
        w.vgpr[1] = std::array::from_fn(|l| if l < 32 { 0x7f7f_7f7f } else { 0x8181_8181 });
        for r in 4..8 {
            set_a(
                w,
                r,
                std::array::from_fn(|l| if l < 32 { 0x7fff_ffff } else { 0 }),
            );
        }
    })
    .unwrap();
    // 0x7fffffff + 4 · 127 · 127 wraps; 0 + 4 · 127 · -127.
    assert_eq!(a(&w, 0)[0], 0x8000_fc03);
    assert_eq!(a(&w, 3)[63], 0xffff_03fc);
}

#[test]
fn mfma_f16_sums_four_products() {
    // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[4:7]
    let op = [0x00, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x12, 0x04];
    let w = run908(&code(&[op]), |w| {
        w.vgpr[0] = [0x3c00_3c00; 64]; // A: 1.0, 1.0
        w.vgpr[1] = [0x3c00_3c00; 64]; //    1.0, 1.0
        w.vgpr[2] = [0x4200_4000; 64]; // B: 2.0 (k 0), 3.0 (k 1)
        w.vgpr[3] = [0x3800_4400; 64]; //    4.0 (k 2), 0.5 (k 3)
        for r in 4..8 {
            set_a(w, r, [f(0.25); 64]);
        }
    })
    .unwrap();
    assert_eq!(a(&w, 2)[17], f(9.75));
}

#[test]
fn mfma_f16_keeps_denormals_on_gfx908() {
    // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[4:7]
    let op = [0x00, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x12, 0x04];
    let w = run908(&code(&[op]), |w| {
        w.vgpr[0] = [0x0000_0001; 64]; // A[k 0] = 2^-24, the least f16 denormal
        w.vgpr[2] = [0x0000_3c00; 64]; // B[k 0] = 1.0
    })
    .unwrap();
    assert_eq!(a(&w, 0)[0], f(2f32.powi(-24)));
}

#[test]
fn mfma_bf16_is_the_high_half_of_f32() {
    // v_mfma_f32_4x4x2bf16 a[0:3], v0, v1, a[4:7]
    let op = [0x00, 0x00, 0xeb, 0xd3, 0x00, 0x03, 0x12, 0x04];
    let w = run908(&code(&[op]), |w| {
        w.vgpr[0] = [0x4000_3fc0; 64]; // A: 1.5 (k 0), 2.0 (k 1)
        w.vgpr[1] = [0xbf80_4000; 64]; // B: 2.0, -1.0
    })
    .unwrap();
    assert_eq!(a(&w, 1)[9], f(1.0));
}

#[test]
fn agpr_out_of_range_is_a_fault_naming_it() {
    // v_accvgpr_write_b32 a9, v2
    let op = [0x09, 0x40, 0xd9, 0xd3, 0x02, 0x01, 0x00, 0x18];
    let err = run908(&code(&[op]), |w| {
        *w = Wave::with_file(0, RegFile::new(Target::Gfx908, 8, None));
        w.set_exec(u64::MAX);
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "a9 is outside the wave's 8 AGPRs");
}

#[test]
fn mfma_d_out_of_range_faults_before_writing() {
    // v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31], in a wave with 16 AGPRs.
    let op = [0x00, 0x00, 0xc0, 0xd3, 0x00, 0x03, 0x02, 0x04];
    let err = run908(&code(&[op]), |w| {
        *w = Wave::with_file(0, RegFile::new(Target::Gfx908, 16, None));
        w.set_exec(u64::MAX);
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "a[0:31] is outside the wave's 16 AGPRs");
}

#[test]
fn register_files_by_target() {
    // gfx908: as many AGPRs as VGPRs, after them; gfx90a: from accum_offset in one file.
    assert_eq!(
        RegFile::new(Target::Gfx908, 32, None),
        RegFile {
            rows: 64,
            agpr_base: 32
        }
    );
    assert_eq!(
        RegFile::new(Target::Gfx90a, 96, Some(64)),
        RegFile {
            rows: 96,
            agpr_base: 64
        }
    );
    assert_eq!(RegFile::new(Target::Gfx906, 32, None).agprs(), 0);
    let w = Wave::with_file(0, RegFile::new(Target::Gfx90a, 96, Some(64)));
    assert_eq!(w.vgpr.agpr_row(0), Some(64));
    assert_eq!(w.vgpr.agpr_row(31), Some(95));
    assert_eq!(w.vgpr.agpr_row(32), None);
}

#[test]
fn gfx90a_agprs_are_vgprs_from_accum_offset() {
    // v_accvgpr_write_b32 a0, v1; v_accvgpr_read_b32 v2, a31
    let ops = [
        [0x00, 0x40, 0xd9, 0xd3, 0x01, 0x01, 0x00, 0x18],
        [0x02, 0x40, 0xd8, 0xd3, 0x1f, 0x01, 0x00, 0x18],
    ];
    let w = run_code(Target::Gfx90a, &code(&ops), &mut Memory::default(), |w| {
        // 64 registers, the AGPRs from v32 (ACCUM_OFFSET 7: (7 + 1) * 4).
        *w = Wave::with_file(0, RegFile::new(Target::Gfx90a, 64, Some(32)));
        w.set_exec(u64::MAX);
        w.vgpr[1] = [7; 64];
        w.vgpr[63] = [9; 64];
    })
    .unwrap();
    assert_eq!(w.vgpr[32][5], 7);
    assert_eq!(w.vgpr[2][5], 9);
}
