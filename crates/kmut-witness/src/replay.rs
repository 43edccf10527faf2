//! A mutant's witness: the stored cell that exposes it, for `kmut witness --replay`.
//!
//! The witness is the first killing evaluation (lowest run, then the column order of the
//! search: protocol inputs, suites, generated columns) on a column that may witness: the
//! original passes it, and a generated column passed the validity gate. The replay runs that
//! column again for the original and the mutant and compares with what was stored.

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

/// The witness of a mutant among its `cells` (current evaluations), given the substrate's
/// `baselines` and the `tolerance`: the first cell, in `order` (the search's column order,
/// suite and seed), that kills on a column that may witness. `None` when no cell does.
pub fn witness_of(cells: &[Evaluation], baselines: &[Baseline], order: &[(String, u64)], tolerance: f64) -> Option<Witness> {
    let rank = |suite: &str, seed: u64| order.iter().position(|(s, n)| s == suite && *n == seed).unwrap_or(usize::MAX);
    let mut killing: Vec<(&Evaluation, &Baseline)> = cells
        .iter()
        .filter_map(|e| {
            let b = baselines.iter().find(|b| b.suite == e.suite && b.seed == e.seed)?;
            let original_passes = b.tau.is_some_and(|t| t <= tolerance);
            let may_witness = original_passes && b.valid != Some(false);
            // A timeout is a slow mutant, not an exposed fault (docs/scoring.md).
            let kills = e.outcome != kmut_model::Outcome::Timeout && e.kills_at(tolerance);
            (may_witness && kills).then_some((e, b))
        })
        .collect();
    killing.sort_by_key(|(e, _)| rank(&e.suite, e.seed));
    killing.first().map(|(e, b)| Witness {
        suite: e.suite.clone(),
        seed: e.seed,
        tau: e.tau,
        outcome: e.outcome.name().to_owned(),
        original_tau: b.tau,
        valid: b.valid,
    })
}
