//! Moving between a 64-bit lane mask (EXEC, VCC, a compare result) and a row of lanes, in
//! forms the compiler turns into whole-vector operations.
//!
//! A lane loop that tests or builds one bit per lane (`exec >> l & 1`, `m |= bit << l`) compiles
//! to a shift per lane; and a lane loop that keeps a register's old value in inactive lanes
//! (`if exec >> l & 1 != 0 { row[l] = v }`) becomes a masked store, which AMD's Zen cores run
//! microcoded, several times slower than a load, a bitwise merge and a store. The functions here
//! take EXEC a byte at a time through a table of lane masks, and gather lane bits with the
//! vector unit's own sign-bit gather where the build has one.

use super::{Row, WAVE_SIZE};

/// The lane masks of each byte of a lane mask: entry `b`, lane `l` is all ones when bit `l` of
/// `b` is set.
///
/// (Read from a table, the masks are values the compiler cannot see are all ones or all zeros,
/// so a merge with them stays bitwise operations and never becomes a masked store.)
static BYTE_LANE_MASKS: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut l = 0;
        while l < 8 {
            if b >> l & 1 != 0 {
                t[b][l] = u32::MAX;
            }
            l += 1;
        }
        b += 1;
    }
    t
};

/// The all-ones / all-zeros masks of lanes 8i..8i+7 of `mask`.
#[inline(always)]
fn byte_lanes(mask: u64, i: usize) -> &'static [u32; 8] {
    &BYTE_LANE_MASKS[(mask >> (8 * i)) as usize & 0xff]
}

/// `row` takes `vals` in the lanes set in `mask`, by whole loads and stores of the row.
#[inline(always)]
pub fn merge_lanes(row: &mut Row, vals: &Row, mask: u64) {
    // With AVX-512, 16 lanes at a time under a mask register. The next instruction reads the
    // row 16 lanes at a time, and a read that spans two of `merge_bytes_of_lanes`'s 8-lane
    // stores cannot take its data from them: it waits for both to reach the cache, most of
    // what a `v_and_b32` after a partial-EXEC write cost. (The compiler makes the load, blend and store one
    // masked store. Forced to a blend in registers and a whole store, collatz measured slower:
    // 40 to 46 ms against 33 to 35.)
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        use std::arch::x86_64::{_mm512_loadu_si512, _mm512_mask_blend_epi32, _mm512_storeu_si512};
        let (rows, _) = row.as_chunks_mut::<16>();
        let (vals, _) = vals.as_chunks::<16>();
        for (i, (d, s)) in rows.iter_mut().zip(vals).enumerate() {
            // SAFETY: the build enables AVX-512F; each load and the store are of the 16 lanes
            // of one chunk of `row` or `vals`.
            unsafe {
                let v = _mm512_mask_blend_epi32(
                    (mask >> (16 * i)) as u16,
                    _mm512_loadu_si512(d.as_ptr().cast()),
                    _mm512_loadu_si512(s.as_ptr().cast()),
                );
                _mm512_storeu_si512(d.as_mut_ptr().cast(), v);
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    {
        merge_bytes_of_lanes(row, vals, mask)
    }
}

/// [`merge_lanes`] 8 lanes at a time, through [`BYTE_LANE_MASKS`].
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx512f"),
    allow(dead_code)
)]
#[inline(always)]
fn merge_bytes_of_lanes(row: &mut Row, vals: &Row, mask: u64) {
    let (rows, _) = row.as_chunks_mut::<8>();
    let (vals, _) = vals.as_chunks::<8>();
    for (i, (d, s)) in rows.iter_mut().zip(vals).enumerate() {
        let m = byte_lanes(mask, i);
        // With AVX2, one blend on the masks' top bits, where the bitwise merge is three
        // operations (and, and-not, or) for every 8 lanes.
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        {
            use std::arch::x86_64::{
                _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_loadu_si256,
                _mm256_storeu_si256,
            };
            // SAFETY: the build enables AVX2; each load and the store are of the 8 lanes of
            // one chunk of `row`, `vals` or the mask table.
            unsafe {
                let old = _mm256_castsi256_ps(_mm256_loadu_si256(d.as_ptr().cast()));
                let new = _mm256_castsi256_ps(_mm256_loadu_si256(s.as_ptr().cast()));
                let m = _mm256_castsi256_ps(_mm256_loadu_si256(m.as_ptr().cast()));
                let v = _mm256_castps_si256(_mm256_blendv_ps(old, new, m));
                _mm256_storeu_si256(d.as_mut_ptr().cast(), v);
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        {
            let old = *d;
            *d = std::array::from_fn(|l| (s[l] & m[l]) | (old[l] & !m[l]));
        }
    }
}

/// Lane `l` is all ones when bit `l` of `mask` is set, else zero.
#[inline(always)]
pub fn lanes_of(mask: u64) -> Row {
    let mut out = [0u32; WAVE_SIZE];
    for (i, d) in out.as_chunks_mut::<8>().0.iter_mut().enumerate() {
        *d = *byte_lanes(mask, i);
    }
    out
}

/// Bit `l`: the top bit of lane `l` (so a row of all-ones / all-zeros lanes gives its mask).
#[inline(always)]
pub fn sign_bits(row: &Row) -> u64 {
    // With AVX-512 a 16-lane compare gives its mask in a mask register, and a row built from a
    // compare (`lane_bits`) folds into that compare: four compares and three shifts. Gathered
    // 8 lanes at a time, the compiler joined the bytes through a chain of some fifteen
    // dependent vector inserts, shifts and ors, where most of a `v_cmp_*`'s samples fell.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    {
        use std::arch::x86_64::{
            _mm512_cmplt_epi32_mask, _mm512_loadu_si512, _mm512_setzero_si512,
        };
        let (chunks, _) = row.as_chunks::<16>();
        // SAFETY: the build enables AVX-512F; each load reads the 16 lanes of one chunk.
        let m: [u16; 4] = std::array::from_fn(|i| unsafe {
            _mm512_cmplt_epi32_mask(
                _mm512_loadu_si512(chunks[i].as_ptr().cast()),
                _mm512_setzero_si512(),
            )
        });
        m[0] as u64 | (m[1] as u64) << 16 | (m[2] as u64) << 32 | (m[3] as u64) << 48
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(target_feature = "avx512f")
    ))]
    {
        use std::arch::x86_64::{_mm256_castsi256_ps, _mm256_loadu_si256, _mm256_movemask_ps};
        let mut bits = 0u64;
        for (i, chunk) in row.as_chunks::<8>().0.iter().enumerate() {
            // SAFETY: the build enables AVX2; the load reads the 8 lanes of `chunk`.
            let b = unsafe {
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_loadu_si256(
                    chunk.as_ptr().cast(),
                )))
            };
            bits |= (b as u8 as u64) << (8 * i);
        }
        bits
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        (0..WAVE_SIZE).fold(0, |m, l| m | ((row[l] >> 31) as u64) << l)
    }
}

