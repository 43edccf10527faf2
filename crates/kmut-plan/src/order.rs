//! The order mutants are taken in: every prefix a stratified sample.

use kmut_exec::{stratified_order, SubstratePlan};

use crate::Sampling;

/// `(substrate, candidate)` positions, in the order mutants are taken.
pub type Order = Vec<(usize, usize)>;

/// Every candidate of `plans` in the stratified order of `sampling.seed` (strata: substrate
/// and family, each taken in proportion to its size), cut to `sampling.sample`.
pub fn order(plans: &[SubstratePlan], sampling: Sampling) -> Order {
    let mut positions = Vec::new();
    let mut items = Vec::new();
    for (s, p) in plans.iter().enumerate() {
        for (c, cand) in p.candidates.iter().enumerate() {
            positions.push((s, c));
            items.push((p.name.as_str(), cand.family, cand.id.as_str()));
        }
    }
    let mut order: Order = stratified_order(&items, sampling.seed).into_iter().map(|i| positions[i]).collect();
    if let Some(n) = sampling.sample {
        order.truncate(n);
    }
    order
}
