//! A mutant's witness: the stored cell that exposes it, for `kmut witness --replay`.
//!
//! The witness is the first killing evaluation, in the search's column order (protocol inputs,
//! suites, generated columns), on a column that may witness: the scorer's rule
//! (`kmut_score::Search`). The replay runs that column again for the original and the mutant
//! and compares with what was stored.

use kmut_store::{Baseline, Evaluation};

/// The stored witness of one mutant.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    pub suite: String,
    pub seed: u64,
    /// The mutant's stored tau\* there (infinite for a crash) and the outcome text.
    pub tau: Option<f64>,
    pub outcome: String,
    /// The original's stored tau\* on the column.
    pub original_tau: Option<f64>,
    /// The generated column's validity verdict (`None` for a substrate's own suites).
    pub valid: Option<bool>,
}

/// The witness of a mutant among its current `cells`: the column `search` (the scorer's witness
/// search, `kmut_score::witness_columns`, so the rule is the one `kmut score --denominator
/// witnessed` applies) names as the first valid input that kills it, with the stored cell and
/// the original's baseline there. `None` when no valid input kills it.
pub fn witness_of(search: &kmut_score::Search, cells: &[Evaluation], baselines: &[Baseline], tolerance: f64) -> Option<Witness> {
    let refs: Vec<&Evaluation> = cells.iter().collect();
    // A timeout is a slow mutant, not an exposed fault (docs/scoring.md).
    let (_, column) = search.verdict(&refs, tolerance, kmut_score::TimeoutPolicy::Exclude);
    let column = column?;
    let e = cells.iter().find(|e| e.suite == column.suite && e.seed == column.seed)?;
    let b = baselines.iter().find(|b| b.suite == column.suite && b.seed == column.seed);
    Some(Witness {
        suite: e.suite.clone(),
        seed: e.seed,
        tau: e.tau,
        outcome: e.outcome.name().to_owned(),
        original_tau: b.and_then(|b| b.tau),
        valid: b.and_then(|b| b.valid),
    })
}