/// The mask of the lanes where `pred` holds, `pred` computed for every lane as a vector loop.
#[inline(always)]
pub fn lane_bits(mut pred: impl FnMut(usize) -> bool) -> u64 {
    let mut row = [0u32; WAVE_SIZE];
    for (l, r) in row.iter_mut().enumerate() {
        *r = (pred(l) as u32).wrapping_neg();
    }
    sign_bits(&row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masks with every lane count, alternating and sparse patterns, against bit-by-bit
    /// definitions.
    fn masks() -> Vec<u64> {
        let mut m = vec![0, u64::MAX, 0x5555_5555_5555_5555, 0x8000_0000_0000_0001];
        m.extend((0..64).map(|k| (1u64 << k) - 1));
        m.extend((0..64).map(|k| 1u64 << k));
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            m.push(x);
        }
        m
    }

    #[test]
    fn conversions_agree_with_bit_by_bit_definitions() {
        // Signalling NaNs' bits among them: a merge that went through float operations
        // would quiet them.
        let old: Row = std::array::from_fn(|l| 0x7f80_0001 + l as u32);
        let new: Row = std::array::from_fn(|l| 0xff80_0000 | l as u32);
        for m in masks() {
            let bit = |l: usize| m >> l & 1 != 0;
            let mut row = old;
            merge_lanes(&mut row, &new, m);
            let want: Row = std::array::from_fn(|l| if bit(l) { new[l] } else { old[l] });
            assert_eq!(row, want, "merge {m:#x}");
            // The 8-lane form too, whichever the build uses.
            let mut row = old;
            merge_bytes_of_lanes(&mut row, &new, m);
            assert_eq!(row, want, "merge by bytes {m:#x}");
            let lanes = lanes_of(m);
            let want: Row = std::array::from_fn(|l| if bit(l) { u32::MAX } else { 0 });
            assert_eq!(lanes, want, "lanes {m:#x}");
            assert_eq!(sign_bits(&lanes), m, "sign bits {m:#x}");
            // Only the top bit of a lane counts.
            let tops: Row = std::array::from_fn(|l| if bit(l) { 0x8000_0000 } else { 0x7fff_ffff });
            assert_eq!(sign_bits(&tops), m, "top bits {m:#x}");
            assert_eq!(lane_bits(bit), m, "lane bits {m:#x}");
        }
    }
}
