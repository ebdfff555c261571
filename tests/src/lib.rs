//! Shared helpers for the end-to-end and golden-vector tests (see `tests/`).

pub mod kernels;

use std::path::{Path, PathBuf};

/// One golden vector: input words, LLVM's text, and LLVM's canonical re-encoding.
#[derive(Debug, Clone)]
pub struct Vector {
    pub words: Vec<u32>,
    pub text: String,
    pub canonical: Vec<u32>,
    pub line: usize,
}

pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

fn parse_words(s: &str) -> Vec<u32> {
    s.split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).expect("hex word"))
        .collect()
}

/// Reads `golden/<target>/<format>.txt`.
pub fn read_vectors(path: &Path) -> Vec<Vector> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            let words = parse_words(cols[0]);
            let canonical = cols
                .get(2)
                .map(|c| parse_words(c))
                .unwrap_or_else(|| words.clone());
            Vector {
                words,
                text: cols.get(1).unwrap_or(&"").to_string(),
                canonical,
                line: i + 1,
            }
        })
        .collect()
}

pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
