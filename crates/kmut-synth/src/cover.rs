//! Choosing inputs: greedy maximum coverage with deterministic ties, and the exact optimum as an
//! integer program (`good_lp` over the pure-Rust `microlp` solver), and what a choice detects.
//!
//! Selection uses only known kills: a cell not run never counts for an input, so a choice is
//! never made on missing data; `detect` reports what the missing cells could still add.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use good_lp::{microlp, variable, Expression, ProblemVariables, Solution, SolutionStatus, SolverModel, Variable, WithInitialSolution, WithTimeLimit};
use serde::Serialize;

use crate::bits::Bits;
use crate::matrix::Problem;
use crate::prior::Prior;

/// What a choice of inputs detects among the mutants of a mask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Detection {
    /// Mutants in the mask.
    pub total: usize,
    /// Killed by a chosen input's stored cell.
    pub known: usize,
    /// Killed, or not run on some chosen input: the most the choice could detect.
    pub possible: usize,
}

impl std::ops::AddAssign for Detection {
    fn add_assign(&mut self, o: Detection) {
        self.total += o.total;
        self.known += o.known;
        self.possible += o.possible;
    }
}

/// What the candidates `picks` of `p` detect among the mutants of `mask`.
pub fn detect(p: &Problem, picks: &[usize], mask: &Bits) -> Detection {
    let mut known = Bits::new(p.mutants.len());
    let mut possible = Bits::new(p.mutants.len());
    for &c in picks {
        known.union_with(&p.kills[c]);
        possible.union_with(&p.kills[c]);
        possible.union_with(&p.unknown[c]);
    }
    Detection { total: mask.count(), known: known.count_in(mask), possible: possible.count_in(mask) }
}

/// The greedy order after `forced`: each step takes the candidate that kills the most mutants of
/// `mask` not yet killed; among equals, the earliest candidate (the protocol's inputs, then the
/// substrate's suites, then generated columns in the search's order). It stops after `max`
/// inputs or when no candidate adds a kill.
pub fn greedy(p: &Problem, mask: &Bits, forced: &[usize], max: usize) -> Vec<usize> {
    let mut covered = Bits::new(p.mutants.len());
    for &c in forced {
        covered.union_with(&p.kills[c]);
    }
    let mut picks = Vec::new();
    while picks.len() < max {
        let mut best: Option<(usize, usize)> = None;
        for (c, k) in p.kills.iter().enumerate() {
            if forced.contains(&c) || picks.contains(&c) {
                continue;
            }
            let gain = k.count_new(mask, &covered);
            // Strictly greater: the earliest of equal gains stays.
            if gain > 0 && !matches!(best, Some((_, g)) if gain <= g) {
                best = Some((c, gain));
            }
        }
        let Some((c, _)) = best else { break };
        covered.union_with(&p.kills[c]);
        picks.push(c);
    }
    picks
}

/// `picks` filled up to `max` inputs once they stop adding kills on `mask`: a selection that
/// covered its mask with fewer inputs (or a problem with no mutant in it, as a dev half often
/// is) leaves budget unused, and an unused input detects nothing on mutants it was not chosen
/// on. The filler follows a prior, never the mutants it will be scored on: the protocol's first
/// input (the baseline every budget starts from), then the other candidates by `prior` (what
/// their kind added beyond the protocol in the problems' choosing halves, `prior::Prior`), then
/// by how many mutants of `mask` they kill, the earliest first among equals, and the protocol's
/// other inputs last (its later trials rarely kill what its first did not).
pub fn pad(p: &Problem, mask: &Bits, forced: &[usize], picks: &[usize], max: usize, prior: &Prior) -> Vec<usize> {
    let mut out = picks.to_vec();
    let taken = |c: &usize, out: &[usize]| forced.contains(c) || out.contains(c);
    let mut rest: Vec<usize> = (0..p.candidates.len()).filter(|c| !p.official.contains(c)).collect();
    // Stable: the earliest first among equal keys; a key names the kind, so it is built once per candidate.
    rest.sort_by_cached_key(|&c| (std::cmp::Reverse(prior.weight(p, c)), std::cmp::Reverse(p.kills[c].count_in(mask))));
    let first = p.official.first().copied();
    for c in first.into_iter().chain(rest).chain(p.official.iter().skip(1).copied()) {
        if out.len() >= max {
            break;
        }
        if !taken(&c, &out) {
            out.push(c);
        }
    }
    out
}

