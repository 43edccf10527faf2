//! Rounds and units: which mutants are taken now, on which columns. A round is a slice of
//! the stratified order (all of it without a budget); each substrate's column is a *unit* of
//! pending mutants of the rounds taken so far, opened all at once (full matrix) or as
//! first-kill waves (column `c + 1` gets only the survivors of `0..=c`). In a witness search
//! the waves stop at the substrate's `search_from`: a mutant that survived the protocol's own
//! columns is queued on every search column at once, so the columns are prepared side by side
//! on all the workers instead of one after another, and a kill anywhere drops the mutant from
//! the other queues (at most the evaluations already in flight are spent on it). Also what
//! counts as settled, and substrates that stop (failed, or set aside as too slow here).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use kmut_store::Evaluation;

use super::unit::{MutantState, Unit, UnitKey};
use super::Engine;
use crate::ExecError;

impl Engine<'_> {
    /// Stored evaluations of the same images count as done.
    pub(super) fn load_stored(&mut self) -> Result<(), ExecError> {
        for (sub, plan) in self.plans.iter().enumerate() {
            for (class, &bytes) in &plan.prior_peaks {
                self.ledger.prior(sub, class, bytes);
            }
            // Footprints measured by earlier runs budget this one's memory from the start, and
            // generated columns the validity gate refused (for the same original) stay skipped.
            let mut measured = BTreeSet::new();
            for b in self.store.baselines(&plan.name, &self.config.target)? {
                let Some(col) = plan.columns.iter().position(|k| k.suite == b.suite && k.seed == b.seed) else { continue };
                measured.insert(col);
                if let Some(bytes) = b.peak_bytes {
                    self.ledger.measured(sub, col, crate::memory::size_class(&plan.columns[col].suite), bytes);
                }
                let current = b.image.as_deref() == Some(plan.original_id.as_str());
                let refused = b.valid == Some(false) && self.config.validity_margin.is_some();
                if current && (refused || plan.rejects_original(b.tau, b.max_abs)) {
                    self.invalid.insert(UnitKey { sub, col });
                }
                if current {
                    self.known_originals.insert(UnitKey { sub, col }, b);
                }
            }
            let stored = self.store.evaluations(&plan.name, &self.config.target)?;
            let mut by_id: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
            for e in &stored {
                by_id.entry(e.mutant.as_str()).or_default().push(e);
            }
            let states = plan
                .candidates
                .iter()
                .map(|c| {
                    let mut st = MutantState { killed: false, evaluated: BTreeSet::new() };
                    for e in by_id.get(c.id.as_str()).into_iter().flatten().filter(|e| e.image == c.image_id) {
                        let col = plan.columns.iter().position(|k| k.suite == e.suite && k.seed == e.seed);
                        if let Some(col) = col.filter(|c| !self.config.cells_need_baseline || measured.contains(c)) {
                            st.evaluated.insert(col);
                            st.killed |= e.kills_at(self.config.tolerance);
                        }
                    }
                    st
                })
                .collect();
            self.states.push(states);
        }
        Ok(())
    }

    pub(super) fn needs(&self, sub: usize, cand: usize, col: usize) -> bool {
        self.states[sub][cand].needs(col, self.config.first_kill)
    }

    /// Whether a worker stood idle at the last step with nothing it may take while every
    /// column with pending work is held or being prepared: the round's remaining work sits in
    /// columns that another worker would not finish sooner (`worth_joining`), such as a large
    /// network's first-kill chain, so the next round's mutants should start. Not when a column
    /// with work waits for a first worker: that one waits for memory, or for its substrate's
    /// first measured footprint, and a new round's columns would only compete with it. (The
    /// 2026-12-06 audit of the illusion protocol: ten workers idle 82% of their time while a
    /// round's VGG columns at batch 513, 33 s to prepare each, went one worker at a time.)
    ///
    /// `taken`: the mutants of the rounds started so far. An early round is sized like any
    /// (`next_round_size`) as if the time left were its own, so it starts only while the taken
    /// mutants that still have work here are fewer than what fits in that time: otherwise, where
    /// each new round's mutants only join the held columns (one substrate, or the order's tail)
    /// and the idle worker stays idle, a round started at every step took the whole order within
    /// a second, far past the budget, and every taken mutant runs to its end.
    pub(super) fn starved_round(&self, taken: &[(usize, usize)]) -> bool {
        let held = || {
            self.units.iter().filter(|(_, u)| !u.pending.is_empty()).all(|(k, _)| {
                self.slots.iter().any(|s| s.prepared == Some(*k) || matches!(s.state, super::pool::SlotState::Preparing { unit, .. } if unit == *k))
            })
        };
        if !(self.starved && held()) {
            return false;
        }
        let settled = taken.iter().filter(|&&(s, c)| self.decided(s, c)).count();
        // Not a mutant whose substrate stopped, nor one left only with columns skipped here.
        let open = |s: usize, c: usize| {
            self.failed[s].is_none()
                && !self.decided(s, c)
                && (0..self.plans[s].columns.len()).any(|col| {
                    let key = UnitKey { sub: s, col };
                    self.needs(s, c, col) && !self.skipped(key)
                })
        };
        let waiting = taken.iter().filter(|&&(s, c)| open(s, c)).count();
        waiting < self.next_round_size(settled, usize::MAX)
    }

    /// Under a budget: as many mutants as the rate so far (`done`: the taken mutants settled)
    /// says fit in 80% of the time left (at least half the first round, at most what is left).
    pub(super) fn next_round_size(&self, done: usize, left: usize) -> usize {
        let first = self.config.round.unwrap_or(left).max(1);
        let Some(deadline) = self.config.deadline else { return left };
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
        let remaining = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
        let fit = (done as f64 / elapsed * remaining * 0.8) as usize;
        fit.max(first / 2).max(1).min(left)
    }

    /// Take `round` (a slice of the order): make the images of its mutants that still need an
    /// evaluation, then open their units.
    pub(super) fn start_round(&mut self, round: &[(usize, usize)]) -> Result<(), ExecError> {
        // Rounds overlap (the next starts while the last evaluations of this one are in
        // flight), so members accumulate: a wave opened by an earlier round's unit takes this
        // round's mutants too.
        for &(sub, cand) in round {
            if self.failed[sub].is_none() {
                self.round_members[sub].push(cand);
            }
        }
        // Only what this round will evaluate: not a mutant settled by stored evaluations.
        let wanted: Vec<(usize, usize)> = round.iter().copied().filter(|&(s, c)| self.failed[s].is_none() && !self.decided(s, c)).collect();
        if let Some(images) = self.images.as_deref_mut().filter(|_| !wanted.is_empty()) {
            let start = Instant::now();
            let made = images.make(self.plans, &wanted).map_err(ExecError::Images)?;
            self.summary.images_made += made;
            self.summary.image_time += start.elapsed();
        }
        for sub in 0..self.plans.len() {
            if self.config.first_kill {
                self.open_wave(sub, 0);
            } else {
                for col in 0..self.plans[sub].columns.len() {
                    self.open_unit(sub, col);
                }
            }
        }
        Ok(())
    }

    /// Open column `col` (or the next one with work) of `sub` for the round's mutants that need
    /// it; in a witness search's columns (`search_from` on), every one of them at once.
    pub(super) fn open_wave(&mut self, sub: usize, from: usize) {
        let len = self.plans[sub].columns.len();
        let search_from = self.search_from(sub);
        if from >= search_from {
            for col in from..len {
                self.open_unit(sub, col);
            }
            return;
        }
        for col in from..search_from {
            // Queued here now, or this wave is open already (an earlier round's): it opens the next.
            if self.open_unit(sub, col) || self.units.contains_key(&UnitKey { sub, col }) {
                return;
            }
        }
        if search_from < len {
            self.open_wave(sub, search_from);
        }
    }

    /// A worker found nothing to take: queue the mutants that already survived every column
    /// before one on that column, in every substrate whose first-kill wave is still open,
    /// without waiting for the wave to end; true when a unit gained work. A wave's next column
    /// otherwise opens only when its last mutant is done, so at a run's tail the survivors of a
    /// slow network's column waited for its slowest evaluation while the other workers stood
    /// idle (2026-12-06, ten workers on 120 level-3 mutants: idle 60-64% of their time). Only
    /// an idle worker calls this and only mutants `ready` for a column join it, so the cells
    /// evaluated are exactly first kill's.
    pub(super) fn advance_waves(&mut self) -> bool {
        if !self.config.first_kill || !self.config.advance_waves {
            return false;
        }
        let mut added = false;
        for (sub, low) in self.open_waves() {
            for col in low + 1..self.plans[sub].columns.len() {
                added |= self.open_unit(sub, col);
            }
        }
        added
    }

    /// Per substrate whose first-kill wave is open (a queue on a column before its search
    /// columns, the substrate not failed), the lowest such column.
    pub(super) fn open_waves(&self) -> HashMap<usize, usize> {
        let mut lowest: HashMap<usize, usize> = HashMap::new();
        for k in self.units.keys().filter(|k| self.failed[k.sub].is_none() && k.col < self.search_from(k.sub)) {
            let low = lowest.entry(k.sub).or_insert(k.col);
            *low = (*low).min(k.col);
        }
        lowest
    }

    /// Whether a column of `key`'s substrate before it is still open in first-kill mode: then
    /// `key`'s column can still receive survivors, and its wave has not ended.
    pub(super) fn fed_from_before(&self, key: UnitKey) -> bool {
        self.config.first_kill && key.col < self.search_from(key.sub) && self.units.keys().any(|k| k.sub == key.sub && k.col < key.col)
    }

    /// Where `sub`'s columns stop being first-kill waves (the plan's `search_from`: past its
    /// last column outside a witness search).
    pub(super) fn search_from(&self, sub: usize) -> usize {
        let plan = &self.plans[sub];
        plan.search_from.min(plan.columns.len())
    }

    /// In first-kill mode a mutant joins a column's wave only once it survived every column
    /// before it (the search's columns: every column before `search_from`); a column the
    /// validity gate refused counts as passed.
    fn ready(&self, sub: usize, cand: usize, col: usize) -> bool {
        if !self.config.first_kill {
            return true;
        }
        let upto = col.min(self.search_from(sub));
        let st = &self.states[sub][cand];
        (0..upto).all(|c| st.evaluated.contains(&c) || self.skipped(UnitKey { sub, col: c }))
    }

    /// Whether nothing runs on `key` in this run: refused by the validity gate or the run's bound
    /// (`invalid`, counted as passed), or not preparable on this machine (`unpreparable`).
    pub(super) fn skipped(&self, key: UnitKey) -> bool {
        self.invalid.contains(&key) || self.unpreparable.contains(&key)
    }

    /// Queue on column `col` of `sub` the members that need it and are not queued or in flight
    /// there already; false when nothing was added.
    pub(super) fn open_unit(&mut self, sub: usize, col: usize) -> bool {
        let key = UnitKey { sub, col };
        if self.skipped(key) {
            return false;
        }
        let queued: BTreeSet<usize> = self.units.get(&key).map(|u| u.pending.iter().copied().collect()).unwrap_or_default();
        let flying: BTreeSet<usize> = self.in_flight_on(key);
        let add: Vec<usize> = self.round_members[sub]
            .iter()
            .copied()
            .filter(|&c| self.needs(sub, c, col) && self.ready(sub, c, col) && !queued.contains(&c) && !flying.contains(&c))
            .collect();
        if add.is_empty() {
            return false;
        }
        self.units.entry(key).or_insert_with(|| Unit { pending: VecDeque::new(), in_flight: 0 }).pending.extend(add);
        true
    }

    /// Candidates being evaluated on `key` right now.
    fn in_flight_on(&self, key: UnitKey) -> BTreeSet<usize> {
        self.slots
            .iter()
            .filter_map(|s| match s.state {
                super::pool::SlotState::Evaluating { unit, cand, .. } if unit == key => Some(cand),
                _ => None,
            })
            .collect()
    }

    /// Drop from `key`'s queue the mutants that no longer need its column (a witness search
    /// queues a mutant on many columns at once, and a kill on one settles it), closing the unit
    /// when nothing is left.
    pub(super) fn prune_unit(&mut self, key: UnitKey) {
        let (states, first_kill) = (&self.states[key.sub], self.config.first_kill);
        if let Some(u) = self.units.get_mut(&key) {
            u.pending.retain(|&c| states[c].needs(key.col, first_kill));
        }
        self.maybe_close(key);
    }

    /// `prune_unit` on every unit: a worker must never prepare a column for settled mutants.
    pub(super) fn prune_units(&mut self) {
        let keys: Vec<UnitKey> = self.units.keys().copied().collect();
        for key in keys {
            self.prune_unit(key);
        }
    }

    /// A unit with nothing pending or in flight is closed; in first-kill mode the next wave opens.
    pub(super) fn maybe_close(&mut self, key: UnitKey) {
        let done = self.units.get(&key).is_some_and(|u| u.pending.is_empty() && u.in_flight == 0);
        if done {
            self.units.remove(&key);
            // The wave ends when no earlier column can send this one more survivors (one
            // emptied by `advance_waves`'s early survivors has not ended: opening the next
            // column then would pull its holder on and back).
            if self.config.first_kill && self.failed[key.sub].is_none() && !self.fed_from_before(key) {
                self.open_wave(key.sub, key.col + 1);
            }
        }
    }

    /// Stop a substrate that is too slow to run here: like a failure, but reported apart.
    pub(super) fn set_aside(&mut self, sub: usize, why: &str) {
        if self.failed[sub].is_none() {
            self.heavy[sub] = true;
            self.fail_substrate(sub, format!("set aside: {why}"));
        }
    }

    pub(super) fn fail_substrate(&mut self, sub: usize, why: String) {
        if self.failed[sub].is_some() {
            return; // a second column of it failing (or in flight) says nothing new
        }
        self.reporter.note(&format!("{}: {why}; its remaining mutants are skipped", self.plans[sub].name));
        self.failed[sub] = Some(why);
        let keys: Vec<UnitKey> = self.units.keys().copied().filter(|k| k.sub == sub).collect();
        for k in keys {
            if let Some(u) = self.units.get_mut(&k) {
                u.pending.clear();
            }
            self.maybe_close(k);
        }
    }

    pub(super) fn decided(&self, sub: usize, cand: usize) -> bool {
        let st = &self.states[sub][cand];
        let skipped = (0..self.plans[sub].columns.len()).filter(|&col| self.invalid.contains(&UnitKey { sub, col }) && !st.evaluated.contains(&col)).count();
        (self.config.first_kill && st.killed) || st.evaluated.len() + skipped == self.plans[sub].columns.len()
    }

    pub(super) fn count_decided(&mut self, order: &[(usize, usize)]) {
        self.summary.decided = order.iter().filter(|&&(s, c)| self.decided(s, c)).count();
        self.summary.killed = order.iter().filter(|&&(s, c)| self.decided(s, c) && self.states[s][c].killed).count();
    }
}
