//! Assembly text as lint input: assembled with `gcn_isa::assemble`, cut into functions at the
//! labels a `.type NAME,@function` directive marks (or linted whole when there are none).

use super::lint::{self, FunctionRange, Options, Report};
use gcn_isa::Target;

/// The processor an `.amdgcn_target "amdgcn-amd-amdhsa--gfx906"` directive names, if any.
pub fn declared_target(source: &str) -> Option<Target> {
    source.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(".amdgcn_target")?;
        let quoted = rest.trim().trim_matches('"');
        let processor = quoted.rsplit("--").next()?;
        Target::from_name(processor)
    })
}

/// Names given `@function` type by a `.type` directive, in source order.
fn function_names(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix(".type")?;
            let (name, kind) = rest.split_once(',')?;
            let kind = kind.trim();
            (kind == "@function" || kind == "%function" || kind == "STT_FUNC")
                .then(|| name.trim().to_string())
        })
        .collect()
}

/// Assembles `source` (named `file` in messages) and lints it.
pub fn lint_source(file: &str, source: &str, options: &Options) -> Result<Report, String> {
    let assembly = gcn_isa::assemble(source, options.target).map_err(|e| format!("{file}: {e}"))?;
    let end = assembly.bytes.len() as u64;
    let mut starts: Vec<(u64, String)> = function_names(source)
        .into_iter()
        .filter_map(|name| {
            let offset = *assembly.labels.get(&name)?;
            Some((offset as u64, name))
        })
        .collect();
    starts.sort();
    starts.dedup_by_key(|s| s.0);
    if starts.is_empty() {
        starts.push((0, file.to_string()));
    }
    let mut report = Report::default();
    for (k, (entry, name)) in starts.iter().enumerate() {
        let next = starts.get(k + 1).map_or(end, |s| s.0);
        if *entry >= next {
            continue;
        }
        let f = FunctionRange {
            name: name.clone(),
            section: 0,
            entry: *entry,
            end: next,
        };
        lint::lint_function(&assembly.bytes, 0, &f, options, &mut report);
    }
    Ok(report)
}
