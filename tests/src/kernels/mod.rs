//! End-to-end kernel cases for `gcnemu run`: the HIP sources and code objects in
//! `fixtures/kernels/`, a deterministic input generator and an exact CPU reference for each.
//!
//! A [`Case`] is independent of how it is run: the library tests turn its [`Arg`]s into
//! `gcnemu` API calls, the CLI tests into `--arg` strings and files. Every buffer carries the
//! bytes expected after the run (inputs expect their initial bytes: the kernel must not clobber
//! them), so a run is checked by comparing every buffer byte for byte.
//!
//! The references follow what the compiled code computes, read from the `.s` listings beside the
//! code objects: HIP contracts `a * b + c` into an FMA (`v_fma_f32`/`v_fmac_f32`/`v_fma_f64`), so
//! the references use `mul_add` there; integer arithmetic wraps.

mod atomics;
mod basic;
pub mod cli;
mod float;
mod intmath;
mod lds;
mod ldsatomics;
mod loops;
mod wave;

use std::path::{Path, PathBuf};

/// The two gfx9 targets every kernel is compiled for.
pub const TARGETS: [&str; 2] = ["gfx900", "gfx906"];
/// The code object versions every kernel is compiled as.
pub const VERSIONS: [u32; 2] = [4, 5];

/// A 64-bit linear congruential generator (Knuth's MMIX constants): fixed seeds, no dependency.
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The high half: the low bits of an LCG have short periods.
        (self.0 >> 32) as u32
    }

    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `lo..=hi`.
    pub fn range_i32(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (i64::from(hi) - i64::from(lo) + 1) as u64;
        (i64::from(lo) + (self.next_u64() % span) as i64) as i32
    }

    /// A float with a random sign and 24 random mantissa bits, magnitude in `[2^lo, 2^(hi+1))`.
    pub fn f32_exp(&mut self, lo: i32, hi: i32) -> f32 {
        let e = self.range_i32(lo, hi);
        let mant = 1.0 + (self.next_u32() & 0x7f_ffff) as f32 / (1u32 << 23) as f32;
        let sign = if self.next_u32() & 1 == 1 { -1.0 } else { 1.0 };
        sign * mant * 2f32.powi(e)
    }

    /// A double with a random sign and 53 random mantissa bits, magnitude in `[2^lo, 2^(hi+1))`.
    pub fn f64_exp(&mut self, lo: i32, hi: i32) -> f64 {
        let e = self.range_i32(lo, hi);
        let mant = 1.0 + (self.next_u64() & ((1u64 << 52) - 1)) as f64 / (1u64 << 52) as f64;
        let sign = if self.next_u32() & 1 == 1 { -1.0 } else { 1.0 };
        sign * mant * 2f64.powi(e)
    }
}

/// One kernel argument, in the order of the kernel's explicit arguments.
#[derive(Debug, Clone)]
pub enum Arg {
    /// A device buffer: its initial bytes and the bytes it must hold after the run.
    Buffer(Buffer),
    I8(i8),
    I32(i32),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    /// Raw by-value bytes (a struct).
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
pub struct Buffer {
    /// The kernel parameter's name, for messages.
    pub name: &'static str,
    /// Element size in bytes, for reporting differing indices.
    pub elem: usize,
    pub init: Vec<u8>,
    pub expect: Vec<u8>,
}

/// A launch of one kernel with its inputs and expected outputs.
#[derive(Debug, Clone)]
pub struct Case {
    /// File stem in `fixtures/kernels/` (`saxpy` -> `saxpy.gfx906.v5.co`).
    pub fixture: &'static str,
    /// Kernel symbol (all are `extern "C"`).
    pub kernel: &'static str,
    /// Workgroups per dimension (HIP's gridDim).
    pub grid: [u32; 3],
    /// Work-items per workgroup (HIP's blockDim).
    pub block: [u32; 3],
    /// Dynamic LDS bytes (`extern __shared__`).
    pub dynamic_lds: u32,
    pub args: Vec<Arg>,
}

impl Case {
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            Arg::Buffer(b) => Some(b),
            _ => None,
        })
    }

    /// Compares the buffers read back after a run (in argument order) with the expectations;
    /// on a mismatch, the message names the buffer and its first differing elements.
    pub fn check(&self, got: &[Vec<u8>]) -> Result<(), String> {
        let bufs: Vec<&Buffer> = self.buffers().collect();
        if got.len() != bufs.len() {
            return Err(format!(
                "{}: {} buffers read back, {} expected",
                self.kernel,
                got.len(),
                bufs.len()
            ));
        }
        let errs: Vec<String> = bufs
            .iter()
            .zip(got)
            .filter_map(|(b, g)| b.diff(g))
            .collect();
        if errs.is_empty() {
            Ok(())
        } else {
            Err(format!("{}: {}", self.kernel, errs.join("\n")))
        }
    }
}

