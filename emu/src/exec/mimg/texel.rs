//! Where a texel of a linear image lies, and reading and writing one through the image's
//! format. Linear (SW_MODE 0) images only: row `y` of slice `z` starts `(z * height + y) *
//! pitch` texels past the base, which is how the HIP runtime lays out the arrays it creates;
//! the tiled swizzle modes of the address library are not modelled (the T# check refuses them).

use super::super::access::{self, Addr};
use super::super::buffer_format::{pack16, pack32, unpack32};
use super::super::{Cx, Fault};
use super::descriptor::Image;

/// A texel in level 0 of the view: x, y, and the slice (3D depth, array slice or cube face).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Image {
    /// Whether `at` lies inside the image (level 0).
    pub fn contains(&self, at: At) -> bool {
        let [w, h, d] = self.extent(0);
        at.x < w && at.y < h && at.z < d
    }

    /// The byte address of a texel, or `None` outside the image.
    pub fn texel_address(&self, at: At) -> Option<u64> {
        self.contains(at).then(|| self.address(at))
    }

    /// The byte address of an in-range texel.
    fn address(&self, at: At) -> u64 {
        let slice = if self.kind.is_array() {
            at.z as u64 + self.base_array as u64
        } else {
            at.z as u64
        };
        let row = slice * self.height as u64 + at.y as u64;
        let texel = row * self.pitch as u64 + at.x as u64;
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
