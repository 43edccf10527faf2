//! Medians and quartiles of small samples, with infinities kept (an error that became NaN or
//! infinite is the largest there is, not a missing value).

use serde::Serialize;

/// The spread of a sample: its size, median and quartiles (linear interpolation between order
/// statistics), and how many of its values are infinite. Empty: `n` 0 and NaN quantiles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub infinite: usize,
}

impl Default for Spread {
    fn default() -> Spread {
        Spread { n: 0, q1: f64::NAN, median: f64::NAN, q3: f64::NAN, infinite: 0 }
    }
}

fn at(sorted: &[f64], p: f64) -> f64 {
    let pos = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let (a, b) = (sorted[lo], sorted[hi]);
    if lo == hi || !b.is_finite() {
        // Next to an infinite neighbour the quantile is infinite (inf - inf would be NaN).
        b
    } else {
        a + (b - a) * (pos - lo as f64)
    }
}

/// The spread of `values` (sorted in place; NaN counted as infinite).
pub fn quantiles(values: &mut [f64]) -> Spread {
    if values.is_empty() {
        return Spread::default();
    }
    for v in values.iter_mut() {
        if v.is_nan() {
            *v = f64::INFINITY;
        }
    }
    values.sort_by(f64::total_cmp);
    Spread { n: values.len(), q1: at(values, 0.25), median: at(values, 0.5), q3: at(values, 0.75), infinite: values.iter().filter(|v| v.is_infinite()).count() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate_and_keep_infinities_at_the_top() {
        let s = quantiles(&mut [4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!((s.n, s.q1, s.median, s.q3, s.infinite), (5, 2.0, 3.0, 4.0, 0));
        let s = quantiles(&mut [1.0, f64::NAN, 2.0, f64::INFINITY]);
        assert_eq!((s.median, s.q3, s.infinite), (f64::INFINITY, f64::INFINITY, 2));
        assert!((quantiles(&mut [1.0, 2.0]).median - 1.5).abs() < 1e-12);
        assert!(quantiles(&mut []).median.is_nan());
    }
}
