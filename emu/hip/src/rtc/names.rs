//! Name expressions (`hiprtcAddNameExpression`, `hiprtcGetLoweredName`) as ROCm 5.2's hiprtc
//! resolves them: each expression is made to exist in the device code by a variable appended to
//! the source (`extern "C" constexpr auto __hiprtc_N = EXPR;`, which instantiates a template
//! kernel it names), and after compilation every symbol of the code object is demangled and
//! reduced to its qualified name with template arguments; the symbol whose reduced name equals
//! the reduced expression is its lowered name. Whitespace is ignored on both sides, so
//! `k<float, 2>` finds `k<float,2>`.

/// The text appended to the source for the expressions, in the order they were added.
pub(crate) fn declarations(expressions: &[String]) -> String {
    expressions
        .iter()
        .enumerate()
        .map(|(i, e)| format!("\nextern \"C\" constexpr auto __hiprtc_{} = {e};\n", i + 1))
        .collect()
}

/// An expression as it matches a demangled name: without an address-of `&`, enclosing
/// parentheses or whitespace.
pub(crate) fn reduce_expression(expression: &str) -> String {
    let mut e = expression.trim();
    loop {
        let before = e;
        if let Some(inner) = e.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            e = inner.trim();
        }
        if let Some(rest) = e.strip_prefix('&') {
            e = rest.trim();
        }
        if e == before {
            break;
        }
    }
    e.trim_start_matches("::")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// A demangled symbol as it matches an expression: `void ns::k<float, 2>(float*, int)` gives
/// `ns::k<float,2>`; kernel descriptors (`... (.kd)`) give nothing.
pub(crate) fn reduce_symbol(demangled: &str) -> Option<String> {
    if demangled.is_empty() || demangled.contains(".kd") {
        return None;
    }
    let d = demangled.strip_prefix("void ").unwrap_or(demangled);
    // The name ends at its parameter list, or after its template arguments (which may hold
    // parentheses of their own).
    let mut depth = 0usize;
    let mut end = d.len();
    for (i, c) in d.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    Some(d[..end].chars().filter(|c| !c.is_whitespace()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_and_symbols_reduce_alike() {
        assert_eq!(reduce_expression("&scale<float, 3>"), "scale<float,3>");
        assert_eq!(reduce_expression("(&ns::k<int>)"), "ns::k<int>");
        assert_eq!(reduce_expression("plain"), "plain");
        assert_eq!(
            reduce_symbol("void scale<float, 3>(float*, int)").as_deref(),
            Some("scale<float,3>")
        );
        assert_eq!(reduce_symbol("void plain(int*)").as_deref(), Some("plain"));
        assert_eq!(reduce_symbol("counter").as_deref(), Some("counter"));
        assert_eq!(reduce_symbol("void k<int>(int*) (.kd)"), None);
        assert!(declarations(&["&k<int>".into()]).contains("__hiprtc_1 = &k<int>;"));
    }
}
