//! The top-level modules of each crate (`gcnemu` and the HIP runtime) form layers: a module uses only modules below it, so
//! none reaches back into a module that uses it. Read from the sources: every `crate::name` path
//! outside comments is an edge from the file's top-level module to `name`. A cycle fails the
//! test with its path, e.g. `exec -> check -> exec`; the fix is to move what both need into a
//! lower module (see emu/README.md and emu/hip/README.md, "Module layers").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// Top-level modules of the crate rooted at `src` and the `.rs` files each holds.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let path = e.path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name == "bin" {
                continue;
            }
            let mut files = Vec::new();
            rs_files(&path, &mut files);
            out.insert(name, files);
        } else if path.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main" {
            out.insert(name, vec![path]);
        }
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line without its `//` comment (a `//` inside a string literal stays).
fn code(line: &str) -> &str {
    let mut quotes = 0;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' if i == 0 || bytes[i - 1] != b'\\' => quotes += 1,
            b'/' if quotes % 2 == 0 && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Names that `crate::` paths in `text` start with: `crate::a::b` gives `a`, `crate::{a, b::c}`
/// gives `a` and `b`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `my_crate::` or `gcnemu_crate::`
        }
        let after = rest.trim_start();
        if let Some(group) = after.strip_prefix('{') {
            // Items at depth one of the group.
            let (mut depth, mut at_item) = (1, true);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => at_item = true,
                    c if at_item && (c.is_ascii_alphabetic() || c == '_') && depth == 1 => {
                        out.push(ident(&group[j..]).to_string());
                        at_item = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(after).to_string());
        }
    }
    out
}

fn graph(src: &Path) -> Graph {
    let mods = modules(src);
    let mut g = Graph::new();
    for (m, files) in &mods {
        let edges = g.entry(m.clone()).or_default();
        for f in files {
            let text: String = std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| format!("{}\n", code(l)))
                .collect();
            for target in crate_paths(&text) {
                if &target != m && mods.contains_key(&target) {
                    let file = f.strip_prefix(src).unwrap().display().to_string();
                    edges.entry(target).or_default().insert(file);
                }
            }
        }
    }
    g
}

/// A cycle of `g` as the path of modules round it, with the files that make each edge.
fn cycle(g: &Graph) -> Option<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit<'a>(
        g: &'a Graph,
        m: &'a str,
        marks: &mut BTreeMap<&'a str, Mark>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        marks.insert(m, Mark::Open);
        path.push(m);
        for next in g[m].keys() {
            match marks.get(next.as_str()).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let start = path.iter().position(|p| p == next).unwrap();
                    let mut c = path[start..].to_vec();
                    c.push(next);
                    return Some(c);
                }
                Mark::New => {
                    if let Some(c) = visit(g, next, marks, path) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks.insert(m, Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for m in g.keys() {
        if !marks.contains_key(m.as_str()) {
            if let Some(c) = visit(g, m, &mut marks, &mut Vec::new()) {
                let edges: Vec<String> = c
                    .windows(2)
                    .map(|w| format!("  {} -> {}: {:?}", w[0], w[1], g[w[0]][w[1]]))
                    .collect();
                return Some(format!("{}\n{}", c.join(" -> "), edges.join("\n")));
            }
        }
    }
    None
}

fn assert_layered(src: &Path, min_modules: usize) {
    let g = graph(src);
    assert!(
        g.len() >= min_modules,
        "{}: {} top-level modules found",
        src.display(),
        g.len()
    );
    let edges: usize = g.values().map(|e| e.len()).sum();
    assert!(edges > 0, "{}: no `crate::` path found", src.display());
    if let Some(c) = cycle(&g) {
        panic!("{}: import circle {c}", src.display());
    }
}

#[test]
fn gcnemu_modules_form_layers() {
    assert_layered(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), 15);
}

#[test]
fn hip_runtime_modules_form_layers() {
    assert_layered(&Path::new(env!("CARGO_MANIFEST_DIR")).join("hip/src"), 8);
}

#[test]
fn the_parser_sees_groups_and_skips_comments() {
    let text = "use crate::{exec::Cx, memory, wave::{Wave, Row}};\nlet x = my_crate::lds::X;\n";
    assert_eq!(crate_paths(text), ["exec", "memory", "wave"]);
    assert_eq!(code("let a = \"//\"; // crate::run"), "let a = \"//\"; ");
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(a.into()).or_default().entry(b.into()).or_default();
        g.entry(b.into()).or_default();
    }
    g.entry("d".into()).or_default();
    assert!(cycle(&g).unwrap().starts_with("a -> b -> c -> a"));
    g.get_mut("c").unwrap().remove("a");
    assert_eq!(cycle(&g), None);
}
