//! The six fault families of the rule catalogue.

use serde::{Deserialize, Serialize};

/// A family of faults. The names follow the KernelBench-M catalogue's grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Wrong operator in arithmetic: `+` for `-`, `*` for `/`, a negated store.
    Arithmetic,
    /// Wrong index: thread/block variables swapped, axes swapped, strides confused.
    Indexing,
    /// Wrong meaning: min for max, overwritten accumulators, sentinels, tie-breaks, clamps.
    Semantic,
    /// Wrong bound: guards, loop limits, ceil/floor division, tails.
    Boundary,
    /// Wrong synchronisation: barriers removed or weakened, shared memory unshared, atomics dropped.
    Synchronization,
    /// Lost precision: fp16 accumulators and stores, fast-math intrinsics, dropped stabilisers and epsilons.
    Precision,
}

impl Family {
    pub const ALL: [Family; 6] = [Family::Arithmetic, Family::Indexing, Family::Semantic, Family::Boundary, Family::Synchronization, Family::Precision];

    pub fn name(self) -> &'static str {
        match self {
            Family::Arithmetic => "arithmetic",
            Family::Indexing => "indexing",
            Family::Semantic => "semantic",
            Family::Boundary => "boundary",
            Family::Synchronization => "synchronization",
            Family::Precision => "precision",
        }
    }

    /// Parse a family name (case-insensitive); `None` for an unknown one.
    pub fn parse(text: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(text))
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
