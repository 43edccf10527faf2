//! Device-memory budgeting: the workers of one GPU share its memory, and a column (a
//! substrate's inputs, reference, weights and one run's buffers) can take tens of GiB. Every
//! worker holds at most one column; before a worker prepares a column, the ledger checks that
//! it fits beside what the device's other workers hold, from the footprint measured the last
//! time the column (or another column of the same substrate) was prepared. An out-of-memory
//! error is then the exception, and it is retried with the device to itself, never recorded as
//! a verdict (`Engine`).

use std::collections::HashMap;

/// Share of a device's memory the ledger hands out: the rest is for CUDA contexts, the
/// allocator's rounding and fragmentation.
pub const USABLE_FRACTION: f64 = 0.85;

/// Margin on a measured footprint: a later evaluation of the same column allocates the same
/// buffers, but the allocator may round differently.
pub const MARGIN: f64 = 1.15;

/// The host's available memory in bytes (`MemAvailable` of `/proc/meminfo`), or `None` where it
/// cannot be read (not Linux).
#[must_use]
pub fn host_available() -> Option<u64> {
    mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What one column needs, as far as the ledger knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Measured (with margin).
    Bytes(u64),
    /// Never measured: a fair share of the device (its budget over its workers).
    Unknown,
    /// The whole budget: the column failed for lack of memory before.
    Alone,
}

/// The sizes a column's inputs are drawn at, named from its suite: a generated column's last
/// field (`W:signed:10:small` -> `small`, `W:boundary:1:batch=255` -> `batch=255`,
/// `W:dense:1:official` -> `official`), `official` for the protocol's `T0_original`, and any
/// other suite its own name. Columns of one class allocate the same buffers whatever their values.
pub fn size_class(suite: &str) -> &str {
    match suite.strip_prefix("W:") {
        Some(rest) => rest.split(':').nth(2).unwrap_or(suite),
        None if suite == "T0_original" => "official",
        None => suite,
    }
}

/// Footprints and holdings of every device.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Bytes the ledger hands out per device, once a worker on it reported the total.
    budget: HashMap<u32, u64>,
    /// Measured peaks by (substrate, column), the largest per substrate and size class
    /// (`size_class`), and the largest per substrate.
    measured: HashMap<(usize, usize), u64>,
    by_class: HashMap<usize, HashMap<String, u64>>,
    largest: HashMap<usize, u64>,
    /// Footprints another store measured, by substrate and size class (`SubstratePlan::prior_peaks`):
    /// what a substrate never measured here is budgeted at, instead of a fair share.
    priors: HashMap<usize, HashMap<String, u64>>,
}

impl Ledger {
    /// A worker on `device` reported its total memory.
    pub fn set_total(&mut self, device: u32, total: u64) {
        self.budget.entry(device).or_insert((total as f64 * USABLE_FRACTION) as u64);
    }

    pub fn budget(&self, device: u32) -> Option<u64> {
        self.budget.get(&device).copied()
    }

    /// A column's measured peak, from this run or a stored baseline; `class` is its
    /// `size_class`.
    pub fn measured(&mut self, sub: usize, col: usize, class: &str, bytes: u64) {
        self.measured.insert((sub, col), bytes);
        for l in [self.by_class.entry(sub).or_default().entry(class.to_owned()).or_insert(0), self.largest.entry(sub).or_insert(0)] {
            *l = (*l).max(bytes);
        }
    }

    /// A footprint measured elsewhere for `sub`'s columns of size class `class`: used only
    /// where this run and its store have measured none of that class.
    pub fn prior(&mut self, sub: usize, class: &str, bytes: u64) {
        self.priors.entry(sub).or_default().insert(class.to_owned(), bytes);
    }

    /// What preparing column `col` (of size class `class`) of `sub` needs: its own
    /// measurement, else the largest of its substrate's columns of the same sizes, else a prior
    /// footprint of those sizes (`prior`), else the largest of its substrate's (another suite
    /// of the same weights), else unknown. Without the prior, a fresh store's first column of
    /// each large substrate got a fair share (a tenth of an H100's budget with ten workers) and
    /// ran out of memory (2026-12-06: 14 official columns of a 600-mutant whole-corpus bench,
    /// each then retried with the device to itself, every other worker releasing its column). Without
    /// the class step a witness search's small generated columns of a network were budgeted
    /// at its largest boundary or official column (11 GiB for a vanilla RNN's, 72 GiB for a vision
    /// transformer's: the whole device), so a few ran at a time while the other workers waited
    /// (2026-12-06: three at a time at the search's tail, the slots idle 74% of that call).
    pub fn need(&self, sub: usize, col: usize, class: &str, alone: bool) -> Need {
        if alone {
            return Need::Alone;
        }
        // Asked for every unit a worker considers: looked up without allocating.
        let same_sizes = || self.by_class.get(&sub).and_then(|m| m.get(class));
        let prior = || self.priors.get(&sub).and_then(|m| m.get(class));
        match self.measured.get(&(sub, col)).or_else(same_sizes).or_else(prior).or_else(|| self.largest.get(&sub)) {
            Some(&b) => Need::Bytes((b as f64 * MARGIN) as u64),
            None => Need::Unknown,
        }
    }

    /// The bytes `need` stands for on `device` with `workers` workers; `None` without a budget
    /// (no total reported: the CPU backend, or a worker not started yet): no limit.
    pub fn bytes(&self, device: u32, need: Need, workers: usize) -> Option<u64> {
        let budget = self.budget(device)?;
        Some(match need {
            Need::Bytes(b) => b,
            Need::Unknown => budget / workers.max(1) as u64,
            Need::Alone => budget,
        })
    }

