//! The machine's failures (out of memory, a worker killed from outside, a stall outside the
//! kernels) are never verdicts: an evaluation or a column is retried once with the device to
//! itself, then reported as an error of the run with nothing stored.

use super::unit::UnitKey;
use super::Engine;

impl Engine<'_> {
    /// An evaluation failed for the machine's reasons (out of memory, ...): nothing is stored.
    /// The first time, it goes back to the front of its unit and slot `i` gets the device to
    /// itself for it; the second time it is an error of the run and the mutant stays not run.
    pub(super) fn eval_environment_failed(&mut self, i: usize, unit: UnitKey, cand: usize, why: &str) {
        let n = self.env_failed_evals.entry((unit, cand)).or_insert(0);
        *n += 1;
        let id = self.plans[unit.sub].candidates[cand].id.clone();
        if let Some(u) = self.units.get_mut(&unit) {
            u.in_flight -= 1;
            if *n < 2 {
                u.pending.push_front(cand);
            }
        }
        if *n < 2 {
            self.reporter.note(&format!("{id} on {}: {why}: not a verdict; retrying it with the device to itself", self.plans[unit.sub].name));
            self.reserve(i, unit);
        } else {
            self.summary
                .environment_errors
                .push(format!("{} mutant {id}: {why} (twice, the second time with the device to itself); nothing stored", self.plans[unit.sub].name));
            self.unreserve(i);
        }
        self.maybe_close(unit);
    }

    /// A column could not be prepared for the machine's reasons: retried once alone (unless the
    /// worker says that cannot help), then skipped for the run (`unpreparable`: an error of the
    /// run, no verdict). A failed join of a column others hold is neither.
    pub(super) fn prep_environment_failed(&mut self, i: usize, unit: UnitKey, why: &str, retry_alone: bool) {
        // A worker that failed to join a column another worker holds: the column fits this
        // machine (it is prepared here), only not once more beside what is held now (a too-large
        // refusal reads the host's memory available now, which the holder's copy takes from).
        // Not the column's failure: counted, it marked a column in use unpreparable and dropped
        // its holder's queue (at once when too large; after a retry alone when out of memory,
        // the holder then failing to join the retrier), leaving its mutants undecided. The
        // holders go on with it, and no worker joins it again while it is held.
        if self.slots.iter().enumerate().any(|(j, s)| j != i && s.prepared == Some(unit)) {
            let col = &self.plans[unit.sub].columns[unit.col];
            self.reporter.note(&format!("{} {} seed {}: {why}: not joined; the workers that hold it go on", self.plans[unit.sub].name, col.suite, col.seed));
            self.crowded.insert(unit);
            self.alone.remove(&unit);
            self.unreserve(i);
            return;
        }
        let n = self.env_failed_preps.entry(unit).or_insert(0);
        *n += 1;
        let col = &self.plans[unit.sub].columns[unit.col];
        // Not when the worker knows the device to itself cannot help (a column too large for the
        // machine): the retry would make every other worker release its column for nothing.
        if *n < 2 && retry_alone {
            self.reporter.note(&format!("{} {} seed {}: {why}: retrying it with the device to itself", self.plans[unit.sub].name, col.suite, col.seed));
            self.alone.insert(unit);
            self.reserve(i, unit);
        } else {
            // Only this column: one generated size too large for the machine (2026-12-06,
            // L1p40's `W:boundary:1:batch=2049`, a 32 GiB input) must not stop the substrate's
            // other columns and mutants. Its mutants stay undecided on it: never a verdict.
            let tried = if retry_alone { "twice, the second time with the device to itself" } else { "not retried: too large for this machine" };
            let what = format!(
                "column {} seed {} could not be prepared: {why} ({tried}); mutants that need it stay undecided, its other columns go on",
                col.suite, col.seed
            );
            self.reporter.note(&format!("{}: {what}", self.plans[unit.sub].name));
            self.summary.environment_errors.push(format!("{}: {what}", self.plans[unit.sub].name));
            self.alone.remove(&unit);
            self.unreserve(i);
            self.unpreparable.insert(unit);
            if let Some(u) = self.units.get_mut(&unit) {
                u.pending.clear();
            }
            self.maybe_close(unit);
        }
    }

    /// An evaluation that failed for the machine's reasons before has now been made.
    pub(super) fn retried(&mut self, i: usize, unit: UnitKey, cand: usize) {
        if self.env_failed_evals.remove(&(unit, cand)).is_some() {
            self.summary.environment_retried += 1;
            self.unreserve(i);
        }
    }

    pub(super) fn prep_failed(&mut self, unit: UnitKey, why: &str) {
        let n = self.prep_failures.entry(unit).or_insert(0);
        *n += 1;
        if *n >= 2 {
            let col = &self.plans[unit.sub].columns[unit.col];
            self.fail_substrate(unit.sub, format!("column {} seed {} failed twice: {why}", col.suite, col.seed));
        }
    }
}
