//! The crate's top-level modules use each other one way only (the README's "Module layers"): a
//! module may name a module of a lower layer, never one of its own layer or above, so that no two
//! modules import each other, however indirectly.

use std::path::{Path, PathBuf};

/// Each top-level module (a file, or a folder of files under `src/`) with its layer; 0 is the top.
const LAYERS: &[(&str, u32)] = &[
    ("api", 0),
    ("runtime", 1),
    ("checks", 2),
    ("stats", 2),
    ("allocation", 3),
    ("cstdio", 3),
    ("error", 3),
    ("image", 3),
    ("log", 3),
    ("types", 4),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for e in std::fs::read_dir(path).unwrap().flatten() {
            rust_files(&e.path(), out);
        }
    } else if path.extension().is_some_and(|x| x == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The top-level modules a source text names as `crate::NAME` or `crate::{NAME, ...}`,
/// outside `//` comments.
fn named_modules(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or("").to_string() + "\n")
        .collect();
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let list = match rest.strip_prefix('{') {
            // One level of braces is enough: deeper names are items, not modules.
            Some(inner) => inner.split([',', '}']).collect::<Vec<_>>(),
            None => vec![rest],
        };
        for item in list {
            let name: String = item
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if layer(&name).is_some() {
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let path = e.path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "lib" {
            continue;
        }
        let own = layer(&stem)
            .unwrap_or_else(|| panic!("module `{stem}` has no layer in this test's table"));
        let mut files = Vec::new();
        rust_files(&path, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for used in named_modules(&text) {
                if used != stem && layer(&used).unwrap() <= own {
                    wrong.push(format!(
                        "src/{}: uses crate::{used}",
                        file.strip_prefix(&src).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn named_modules_reads_paths_and_brace_lists() {
    let text = "use crate::error::{self, *};\nuse crate::{\n    runtime,\n    types::dim3,\n};\n// crate::api\n";
    assert_eq!(named_modules(text), ["error", "runtime", "types"]);
}
