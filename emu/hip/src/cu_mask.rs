//! Compute-unit masks (`hipExtStreamCreateWithCUMask`): bit i of word i / 32 enables CU i. The
//! timing model runs a masked stream's kernels on as many CUs as its mask enables, which is the
//! mask's effect on a kernel's duration when nothing else shares the device (kernels here run one
//! at a time).

/// The 32-bit words of a mask of `cus` compute units, all enabled.
pub(crate) fn full(cus: u32) -> Vec<u32> {
    (0..cus.div_ceil(32))
        .map(|w| {
            let bits = (cus - 32 * w).min(32);
            if bits == 32 {
                u32::MAX
            } else {
                (1 << bits) - 1
            }
        })
        .collect()
}

/// The compute units a stream's kernels may use: its mask within the device's CUs, or all of
/// them when it has none or enables none of the device's (as hipamd answers).
pub(crate) fn effective(stream_mask: &[u32], cus: u32) -> Vec<u32> {
    let full = full(cus);
    let masked: Vec<u32> = full
        .iter()
        .enumerate()
        .map(|(i, f)| f & stream_mask.get(i).copied().unwrap_or(0))
        .collect();
    if masked.iter().all(|&m| m == 0) {
        full
    } else {
        masked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_cover_the_device_and_fall_back_to_all() {
        assert_eq!(full(64), vec![u32::MAX, u32::MAX]);
        assert_eq!(full(60), vec![u32::MAX, 0x0fff_ffff]);
        assert_eq!(effective(&[0xf], 60), vec![0xf, 0]);
        assert_eq!(effective(&[], 60), full(60));
        // Only CUs past the device's last: none of its own, so all of them.
        assert_eq!(effective(&[0, 0xf000_0000], 60), full(60));
    }
}
