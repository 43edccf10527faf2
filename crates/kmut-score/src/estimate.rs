//! Miss-rate estimates from a stratified sample, with 95% intervals.
//!
//! Strata are `(substrate, family)`. Where every live mutant of a group was evaluated the rate
//! is exact. Otherwise each stratum's observed rate is weighted by its live population, and the
//! interval is Wilson's score interval at the sample size, widened or narrowed by the finite
//! population correction (an effective size `n / (1 - n/N)`): Wilson stays sensible at rates
//! near 0 or 1, where the normal approximation collapses to a zero-width interval.

use serde::Serialize;

/// One stratum's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stratum {
    /// Live mutants.
    pub population: usize,
    /// Of them, with a settled verdict.
    pub sampled: usize,
    /// Of those, surviving the protocol.
    pub missed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    /// Every live mutant was evaluated: no interval.
    pub exact: bool,
}

const Z: f64 = 1.959_963_984_540_054;

/// The miss rate over `strata`; `None` when nothing was sampled.
pub fn miss_rate(strata: &[Stratum]) -> Option<Estimate> {
    let sampled: Vec<&Stratum> = strata.iter().filter(|s| s.sampled > 0).collect();
    let n: usize = sampled.iter().map(|s| s.sampled).sum();
    if n == 0 {
        return None;
    }
    let big_n: usize = sampled.iter().map(|s| s.population).sum();
    if strata.iter().all(|s| s.sampled == s.population) {
        let missed: usize = strata.iter().map(|s| s.missed).sum();
        let rate = missed as f64 / n as f64;
        return Some(Estimate { rate, low: rate, high: rate, exact: true });
    }
    let rate = sampled.iter().map(|s| s.population as f64 * s.missed as f64 / s.sampled as f64).sum::<f64>() / big_n as f64;
    let fraction = n as f64 / big_n as f64;
    let n_eff = if fraction >= 1.0 { f64::INFINITY } else { n as f64 / (1.0 - fraction) };
    let (low, high) = wilson(rate, n_eff);
    Some(Estimate { rate, low, high, exact: false })
}

fn wilson(p: f64, n: f64) -> (f64, f64) {
    if !n.is_finite() {
        return (p, p);
    }
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_complete_evaluation_is_exact() {
        let e = miss_rate(&[Stratum { population: 10, sampled: 10, missed: 3 }, Stratum { population: 5, sampled: 5, missed: 0 }]).unwrap();
        assert!(e.exact);
        assert!((e.rate - 0.2).abs() < 1e-12);
    }

    #[test]
    fn strata_are_weighted_by_population() {
        // 50% missed in a stratum of 1000 sampled 10, 0% in a stratum of 100 sampled 10.
        let e = miss_rate(&[Stratum { population: 1000, sampled: 10, missed: 5 }, Stratum { population: 100, sampled: 10, missed: 0 }]).unwrap();
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
        let narrow = miss_rate(&[Stratum { population: 100, sampled: 90, missed: 9 }]).unwrap();
        let wide = miss_rate(&[Stratum { population: 10_000, sampled: 90, missed: 9 }]).unwrap();
        assert!(narrow.high - narrow.low < wide.high - wide.low);
        assert!(miss_rate(&[Stratum { population: 10, sampled: 0, missed: 0 }]).is_none());
    }
}
