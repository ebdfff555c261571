//! Kernel names as people read them: C++ symbols demangled, and lists of names kept short.

/// A C++ symbol as the source spells it (`scale(int const*, int*, int)`); other names as they
/// are.
pub fn demangle(name: &str) -> String {
    // Only an Itanium-mangled name starts with `_Z`: the demangler would read a plain `a` or
    // `f` as the type code of `signed char` or `float`.
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle(&Default::default()).ok())
        .unwrap_or_else(|| name.to_string())
}

/// How many names [`name_list`] shows before it counts the rest.
pub const LISTED_NAMES: usize = 10;

/// The kernels of `file`, demangled, at most [`LISTED_NAMES`] of them, with a count of the
/// rest and where to see them all: what an error about a missing kernel says.
pub fn name_list<'a>(names: impl IntoIterator<Item = &'a str>, file: &str) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        return "it has no kernels".into();
    }
    let shown: Vec<String> = names
        .iter()
        .take(LISTED_NAMES)
        .map(|n| format!("`{}`", demangle(n)))
        .collect();
    let mut out = format!("kernels: {}", shown.join(", "));
    if names.len() > LISTED_NAMES {
        out += &format!(
            " and {} more; `gcnemu info {file}` lists them all",
            names.len() - LISTED_NAMES
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_cpp_symbols_only() {
        assert_eq!(demangle("_Z5scalePKiPii"), "scale(int const*, int*, int)");
        assert_eq!(demangle("saxpy"), "saxpy");
        assert_eq!(demangle("f"), "f");
    }

    #[test]
    fn lists_at_most_ten_names_and_points_to_info() {
        let many: Vec<String> = (0..80).map(|i| format!("_Z1kILi{i}EEvv")).collect();
        let text = name_list(many.iter().map(String::as_str), "lib.so");
        assert!(
            text.starts_with("kernels: `void k<0>()`, `void k<1>()`"),
            "{text}"
        );
        assert_eq!(text.matches('`').count(), 2 * LISTED_NAMES + 2, "{text}");
        assert!(
            text.ends_with("and 70 more; `gcnemu info lib.so` lists them all"),
            "{text}"
        );
        assert_eq!(name_list(["a", "b"], "x.co"), "kernels: `a`, `b`");
        assert_eq!(name_list([], "x.co"), "it has no kernels");
    }
}
