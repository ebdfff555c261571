//! saxpy, 2-D/3-D indexing and struct-by-value arguments.

use super::{canary, put, Arg, Buffer, Case, Lcg, LeBytes};

/// `y[i] = fma(a, x[i], y[i])` for `i < n` (compiled to `v_fma_f32`); 1000 elements in 4 blocks
/// of 256, so the last block's upper 24 work-items are masked off by the bounds check.
pub fn saxpy() -> Case {
    let n = 1000usize;
    let a = -1.75f32;
    let mut g = Lcg::new(1);
    let x: Vec<f32> = (0..n).map(|_| g.f32_exp(-8, 8)).collect();
    let y: Vec<f32> = (0..n).map(|_| g.f32_exp(-8, 8)).collect();
    let out: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
    Case {
        fixture: "saxpy",
        kernel: "saxpy",
        grid: [4, 1, 1],
        block: [256, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::I32(n as i32),
            Arg::F32(a),
            Arg::Buffer(Buffer::input("x", 4, x.le_bytes())),
            Arg::Buffer(Buffer::output("y", 4, y.le_bytes(), out.le_bytes())),
        ],
    }
}

/// Each in-bounds work-item of a 37x21 domain (3x3 blocks of 16x8) writes 4 words.
pub fn index2d() -> Case {
    let (w, h) = (37u32, 21u32);
    let block = [16u32, 8, 1];
    let grid = [w.div_ceil(block[0]), h.div_ceil(block[1]), 1];
    let mut out = canary((w * h * 16) as usize);
    for gy in 0..grid[1] {
        for gx in 0..grid[0] {
            for ty in 0..block[1] {
                for tx in 0..block[0] {
                    let (x, y) = (gx * block[0] + tx, gy * block[1] + ty);
                    if x >= w || y >= h {
                        continue;
                    }
                    let e = 4 * (y * w + x) as usize;
                    put(&mut out, e, x.to_le_bytes());
                    put(&mut out, e + 1, y.to_le_bytes());
                    put(
                        &mut out,
                        e + 2,
                        (tx | ty << 8 | gx << 16 | gy << 24).to_le_bytes(),
                    );
                    let shape = block[0] | block[1] << 8 | grid[0] << 16 | grid[1] << 24;
                    put(&mut out, e + 3, shape.to_le_bytes());
                }
            }
        }
    }
    Case {
        fixture: "index2d",
        kernel: "index2d",
        grid,
        block,
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::output("out", 4, canary(out.len()), out)),
            Arg::I32(w as i32),
            Arg::I32(h as i32),
        ],
    }
}

/// A 13x9x7 domain in 8x4x3 blocks (96 work-items: a full and a half wave per block).
pub fn index3d() -> Case {
    let n = [13u32, 9, 7];
    let block = [8u32, 4, 3];
    let grid = [0, 1, 2].map(|d| n[d].div_ceil(block[d]));
    let mut out = canary((n[0] * n[1] * n[2] * 16) as usize);
    for gz in 0..grid[2] {
        for gy in 0..grid[1] {
            for gx in 0..grid[0] {
                for tz in 0..block[2] {
                    for ty in 0..block[1] {
                        for tx in 0..block[0] {
                            let (x, y, z) =
                                (gx * block[0] + tx, gy * block[1] + ty, gz * block[2] + tz);
                            if x >= n[0] || y >= n[1] || z >= n[2] {
                                continue;
                            }
                            let e = 4 * ((z * n[1] + y) * n[0] + x) as usize;
                            let local = tx + block[0] * (ty + block[1] * tz);
                            let group = gx + grid[0] * (gy + grid[1] * gz);
                            put(&mut out, e, x.to_le_bytes());
                            put(&mut out, e + 1, y.to_le_bytes());
                            put(&mut out, e + 2, z.to_le_bytes());
                            let packed = local | group << 8 | grid[2] << 24;
                            put(&mut out, e + 3, packed.to_le_bytes());
                        }
                    }
                }
            }
        }
    }
    Case {
        fixture: "index3d",
        kernel: "index3d",
        grid,
        block,
        dynamic_lds: 0,
        args: vec![
            Arg::Buffer(Buffer::output("out", 4, canary(out.len()), out)),
            Arg::I32(n[0] as i32),
            Arg::I32(n[1] as i32),
            Arg::I32(n[2] as i32),
        ],
    }
}

