//! The worker pool: slots (the workers that take work), ready spares that replace a lost one
//! at once, starting and replacing processes, handing out work and columns within the
//! device's memory (`crate::memory`), and giving a device to one slot for a retry.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::unit::{Unit, UnitKey};
use super::{Engine, IdleReason};
use crate::memory::Need;
use crate::protocol::{DeferredOriginal, Event, KnownOriginal, Request, SubstrateRef};
use crate::worker::{Said, WorkerProcess};
use crate::ExecError;

pub(super) enum SlotState {
    Starting {
        since: Instant,
    },
    Idle,
    Preparing {
        unit: UnitKey,
        since: Instant,
    },
    Evaluating {
        unit: UnitKey,
        cand: usize,
        sent: Instant,
        /// Since the worker's latest `begin` (its kernels are running).
        running: Option<Instant>,
        /// Kernel time of the runs already ended (a CPU mutant runs once per thread order).
        spent: Duration,
        /// `end`s heard; once every run ended, only the comparison is left.
        ends: u32,
        ended: Option<Instant>,
    },
    /// Asked to drop its column and free its memory; back to idle on `released`.
    Releasing {
        since: Instant,
    },
    Dead,
}

pub(super) struct Slot {
    pub(super) device: u32,
    /// The id of the worker process now in the slot.
    pub(super) worker: u64,
    pub(super) process: Option<WorkerProcess>,
    pub(super) state: SlotState,
    pub(super) prepared: Option<UnitKey>,
    /// Device bytes its column holds (measured after preparing; estimated while preparing).
    pub(super) held: u64,
    pub(super) failed_starts: usize,
    /// While idle: why, as `dispatch` last found it (`SlotTime::idle_why`).
    pub(super) idle_why: IdleReason,
}

/// A started worker waiting to replace a lost one.
pub(super) struct Spare {
    pub(super) worker: u64,
    pub(super) device: u32,
    pub(super) process: WorkerProcess,
    pub(super) ready: bool,
    /// When it was started (a slot that adopts it while it starts counts its start from here).
    pub(super) since: Instant,
}

/// How far back the replacement rate that sizes the spare pool looks.
const RATE_WINDOW: Duration = Duration::from_mins(1);

/// Who a worker id belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    Slot(usize),
    Spare,
}

