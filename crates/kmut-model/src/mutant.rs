//! A mutant: one fault, its place, its stable id.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Family;

/// A replacement of `source[start..end]` by `text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A change to the launch descriptor, applied at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transform", rename_all = "snake_case")]
pub enum LaunchTransform {
    /// Exchange grid and block of step `step`.
    SwapGridBlock { step: usize },
    /// Add `delta` (±1) to the x extent of the grid of step `step`.
    GridX { step: usize, delta: i32 },
    /// Add `delta` (±1) to the x extent of the block of step `step`.
    BlockX { step: usize, delta: i32 },
    /// Make the `call`-th `K.cdiv` of `launch` (0-based) round down.
    CdivFloor { call: usize },
}

/// Where the fault lives: in the CUDA source, or in the launch descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MutantKind {
    /// Edits of the CUDA source; the first is the fault, any others support it (an `#include`).
    Source {
        edits: Vec<Edit>,
    },
    Launch {
        transform: LaunchTransform,
    },
}

/// One mutant, with everything a report or a later stage needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mutant {
    /// Stable: the same substrate, rule, site and replacement give the same id everywhere.
    pub id: String,
    pub substrate: String,
    pub rule: String,
    pub family: Family,
    /// The function the fault is in (a kernel or a `__device__` helper), or the launched kernel.
    pub kernel: String,
    /// Pipeline positions (in `kernel_name`) of every kernel the fault reaches: one for a kernel,
    /// all callers for a shared `__device__` helper.
    pub layers: Vec<usize>,
    /// The first such layer (`layers[0]`), or `None` where no listed kernel reaches the fault.
    pub layer: Option<usize>,
    /// `layer / (kernels - 1)`: 0 for the first layer (or a single kernel), 1 for the last.
    pub depth: f64,
    /// 1-based line in the substrate file (where its CUDA could be located there; otherwise in
    /// the CUDA source) and byte column. For launch mutants, the line of `def launch` or of the
    /// `K.cdiv` call.
    pub line: usize,
    pub col: usize,
    /// Byte range of the fault in the CUDA source (source mutants); `[0, 0]` for launch mutants.
    pub span: [usize; 2],
    pub original: String,
    pub replacement: String,
    pub mutation: MutantKind,
    /// Unified diff of the CUDA source (source mutants) or of the launch step (launch mutants).
    pub diff: String,
}

impl Mutant {
    /// A readable one-line name: `L1p19_relu:12:5: [rule] replace `a` with `b` in kernel (layer 0)`.
    pub fn name(&self) -> String {
        let layer = self.layer.map_or_else(String::new, |l| format!(" (layer {l})"));
        format!(
            "{}:{}:{}: [{}] replace `{}` with `{}` in {}{}",
            self.substrate,
            self.line,
            self.col,
            self.rule,
            one_line(&self.original),
            one_line(&self.replacement),
            self.kernel,
            layer
        )
    }

    /// Apply a source mutant to `source`; `None` for a launch mutant.
    pub fn apply(&self, source: &str) -> Option<String> {
        match &self.mutation {
            MutantKind::Source { edits } => Some(apply_edits(source, edits)),
            MutantKind::Launch { .. } => None,
        }
    }
}

/// Apply non-overlapping edits (in any order) to `source`.
pub fn apply_edits(source: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for e in sorted {
        out.push_str(&source[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&source[at..]);
    out
}

fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 60 {
        format!("{}...", flat.chars().take(57).collect::<String>())
    } else {
        flat
    }
}

/// The stable id of a mutant: 12 hex digits of SHA-256 over substrate, rule and site.
pub fn mutant_id(substrate: &str, rule: &str, site: &str) -> String {
    let mut h = Sha256::new();
    for part in [substrate, rule, site] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let digest = h.finalize();
    digest.iter().take(6).fold(String::with_capacity(12), |mut s, b| {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_depend_on_every_part() {
        let a = mutant_id("L1p19_relu", "arith-plus-to-minus", "120:121:-");
        assert_eq!(a, mutant_id("L1p19_relu", "arith-plus-to-minus", "120:121:-"));
        assert_eq!(a.len(), 12);
        assert_ne!(a, mutant_id("L1p19_relu", "arith-plus-to-minus", "120:121:*"));
        assert_ne!(a, mutant_id("L1p23_softmax", "arith-plus-to-minus", "120:121:-"));
        assert_ne!(a, mutant_id("L1p19_relu", "arith-plus-to-mul", "120:121:-"));
        // No ambiguity from concatenation.
        assert_ne!(mutant_id("ab", "c", "d"), mutant_id("a", "bc", "d"));
    }

    #[test]
    fn edits_apply_in_position_order() {
        let edits = vec![Edit { start: 6, end: 7, text: "-".into() }, Edit { start: 0, end: 0, text: "#x\n".into() }];
        assert_eq!(apply_edits("a = b + c;", &edits), "#x\na = b - c;");
    }
}
