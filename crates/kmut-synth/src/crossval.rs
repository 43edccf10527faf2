//! Repeated two-fold cross-validation of greedy's held-out rate.
//!
//! The held-out column reads one 50/50 split one way: chosen on dev, scored on test. With a few
//! witnessed mutants per problem that one reading moves by a point or two with the split alone,
//! enough to put a goal on either side. Here each of `splits` salted splits (`Half::salted`,
//! split 0 the held-out column's own) is read both ways, dev to test and test to dev, exactly as
//! the held-out column is read (greedy on the choosing half, `pad` with the prior learned on that
//! half, detection on the other). Every mutant is then held out once per split. The pooled rate
//! sums every fold, so it estimates the same quantity as the held-out column with less noise; the
//! folds' spread shows how far one split alone can stray. Folds share mutants, so the pooled rate
//! gets no binomial interval: the fold range stands in its place.

use std::fmt;

use serde::Serialize;

use crate::cover::{detect, greedy, pad, Detection};
use crate::matrix::Problem;
use crate::prior::Prior;
use crate::split::Half;

/// One budget's cross-validated held-out rate.
#[derive(Debug, Clone, Serialize)]
pub struct CrossValidated {
    pub budget: usize,
    /// Every fold's detection summed: `total` is the witnessed mutants times the splits.
    pub pooled: Detection,
    /// Known kills over the mutants of each fold, in order: split 0 dev to test (the held-out
    /// column's own reading), split 0 test to dev, split 1 dev to test, ...
    pub folds: Vec<Option<f64>>,
}

impl CrossValidated {
    /// The pooled known-kill rate (`None` without mutants).
    pub fn rate(&self) -> Option<f64> {
        (self.pooled.total > 0).then(|| self.pooled.known as f64 / self.pooled.total as f64)
    }

    /// The pooled rate with every missing cell of a chosen input counted as a kill.
    pub fn upper(&self) -> Option<f64> {
        (self.pooled.total > 0).then(|| self.pooled.possible as f64 / self.pooled.total as f64)
    }

    /// The lowest and highest fold rates.
    pub fn range(&self) -> Option<(f64, f64)> {
        let rates: Vec<f64> = self.folds.iter().flatten().copied().collect();
        let low = rates.iter().copied().reduce(f64::min)?;
        let high = rates.iter().copied().reduce(f64::max)?;
        Some((low, high))
    }
}

impl fmt::Display for CrossValidated {
    /// `94.1% (folds 91.8 to 96.0)`, or with missing cells `93.9 to 94.4% (folds ...)`: the
    /// pooled known kills (to what missing cells could add), then the lowest and highest fold.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (Some(rate), Some(upper)) = (self.rate(), self.upper()) else {
            return f.write_str("-");
        };
        if self.pooled.known == self.pooled.possible {
            write!(f, "{:.1}%", 100.0 * rate)?;
        } else {
            write!(f, "{:.1} to {:.1}%", 100.0 * rate, 100.0 * upper)?;
        }
        if let Some((low, high)) = self.range() {
            write!(f, " (folds {:.1} to {:.1})", 100.0 * low, 100.0 * high)?;
        }
        Ok(())
    }
}

/// The cross-validated held-out rate at each of `budgets` over `splits` salted splits, each read
/// both ways; `forced` gives a problem's inputs taken before the budget's (the protocol's with
/// `--with-official`).
pub fn cross_validate(problems: &[Problem], budgets: &[usize], splits: u32, forced: impl Fn(&Problem) -> Vec<usize>) -> Vec<CrossValidated> {
    let mut out: Vec<CrossValidated> = budgets.iter().map(|&budget| CrossValidated { budget, pooled: Detection::default(), folds: Vec::new() }).collect();
    for salt in 0..splits {
        let split: Vec<Problem> = problems.iter().map(|p| p.resplit(salt)).collect();
        for choose in [Half::Dev, Half::Test] {
            let folds = fold(&split, choose, budgets, &forced);
            for (cv, d) in out.iter_mut().zip(folds) {
                cv.pooled += d;
                cv.folds.push((d.total > 0).then(|| d.known as f64 / d.total as f64));
            }
        }
    }
    out
}

/// One fold: inputs chosen on the `choose` half of every problem (greedy, then `pad` with the
/// prior learned on that half), detection summed over the other half, at each budget. The
/// held-out column's reading, and each fold of `cross_validate`'s.
pub fn fold(problems: &[Problem], choose: Half, budgets: &[usize], forced: &impl Fn(&Problem) -> Vec<usize>) -> Vec<Detection> {
    let max = budgets.iter().copied().max().unwrap_or(0);
    let prior = Prior::learn(problems, Some(choose));
    let mut out = vec![Detection::default(); budgets.len()];
    for p in problems {
        let forced = forced(p);
        let (on, score) = (p.mask(Some(choose)), p.mask(Some(choose.other())));
        let order = greedy(p, &on, &forced, max);
        for (d, &b) in out.iter_mut().zip(budgets) {
            let picks = pad(p, &on, &forced, &order[..b.min(order.len())], b, &prior);
            *d += detect(p, &[&forced[..], &picks].concat(), &score);
        }
    }
    out
}