/// An exact choice and whether the solver proved it optimal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exact {
    pub picks: Vec<usize>,
    /// False when the time limit stopped the solver: `picks` is then its best choice found
    /// (never worse than the greedy one it started from).
    pub optimal: bool,
}

/// The most mutants of `mask` that `budget` inputs beyond `forced` can kill, as the integer
/// program: maximise the number of covered mutants `y_m` subject to `y_m <= sum of x_c over the
/// candidates c that kill m`, `sum x_c <= budget`, `x_c` binary. Mutants with the same kill set
/// are one weighted row, and the solver starts from `start` (the greedy choice), so a stop at
/// the time limit is never worse than greedy.
pub fn exact(p: &Problem, mask: &Bits, forced: &[usize], budget: usize, start: &[usize], limit: Duration) -> Result<Exact, good_lp::ResolutionError> {
    let mut covered = Bits::new(p.mutants.len());
    for &c in forced {
        covered.union_with(&p.kills[c]);
    }
    let free: Vec<usize> = (0..p.kills.len()).filter(|c| !forced.contains(c) && p.kills[*c].count_new(mask, &covered) > 0).collect();
    // Rows: the mutants still to kill, grouped by which free candidates kill them.
    let mut rows: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    for m in mask.ones().filter(|&m| !covered.get(m)) {
        let by: Vec<usize> = (0..free.len()).filter(|&i| p.kills[free[i]].get(m)).collect();
        if !by.is_empty() {
            *rows.entry(by).or_default() += 1;
        }
    }
    if free.is_empty() || budget == 0 {
        return Ok(Exact { picks: Vec::new(), optimal: true });
    }
    let mut vars = ProblemVariables::new();
    let x: Vec<Variable> = free.iter().map(|_| vars.add(variable().binary())).collect();
    let y: Vec<Variable> = rows.keys().map(|_| vars.add(variable().min(0).max(1))).collect();
    let objective: Expression = rows.values().zip(&y).map(|(&w, &v)| w as f64 * v).sum();
    let mut model = vars.maximise(objective).using(microlp);
    for ((by, _), &v) in rows.iter().zip(&y) {
        let any: Expression = by.iter().map(|&i| x[i]).sum();
        model = model.with(good_lp::constraint::leq(v, any));
    }
    let chosen: Expression = x.iter().copied().sum();
    model = model.with(good_lp::constraint::leq(chosen, budget as f64));
    let start_x = free.iter().zip(&x).map(|(c, &v)| (v, f64::from(u8::from(start.contains(c)))));
    let start_y = rows.keys().zip(&y).map(|(by, &v)| (v, f64::from(u8::from(by.iter().any(|&i| start.contains(&free[i]))))));
    let started = Instant::now();
    let solution = model.with_initial_solution(start_x.chain(start_y).collect::<Vec<_>>()).with_time_limit(limit.as_secs_f64()).solve()?;
    let optimal = matches!(solution.status(), SolutionStatus::Optimal) && started.elapsed() <= limit + Duration::from_millis(50);
    let picks: Vec<usize> = free.iter().zip(&x).filter(|(_, &v)| solution.value(v) > 0.5).map(|(&c, _)| c).collect();
    Ok(Exact { picks, optimal })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kmut_model::Column;

    fn problem(cells: &[&[u8]]) -> Problem {
        // cells[c][m]: 1 kill, 0 pass, 9 not run
        let n = cells[0].len();
        let columns: Vec<Column> = (0..cells.len()).map(|i| Column { suite: format!("S{i}"), seed: 1 }).collect();
        let ids: Vec<String> = (0..n).map(|m| format!("m{m}")).collect();
        let rows: Vec<Vec<Option<bool>>> = cells.iter().map(|r| r.iter().map(|&v| if v == 9 { None } else { Some(v == 1) }).collect()).collect();
        Problem::from_matrix("p", &columns, &columns[..1], &ids, &rows)
    }

    /// Every subset of at most `budget` candidates: the best known coverage.
    fn brute(p: &Problem, mask: &Bits, budget: usize) -> usize {
        let n = p.kills.len();
        (0u32..1 << n)
            .filter(|s| s.count_ones() as usize <= budget)
            .map(|s| detect(p, &(0..n).filter(|i| s >> i & 1 == 1).collect::<Vec<_>>(), mask).known)
            .max()
            .unwrap()
    }

    #[test]
    fn the_exact_choice_is_optimal_by_brute_force_on_small_random_matrices() {
        // A fixed linear congruential sequence: reproducible "random" 0/1 matrices.
        let mut state: u64 = 12345;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % 100
        };
        for _ in 0..30 {
            let cells: Vec<Vec<u8>> = (0..7).map(|_| (0..12).map(|_| u8::from(next() < 25)).collect()).collect();
            let refs: Vec<&[u8]> = cells.iter().map(Vec::as_slice).collect();
            let p = problem(&refs);
            let mask = p.mask(None);
            for b in 1..=4 {
                let g = greedy(&p, &mask, &[], b);
                let e = exact(&p, &mask, &[], b, &g, Duration::from_secs(10)).unwrap();
                assert!(e.optimal);
                assert!(e.picks.len() <= b);
                let (ge, ee) = (detect(&p, &g, &mask).known, detect(&p, &e.picks, &mask).known);
                assert!(ee >= ge, "exact {ee} below greedy {ge}");
                assert_eq!(ee, brute(&p, &mask, b), "budget {b}: {cells:?}");
            }
        }
    }

    #[test]
    fn padding_fills_the_budget_with_the_protocols_first_input_then_by_prior_then_by_the_mask() {
        // Candidate 0 is the protocol's input (see `problem`); 3 kills most on the mask.
        let p = problem(&[&[0, 0, 0, 0], &[1, 0, 0, 0], &[0, 0, 0, 1], &[0, 1, 1, 0]]);
        let mask = p.mask(None);
        let none = Prior::default();
        assert_eq!(pad(&p, &mask, &[], &[2], 4, &none), vec![2, 0, 3, 1]);
        assert_eq!(pad(&p, &mask, &[], &[2], 2, &none), vec![2, 0]);
        // An empty mask (a dev half with no mutant): the protocol's input, then the earliest.
        assert_eq!(pad(&p, &Bits::new(4), &[], &[], 2, &none), vec![0, 1]);
        // Forced inputs are never repeated, and a full budget is left as it is.
        assert_eq!(pad(&p, &mask, &[0], &[], 2, &none), vec![3, 1]);
        assert_eq!(pad(&p, &mask, &[], &[3, 2], 2, &none), vec![3, 2]);
        // A prior that saw candidate 2's kind add kills elsewhere puts it before 3 and 1, even
        // on a mask where it kills less.
        let other = problem(&[&[0, 0], &[0, 0], &[1, 1], &[0, 0]]);
        let prior = Prior::learn(&[other], None);
        assert_eq!(pad(&p, &mask, &[], &[], 3, &prior), vec![0, 2, 3]);
    }

    #[test]
    fn missing_cells_never_count_as_kills_but_widen_what_a_choice_could_detect() {
        let p = problem(&[&[1, 0, 9, 9], &[0, 1, 1, 0]]);
        let mask = p.mask(None);
        assert_eq!(greedy(&p, &mask, &[], 1), [1], "S1 kills two known, S0 one");
        assert_eq!(detect(&p, &[0], &mask), Detection { total: 4, known: 1, possible: 3 });
        assert_eq!(detect(&p, &[0, 1], &mask), Detection { total: 4, known: 3, possible: 4 });
    }
}