/// `struct Params` of structarg.hip with its C layout (size 32, align 8).
pub struct Params {
    pub tag: i8,
    pub scale: i32,
    pub offset: f64,
    pub gain: f32,
    pub flags: u8,
    pub bias: i16,
    pub big: i64,
}

impl Params {
    /// The by-value bytes; padding (offsets 1..4 and 21) is filled with junk the kernel must
    /// ignore.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = vec![0xee; 32];
        b[0] = self.tag as u8;
        b[4..8].copy_from_slice(&self.scale.to_le_bytes());
        b[8..16].copy_from_slice(&self.offset.to_le_bytes());
        b[16..20].copy_from_slice(&self.gain.to_le_bytes());
        b[20] = self.flags;
        b[22..24].copy_from_slice(&self.bias.to_le_bytes());
        b[24..32].copy_from_slice(&self.big.to_le_bytes());
        b
    }
}

/// Struct, char and double arguments; both FP expressions are contracted to FMAs
/// (`v_fma_f64`, `v_fma_f32`/`v_fmac_f32` in the listings).
pub fn structarg() -> Case {
    let n = 200usize;
    let p = Params {
        tag: -7,
        scale: 12345,
        offset: 0.1,
        gain: 1.3,
        flags: 0b1011_0010,
        bias: -300,
        big: 0x1234_5678_9abc_def0,
    };
    let k: i8 = -5;
    let dscale = 0.37f64;
    let mut g = Lcg::new(4);
    let input: Vec<i32> = (0..n).map(|_| g.range_i32(-1000, 1000)).collect();
    let mut outd = Vec::new();
    let mut outf = Vec::new();
    let mut outl = Vec::new();
    for (i, &v) in input.iter().enumerate() {
        outd.push(f64::from(v.wrapping_mul(p.scale)).mul_add(dscale, p.offset));
        outf.push((v as f32).mul_add(p.gain, f32::from(p.bias)));
        let sel = if (p.flags >> (i & 7)) & 1 == 1 {
            i64::from(p.tag)
        } else {
            i64::from(k)
        };
        outl.push(p.big.wrapping_add(i64::from(v).wrapping_mul(sel)));
    }
    Case {
        fixture: "structarg",
        kernel: "structarg",
        grid: [4, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
        args: vec![
            Arg::Bytes(p.bytes()),
            Arg::I8(k),
            Arg::Buffer(Buffer::input("in", 4, input.le_bytes())),
            Arg::Buffer(Buffer::output("outd", 8, canary(n * 8), outd.le_bytes())),
            Arg::Buffer(Buffer::output("outf", 4, canary(n * 4), outf.le_bytes())),
            Arg::Buffer(Buffer::output("outl", 8, canary(n * 8), outl.le_bytes())),
            Arg::F64(dscale),
            Arg::I32(n as i32),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(b: &[u8]) -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// The inputs tell a fused multiply-add from a rounded multiply then add, so an emulator
    /// that computed `v_fma_f32` as two operations would fail.
    #[test]
    fn saxpy_inputs_distinguish_fma_from_mul_add() {
        let case = saxpy();
        let (Arg::F32(a), Arg::Buffer(x), Arg::Buffer(y)) =
            (&case.args[1], &case.args[2], &case.args[3])
        else {
            unreachable!()
        };
        let (x, y0, y1) = (f32s(&x.init), f32s(&y.init), f32s(&y.expect));
        let differ = (0..x.len()).filter(|&i| a * x[i] + y0[i] != y1[i]).count();
        assert!(
            differ > 10,
            "only {differ} elements distinguish fma from mul+add"
        );
    }
}
