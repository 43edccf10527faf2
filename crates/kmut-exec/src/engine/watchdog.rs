//! Timeouts: an evaluation's kernels (only they, from `begin` to `end`) against a budget scaled
//! from the original's time; stalls outside the kernels, column preparations, starts and
//! releases against fixed limits; and the heavy-substrate cutoff of the CPU backend.

use std::time::{Duration, Instant};

use kmut_model::Outcome;

use super::pool::SlotState;
use super::unit::UnitKey;
use super::Engine;
use crate::ExecError;

impl Engine<'_> {
    pub(super) fn watchdog(&mut self) -> Result<(), ExecError> {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            match self.slots[i].state {
                SlotState::Evaluating { unit, cand, sent, running, spent, ended, .. } => {
                    // A mutant run in several thread orders runs the pipeline once per order;
                    // only the kernels count (from each `begin` to its `end`).
                    let runs = self.plans[unit.sub].candidates[cand].orders.len().max(1) as u32;
                    let budget = self.eval_budget(unit) * runs;
                    let kernels = spent + running.map_or(Duration::ZERO, |r| now.duration_since(r));
                    if running.is_some() && kernels > budget {
                        let what = format!(
                            "its kernels ran {:.1} s without finishing (max({} x the original's {:.3} ms, {:.1} s){})",
                            kernels.as_secs_f64(),
                            self.config.timeout_factor,
                            self.original_ms.get(&unit).copied().unwrap_or(0.0),
                            self.config.min_timeout.as_secs_f64(),
                            if runs > 1 { format!(" per thread order, {runs} orders") } else { String::new() }
                        );
                        let e = self.failed_evaluation(unit, cand, Outcome::Timeout, None, what, sent);
                        self.slots[i].state = SlotState::Dead;
                        self.record(unit, cand, e);
                        self.replace(i, "an evaluation hung")?;
                        continue;
                    }
                    // Outside the kernels the worker only loads the image, builds the launch,
                    // compares and checks: a stall there is the machine's, never a verdict.
                    let stalled = match ended {
                        Some(e) => (now.duration_since(e) > self.config.prep_timeout)
                            .then(|| format!("no result {:.0} s after its kernels completed", self.config.prep_timeout.as_secs_f64())),
                        None if running.is_none() && spent.is_zero() && now.duration_since(sent) > self.config.start_timeout => {
                            Some(format!("no launch within {:.0} s of the request", self.config.start_timeout.as_secs_f64()))
                        }
                        None => None,
                    };
                    if let Some(why) = stalled {
                        self.slots[i].state = SlotState::Dead;
                        self.eval_environment_failed(i, unit, cand, &format!("the worker stalled: {why}"));
                        self.replace(i, "a worker stalled outside the kernels")?;
                    }
                }
                SlotState::Preparing { unit, since } if self.heavy_cutoff().is_some_and(|c| now.duration_since(since) > c) => {
                    // Far past what a substrate within the limit needs to prepare a column (draw
                    // small inputs, the reference, one run of the original): it is heavy here.
                    let waited = now.duration_since(since).as_secs_f64();
                    self.slots[i].state = SlotState::Dead;
                    let limit = self.config.max_original_ms.unwrap_or(0.0) / 1e3;
                    self.set_aside(unit.sub, &format!("preparing one input took over {waited:.0} s here (its original's limit is {limit:.1} s)"));
                    self.replace(i, "a column preparation was too slow")?;
                }
                SlotState::Preparing { unit, since } if now.duration_since(since) > self.config.prep_timeout => {
                    self.slots[i].state = SlotState::Dead;
                    self.prep_failed(unit, &format!("preparing it took longer than {:.0} s", self.config.prep_timeout.as_secs_f64()));
                    self.replace(i, "a column preparation hung")?;
                }
                SlotState::Starting { since } if now.duration_since(since) > self.config.prep_timeout => {
                    self.slots[i].failed_starts += 1;
                    self.replace(i, "it did not start")?;
                }
                SlotState::Releasing { since } if now.duration_since(since) > self.config.start_timeout => {
                    self.replace(i, "it did not release its column")?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// With `max_original_ms`: how long a column's preparation may take before its substrate is
    /// set aside unmeasured (the grace for loading and drawing, plus twice the limit: one run of
    /// the original and the reference's).
    pub(super) fn heavy_cutoff(&self) -> Option<Duration> {
        self.config.max_original_ms.map(|ms| self.config.heavy_prep_grace + Duration::from_secs_f64(2.0 * ms / 1e3))
    }

    pub(super) fn eval_budget(&self, unit: UnitKey) -> Duration {
        let original = self.original_ms.get(&unit).copied().unwrap_or(0.0);
        let scaled = Duration::from_secs_f64((original * self.config.timeout_factor / 1e3).max(0.0));
        scaled.max(self.config.min_timeout)
    }
}
