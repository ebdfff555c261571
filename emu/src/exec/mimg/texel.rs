//! Where a texel of a linear image lies, and reading and writing one through the image's
//! format. Linear (SW_MODE 0) images only, laid out as the HIP runtime lays out the arrays it
//! creates; the tiled swizzle modes of the address library are not modelled (the T# check
//! refuses them).
//!
//! The layout of mip levels: BASE_ADDRESS is resource level 0, whose size is the T#'s WIDTH,
//! HEIGHT and DEPTH. Resource level k has width max(1, W >> k), height max(1, H >> k), depth
//! max(1, D >> k) for 3D images, and every level has the same slices (arrays: DEPTH + 1) or
//! faces (cubes: DEPTH + 1, six per cube); its rows are max(1, PITCH >> k) texels apart, its
//! slices row pitch × height texels apart, and level k + 1 starts right after level k's last
//! slice, with no gap. Row `y` of slice `z` of level k thus starts at
//! `start(k) + (z * height_k + y) * pitch_k` texels. The view's level 0 is resource level
//! BASE_LEVEL; a view level past LAST_LEVEL - BASE_LEVEL is outside the image.

use super::super::access::{self, Addr};
use super::super::buffer_format::{pack16, pack32, unpack32};
use super::super::{Cx, Fault};
use super::descriptor::{Image, ImageType};

/// A texel of the view: x, y, the slice (3D depth, array slice or cube face) and the mip
/// level of the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub x: u32,
    pub y: u32,
    pub z: u32,
    pub level: u32,
}

impl Image {
    /// Whether `at` lies inside the image.
    pub fn contains(&self, at: At) -> bool {
        if at.level >= self.levels() {
            return false;
        }
        let [w, h, d] = self.extent(at.level);
        at.x < w && at.y < h && at.z < d
    }

    /// The byte address of a texel, or `None` outside the image.
    pub fn texel_address(&self, at: At) -> Option<u64> {
        self.contains(at).then(|| self.address(at))
    }

    /// The byte address of an in-range texel.
    fn address(&self, at: At) -> u64 {
        let slice = if self.kind.is_array() || self.kind == ImageType::Cube {
            at.z as u64 + self.base_array as u64
        } else {
            at.z as u64
        };
        let texel = self.level_start(at.level)
            + slice * self.slice_pitch(at.level)
            + at.y as u64 * self.level_row_pitch(at.level)
            + at.x as u64;
        self.base.wrapping_add(texel * self.spec.bytes as u64)
    }

    /// The texel's X, Y, Z, W as the format gives them (f32 bits for float formats, integers for
    /// UINT/SINT), components the format lacks 0, 0, 0, 1; `None` when `at` is outside.
    pub fn fetch(&self, cx: &mut Cx, lane: usize, at: At) -> Result<Option<[u32; 4]>, Fault> {
        if !self.contains(at) {
            return Ok(None);
        }
        let mut buf = [0u8; 16];
        let n = self.spec.bytes;
        access::load(cx, lane, Addr::Global(self.address(at)), &mut buf[..n])?;
        Ok(Some(unpack32(&self.spec, &buf[..n])))
    }

    /// Writes a texel from 32-bit data (f32 bits or integers), components the instruction did
    /// not supply being 0; a texel outside the image is dropped.
    pub fn store32(&self, cx: &mut Cx, lane: usize, at: At, vals: &[u32; 4]) -> Result<(), Fault> {
        if !self.contains(at) {
            return Ok(());
        }
        let mut buf = [0u8; 16];
        let n = self.spec.bytes;
        pack32(&self.spec, vals, 4, &mut buf[..n]);
        access::store(cx, lane, Addr::Global(self.address(at)), &buf[..n])
    }

    /// d16 data: f16 for float formats, 16-bit integers for UINT/SINT.
    pub fn store16(&self, cx: &mut Cx, lane: usize, at: At, vals: &[u16; 4]) -> Result<(), Fault> {
        if !self.contains(at) {
            return Ok(());
        }
        let mut buf = [0u8; 16];
        let n = self.spec.bytes;
        pack16(&self.spec, vals, 4, &mut buf[..n]);
        access::store(cx, lane, Addr::Global(self.address(at)), &buf[..n])
    }

    /// The texel's components as stored, no format conversion: each one's bits zero-extended
    /// (sign-extended with `sign`), components the format lacks 0; `None` when `at` is outside.
    pub fn fetch_raw(
        &self,
        cx: &mut Cx,
        lane: usize,
        at: At,
        sign: bool,
    ) -> Result<Option<[u32; 4]>, Fault> {
        if !self.contains(at) {
            return Ok(None);
        }
        let mut buf = [0u8; 16];
        let n = self.spec.bytes;
        access::load(cx, lane, Addr::Global(self.address(at)), &mut buf[..n])?;
        let elem = u128::from_le_bytes(buf);
        let mut out = [0u32; 4];
        for (o, &(shift, bits)) in out.iter_mut().zip(self.spec.comps) {
            let v = ((elem >> shift) & ((1u128 << bits) - 1)) as u32;
            *o = if sign && bits < 32 {
                (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
            } else {
                v
            };
        }
        Ok(Some(out))
    }

    /// Writes the low bits of each component as they are, no format conversion (components the
    /// instruction did not supply are 0); a texel outside the image is dropped.
    pub fn store_raw(
        &self,
        cx: &mut Cx,
        lane: usize,
        at: At,
        vals: &[u32; 4],
    ) -> Result<(), Fault> {
        if !self.contains(at) {
            return Ok(());
        }
        let mut elem = 0u128;
        for (&v, &(shift, bits)) in vals.iter().zip(self.spec.comps) {
            elem |= ((v as u128) & ((1u128 << bits) - 1)) << shift;
        }
        let n = self.spec.bytes;
        access::store(
            cx,
            lane,
            Addr::Global(self.address(at)),
            &elem.to_le_bytes()[..n],
        )
    }

    /// Applies DST_SEL: each result component is 0, 1 (1.0 for float formats) or one of the
    /// texel's components.
    pub fn swizzle(&self, texel: [u32; 4], float: bool) -> [u32; 4] {
        let one = if float { 1f32.to_bits() } else { 1 };
        self.dst_sel.map(|s| match s {
            0 => 0,
            1 => one,
            4..=7 => texel[s as usize - 4],
            _ => 0,
        })
    }
}
