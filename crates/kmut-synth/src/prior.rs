//! What a choice short of its budget is filled with (`cover::pad`): a prior over *kinds* of
//! candidate input, learned across problems on the mutants the choice may read (a dev half for
//! the held-out estimate), never on those it is scored on.
//!
//! A dev half often holds one to three mutants of a problem, all killed by the protocol's first
//! trial, so greedy stops at one input and the budget's other inputs would be picked blind. Kinds
//! recur across problems (every matmul has a `T1_remainder` suite, every problem a `scaled x1000
//! @small` column), and a kind that killed what the protocol's inputs missed in other problems'
//! dev halves is the better bet for this problem's test half than another official trial.
//!
//! Kinds are weighed per `KernelBench` level: a single operator (level 1), a fused chain (level 2)
//! and a network (level 3) do not miss the same faults under the same inputs. Decided inside the
//! dev half (`examples/nested.rs`, rule R4, 2026-12-06): the per-level prior was at least as good
//! as the pooled one at every budget in both nested folds, and better at 7 of their 12 cells.

use std::collections::HashMap;

use crate::bits::Bits;
use crate::matrix::{Problem, Source};
use crate::split::Half;

/// Per level and kind of candidate (`kind`), the mutants its candidates kill beyond the
/// protocol's inputs, summed over that level's problems.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prior {
    weights: HashMap<(u8, String), usize>,
}

/// A candidate's kind: `official`, a suite's name, or a generated column's generator, scale and
/// sizes, where sizes named per dimension (`batch=255`, a boundary size) are one kind, `dims`.
pub fn kind(source: &Source) -> String {
    match source {
        Source::Official => "official".into(),
        Source::Suite { suite } => suite.clone(),
        Source::Generated { generator, scale, sizes } => {
            let sizes = if sizes.contains('=') { "dims" } else { sizes.as_str() };
            format!("W:{generator}:{scale}:{sizes}")
        }
    }
}

impl Prior {
    /// Learned on `half` of every problem's witnessed mutants (all of them for `None`): a mutant
    /// counts once for its problem's level and a kind when some candidate of that kind kills it
    /// and no protocol input does.
    pub fn learn(problems: &[Problem], half: Option<Half>) -> Prior {
        let mut weights: HashMap<(u8, String), usize> = HashMap::new();
        for p in problems {
            let mask = p.mask(half);
            let mut official = Bits::new(p.mutants.len());
            for &c in &p.official {
                official.union_with(&p.kills[c]);
            }
            let mut by_kind: HashMap<String, Bits> = HashMap::new();
            for (c, cand) in p.candidates.iter().enumerate().filter(|(c, _)| !p.official.contains(c)) {
                by_kind.entry(kind(&cand.source)).or_insert_with(|| Bits::new(p.mutants.len())).union_with(&p.kills[c]);
            }
            for (k, kills) in by_kind {
                *weights.entry((p.level, k)).or_default() += kills.count_new(&mask, &official);
            }
        }
        Prior { weights }
    }

    /// The weight of candidate `c` of `p` at `p`'s level (0 for a kind never seen to add a kill
    /// there).
    pub fn weight(&self, p: &Problem, c: usize) -> usize {
        self.weights.get(&(p.level, kind(&p.candidates[c].source))).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kmut_model::Column;

    fn problem(name: &str, suites: &[&str], ids: &[&str], cells: &[&[u8]]) -> Problem {
        let columns: Vec<Column> = suites.iter().map(|s| Column { suite: (*s).into(), seed: 1 }).collect();
        let ids: Vec<String> = ids.iter().map(|s| (*s).into()).collect();
        let rows: Vec<Vec<Option<bool>>> = cells.iter().map(|r| r.iter().map(|&v| Some(v == 1)).collect()).collect();
        Problem::from_matrix(name, &columns, &columns[..1], &ids, &rows)
    }

    #[test]
    fn boundary_sizes_are_one_kind_and_other_sizes_their_own() {
        let g = |sizes: &str| kind(&Source::Generated { generator: "boundary".into(), scale: "1".into(), sizes: sizes.into() });
        assert_eq!(g("batch=255"), g("height=513"));
        assert_ne!(g("small"), g("official"));
        assert_eq!(kind(&Source::Suite { suite: "T1_remainder".into() }), "T1_remainder");
    }

    #[test]
    fn a_kind_weighs_the_kills_it_adds_beyond_the_protocol_on_the_chosen_half_only() {
        // The ids' halves are fixed by their hash (`split`); find two of each.
        let (mut dev, mut test) = (Vec::new(), Vec::new());
        for i in 0..64 {
            let id = format!("m{i}");
            if Half::of(&id) == Half::Dev {
                dev.push(id);
            } else {
                test.push(id);
            }
        }
        let ids = [dev[0].as_str(), dev[1].as_str(), test[0].as_str()];
        // Official kills dev[0]; T1 kills dev[0] (no gain) and dev[1]; T2 kills only the test mutant.
        let a = problem("a", &["T0_original", "T1_remainder", "T2_signed"], &ids, &[&[1, 0, 0], &[1, 1, 0], &[0, 0, 1]]);
        let b = problem("b", &["T0_original", "T1_remainder"], &ids, &[&[0, 0, 0], &[0, 1, 0]]);
        let prior = Prior::learn(&[a.clone(), b], Some(Half::Dev));
        assert_eq!(prior.weight(&a, 1), 2, "dev[1] in both problems");
        assert_eq!(prior.weight(&a, 2), 0, "its only kill is in the test half");
        assert_eq!(Prior::learn(std::slice::from_ref(&a), None).weight(&a, 2), 1);
    }

    #[test]
    fn a_kind_weighs_only_what_it_added_at_the_problems_level() {
        let ids = ["x", "y"];
        // T1 adds one kill beyond the protocol in a level-1 problem and two in a level-3 one.
        let mut one = problem("one", &["T0_original", "T1_remainder"], &ids, &[&[0, 0], &[1, 0]]);
        let mut three = problem("three", &["T0_original", "T1_remainder"], &ids, &[&[0, 0], &[1, 1]]);
        one.level = 1;
        three.level = 3;
        let prior = Prior::learn(&[one.clone(), three.clone()], None);
        assert_eq!(prior.weight(&one, 1), 1);
        assert_eq!(prior.weight(&three, 1), 2);
        let mut two = one.clone();
        two.level = 2;
        assert_eq!(prior.weight(&two, 1), 0, "no level-2 problem showed it a kill");
    }
}
