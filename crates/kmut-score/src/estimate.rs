//! Miss-rate estimates from a stratified sample, with 95% intervals that say what is unknown.
//!
//! Strata are `(substrate, family)`; `kmut run` samples each in proportion to its size, in a
//! seeded random order within it, so the mutants with a verdict are a stratified random sample
//! of the live population. The estimate is the stratified mean `sum W_h p_h`, its variance the
//! stratified variance `sum W_h^2 (1 - f_h) s_h^2 / n_h` (finite-population corrected per
//! stratum), and the interval Wilson's score interval at the effective sample size that
//! variance implies (`p(1 - p) / V`; Kish's `1 / sum W_h^2 (1 - f_h) / n_h` where the variance
//! is zero, as when every sampled stratum is all killed or all missed), which stays open at
//! rates near 0 and 1 where the normal interval collapses.
//!
//! Two kinds of missing data widen the interval instead of being dropped:
//! * **unsampled strata** (no mutant of them has a verdict): their rate could be anything, so
//!   their share of the population is added as `[0, 1]` around the sampled strata's interval;
//! * **undecided mutants** (run on some of the scored inputs, killed by none, missing others):
//!   the interval runs from "every undecided mutant is killed" to "every one survives".
//!
//! Timeouts are outside the denominator by default: a stratum's weight is its live population
//! less the share of its sample that timed out.

use serde::Serialize;

/// One stratum's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stratum {
    /// Live mutants.
    pub population: usize,
    /// Of them, with a settled verdict (killed or survived).
    pub sampled: usize,
    /// Of those, surviving the protocol.
    pub missed: usize,
    /// Evaluated but outside the denominator (timeouts, by default).
    pub excluded: usize,
    /// Run on some scored inputs, killed on none, not run on the others.
    pub undecided: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The stratified estimate over the strata that have verdicts, counting the settled
    /// mutants only (with `undecided > 0` it leans towards kills: show the interval instead).
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    /// Every live mutant outside the excluded ones has a settled verdict: no interval.
    pub exact: bool,
    /// Share of the denominator in strata with no verdict at all; the interval includes every
    /// value their rate could take.
    pub unsampled: f64,
    /// Undecided mutants, which the interval spans both ways.
    pub undecided: usize,
}

const Z: f64 = 1.959_963_984_540_054;