impl Engine<'_> {
    pub(super) fn start_workers(&mut self) -> Result<(), ExecError> {
        for &device in &self.config.devices {
            for _ in 0..self.config.workers_per_device.max(1) {
                self.slots.push(Slot {
                    device,
                    worker: u64::MAX,
                    process: None,
                    state: SlotState::Dead,
                    prepared: None,
                    held: 0,
                    failed_starts: 0,
                    idle_why: IdleReason::NoWork,
                });
            }
        }
        for i in 0..self.slots.len() {
            self.spawn(i)?;
        }
        for &device in &self.config.devices.clone() {
            for _ in 0..self.config.spares_per_device {
                self.spawn_spare(device)?;
            }
        }
        Ok(())
    }

    pub(super) fn start_process(&mut self, device: u32, owner: Owner) -> Result<(u64, WorkerProcess), ExecError> {
        let id = self.next_worker;
        self.next_worker += 1;
        let process = WorkerProcess::spawn(&self.config.worker_command, device, self.config.scratch.as_deref(), &self.config.log, id, self.tx.clone())?;
        self.owners.insert(id, owner);
        Ok((id, process))
    }

    pub(super) fn spawn(&mut self, i: usize) -> Result<(), ExecError> {
        let (id, process) = self.start_process(self.slots[i].device, Owner::Slot(i))?;
        let slot = &mut self.slots[i];
        slot.worker = id;
        slot.prepared = None;
        slot.held = 0;
        slot.process = Some(process);
        slot.state = SlotState::Starting { since: Instant::now() };
        Ok(())
    }

    pub(super) fn spawn_spare(&mut self, device: u32) -> Result<(), ExecError> {
        if self.spare_failures >= 3 || self.interrupt.load(Ordering::Relaxed) {
            return Ok(());
        }
        let (worker, process) = self.start_process(device, Owner::Spare)?;
        self.spares.push(Spare { worker, device, process, ready: false, since: Instant::now() });
        let held = self.spares.iter().filter(|s| s.device == device).count();
        self.summary.spares_most = self.summary.spares_most.max(held);
        Ok(())
    }

    /// How many spares `device` should hold, ready or starting: the configured count, or as many
    /// as its workers are lost in one mean start time at the rate of the last minute (the fill of
    /// 2026-12-07 lost 195 workers in 330 s with two spares, and its slots spent 24% of their time
    /// starting), at most half its workers (each spare holds a context and a process's memory),
    /// and no more than the configured count while the host has less than
    /// `EngineConfig::spare_host_reserve` available.
    pub(super) fn spare_target(&self, device: u32) -> usize {
        let base = self.config.spares_per_device;
        let (sum, n) = self.start_secs;
        if n == 0 || self.config.workers_per_device < 2 {
            return base;
        }
        // Over the last minute, or the run so far when it is younger.
        let span = RATE_WINDOW.min(self.started.elapsed()).max(Duration::from_secs(1));
        let lost = self.replaced_at.iter().filter(|(at, d)| *d == device && at.elapsed() <= span).count();
        let rate = lost as f64 / span.as_secs_f64();
        let want = (rate * sum / f64::from(n)).ceil() as usize;
        if want > base && crate::memory::host_available().is_some_and(|b| b < self.config.spare_host_reserve) {
            return base;
        }
        want.clamp(base, base.max(self.config.workers_per_device / 2))
    }

    /// Start spares on `device` until it holds `spare_target` of them (fewer once spare starts
    /// keep failing: `spawn_spare` then starts none).
    pub(super) fn top_up_spares(&mut self, device: u32) -> Result<(), ExecError> {
        let target = self.spare_target(device); // once: it may read the host's memory
        while self.spares.iter().filter(|s| s.device == device).count() < target {
            let before = self.spares.len();
            self.spawn_spare(device)?;
            if self.spares.len() == before {
                break;
            }
        }
        Ok(())
    }

    /// A worker's start took `secs` (from its spawn to `ready`): part of the mean start.
    pub(super) fn started_in(&mut self, secs: f64) {
        self.start_secs.0 += secs;
        self.start_secs.1 += 1;
    }

    /// Put a ready spare of slot `i`'s device into the slot, and top the spares up.
    pub(super) fn take_spare(&mut self, i: usize) -> Result<bool, ExecError> {
        let device = self.slots[i].device;
        let Some(at) = self.spares.iter().position(|s| s.ready && s.device == device) else { return Ok(false) };
        self.seat_spare(i, at, SlotState::Idle)?;
        Ok(true)
    }

    /// With no spare of slot `i`'s device ready, put one that is still starting into the slot:
    /// it has been starting for a while, so it is ready sooner than a process started now (the
    /// slot counts its start from the spare's). Then top the spares up.
    pub(super) fn adopt_spare(&mut self, i: usize) -> Result<bool, ExecError> {
        let device = self.slots[i].device;
        // The one starting longest: the nearest to ready.
        let Some(at) = (0..self.spares.len()).filter(|&at| self.spares[at].device == device && !self.spares[at].ready).min_by_key(|&at| self.spares[at].since)
        else {
            return Ok(false);
        };
        let since = self.spares[at].since;
        self.seat_spare(i, at, SlotState::Starting { since })?;
        Ok(true)
    }

    /// Spare `at` becomes slot `i`'s worker, in `state`; the device's spares are topped up.
    fn seat_spare(&mut self, i: usize, at: usize, state: SlotState) -> Result<(), ExecError> {
        let spare = self.spares.swap_remove(at);
        self.owners.insert(spare.worker, Owner::Slot(i));
        self.summary.spares_used += 1;
        let slot = &mut self.slots[i];
        slot.worker = spare.worker;
        slot.process = Some(spare.process);
        slot.prepared = None;
        slot.held = 0;
        slot.state = state;
        self.top_up_spares(spare.device)
    }

    /// Kill slot `i`'s worker and put a spare or a fresh one in its place (or retire the slot
    /// after repeated failed starts).
    pub(super) fn replace(&mut self, i: usize, why: &str) -> Result<(), ExecError> {
        if let Some(mut p) = self.slots[i].process.take() {
            p.kill();
        }
        self.owners.remove(&self.slots[i].worker);
        self.slots[i].state = SlotState::Dead;
        self.slots[i].prepared = None;
        self.slots[i].held = 0;
        self.summary.respawns += 1;
        let device = self.slots[i].device;
        self.replaced_at.push_back((Instant::now(), device));
        while self.replaced_at.front().is_some_and(|(at, _)| at.elapsed() > RATE_WINDOW) {
            self.replaced_at.pop_front();
        }
        if self.slots[i].failed_starts >= 3 {
            self.reporter.note(&format!("worker {i} failed to start 3 times ({why}); retiring it"));
            // A retired slot never runs the retry it waited for: the device is not kept from
            // the other workers for it (they would wait for it forever).
            self.unreserve(i);
            if self.slots.iter().all(|s| matches!(s.state, SlotState::Dead) && s.failed_starts >= 3) {
                return Err(ExecError::NoWorker(self.last_error.clone()));
            }
            return Ok(());
        }
        if self.take_spare(i)? || self.adopt_spare(i)? {
            return Ok(());
        }
        self.spawn(i)
    }

    /// Give an idle worker its next evaluation (or column).
    pub(super) fn dispatch(&mut self, i: usize) {
        if !matches!(self.slots[i].state, SlotState::Idle) || self.interrupt.load(Ordering::Relaxed) {
            return;
        }
        let device = self.slots[i].device;
        let mut retry = None;
        match self.reservation(device) {
            // Another slot is waiting to have this device to itself: take no new work, and
            // give back the memory of the column held.
            Some((owner, _)) if owner != i => {
                self.slots[i].idle_why = IdleReason::Drain;
                self.release(i);
                return;
            }
            // This slot's retry waits until every other worker on the device holds nothing.
            Some(_) if self.held_by_others(i) > 0 => {
                self.slots[i].idle_why = IdleReason::Drain;
                return;
            }
            Some((_, unit)) => retry = Some(unit),
            None => {}
        }
        // Stay on the prepared column while it has work; otherwise take the unit with the most
        // pending work per worker already on it that fits in the device's memory.
        if let Some(k) = self.slots[i].prepared {
            self.prune_unit(k);
        }
        let key = match self.slots[i].prepared {
            _ if retry.is_some() => retry.expect("checked"),
            Some(k) if self.units.get(&k).is_some_and(|u| !u.pending.is_empty()) => k,
            _ => {
                // Choosing a column to prepare: none for mutants settled meanwhile.
                self.prune_units();
                let mut next = self.next_unit(i);
                if next.is_none() {
                    // A column that an earlier one still feeds survivors: waiting for them is
                    // cheaper than preparing another column and this one again after it.
                    if self.slots[i].prepared.is_some_and(|k| self.fed_from_before(k)) {
                        self.slots[i].idle_why = IdleReason::Chain;
                        return;
                    }
                    // Otherwise, rather than wait for a first-kill wave to end, carry the
                    // mutants that already survived it to their next column.
                    if self.advance_waves() {
                        next = self.next_unit(i);
                    }
                }
                // Nothing to evaluate anywhere: prepare a column a running wave will feed.
                if next.is_none() {
                    if let Some(k) = self.prefetch_unit(i) {
                        self.prefetched.insert(k);
                        self.summary.prefetched += 1;
                        self.prepare(i, k);
                        return;
                    }
                }
                let Some(k) = next else {
                    self.slots[i].idle_why = if self.pick_unit(i, false).is_some() { IdleReason::Memory } else { IdleReason::NoWork };
                    self.starved = true;
                    self.release_idle_for(i);
                    return;
                };
                k
            }
        };
        if self.slots[i].prepared != Some(key) {
            self.prepare(i, key);
            return;
        }
        if self.prefetched.remove(&key) {
            self.summary.prefetch_used += 1;
        }
        let unit = self.units.get_mut(&key).expect("unit exists");
        let cand = unit.pending.pop_front().expect("pending work");
        unit.in_flight += 1;
        let c = &self.plans[key.sub].candidates[cand];
        let request = Request::Eval {
            eval: cand,
            mutant: &c.id,
            image: c.image.as_deref(),
            scope: &c.scope,
            transform: c.transform.as_ref(),
            variant: c.variant.as_deref(),
            orders: &c.orders,
        };
        let slot = &mut self.slots[i];
        slot.state = SlotState::Evaluating { unit: key, cand, sent: Instant::now(), running: None, spent: Duration::ZERO, ends: 0, ended: None };
        if let Some(p) = slot.process.as_mut() {
            p.send(&request);
        }
    }

    /// The unit slot `i` should prepare next: pending work, not being prepared by another
    /// worker, and fitting in its device's memory beside what the other workers hold. Among
    /// those, a column of the substrate the worker holds comes first (its weights and module
    /// stay loaded), then the heaviest protocol column too large for a fair share of the device
    /// (`heavy_key`), then the most pending work per worker already on it, then the earliest
    /// column (the search's cheapest inputs first).
    pub(super) fn next_unit(&self, i: usize) -> Option<UnitKey> {
        self.pick_unit(i, true)
    }

    /// `next_unit`, with (`memory`) or without the device-memory check: without it, what the
    /// worker would take if the memory were free (an idle worker's reason, `IdleReason`).
    fn pick_unit(&self, i: usize, memory: bool) -> Option<UnitKey> {
        let device = self.slots[i].device;
        let on = |k: &UnitKey| self.slots.iter().filter(|s| s.prepared == Some(*k)).count();
        // A unit another worker is preparing waits for its report: it may set the substrate
        // aside (too slow here), and a second worker would pay the same preparation (and, on
        // the CPU, hold the same weights) for nothing.
        // Likewise a substrate never measured: its first column's footprint budgets the rest.
        let preparing = |k: &UnitKey| {
            let unmeasured = self.need_of(*k, false) == Need::Unknown;
            self.slots.iter().any(|s| matches!(s.state, SlotState::Preparing { unit, .. } if unit == *k || unmeasured && unit.sub == k.sub))
        };
        let others = self.held_by_others(i);
        let held = self.slots[i].prepared.map(|k| k.sub);
        // A column other workers hold already is joined only where that pays (`worth_joining`),
        // counting the holders that are getting on with it: one whose evaluation has run longer
        // than a preparation takes (a hang the watchdog has not ended yet) holds nothing up.
        // Nor one that a worker failed to join beside its holders for lack of memory (`crowded`).
        let joinable = |k: &UnitKey, u: &Unit| match self.moving_holders(*k) {
            _ if self.crowded.contains(k) && on(k) > 0 => false,
            0 => true,
            n => self.worth_joining(*k, u, n),
        };
        let score = |k: &UnitKey, u: &Unit, need: Need| (held == Some(k.sub), self.heavy_key(device, *k, need), u.pending.len() * 1000 / (on(k) + 1));
        // Each candidate's need is looked up once, for the memory filter and the heavy-first rank.
        self.units
            .iter()
            .filter(|(k, u)| !u.pending.is_empty() && !preparing(k) && joinable(k, u))
            .map(|(k, u)| (k, u, self.need(*k)))
            .filter(|&(_, _, need)| !memory || self.ledger.fits(device, need, self.config.workers_per_device, others))
            .max_by(|&(a, ua, na), &(b, ub, nb)| score(a, ua, na).cmp(&score(b, ub, nb)).then(b.sub.cmp(&a.sub)).then(b.col.cmp(&a.col)))
            .map(|(k, _, _)| *k)
    }

    /// The column slot `i` should prepare ahead of its first-kill wave, if any (`prefetch`): per
    /// substrate with a wave open before its search columns, the nearest later column that has
    /// no queue yet, that no worker holds or prepares, that some mutant of the round may still
    /// reach, whose footprint is known and fits beside the other workers' columns. Nearly every
    /// substrate has a mutant that survives every trial, so such a column is rarely prepared for
    /// nothing, and the preparation (7 s a column for VGG19) is off the chain's critical path.
    /// One column ahead per substrate; the substrate with the longest measured preparation
    /// first. Only preparation moves earlier: a mutant still joins the column only once it
    /// survived every column before it, so the cells are first kill's.
    pub(super) fn prefetch_unit(&self, i: usize) -> Option<UnitKey> {
        // Real work first: while rounds are left, an idle worker starts the next one instead.
        if !self.config.first_kill || !self.config.prefetch || self.more_rounds {
            return None;
        }
        let device = self.slots[i].device;
        let others = self.held_by_others(i);
        let taken = |k: UnitKey| self.slots.iter().any(|s| s.prepared == Some(k) || matches!(s.state, SlotState::Preparing { unit, .. } if unit == k));
        // Each substrate's longest measured preparation, gathered once (a search measures many).
        let mut slowest: HashMap<usize, f64> = HashMap::new();
        for (k, &s) in &self.prep_s {
            let m = slowest.entry(k.sub).or_insert(0.0);
            *m = m.max(s);
        }
        let slowest = |sub: usize| slowest.get(&sub).copied().unwrap_or(0.0);
        self.open_waves()
            .into_iter()
            .filter_map(|(sub, low)| {
                let col =
                    (low + 1..self.search_from(sub)).find(|&c| !self.units.contains_key(&UnitKey { sub, col: c }) && !self.skipped(UnitKey { sub, col: c }))?;
                let k = UnitKey { sub, col };
                let reachable = self.round_members[sub].iter().any(|&c| self.needs(sub, c, col));
                let known = self.need_of(k, false) != Need::Unknown;
                (reachable && known && !taken(k) && self.ledger.fits(device, self.need(k), self.config.workers_per_device, others)).then_some(k)
            })
            .max_by(|a, b| slowest(a.sub).total_cmp(&slowest(b.sub)).then(b.sub.cmp(&a.sub)))
    }

    /// Workers holding `unit` that are not stuck in one evaluation for longer than the unit's
    /// preparation takes.
    fn moving_holders(&self, unit: UnitKey) -> usize {
        let prep = self.prep_s.get(&unit).copied().unwrap_or(0.0);
        self.slots
            .iter()
            .filter(|s| s.prepared == Some(unit))
            .filter(|s| !matches!(s.state, SlotState::Evaluating { sent, .. } if sent.elapsed().as_secs_f64() > prep))
            .count()
    }

    /// Whether one more worker on a column `holders` workers hold finishes it sooner: only when
    /// its preparation takes less than what the holders still have to do there (`pending`
    /// evaluations at this substrate's mean wall time each, shared among them). Otherwise the
    /// holders finish first and the preparation is wasted (2026-12-04: level-3 protocol columns
    /// prepared again by another worker cost 874 of 3,527 preparation seconds in two calls'
    /// workers log, about 3 s each, for evaluations of about 0.3 s). Without a measured
    /// preparation the join is allowed; before any evaluation completed, twice the original's
    /// kernel time stands in for one.
    fn worth_joining(&self, unit: UnitKey, u: &Unit, holders: usize) -> bool {
        let Some(&prep) = self.prep_s.get(&unit) else { return true };
        let eval = match self.eval_wall.get(&unit.sub) {
            Some(&(sum, n)) if n > 0 => sum / n as f64,
            _ => 2.0 * self.original_ms.get(&unit).copied().unwrap_or(0.0) / 1e3,
        };
        prep < u.pending.len() as f64 * eval / holders as f64
    }

    pub(super) fn need(&self, unit: UnitKey) -> Need {
        self.need_of(unit, self.alone.contains(&unit))
    }

    /// How `unit` ranks for heavy-first scheduling (`EngineConfig::heavy_first`): its budgeted
    /// bytes (`need`, the ledger's `need(unit)`) where they exceed a fair share of `device` (its budget over its workers), 0 for
    /// every other column, for a witness search's generated columns (whose cheap small sizes go
    /// first on purpose) and with the lever off. Only the columns that limit how many workers
    /// can hold one at once are moved forward; the light ones keep their order among themselves.
    pub(super) fn heavy_key(&self, device: u32, unit: UnitKey, need: Need) -> u64 {
        if !self.config.heavy_first || unit.col >= self.search_from(unit.sub) {
            return 0;
        }
        let Need::Bytes(bytes) = need else { return 0 };
        let fair = self.ledger.budget(device).map_or(u64::MAX, |b| b / self.config.workers_per_device.max(1) as u64);
        if bytes > fair {
            bytes
        } else {
            0
        }
    }

    /// The ledger's need for `unit`, with its column's size class.
    fn need_of(&self, unit: UnitKey, alone: bool) -> Need {
        let class = crate::memory::size_class(&self.plans[unit.sub].columns[unit.col].suite);
        self.ledger.need(unit.sub, unit.col, class, alone)
    }

    /// Device bytes held by the other workers on slot `i`'s device.
    pub(super) fn held_by_others(&self, i: usize) -> u64 {
        let device = self.slots[i].device;
        self.slots.iter().enumerate().filter(|(j, s)| *j != i && s.device == device).map(|(_, s)| s.held).sum()
    }

    /// Slot `i` found nothing that fits: if pending work is kept out only by memory that
    /// idle workers on its device hold for columns with no work left, release them.
    pub(super) fn release_idle_for(&mut self, i: usize) {
        let device = self.slots[i].device;
        let waiting = self.units.iter().any(|(k, u)| !u.pending.is_empty() && !self.slots.iter().any(|s| s.prepared == Some(*k)));
        if !waiting {
            return;
        }
        let idle: Vec<usize> = (0..self.slots.len())
            .filter(|&j| j != i && self.slots[j].device == device && matches!(self.slots[j].state, SlotState::Idle) && self.slots[j].held > 0)
            .filter(|&j| self.slots[j].prepared.is_none_or(|k| self.units.get(&k).is_none_or(|u| u.pending.is_empty())))
            .collect();
        for j in idle {
            self.release(j);
        }
        if self.slots[i].held > 0 && self.slots[i].prepared.is_none_or(|k| self.units.get(&k).is_none_or(|u| u.pending.is_empty())) {
            self.release(i);
        }
    }

    /// Ask an idle worker to drop its column and free the device memory it holds.
    pub(super) fn release(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        if !matches!(slot.state, SlotState::Idle) || (slot.held == 0 && slot.prepared.is_none()) {
            return;
        }
        slot.state = SlotState::Releasing { since: Instant::now() };
        slot.prepared = None;
        if let Some(p) = slot.process.as_mut() {
            p.send(&Request::Release);
        }
    }

    /// The original's figures on `key`'s column, where a baseline of the current original image
    /// measured on this run's backend holds them all (`margin`: the validity gate's too): from
    /// the store (an earlier run's) or from this run's own first preparation of it. The worker
    /// then skips the original's run unless the column's mutants need its outputs: in the matrix
    /// fill of 2026-12-07 (a witness search's columns, prepared again for the mutants it had
    /// stopped early), the original's run and the validity gate took 975 s of the 1,706 s that
    /// 1,729 column preparations took.
    fn known_original(&self, key: UnitKey, margin: bool) -> Option<KnownOriginal> {
        if !self.config.reuse_original {
            return None;
        }
        let b = self.known_originals.get(&key)?;
        (b.backend == self.summary.backend).then(|| KnownOriginal::from_baseline(b, margin)).flatten()
    }

    /// The deferral of the original's run on `key`'s column (`DeferredOriginal`), where nothing
    /// is known of the column itself but this run (or the store) measured the original on a
    /// sibling of the same suite: the official trials differ only in their seed, so after the
    /// first of them the others skip the original's run unless a mutant fails there. In the
    /// 2026-12-07 whole-corpus bench (600 mutants, a fresh store) the GPU was busy 92% of the
    /// run and about 30% of the kernels' launches were the original's, on 699 columns.
    fn deferred_original(&self, key: UnitKey, margin: bool) -> Option<DeferredOriginal> {
        if !self.config.defer_original || margin || self.must_measure.contains(&key) {
            return None;
        }
        let plan = &self.plans[key.sub];
        let suite = &plan.columns[key.col].suite;
        // A sibling the run set aside (its original rejected by the run's own bound) says this
        // suite's columns are better measured before any mutant runs on them.
        (0..plan.columns.len())
            .map(|c| UnitKey { sub: key.sub, col: c })
            .filter(|k| k.col != key.col && plan.columns[k.col].suite == *suite && !self.invalid.contains(k))
            .filter_map(|k| self.known_originals.get(&k))
            .filter(|b| b.backend == self.summary.backend)
            .find_map(|b| DeferredOriginal::from_sibling(b, self.config.tolerance))
    }

    pub(super) fn prepare(&mut self, i: usize, key: UnitKey) {
        let plan = &self.plans[key.sub];
        let column = &plan.columns[key.col];
        // The validity gate runs on generated columns only: a substrate's own suites passed the
        // gate's fp64 check when it was accepted.
        let margin = self.config.validity_margin.filter(|_| column.suite.starts_with("W:"));
        let substrate = SubstrateRef {
            name: &plan.name,
            path: &plan.path,
            original_image: &plan.original_image,
            symbols: &plan.symbols,
            original_variant: plan.original_variant.as_deref(),
        };
        // Per-step rows on the protocol's own columns (all of them outside a witness search),
        // and on the search's only when asked: they would pay the capture (1.29x a level-3
        // evaluation on the H200) for rows `kmut depth` does not read (each fault's first
        // scored column).
        let steps = key.col < plan.search_from || self.config.steps_on_search;
        let known = self.known_original(key, margin.is_some());
        let defer = if known.is_none() { self.deferred_original(key, margin.is_some()) } else { None };
        let request = Request::Column { substrate, suite: &column.suite, seed: column.seed, margin, steps, known, defer };
        let need = self.need(key);
        let held = self.ledger.bytes(self.slots[i].device, need, self.config.workers_per_device).unwrap_or(0);
        let slot = &mut self.slots[i];
        slot.state = SlotState::Preparing { unit: key, since: Instant::now() };
        // Until the worker reports its measured peak, count the estimate as held.
        slot.held = held;
        slot.prepared = None;
        if let Some(p) = slot.process.as_mut() {
            p.send(&request);
        }
    }

    /// Give slot `i` its device to itself for `unit`. Where another slot already has it or
    /// waits for it, slot `i` waits its turn behind them: each retry runs with the device to
    /// itself, never beside the columns the other workers hold.
    pub(super) fn reserve(&mut self, i: usize, unit: UnitKey) {
        let queue = self.reserved.entry(self.slots[i].device).or_default();
        if !queue.iter().any(|&(slot, _)| slot == i) {
            queue.push_back((i, unit));
        }
    }

    /// Slot `i` no longer needs its device to itself (its retry is made, or failed again).
    pub(super) fn unreserve(&mut self, i: usize) {
        let device = self.slots[i].device;
        if let Some(queue) = self.reserved.get_mut(&device) {
            queue.retain(|&(slot, _)| slot != i);
            if queue.is_empty() {
                self.reserved.remove(&device);
            }
        }
    }

    /// The slot that has `device` to itself now and the unit it retries. A reservation whose
    /// unit is gone (its substrate failed) or has no work left (taken by a worker on another
    /// device) has nothing to wait for: the next one in turn has the device.
    fn reservation(&mut self, device: u32) -> Option<(usize, UnitKey)> {
        let queue = self.reserved.get_mut(&device)?;
        while let Some(&(slot, unit)) = queue.front() {
            if self.units.get(&unit).is_some_and(|u| !u.pending.is_empty()) {
                return Some((slot, unit));
            }
            queue.pop_front();
        }
        self.reserved.remove(&device);
        None
    }

    pub(super) fn on_spare(&mut self, worker: u64, said: &Said) -> Result<(), ExecError> {
        let Some(at) = self.spares.iter().position(|s| s.worker == worker) else { return Ok(()) };
        match said {
            Said::Line(Event::Ready { .. }) => {
                self.spares[at].ready = true;
                let secs = self.spares[at].since.elapsed().as_secs_f64();
                self.started_in(secs);
                return Ok(());
            }
            Said::Line(Event::Error { .. }) | Said::Gone => {}
            Said::Line(_) => return Ok(()),
        }
        // It could not start: drop it and try another, a few times at most.
        let mut spare = self.spares.swap_remove(at);
        spare.process.kill();
        self.owners.remove(&worker);
        self.spare_failures += 1;
        self.spawn_spare(spare.device)
    }
}