    /// Whether `need` fits on `device` beside what the other workers there hold.
    pub fn fits(&self, device: u32, need: Need, workers: usize, held_by_others: u64) -> bool {
        match self.bytes(device, need, workers) {
            None => true,
            // Alone: nothing else may be held; a measured column larger than the budget
            // still runs when the device is otherwise empty.
            Some(b) => held_by_others == 0 || held_by_others.saturating_add(b) <= self.budget(device).unwrap_or(u64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_s_available_memory_is_read_from_meminfo() {
        let text = "MemTotal:       131072000 kB\nMemFree:         1000 kB\nMemAvailable:   65536000 kB\n";
        assert_eq!(mem_available(text), Some(65_536_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None, "an old kernel without the field");
        assert!(host_available().is_some_and(|b| b > 0), "this Linux machine has some");
    }

    const GIB: u64 = 1 << 30;

    #[test]
    fn without_a_reported_total_everything_fits() {
        let l = Ledger::default();
        assert!(l.fits(0, Need::Alone, 4, 100 * GIB));
        assert_eq!(l.bytes(0, Need::Unknown, 4), None);
    }

    #[test]
    fn measured_columns_fit_beside_each_other_until_the_budget() {
        let mut l = Ledger::default();
        l.set_total(0, 100 * GIB);
        assert_eq!(l.budget(0), Some(85 * GIB));
        l.measured(3, 0, "official", 40 * GIB);
        let need = l.need(3, 0, "official", false);
        assert_eq!(need, Need::Bytes(46 * GIB));
        assert!(l.fits(0, need, 4, 30 * GIB));
        assert!(!l.fits(0, need, 4, 40 * GIB));
        // Another column of the same substrate is assumed as large as its largest.
        assert_eq!(l.need(3, 4, "small", false), need);
        // Larger than the whole budget: only on an empty device.
        l.measured(5, 0, "official", 90 * GIB);
        assert!(!l.fits(0, l.need(5, 0, "official", false), 4, GIB));
        assert!(l.fits(0, l.need(5, 0, "official", false), 4, 0));
    }

    #[test]
    fn unknown_columns_get_a_fair_share_and_failed_ones_the_device() {
        let mut l = Ledger::default();
        l.set_total(1, 80 * GIB);
        assert_eq!(l.bytes(1, Need::Unknown, 4), Some(17 * GIB));
        assert!(l.fits(1, Need::Unknown, 4, 3 * 17 * GIB));
        assert!(!l.fits(1, Need::Unknown, 4, 3 * 17 * GIB + GIB * 2));
        assert!(!l.fits(1, Need::Alone, 4, 1));
        assert!(l.fits(1, Need::Alone, 4, 0));
        // Devices keep their own budgets.
        assert!(l.fits(0, Need::Alone, 4, 1));
    }

    #[test]
    fn an_unmeasured_column_is_budgeted_like_its_substrate_s_columns_of_the_same_sizes() {
        let mut l = Ledger::default();
        l.set_total(0, 80 * GIB);
        l.measured(2, 0, size_class("T0_original"), 11 * GIB);
        l.measured(2, 7, size_class("W:signed:10:small"), GIB / 100);
        // Another small column: the small one's footprint, not the official one's.
        assert_eq!(l.need(2, 8, size_class("W:ties:1000:small"), false), Need::Bytes((GIB as f64 / 100.0 * MARGIN) as u64));
        // An official-sized generated column: the official one's.
        assert_eq!(l.need(2, 9, size_class("W:dense:1:official"), false), Need::Bytes((11.0 * GIB as f64 * MARGIN) as u64));
        // Sizes never measured (a boundary size): the substrate's largest, as before.
        assert_eq!(l.need(2, 10, size_class("W:boundary:1:batch=513"), false), Need::Bytes((11.0 * GIB as f64 * MARGIN) as u64));
        // Nothing measured for the substrate: unknown.
        assert_eq!(l.need(3, 0, "small", false), Need::Unknown);
    }

    #[test]
    fn a_prior_footprint_stands_in_until_the_same_sizes_are_measured() {
        let mut l = Ledger::default();
        l.set_total(0, 80 * GIB);
        l.prior(4, "official", 30 * GIB);
        let prior = Need::Bytes((30.0 * GIB as f64 * MARGIN) as u64);
        // Nothing measured: the prior, not a fair share, for the official sizes only.
        assert_eq!(l.need(4, 0, "official", false), prior);
        assert_eq!(l.need(4, 1, "small", false), Need::Unknown);
        // A measured column of other sizes does not replace the official prior ...
        l.measured(4, 1, "small", GIB);
        assert_eq!(l.need(4, 0, "official", false), prior);
        // ... and a measurement of the same sizes does.
        l.measured(4, 2, "official", 20 * GIB);
        assert_eq!(l.need(4, 0, "official", false), Need::Bytes((20.0 * GIB as f64 * MARGIN) as u64));
        // A retry alone is still alone.
        assert_eq!(l.need(4, 0, "official", true), Need::Alone);
    }

    #[test]
    fn size_classes_come_from_the_suite_name() {
        assert_eq!(size_class("W:signed:10:small"), "small");
        assert_eq!(size_class("W:boundary:1:batch=255"), "batch=255");
        assert_eq!(size_class("W:normal:1:official:1"), "official");
        assert_eq!(size_class("T0_original"), "official");
        assert_eq!(size_class("T1_remainder"), "T1_remainder");
    }
}