impl Buffer {
    /// A buffer the kernel only reads.
    pub fn input(name: &'static str, elem: usize, init: Vec<u8>) -> Self {
        Buffer {
            name,
            elem,
            expect: init.clone(),
            init,
        }
    }

    pub fn output(name: &'static str, elem: usize, init: Vec<u8>, expect: Vec<u8>) -> Self {
        assert_eq!(init.len(), expect.len(), "{name}: init/expect sizes differ");
        Buffer {
            name,
            elem,
            init,
            expect,
        }
    }

    /// `None` if `got` is exactly the expected bytes, else the first differing elements.
    pub fn diff(&self, got: &[u8]) -> Option<String> {
        if got == self.expect.as_slice() {
            return None;
        }
        if got.len() != self.expect.len() {
            return Some(format!(
                "buffer `{}`: {} bytes read back, {} expected",
                self.name,
                got.len(),
                self.expect.len()
            ));
        }
        let e = self.elem;
        let bad: Vec<usize> = (0..got.len() / e)
            .filter(|&i| got[i * e..(i + 1) * e] != self.expect[i * e..(i + 1) * e])
            .collect();
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| {
                format!(
                    "[{i}] got {} want {}",
                    hex_le(&got[i * e..(i + 1) * e]),
                    hex_le(&self.expect[i * e..(i + 1) * e])
                )
            })
            .collect();
        Some(format!(
            "buffer `{}`: {} of {} elements differ; first: {}",
            self.name,
            bad.len(),
            got.len() / e,
            shown.join(", ")
        ))
    }
}

/// A little-endian element printed as one hexadecimal number.
fn hex_le(b: &[u8]) -> String {
    let digits: String = b.iter().rev().map(|x| format!("{x:02x}")).collect();
    format!("0x{digits}")
}

/// `fixtures/kernels/NAME.TARGET.vVERSION.co`.
pub fn fixture_path(fixture: &str, target: &str, version: u32) -> PathBuf {
    kernels_dir().join(format!("{fixture}.{target}.v{version}.co"))
}

pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels")
}

/// Every kernel case, in a fixed order.
pub fn all() -> Vec<Case> {
    vec![
        basic::saxpy(),
        basic::index2d(),
        basic::index3d(),
        basic::structarg(),
        intmath::intmath(),
        lds::block_reduce(),
        lds::transpose(),
        wave::ballot(),
        wave::shuffle(),
        atomics::atomics(),
        ldsatomics::ldsatomics(),
        loops::loops(),
        float::fmath(),
        float::dmath(),
    ]
}

/// The case whose kernel symbol is `kernel`.
pub fn by_kernel(kernel: &str) -> Case {
    all()
        .into_iter()
        .find(|c| c.kernel == kernel)
        .unwrap_or_else(|| panic!("no kernel case named {kernel}"))
}

/// Bytes of a slice of plain little-endian values.
pub trait LeBytes {
    fn le_bytes(&self) -> Vec<u8>;
}

