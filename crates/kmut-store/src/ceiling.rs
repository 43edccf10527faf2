//! The legitimate-variance ceiling's tables (migration 6): every probed point of `kmut ceiling`
//! and each search's result. `docs/store.md` documents the columns.

use rusqlite::params;

use crate::{Result, Store};

/// One probe of the ceiling search: a generator at one scale and seed, checked against fp64.
#[derive(Debug, Clone, PartialEq)]
pub struct CeilingPoint {
    pub substrate: String,
    pub target: String,
    pub generator: String,
    /// `small`, `official` or `dim=value,...`, as in a `W:` spec.
    pub sizes: String,
    pub scale: f64,
    pub seed: u64,
    /// The original image measured (`CurrentImages::original`).
    pub image: String,
    pub backend: String,
    pub valid: bool,
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
}

/// The result of one search over `[lowest, highest]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CeilingRecord {
    pub substrate: String,
    pub target: String,
    pub generator: String,
    pub sizes: String,
    pub image: String,
    pub backend: String,
    pub lowest: f64,
    pub highest: f64,
    /// The largest probed scale at which every seed was valid (`None`: not even `lowest`).
    pub ceiling: Option<f64>,
    /// The smallest probed scale at which a seed was invalid (`None`: valid up to `highest`).
    pub first_invalid: Option<f64>,
}

impl Store {
    /// Store (or replace) one probe.
    pub fn put_ceiling_point(&self, p: &CeilingPoint, run: i64) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO ceiling_points (substrate, target, generator, sizes, scale, seed, image, backend, valid, tau64_ref, tau64_orig, run)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![p.substrate, p.target, p.generator, p.sizes, p.scale, p.seed as i64, p.image, p.backend, p.valid, p.tau64_ref, p.tau64_orig, run],
        )?;
        Ok(())
    }

    /// Every probe of a substrate for `target` and original `image`, by generator, sizes, scale
    /// and seed (points of an earlier original are left out).
    pub fn ceiling_points(&self, substrate: &str, target: &str, image: &str) -> Result<Vec<CeilingPoint>> {
        let mut stmt = self.conn.prepare(
            "SELECT generator, sizes, scale, seed, backend, valid, tau64_ref, tau64_orig FROM ceiling_points
             WHERE substrate = ?1 AND target = ?2 AND image = ?3 ORDER BY generator, sizes, scale, seed",
        )?;
        let rows = stmt.query_map(params![substrate, target, image], |r| {
            Ok(CeilingPoint {
                substrate: substrate.to_owned(),
                target: target.to_owned(),
                generator: r.get(0)?,
                sizes: r.get(1)?,
                scale: r.get(2)?,
                seed: r.get::<_, i64>(3)? as u64,
                image: image.to_owned(),
                backend: r.get(4)?,
                valid: r.get(5)?,
                tau64_ref: r.get(6)?,
                tau64_orig: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Store (or replace) a search's result.
    pub fn put_ceiling(&self, c: &CeilingRecord, run: i64) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO ceilings (substrate, target, generator, sizes, image, backend, lowest, highest, ceiling, first_invalid, run)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![c.substrate, c.target, c.generator, c.sizes, c.image, c.backend, c.lowest, c.highest, c.ceiling, c.first_invalid, run],
        )?;
        Ok(())
    }

    /// Every stored ceiling, by substrate, target, generator and sizes (`kmut ceiling --no-run`).
    pub fn all_ceilings(&self) -> Result<Vec<CeilingRecord>> {
        self.query_ceilings("", [])
    }

    /// The stored ceilings of a substrate for `target` (any original: `image` says which).
    pub fn ceilings(&self, substrate: &str, target: &str) -> Result<Vec<CeilingRecord>> {
        self.query_ceilings("WHERE substrate = ?1 AND target = ?2", params![substrate, target])
    }

    /// The `ceilings` rows that `filter` (a `WHERE` clause or nothing) selects, in table order.
    fn query_ceilings(&self, filter: &str, args: impl rusqlite::Params) -> Result<Vec<CeilingRecord>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT substrate, target, generator, sizes, image, backend, lowest, highest, ceiling, first_invalid FROM ceilings
             {filter} ORDER BY substrate, target, generator, sizes"
        ))?;
        let rows = stmt.query_map(args, |r| {
            Ok(CeilingRecord {
                substrate: r.get(0)?,
                target: r.get(1)?,
                generator: r.get(2)?,
                sizes: r.get(3)?,
                image: r.get(4)?,
                backend: r.get(5)?,
                lowest: r.get(6)?,
                highest: r.get(7)?,
                ceiling: r.get(8)?,
                first_invalid: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}

/// What `kmut witness --replay` needs of a store: where a mutant lives, a scratch copy, and
/// one column forgotten in that copy so it runs again.
impl Store {
    /// The substrate a mutant id belongs to, `None` when the store has no such mutant.
    pub fn substrate_of(&self, mutant: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension as _;
        Ok(self.conn.query_row("SELECT substrate FROM mutants WHERE id = ?1", params![mutant], |r| r.get(0)).optional()?)
    }

    /// A consistent copy of the whole store at `path` (`VACUUM INTO`; `path` must not exist).
    pub fn copy_to(&self, path: &std::path::Path) -> Result<()> {
        self.conn.execute("VACUUM INTO ?1", params![path.to_string_lossy()])?;
        Ok(())
    }

    /// Remove one column's baseline and one mutant's evaluation on it, so a run evaluates both
    /// again. Meant for a scratch copy (`copy_to`): results are otherwise never deleted.
    pub fn forget_column(&self, substrate: &str, mutant: &str, target: &str, suite: &str, seed: u64) -> Result<()> {
        self.conn
            .execute("DELETE FROM evaluations WHERE mutant = ?1 AND target = ?2 AND suite = ?3 AND seed = ?4", params![mutant, target, suite, seed as i64])?;
        self.conn.execute(
            "DELETE FROM baselines WHERE substrate = ?1 AND target = ?2 AND suite = ?3 AND seed = ?4",
            params![substrate, target, suite, seed as i64],
        )?;
        Ok(())
    }
}
