//! Kernel-scoped compilation. A fault in one kernel of a pipeline leaves every other kernel's
//! code untouched, so a mutant is compiled with only the kernels its fault reaches (its own, or
//! every caller of a mutated `__device__` helper): the other kernels' definitions are cut out.
//! Its image is compared with the original cut the same way. Compile time then grows with one
//! kernel, not with the whole network; at run time the mutant's image supplies the kernels in its
//! scope and the original image the rest.

use std::collections::HashMap;

use kmut_model::{apply_edits, Edit, Mutant, MutantKind, SubstrateDescription};
use kmut_syntax::{CudaSource, FunctionKind, SyntaxError};

/// Where each listed kernel is defined in a substrate's source.
pub struct Scopes {
    /// Kernel names in pipeline order.
    kernels: Vec<String>,
    /// Byte range of each kernel's whole definition (with its `extern "C"` when it wraps only it).
    ranges: HashMap<String, (usize, usize)>,
}

impl Scopes {
    pub fn parse(desc: &SubstrateDescription) -> Result<Scopes, SyntaxError> {
        let src = CudaSource::parse(&desc.name, &desc.cuda)?;
        let mut ranges = HashMap::new();
        for f in src.functions().into_iter().filter(|f| f.kind == FunctionKind::Global) {
            if !desc.kernels.contains(&f.name) {
                continue;
            }
            let node = match f.node.parent() {
                Some(p) if p.kind() == "linkage_specification" && p.child_by_field_name("body").is_some_and(|b| b.id() == f.node.id()) => p,
                _ => f.node,
            };
            ranges.insert(f.name.clone(), (node.start_byte(), node.end_byte()));
        }
        Ok(Scopes { kernels: desc.kernels.clone(), ranges })
    }

    /// A source compiled whole: every mutant's scope is every kernel.
    pub fn whole(desc: &SubstrateDescription) -> Scopes {
        Scopes { kernels: desc.kernels.clone(), ranges: HashMap::new() }
    }

    /// Every kernel: the scope of the original and of launch mutants.
    pub fn all(&self) -> Vec<String> {
        self.kernels.clone()
    }

    /// The kernels a mutant's fault reaches, in pipeline order (all, when none is known).
    pub fn of(&self, m: &Mutant) -> Vec<String> {
        let reached: Vec<String> = m.layers.iter().filter_map(|&l| self.kernels.get(l).cloned()).collect();
        if reached.is_empty() || reached.iter().any(|k| !self.ranges.contains_key(k)) {
            self.all()
        } else {
            reached
        }
    }

    /// The stored form of a scope.
    pub fn key(scope: &[String]) -> String {
        scope.join(",")
    }

    /// The kernels a source mutant is compiled with and the source compiled: the mutant's
    /// edits plus the cuts of every other kernel. `None` for launch mutants.
    pub fn mutant_source(&self, cuda: &str, m: &Mutant) -> Option<(Vec<String>, String)> {
        let MutantKind::Source { edits } = &m.mutation else {
            return None;
        };
        let scope = self.of(m);
        let mut all = edits.clone();
        all.extend(self.cuts(&scope));
        Some((scope, apply_edits(cuda, &all)))
    }

    /// The original source cut to `scope`.
    pub fn original_source(&self, cuda: &str, scope: &[String]) -> String {
        apply_edits(cuda, &self.cuts(scope))
    }

    /// Edits that cut out every located kernel outside `scope`.
    pub fn cuts(&self, scope: &[String]) -> Vec<Edit> {
        self.kernels
            .iter()
            .filter(|k| !scope.contains(k))
            .filter_map(|k| self.ranges.get(k))
            .map(|&(start, end)| Edit { start, end, text: String::new() })
            .collect()
    }
}
