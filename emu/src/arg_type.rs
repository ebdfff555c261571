//! What a kernel argument's metadata says its scalar type is, where it says (code object
//! v2/v3 `.value_type`, or the source `.type_name` clang keeps with `-g` or for OpenCL), so a
//! float is not passed as the bits of an `int` nor an integer as the bits of a `float`.

use gcn_loader::KernelArg;

/// The kind of scalar an argument holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Integer,
    Float,
}

/// The argument's scalar kind, if its metadata names a scalar type.
pub fn declared(spec: &KernelArg) -> Option<Scalar> {
    if let Some(v) = spec.value_type.as_deref() {
        match v {
            "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" => {
                return Some(Scalar::Integer)
            }
            "f16" | "f32" | "f64" => return Some(Scalar::Float),
            _ => {}
        }
    }
    let name = spec.type_name.as_deref()?;
    if name.contains(['*', '&', '[']) {
        return None;
    }
    // `const unsigned int` -> `unsigned int`; qualifiers say nothing of the kind.
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict__"))
        .collect();
    let base = words.join(" ");
    let integer = [
        "char",
        "short",
        "int",
        "long",
        "unsigned",
        "signed",
        "bool",
        "size_t",
        "ssize_t",
        "ptrdiff_t",
        "uint",
        "ulong",
        "ushort",
        "uchar",
    ];
    let float = ["float", "double", "half", "_Float16", "__half"];
    if float.contains(&base.as_str()) {
        return Some(Scalar::Float);
    }
    if words.iter().all(|w| integer.contains(w))
        || (base.starts_with("int") || base.starts_with("uint")) && base.ends_with("_t")
    {
        return Some(Scalar::Integer);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(type_name: Option<&str>, value_type: Option<&str>) -> KernelArg {
        KernelArg {
            name: None,
            type_name: type_name.map(str::to_string),
            size: 4,
            offset: 0,
            value_kind: gcn_loader::ValueKind::ByValue,
            address_space: None,
            pointee_align: None,
            access: None,
            actual_access: None,
            is_const: false,
            is_restrict: false,
            is_volatile: false,
            is_pipe: false,
            value_type: value_type.map(str::to_string),
        }
    }

    #[test]
    fn types_named_in_metadata() {
        assert_eq!(declared(&arg(Some("int"), None)), Some(Scalar::Integer));
        assert_eq!(
            declared(&arg(Some("const unsigned int"), None)),
            Some(Scalar::Integer)
        );
        assert_eq!(
            declared(&arg(Some("uint32_t"), None)),
            Some(Scalar::Integer)
        );
        assert_eq!(declared(&arg(Some("float"), None)), Some(Scalar::Float));
        assert_eq!(declared(&arg(None, Some("f64"))), Some(Scalar::Float));
        assert_eq!(declared(&arg(None, Some("i32"))), Some(Scalar::Integer));
        assert_eq!(declared(&arg(Some("float*"), None)), None);
        assert_eq!(declared(&arg(Some("struct Params"), None)), None);
        assert_eq!(declared(&arg(None, None)), None);
    }
}