macro_rules! le_bytes {
    ($($t:ty),*) => {$(
        impl LeBytes for [$t] {
            fn le_bytes(&self) -> Vec<u8> {
                self.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
        }
    )*};
}
le_bytes!(u8, i8, u32, i32, u64, i64, f32, f64);

/// A fill pattern for output buffers, so that elements a kernel must not write are checked too.
pub const CANARY: u8 = 0xcd;

pub fn canary(len: usize) -> Vec<u8> {
    vec![CANARY; len]
}

/// Overwrites element `i` (of `size_of::<T>()` bytes) of `buf`.
pub fn put<const N: usize>(buf: &mut [u8], i: usize, bytes: [u8; N]) {
    buf[i * N..(i + 1) * N].copy_from_slice(&bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcg_is_deterministic_and_in_range() {
        let mut a = Lcg::new(7);
        let mut b = Lcg::new(7);
        for _ in 0..1000 {
            let x = a.range_i32(-5, 5);
            assert_eq!(x, b.range_i32(-5, 5));
            assert!((-5..=5).contains(&x));
        }
        let f = a.f32_exp(-3, 3);
        assert!(f.abs() >= 0.125 && f.abs() < 16.0);
    }

    #[test]
    fn diff_reports_first_elements() {
        let b = Buffer::output("out", 4, vec![0; 8], [1u32, 2].le_bytes());
        assert!(b.diff(&[1u32, 2].le_bytes()).is_none());
        let msg = b.diff(&[1u32, 3].le_bytes()).unwrap();
        assert!(msg.contains("1 of 2 elements differ"), "{msg}");
        assert!(msg.contains("[1] got 0x00000003 want 0x00000002"), "{msg}");
    }

    /// The cases' argument lists agree with the kernels' metadata: count, order, sizes and
    /// buffer/by-value kinds; and each file is the target and code object version its name says.
    #[test]
    fn cases_match_the_metadata() {
        use gcn_loader::ValueKind;
        for case in all() {
            for t in TARGETS {
                for v in VERSIONS {
                    let path = fixture_path(case.fixture, t, v);
                    let objects = gcn_loader::load_file(&path).unwrap();
                    let co = &objects[0];
                    let what = format!("{} in {}", case.kernel, path.display());
                    assert_eq!(co.target.mach, t, "{what}");
                    assert_eq!(u32::from(co.version), v, "{what}");
                    let kernel = co.kernel(case.kernel).unwrap_or_else(|| panic!("{what}"));
                    let meta = kernel.meta.as_ref().unwrap();
                    let args: Vec<_> = meta.explicit_args().collect();
                    assert_eq!(args.len(), case.args.len(), "{what}");
                    for (i, (m, a)) in args.iter().zip(&case.args).enumerate() {
                        let (kind, size) = match a {
                            Arg::Buffer(_) => (ValueKind::GlobalBuffer, 8),
                            Arg::I8(_) => (ValueKind::ByValue, 1),
                            Arg::I32(_) | Arg::U32(_) | Arg::F32(_) => (ValueKind::ByValue, 4),
                            Arg::U64(_) | Arg::F64(_) => (ValueKind::ByValue, 8),
                            Arg::Bytes(b) => (ValueKind::ByValue, b.len() as u64),
                        };
                        assert_eq!((&m.value_kind, m.size), (&kind, size), "{what}: arg {i}");
                        if let Arg::Buffer(b) = a {
                            assert_eq!(m.name.as_deref(), Some(b.name), "{what}: arg {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_case_has_its_fixtures() {
        for case in all() {
            for t in TARGETS {
                for v in VERSIONS {
                    let p = fixture_path(case.fixture, t, v);
                    assert!(p.is_file(), "missing {}", p.display());
                }
            }
            let threads: u32 =
                case.grid.iter().product::<u32>() * case.block.iter().product::<u32>();
            assert!(threads > 0 && case.block.iter().product::<u32>() <= 1024);
        }
    }
}
