//! The depth analysis's per-step capture (migration 7): each pipeline column's step layout and,
//! per evaluation, every step's error against the original's step output.

use rusqlite::params;

use crate::{Result, Store};

/// Where the original's step outputs were kept for a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// On the evaluating device (or, on the CPU backend, in memory).
    Device,
    /// Copied to the host because they did not fit on the device: slower, the same numbers.
    Host,
}

impl Keep {
    pub fn name(self) -> &'static str {
        match self {
            Keep::Device => "device",
            Keep::Host => "host",
        }
    }

    pub fn parse(text: &str) -> Option<Keep> {
        match text {
            "device" => Some(Keep::Device),
            "host" => Some(Keep::Host),
            _ => None,
        }
    }
}

/// A pipeline's steps on one column, as the worker ran the original there.
#[derive(Debug, Clone, PartialEq)]
pub struct StepLayout {
    pub substrate: String,
    pub target: String,
    pub suite: String,
    pub seed: u64,
    /// Each step's kernel, in launch order (a kernel may be launched by several steps).
    pub kernels: Vec<String>,
    /// Each step's layer kind (`conv`, `conv+activation`; `kmut.layers`); `None` where none.
    pub kinds: Vec<Option<String>>,
    /// For each step, the earlier steps whose outputs it reads.
    pub reads: Vec<Vec<usize>>,
    pub keep: Keep,
}

/// One step of one evaluation: the mutant's step output against the original's.
#[derive(Debug, Clone, PartialEq)]
pub struct StepError {
    pub mutant: String,
    pub target: String,
    pub suite: String,
    pub seed: u64,
    pub step: usize,
    /// tau\* of the step output (infinite for NaN or infinity; `None` read back as NaN).
    pub tau: Option<f64>,
    /// `||mutant - original|| / ||original||`.
    pub rel_l2: Option<f64>,
    /// The fraction of elements off by more than the substrate's tolerance.
    pub frac_off: Option<f64>,
}

impl Store {
    /// Store (or replace) a column's step layout.
    pub fn put_step_layout(&self, l: &StepLayout, run: i64) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO step_layouts (substrate, target, suite, seed, kernels, kinds, reads, keep, run)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                l.substrate,
                l.target,
                l.suite,
                l.seed as i64,
                serde_json::to_string(&l.kernels)?,
                serde_json::to_string(&l.kinds)?,
                serde_json::to_string(&l.reads)?,
                l.keep.name(),
                run
            ],
        )?;
        Ok(())
    }

    /// The step layouts of a substrate's columns for `target`.
    pub fn step_layouts(&self, substrate: &str, target: &str) -> Result<Vec<StepLayout>> {
        let mut stmt =
            self.conn.prepare("SELECT suite, seed, kernels, kinds, reads, keep FROM step_layouts WHERE substrate = ?1 AND target = ?2 ORDER BY suite, seed")?;
        let rows = stmt.query_map(params![substrate, target], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?, r.get::<_, String>(4)?, r.get::<_, String>(5)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (suite, seed, kernels, kinds, reads, keep) = row?;
            out.push(StepLayout {
                substrate: substrate.to_owned(),
                target: target.to_owned(),
                suite,
                seed: seed as u64,
                kernels: serde_json::from_str(&kernels)?,
                kinds: serde_json::from_str(&kinds)?,
                reads: serde_json::from_str(&reads)?,
                keep: Keep::parse(&keep).ok_or_else(|| crate::StoreError::Corrupt(format!("step_layouts.keep `{keep}`")))?,
            });
        }
        Ok(out)
    }

    /// Store step rows in one transaction (after their evaluations: each row belongs to one).
    pub fn put_step_errors(&mut self, rows: &[StepError]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut put = tx.prepare(
                "INSERT OR REPLACE INTO step_errors (mutant, target, suite, seed, step, tau, rel_l2, frac_off) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for s in rows {
                put.execute(params![s.mutant, s.target, s.suite, s.seed as i64, s.step as i64, s.tau, s.rel_l2, s.frac_off])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every step row of a substrate's mutants for `target`, by mutant, column and step.
    pub fn step_errors(&self, substrate: &str, target: &str) -> Result<Vec<StepError>> {
        let mut stmt = self.conn.prepare(
            "SELECT s.mutant, s.suite, s.seed, s.step, s.tau, s.rel_l2, s.frac_off FROM step_errors s JOIN mutants m ON m.id = s.mutant
             WHERE m.substrate = ?1 AND s.target = ?2 ORDER BY s.mutant, s.suite, s.seed, s.step",
        )?;
        let rows = stmt.query_map(params![substrate, target], |r| {
            Ok(StepError {
                mutant: r.get(0)?,
                target: target.to_owned(),
                suite: r.get(1)?,
                seed: r.get::<_, i64>(2)? as u64,
                step: r.get::<_, i64>(3)? as usize,
                tau: r.get(4)?,
                rel_l2: r.get(5)?,
                frac_off: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}