/// The miss rate over `strata`; `None` when no stratum has a verdict to go on.
pub fn miss_rate(strata: &[Stratum]) -> Option<Estimate> {
    let undecided: usize = strata.iter().map(|s| s.undecided).sum();
    if strata.iter().all(|s| s.sampled + s.undecided == 0) {
        return None;
    }
    let settled = bounded(strata, Undecided::Ignored);
    if undecided == 0 {
        return Some(Estimate { undecided: 0, ..settled });
    }
    let all_killed = bounded(strata, Undecided::Killed);
    let all_missed = bounded(strata, Undecided::Missed);
    Some(Estimate {
        rate: settled.rate,
        low: all_killed.low.min(all_missed.low),
        high: all_killed.high.max(all_missed.high),
        exact: false,
        unsampled: all_killed.unsampled,
        undecided,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Undecided {
    Ignored,
    Killed,
    Missed,
}

fn bounded(strata: &[Stratum], treat: Undecided) -> Estimate {
    // (effective population, sampled, missed, sampling fraction) of each stratum with verdicts.
    let mut sampled = Vec::new();
    let mut unsampled_population = 0.0;
    let mut complete = true;
    for s in strata {
        let (n, m) = match treat {
            Undecided::Ignored => (s.sampled, s.missed),
            Undecided::Killed => (s.sampled + s.undecided, s.missed),
            Undecided::Missed => (s.sampled + s.undecided, s.missed + s.undecided),
        };
        complete &= treat == Undecided::Ignored && s.undecided == 0 && s.sampled + s.excluded == s.population;
        if n == 0 {
            // Every sampled member was excluded: none of the stratum counts. Nothing sampled:
            // its rate is unknown.
            if s.excluded == 0 {
                unsampled_population += s.population as f64;
            }
            continue;
        }
        let seen = (n + s.excluded) as f64;
        let population = s.population as f64 * n as f64 / seen;
        sampled.push((population, n as f64, m as f64, (seen / s.population.max(1) as f64).min(1.0)));
    }
    let total: f64 = sampled.iter().map(|s| s.0).sum();
    if sampled.is_empty() || total <= 0.0 {
        // Nothing settled to go on (every member with a cell is undecided or excluded).
        return Estimate { rate: f64::NAN, low: 0.0, high: 1.0, exact: false, unsampled: 1.0, undecided: 0 };
    }
    let rate = sampled.iter().map(|&(pop, n, m, _)| pop * m / n).sum::<f64>() / total;
    let unsampled = unsampled_population / (unsampled_population + total);
    if complete {
        return Estimate { rate, low: rate, high: rate, exact: true, unsampled: 0.0, undecided: 0 };
    }
    let mut variance = 0.0;
    let mut kish = 0.0;
    for &(pop, n, m, f) in &sampled {
        let w = pop / total;
        let p = m / n;
        // One member says nothing of a stratum's spread: take the largest (p = 1/2).
        let s2 = if n >= 2.0 { p * (1.0 - p) * n / (n - 1.0) } else { 0.25 };
        variance += w * w * (1.0 - f) * s2 / n;
        kish += w * w * (1.0 - f) / n;
    }
    let n_eff = if variance > 0.0 && rate > 0.0 && rate < 1.0 { rate * (1.0 - rate) / variance } else { 1.0 / kish };
    let (low, high) = if n_eff.is_finite() { wilson(rate, n_eff) } else { (rate, rate) };
    let known = 1.0 - unsampled;
    Estimate { rate, low: known * low, high: known * high + unsampled, exact: false, unsampled, undecided: 0 }
}

/// The 95% Wilson score interval of a proportion `p` over `n` draws.
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(population: usize, sampled: usize, missed: usize) -> Stratum {
        Stratum { population, sampled, missed, ..Stratum::default() }
    }

    #[test]
    fn a_complete_evaluation_is_exact() {
        let e = miss_rate(&[st(10, 10, 3), st(5, 5, 0)]).unwrap();
        assert!(e.exact);
        assert!((e.rate - 0.2).abs() < 1e-12);
        assert!(miss_rate(&[st(10, 0, 0)]).is_none());
    }

    #[test]
    fn strata_are_weighted_by_population() {
        // 50% missed in a stratum of 1000 sampled 10, 0% in a stratum of 100 sampled 10.
        let e = miss_rate(&[st(1000, 10, 5), st(100, 10, 0)]).unwrap();
        assert!(!e.exact);
        assert!((e.rate - 500.0 / 1100.0).abs() < 1e-12);
        assert!(e.low < e.rate && e.rate < e.high);
    }

    #[test]
    fn wilson_matches_a_textbook_value_and_stays_open_at_zero() {
        // 10 of 100, infinite population: Wilson 95% is [0.0552, 0.1744].
        let (lo, hi) = wilson(0.1, 100.0);
        assert!((lo - 0.0552).abs() < 5e-4 && (hi - 0.1744).abs() < 5e-4, "{lo} {hi}");
        let (lo, hi) = wilson(0.0, 20.0);
        assert!(lo.abs() < 1e-12 && hi > 0.1, "zero misses in 20 still allow ~16%: {hi}");
    }

    #[test]
    fn sampling_more_of_the_population_narrows_the_interval() {
        let narrow = miss_rate(&[st(100, 90, 9)]).unwrap();
        let wide = miss_rate(&[st(10_000, 90, 9)]).unwrap();
        assert!(narrow.high - narrow.low < wide.high - wide.low);
    }

    #[test]
    fn an_unsampled_stratum_counts_in_the_population_and_widens_the_interval() {
        // Half the population has no verdict at all: the rate over the sampled half is 0, and
        // the interval must allow anything from 0 to 50% more.
        let e = miss_rate(&[st(100, 100, 0), st(100, 0, 0)]).unwrap();
        assert!(!e.exact, "half the population has no verdict");
        assert!((e.unsampled - 0.5).abs() < 1e-12);
        assert!(e.low <= 1e-12 && e.high >= 0.5 - 1e-12, "{e:?}");
        // Before: the unsampled stratum vanished and the estimate was exact 0%.
    }

    #[test]
    fn a_fully_sampled_stratum_beside_an_unsampled_one_never_gives_a_zero_width_interval() {
        for (m1, m2) in [(0, 0), (3, 7), (10, 10)] {
            let e = miss_rate(&[st(10, 10, m1), st(50, 50, m2), st(1, 0, 0)]).unwrap();
            assert!(e.high - e.low > 1e-3, "{e:?}");
        }
    }

    #[test]
    fn strata_all_killed_or_all_missed_still_give_an_open_interval() {
        // Zero within-stratum variance: Kish's effective size keeps the interval open.
        let e = miss_rate(&[st(1000, 20, 0), st(1000, 20, 20)]).unwrap();
        assert!((e.rate - 0.5).abs() < 1e-12);
        assert!(e.low < 0.45 && e.high > 0.55, "{e:?}");
    }

    #[test]
    fn undecided_mutants_span_the_interval_both_ways() {
        // 50 settled (5 missed), 50 undecided: anywhere from 5% to 55% missed.
        let e = miss_rate(&[Stratum { population: 100, sampled: 50, missed: 5, excluded: 0, undecided: 50 }]).unwrap();
        assert_eq!(e.undecided, 50);
        assert!(!e.exact);
        assert!(e.low <= 0.05 && e.high >= 0.55, "{e:?}");
    }

    #[test]
    fn excluded_timeouts_leave_the_denominator() {
        // 10 of 20 timed out, 5 of the other 10 missed: 50%, exactly, over the 10 settled.
        let e = miss_rate(&[Stratum { population: 20, sampled: 10, missed: 5, excluded: 10, undecided: 0 }]).unwrap();
        assert!(e.exact);
        assert!((e.rate - 0.5).abs() < 1e-12);
    }

    /// A small deterministic generator for the coverage simulation.
    struct SplitMix(u64);
    impl SplitMix {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as f64 / u64::MAX as f64
        }
    }

    #[test]
    fn the_95_percent_interval_covers_the_true_rate_in_repeated_stratified_samples() {
        // A population of strata with different sizes and miss rates; each trial samples 8% of
        // every stratum (at least one) without replacement, as `kmut run --sample` does.
        let mut rng = SplitMix(42);
        let sizes = [400usize, 120, 60, 900, 30, 250];
        let rates = [0.02, 0.3, 0.6, 0.1, 0.9, 0.0];
        let population: Vec<Vec<bool>> = sizes.iter().zip(rates).map(|(&n, p)| (0..n).map(|_| rng.next() < p).collect()).collect();
        let truth = population.iter().flatten().filter(|&&m| m).count() as f64 / population.iter().map(Vec::len).sum::<usize>() as f64;
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let strata: Vec<Stratum> = population
                .iter()
                .map(|members| {
                    let n = (members.len() * 8 / 100).max(1);
                    let mut idx: Vec<usize> = (0..members.len()).collect();
                    for i in 0..n {
                        let j = i + (rng.next() * (idx.len() - i) as f64) as usize % (idx.len() - i);
                        idx.swap(i, j);
                    }
                    let missed = idx[..n].iter().filter(|&&i| members[i]).count();
                    st(members.len(), n, missed)
                })
                .collect();
            let e = miss_rate(&strata).unwrap();
            assert!(e.high > e.low);
            covered += usize::from(e.low <= truth && truth <= e.high);
        }
        let coverage = covered as f64 / f64::from(trials);
        assert!(coverage > 0.93, "coverage {coverage:.3} of a nominal 95% interval");
    }
}
