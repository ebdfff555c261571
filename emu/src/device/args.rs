//! Kernel arguments: the typed [`Arg`]s of a launch, their bytes in the kernarg segment, and the
//! list of what a kernel expects for error messages.

use gcn_loader::{Kernel, KernelArg, ValueKind};

use super::Error;

/// A kernel argument by value or pointer, in the order of the kernel's explicit arguments.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A device address (from [`Device::alloc`](super::Device::alloc)).
    Ptr(u64),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    /// Raw bytes (structs by value); the length must equal the argument's size.
    Bytes(Vec<u8>),
}

/// The kernarg segment of a launch of `k` with `args` placed at their offsets; the hidden
/// arguments after them are written once the launch is laid out
/// ([`crate::dispatch::write_hidden_args`]). Its size is the largest of the descriptor's, the
/// metadata's, and the end of the last argument.
pub(super) fn kernarg_segment(kernel: &str, k: &Kernel, args: &[Arg]) -> Result<Vec<u8>, Error> {
    let meta_args: &[KernelArg] = k.meta.as_ref().map_or(&[], |m| &m.args);
    let explicit: Vec<&KernelArg> = meta_args
        .iter()
        .filter(|a| !a.value_kind.is_hidden())
        .collect();
    let kernarg_size = meta_args
        .iter()
        .map(|a| a.offset + a.size)
        .chain([k.descriptor.kernarg_size as u64])
        .chain(k.meta.as_ref().map(|m| m.kernarg_segment_size))
        .max()
        .unwrap_or(0);
    let mut seg = vec![0u8; kernarg_size as usize];
    if k.meta.is_none() && !args.is_empty() {
        return Err(Error::Arguments(format!(
            "kernel `{}` has no metadata describing its arguments; cannot place {} argument(s)",
            crate::symbol::demangle(kernel),
            args.len()
        )));
    }
    if args.len() != explicit.len() {
        return Err(Error::Arguments(format!(
            "kernel `{}` takes {} argument(s), {} given\n{}",
            crate::symbol::demangle(kernel),
            explicit.len(),
            args.len(),
            describe_args(&explicit)
        )));
    }
    for (i, (a, spec)) in args.iter().zip(&explicit).enumerate() {
        let bytes = arg_bytes(a, spec).map_err(|why| {
            Error::Arguments(format!(
                "argument {i} ({}): {why}\n{}",
                spec.name.as_deref().unwrap_or("unnamed"),
                describe_args(&explicit)
            ))
        })?;
        let off = spec.offset as usize;
        seg[off..off + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(seg)
}

/// The kernel's explicit arguments, one per line, for error messages.
pub fn describe_args(args: &[&KernelArg]) -> String {
    let mut s = String::from("expected arguments:");
    for (i, a) in args.iter().enumerate() {
        let kind = match a.value_kind {
            ValueKind::GlobalBuffer => "pointer".to_string(),
            ValueKind::ByValue => "by value".to_string(),
            ref other => other.name().to_string(),
        };
        let label = match (a.type_name.as_deref(), a.name.as_deref()) {
            (Some(t), Some(n)) => format!("{t} {n}: "),
            (None, Some(n)) => format!("{n}: "),
            (Some(t), None) => format!("{t}: "),
            (None, None) => String::new(),
        };
        s += &format!("\n  {i}: {label}{} bytes, {kind}", a.size);
    }
    if args.is_empty() {
        s += " none";
    }
    s
}

/// The bytes of an argument for a kernarg slot of `spec.size` bytes.
fn arg_bytes(a: &Arg, spec: &KernelArg) -> Result<Vec<u8>, String> {
    let size = spec.size as usize;
    let int = |v: i128| -> Result<Vec<u8>, String> {
        let bits = 8 * size as u32;
        if size == 0 || size > 8 {
            return Err(format!("an integer does not fit a {size}-byte argument"));
        }
        let (min, max) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
        if v < min || v > max {
            return Err(format!("{v} does not fit in {size} bytes"));
        }
        Ok((v as u64).to_le_bytes()[..size].to_vec())
    };
    match a {
        Arg::Ptr(p) if size == 8 => Ok(p.to_le_bytes().to_vec()),
        Arg::Ptr(_) => Err(format!(
            "a pointer needs an 8-byte argument, this one has {size} bytes"
        )),
        Arg::I32(v) => int(*v as i128),
        Arg::U32(v) => int(*v as i128),
        Arg::I64(v) => int(*v as i128),
        Arg::U64(v) => int(*v as i128),
        Arg::F32(v) if size == 4 => Ok(v.to_le_bytes().to_vec()),
        Arg::F64(v) if size == 8 => Ok(v.to_le_bytes().to_vec()),
        Arg::F32(_) => Err(format!(
            "an f32 needs a 4-byte argument, this one has {size} bytes"
        )),
        Arg::F64(_) => Err(format!(
            "an f64 needs an 8-byte argument, this one has {size} bytes"
        )),
        Arg::Bytes(b) if b.len() == size => Ok(b.clone()),
        Arg::Bytes(b) => Err(format!(
            "{} bytes given for a {size}-byte argument",
            b.len()
        )),
    }
}
