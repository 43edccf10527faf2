//! Where column preparations spent their time, read back from a run's workers log, and where
//! evaluations spent theirs (`EvalParts`, summed from the workers' results).
//!
//! Each worker logs one line per prepared column (`python/kmut/phases.py`, `Phases`):
//!
//! ```text
//!   [worker 773] prepared L2p45_x W:dense:1:official seed 1: draw 267 ms ref 659 ms checksum 44 ms original 2041 ms validity 457 ms; held 812.0 MiB of a 2048.0 MiB peak; ready at 1765081965.125
//! ```
//!
//! Summed over a run they say which phase to make cheaper (issue 21 ranks its levers by them);
//! `kmut bench run` prints them beside its figures, whose temporary log is gone after it.

use std::collections::BTreeMap;

/// The preparations of one log: how many columns, and the seconds of each phase over them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PrepPhases {
    pub columns: usize,
    pub seconds: BTreeMap<String, f64>,
}

impl PrepPhases {
    /// Every `prepared` line of `log` (other lines, and malformed phase fields, are skipped).
    #[must_use]
    pub fn read(log: &str) -> PrepPhases {
        let mut out = PrepPhases::default();
        for line in log.lines() {
            let Some((_, rest)) = line.split_once("] prepared ") else { continue };
            let Some((_, phases)) = rest.rsplit_once(": ") else { continue };
            out.columns += 1;
            // The phases end where the column's memory figures begin (`; held ...`).
            let phases = phases.split(';').next().unwrap_or_default();
            let words: Vec<&str> = phases.split_whitespace().collect();
            for w in words.chunks(3) {
                if let [name, ms, "ms"] = w {
                    if let Ok(ms) = ms.parse::<f64>() {
                        *out.seconds.entry((*name).to_owned()).or_default() += ms / 1e3;
                    }
                }
            }
        }
        out
    }

    /// `412 columns, 1,191 s: draw 566 s, original 198 s, ...`, phases by time spent.
    #[must_use]
    pub fn summary(&self) -> String {
        if self.columns == 0 {
            return "no column prepared".into();
        }
        by_time(self.columns, "columns", &self.seconds)
    }
}

/// Where the evaluations that returned a result spent their wall time, by part, as each worker
/// reported it (`phases_ms` of a result, `Worker.evaluate` in `python/kmut/_run_worker.py`):
/// loading the image, setting up the launch (descriptor, guards, replay), the kernels, the
/// comparison with the canary check, the per-step rows, the column's checksum.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct EvalParts {
    pub evaluations: usize,
    pub seconds: BTreeMap<String, f64>,
}

impl EvalParts {
    /// Add one evaluation's parts (milliseconds by name); one without parts is not counted.
    pub fn add(&mut self, parts_ms: &[(String, f64)]) {
        if parts_ms.is_empty() {
            return;
        }
        self.evaluations += 1;
        for (name, ms) in parts_ms {
            *self.seconds.entry(name.clone()).or_default() += ms / 1e3;
        }
    }

    /// `1,489 evaluations, 980 s: kernels 500 s, compare 200 s, ...`, parts by time spent.
    #[must_use]
    pub fn summary(&self) -> String {
        if self.evaluations == 0 {
            return "no evaluation reported its parts".into();
        }
        by_time(self.evaluations, "evaluations", &self.seconds)
    }
}

/// `N <noun>, T s: a X s, b Y s, ...`, the largest first (ties by name).
fn by_time(count: usize, noun: &str, seconds: &BTreeMap<String, f64>) -> String {
    let mut parts: Vec<(&String, &f64)> = seconds.iter().collect();
    parts.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    let total: f64 = seconds.values().sum();
    let listed: Vec<String> = parts.iter().map(|(n, s)| format!("{n} {s:.0} s")).collect();
    format!("{count} {noun}, {total:.0} s: {}", listed.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phases_of_every_prepared_line_are_summed_and_other_lines_skipped() {
        let log = "  [worker 773] prepared L2p45_x W:dense:1:official seed 1: draw 267 ms ref 659 ms checksum 44 ms original 2041 ms validity 457 ms\n\
                   run: something else\n\
                   \x20 [worker 781] prepared L1p1_y T0_original seed 42: draw 1733 ms ref 7 ms original 10 ms; held 12.5 MiB of a 40.0 MiB peak; ready at 1765081965.125\n\
                   \x20 [worker 781] inputs damaged by a mutant; restoring them\n";
        let p = PrepPhases::read(log);
        assert_eq!(p.columns, 2);
        assert!((p.seconds["draw"] - 2.0).abs() < 1e-9);
        assert!((p.seconds["original"] - 2.051).abs() < 1e-9);
        assert!((p.seconds["validity"] - 0.457).abs() < 1e-9);
        assert_eq!(p.summary(), "2 columns, 5 s: original 2 s, draw 2 s, ref 1 s, validity 0 s, checksum 0 s");
        assert_eq!(PrepPhases::read("nothing here").summary(), "no column prepared");
    }

    /// The lines `kmut.phases.prepared_line` writes (`tests/python/test_phases.py` checks the
    /// fixture is its output), so a change of the format on either side fails a test.
    #[test]
    fn the_python_writer_s_lines_are_read() {
        let p = PrepPhases::read(include_str!("../../../tests/fixtures/prepared.log"));
        assert_eq!(p.columns, 2);
        assert!((p.seconds["draw"] - 2.0).abs() < 1e-9);
        assert!((p.seconds["original_kernels"] - 2.051).abs() < 1e-9);
        assert!((p.seconds["place"] - 0.034).abs() < 1e-9);
        assert_eq!(p.seconds.len(), 5, "{:?}", p.seconds);
    }

    #[test]
    fn evaluation_parts_sum_over_the_evaluations_that_reported_them() {
        let mut e = EvalParts::default();
        assert_eq!(e.summary(), "no evaluation reported its parts");
        e.add(&[("kernels".into(), 1500.0), ("compare".into(), 400.0)]);
        e.add(&[]);
        e.add(&[("kernels".into(), 700.0), ("check".into(), 30.0)]);
        assert_eq!(e.evaluations, 2, "one without parts is not counted");
        assert!((e.seconds["kernels"] - 2.2).abs() < 1e-9);
        assert_eq!(e.summary(), "2 evaluations, 3 s: kernels 2 s, compare 0 s, check 0 s");
    }
}
