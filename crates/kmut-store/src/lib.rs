//! The store: one `SQLite` file (default `kmut.sqlite` in the working folder) that every stage
//! reads and extends. This crate owns the schema and its migrations; `docs/store.md` documents
//! each table.
//!
//! Every stage writes as it goes, in short transactions, so a killed run loses at most the
//! results in flight and a re-run resumes from what is stored.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kmut_model::{Backend, Class, Mutant, MutantKind, Outcome, SubstrateDescription};
use rusqlite::{params, Connection, OptionalExtension};

mod ceiling;
mod schema;
mod steps;

pub use ceiling::{CeilingPoint, CeilingRecord};
pub use schema::SCHEMA_VERSION;
pub use steps::{Keep, StepError, StepLayout};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not open the store `{path}`")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the store `{path}` has schema version {found}, newer than this kmut's {supported}; upgrade kmut")]
    TooNew { path: PathBuf, found: i64, supported: i64 },
    #[error("store query failed")]
    Sql(#[from] rusqlite::Error),
    #[error("a stored mutant is not valid JSON")]
    Json(#[from] serde_json::Error),
    #[error("the store holds a value this kmut does not know: {0}")]
    Corrupt(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// One compilation outcome of one source (a mutant or an original) for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileRecord {
    /// Mutant id, or `None` for the substrate's original source.
    pub mutant: Option<String>,
    pub substrate: String,
    /// The NVRTC version and options, as one string (`Target::key`).
    pub target: String,
    /// The kernels compiled into the image, comma-separated in pipeline order: a mutant's image
    /// holds only the kernels its fault reaches (see `docs/store.md`).
    pub scope: String,
    /// SHA-256 of the compiled source.
    pub source_hash: String,
    /// SHA-256 of the CUBIN, `None` when the source did not compile.
    pub image_hash: Option<String>,
    pub log: String,
    /// Compile time; 0 for a cache hit.
    pub compile_ms: f64,
    pub cached: bool,
}

/// The compile class of a mutant for one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassRecord {
    pub mutant: String,
    pub class: Class,
    pub duplicate_of: Option<String>,
}

/// One evaluation of a mutant on one input (a kill-matrix cell).
#[allow(clippy::struct_excessive_bools)] // one column per flag of the stored row
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub mutant: String,
    /// The compile target the mutant's image was built for (`Target::key`), or `cpu` for the
    /// CPU backend (`kmut_model::Backend::evaluation_target`).
    pub target: String,
    pub suite: String,
    pub seed: u64,
    /// The image run: its hash (or `launch:` and the original's hash for launch mutants), so an
    /// evaluation of an image that has since changed is not reused.
    pub image: String,
    /// Where it ran: `cuda:<device name>` or `cpu:<processor model>`.
    pub backend: String,
    pub outcome: Outcome,
    /// The crash class: the CUDA error name, `launch:<Python exception>`, `worker_died`.
    pub crash: Option<String>,
    pub detail: Option<String>,
    /// `max |ref - out| / (1 + |out|)`: `allclose(ref, out, atol=t, rtol=t)` passes iff `tau <= t`.
    /// Infinite for NaN or a shape mismatch; `None` when nothing completed.
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
    pub max_rel: Option<f64>,
    pub nonfinite: bool,
    pub shape_ok: bool,
    /// A canary around a buffer `launch` allocated was overwritten: an out-of-bounds write.
    pub canary: bool,
    /// The cached inputs or reference were damaged by this mutant and rebuilt.
    pub inputs_restored: bool,
    pub kernel_ms: Option<f64>,
    pub wall_ms: f64,
    /// Each thread order's tau\* when the CPU backend ran the mutant in several (racy-on-CPU
    /// mutants); `None` for an order that crashed or gave NaN. Empty for a single run. `tau`
    /// is then the worst of them: a kill in any order is a kill.
    pub orders: Vec<(u32, Option<f64>)>,
}

impl Evaluation {
    /// Does `allclose(ref, out, atol=tol, rtol=tol)` after a shape check fail, or did the run
    /// not complete? That is a kill under a KernelBench-style protocol at `tol`.
    pub fn kills_at(&self, tol: f64) -> bool {
        // NaN compares false, so a NaN tau kills too.
        self.outcome != Outcome::Completed || !self.shape_ok || !matches!(self.tau, Some(t) if t <= tol)
    }

    /// The thread orders in which the mutant was killed at `tol`.
    pub fn killing_orders(&self, tol: f64) -> Vec<u32> {
        self.orders.iter().filter(|(_, tau)| !matches!(tau, Some(t) if *t <= tol)).map(|(o, _)| *o).collect()
    }

    /// Run in several thread orders and killed in some, not all: the verdict depends on the
    /// schedule (the strongest kind of race witness).
    pub fn order_dependent(&self, tol: f64) -> bool {
        let killing = self.killing_orders(tol).len();
        killing > 0 && killing < self.orders.len()
    }
}

/// One run of a substrate's original on one input: the reference point of its column.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    pub substrate: String,
    pub target: String,
    pub suite: String,
    pub seed: u64,
    pub backend: String,
    /// The suite's sizes as JSON.
    pub sizes: String,
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
    pub kernel_ms: Option<f64>,
    pub prep_s: Option<f64>,
    /// The original image the column was measured with (`CurrentImages::original`); `None` in
    /// stores written before it was recorded, which then match no current original.
    pub image: Option<String>,
    /// The column's peak device memory in the worker (inputs, reference, one run of the
    /// original), in bytes; `None` where not measured (the CPU backend).
    pub peak_bytes: Option<u64>,
    /// The witness search's validity gate (generated columns): whether this input may witness;
    /// `None` where it was not checked (a substrate's own suites, accepted through the gate).
    pub valid: Option<bool>,
    /// Distances (tau\*) of the fp32 reference and of the original kernel to the fp64 reference.
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
}

/// What each stored cell of a substrate must have been evaluated on to count now: the image
/// of every current mutant and of the original, as `kmut run` labels its evaluations.
///
/// GPU: a source mutant's CUBIN hash; a launch mutant runs the original image changed on the
/// host side, `launch:<original CUBIN hash>`. CPU backend: the scoped CUDA source's hash
/// (`cpu:<source hash>`, the variant g++ builds from it) and `launch:cpu:<original source hash>`.
/// A mutant without a compile record of the target has no entry: nothing of it is current.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CurrentImages {
    pub mutants: HashMap<String, String>,
    /// The whole original's image, which its baselines are of.
    pub original: Option<String>,
}

/// What `Store::prune` removed (or would remove) of one substrate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    pub substrate: String,
    pub mutants: usize,
    pub evaluations: usize,
}

/// An open store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Open (creating and migrating as needed) the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        let open_err = |source| StoreError::Open { path: path.to_path_buf(), source };
        let conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(open_err)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(open_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_err)?;
        let mut store = Store { conn, path: path.to_path_buf() };
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn migrate(&mut self) -> Result<()> {
        let found: i64 = self.conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: self.path.clone(), found, supported: SCHEMA_VERSION });
        }
        let tx = self.conn.transaction()?;
        for (version, sql) in schema::MIGRATIONS.iter().enumerate() {
            let version = version as i64 + 1;
            if version > found {
                tx.execute_batch(sql)?;
                tx.pragma_update(None, "user_version", version)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Copy another store's compile records (its substrates and mutants, the originals' and
    /// mutants' compilations, the classes) into this one, keeping any row this store already
    /// has, with no run attached. A compile stage then takes a mutant whose source is unchanged
    /// as compiled (`kmut_compile::CompileStage`), so classifying needs no image: `kmut bench
    /// run --classes-from` spends none of a fresh device's time compiling the 1,431 scoped
    /// originals (one at a time) and 7,029 mutants a sample is drawn from (on 2026-12-06 the
    /// bench's setup took 229 s of a 585 s call, with them in it). The other store is opened
    /// first, which migrates it as any command would. Returns the compilations copied.
    pub fn copy_compile_records_from(&mut self, other: &Path) -> Result<usize> {
        drop(Store::open(other)?);
        let attach = other.to_string_lossy().into_owned();
        self.conn.execute("ATTACH DATABASE ?1 AS other", params![attach])?;
        let copied = (|| -> Result<usize> {
            let tx = self.conn.transaction()?;
            tx.execute_batch(
                "INSERT OR IGNORE INTO substrates (name, path, level, cuda, cuda_hash, description, updated_at)
                   SELECT name, path, level, cuda, cuda_hash, description, updated_at FROM other.substrates;
                 INSERT OR IGNORE INTO mutants (id, substrate, rule, family, kernel, layer, depth, line, kind, body, stale)
                   SELECT id, substrate, rule, family, kernel, layer, depth, line, kind, body, stale FROM other.mutants;
                 INSERT OR IGNORE INTO originals (substrate, target, scope, source_hash, image_hash, log, compile_ms, run)
                   SELECT substrate, target, scope, source_hash, image_hash, log, compile_ms, NULL FROM other.originals;
                 INSERT OR IGNORE INTO classes (mutant, target, class, duplicate_of)
                   SELECT mutant, target, class, duplicate_of FROM other.classes;",
            )?;
            let n = tx.execute(
                "INSERT OR IGNORE INTO compilations (mutant, target, scope, source_hash, image_hash, log, compile_ms, cached, run)
                   SELECT mutant, target, scope, source_hash, image_hash, log, compile_ms, cached, NULL FROM other.compilations",
                [],
            )?;
            tx.commit()?;
            Ok(n)
        })();
        self.conn.execute("DETACH DATABASE other", [])?;
        copied
    }

    /// Record the start of a run; returns its id.
    pub fn begin_run(&self, command: &str, nvrtc_version: &str, options: &str) -> Result<i64> {
        let host = std::env::var("HOSTNAME").or_else(|_| std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_owned())).unwrap_or_default();
        self.conn.execute(
            "INSERT INTO runs (command, kmut_version, host, nvrtc_version, options, started_at, status) VALUES (?1, ?2, ?3, ?4, ?5, datetime('now'), 'running')",
            params![command, env!("CARGO_PKG_VERSION"), host, nvrtc_version, options],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Record how a run ended (`done`, `interrupted`, `failed`).
    pub fn finish_run(&self, run: i64, status: &str) -> Result<()> {
        self.conn.execute("UPDATE runs SET finished_at = datetime('now'), status = ?2 WHERE id = ?1", params![run, status])?;
        Ok(())
    }

    /// Insert or update a substrate.
    pub fn put_substrate(&self, desc: &SubstrateDescription, cuda_hash: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO substrates (name, path, level, cuda, cuda_hash, description, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, datetime('now'))
             ON CONFLICT(name) DO UPDATE SET path = excluded.path, level = excluded.level, cuda = excluded.cuda,
               cuda_hash = excluded.cuda_hash, description = excluded.description, updated_at = excluded.updated_at",
            params![desc.name, desc.path, desc.level, desc.cuda, cuda_hash, serde_json::to_string(desc)?],
        )?;
        Ok(())
    }

    /// Store `mutants` as the current generation of `substrate`: new ones are added, changed
    /// ones updated, and the substrate's other stored mutants (whose sites an edit of the source
    /// moved or removed) are marked stale. Nothing is deleted: stale mutants keep their results
    /// until `prune`, and no later read takes them for current. Returns how many are stale.
    pub fn put_mutants(&mut self, substrate: &str, mutants: &[Mutant]) -> Result<usize> {
        let bodies: Vec<String> = mutants.iter().map(serde_json::to_string).collect::<std::result::Result<_, _>>()?;
        if self.mutants_unchanged(substrate, mutants, &bodies)? {
            // Every command that compiles goes through here for every substrate: rewriting
            // 163,881 unchanged rows cost 44 s of each H200 call (and 2 min on a slow disk).
            return Ok(0);
        }
        let tx = self.conn.transaction()?;
        tx.execute("UPDATE mutants SET stale = 1 WHERE substrate = ?1", params![substrate])?;
        {
            let mut put = tx.prepare(
                "INSERT INTO mutants (id, substrate, rule, family, kernel, layer, depth, line, kind, body, stale) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0)
                 ON CONFLICT(id) DO UPDATE SET substrate = excluded.substrate, rule = excluded.rule, family = excluded.family,
                   kernel = excluded.kernel, layer = excluded.layer, depth = excluded.depth, line = excluded.line, kind = excluded.kind,
                   body = excluded.body, stale = 0",
            )?;
            for (m, body) in mutants.iter().zip(&bodies) {
                let kind = match m.mutation {
                    MutantKind::Source { .. } => "source",
                    MutantKind::Launch { .. } => "launch",
                };
                put.execute(params![m.id, m.substrate, m.rule, m.family.name(), m.kernel, m.layer, m.depth, m.line, kind, body])?;
            }
        }
        let stale: i64 = tx.query_row("SELECT count(*) FROM mutants WHERE substrate = ?1 AND stale = 1", params![substrate], |r| r.get(0))?;
        tx.commit()?;
        Ok(stale as usize)
    }

    /// Whether the store already holds exactly `mutants` for `substrate` (the same ids with the
    /// same bodies, none stale, nothing else): then `put_mutants` has nothing to write. Reading
    /// is cheap beside rewriting every row.
    fn mutants_unchanged(&self, substrate: &str, mutants: &[Mutant], bodies: &[String]) -> Result<bool> {
        let mut rows = self.conn.prepare_cached("SELECT id, body, stale FROM mutants WHERE substrate = ?1")?;
        let mut stored: std::collections::HashMap<String, String> = std::collections::HashMap::with_capacity(mutants.len());
        let mut rows = rows.query(params![substrate])?;
        while let Some(r) = rows.next()? {
            if r.get::<_, i64>(2)? != 0 {
                return Ok(false);
            }
            stored.insert(r.get(0)?, r.get(1)?);
        }
        Ok(stored.len() == mutants.len() && mutants.iter().zip(bodies).all(|(m, b)| stored.get(&m.id) == Some(b)))
    }

    /// Delete the stale mutants of `substrates` (every substrate when empty) with their
    /// compilations, classes and evaluations; with `dry_run`, only count them. One row per
    /// substrate that has any.
    pub fn prune(&mut self, substrates: &[String], dry_run: bool) -> Result<Vec<Pruned>> {
        let tx = self.conn.transaction()?;
        let mut out = Vec::new();
        {
            let mut counts = tx.prepare(
                "SELECT m.substrate, count(DISTINCT m.id), count(e.mutant) FROM mutants m LEFT JOIN evaluations e ON e.mutant = m.id
                 WHERE m.stale = 1 GROUP BY m.substrate ORDER BY m.substrate",
            )?;
            let rows = counts
                .query_map([], |r| Ok(Pruned { substrate: r.get(0)?, mutants: r.get::<_, i64>(1)? as usize, evaluations: r.get::<_, i64>(2)? as usize }))?;
            for row in rows {
                let row = row?;
                if substrates.is_empty() || substrates.contains(&row.substrate) {
                    out.push(row);
                }
            }
        }
        if !dry_run {
            for p in &out {
                tx.execute("DELETE FROM mutants WHERE substrate = ?1 AND stale = 1", params![p.substrate])?;
            }
        }
        tx.commit()?;
        Ok(out)
    }

    /// How many stored mutants of `substrate` are stale.
    pub fn stale_count(&self, substrate: &str) -> Result<usize> {
        let n: i64 = self.conn.query_row("SELECT count(*) FROM mutants WHERE substrate = ?1 AND stale = 1", params![substrate], |r| r.get(0))?;
        Ok(n as usize)
    }

    /// The current (not stale) mutants of `substrate`, ordered by id.
    pub fn mutants(&self, substrate: &str) -> Result<Vec<Mutant>> {
        let mut stmt = self.conn.prepare("SELECT body FROM mutants WHERE substrate = ?1 AND stale = 0 ORDER BY id")?;
        let rows = stmt.query_map(params![substrate], |r| r.get::<_, String>(0))?;
        rows.map(|r| Ok(serde_json::from_str(&r?)?)).collect()
    }

    /// Store compile records in one transaction.
    pub fn put_compilations(&mut self, records: &[CompileRecord], run: i64) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut mutant = tx.prepare(
                "INSERT OR REPLACE INTO compilations (mutant, target, scope, source_hash, image_hash, log, compile_ms, cached, run) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?;
            let mut original =
                tx.prepare("INSERT OR REPLACE INTO originals (substrate, target, scope, source_hash, image_hash, log, compile_ms, run) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?;
            for r in records {
                match &r.mutant {
                    Some(id) => mutant.execute(params![id, r.target, r.scope, r.source_hash, r.image_hash, r.log, r.compile_ms, r.cached, run])?,
                    None => original.execute(params![r.substrate, r.target, r.scope, r.source_hash, r.image_hash, r.log, r.compile_ms, run])?,
                };
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The compile record of a substrate's original source reduced to `scope`, if any.
    pub fn original(&self, substrate: &str, target: &str, scope: &str) -> Result<Option<CompileRecord>> {
        Ok(self
            .conn
            .query_row(
                "SELECT source_hash, image_hash, log, compile_ms FROM originals WHERE substrate = ?1 AND target = ?2 AND scope = ?3",
                params![substrate, target, scope],
                |r| {
                    Ok(CompileRecord {
                        mutant: None,
                        substrate: substrate.to_owned(),
                        target: target.to_owned(),
                        scope: scope.to_owned(),
                        source_hash: r.get(0)?,
                        image_hash: r.get(1)?,
                        log: r.get(2)?,
                        compile_ms: r.get(3)?,
                        cached: false,
                    })
                },
            )
            .optional()?)
    }

    /// Compile records of a substrate's mutants for `target`, by mutant id.
    pub fn compilations(&self, substrate: &str, target: &str) -> Result<HashMap<String, CompileRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT c.mutant, c.source_hash, c.image_hash, c.log, c.compile_ms, c.cached, c.scope FROM compilations c
             JOIN mutants m ON m.id = c.mutant WHERE m.substrate = ?1 AND c.target = ?2",
        )?;
        let rows = stmt.query_map(params![substrate, target], |r| {
            Ok(CompileRecord {
                mutant: Some(r.get(0)?),
                substrate: substrate.to_owned(),
                target: target.to_owned(),
                scope: r.get(6)?,
                source_hash: r.get(1)?,
                image_hash: r.get(2)?,
                log: r.get(3)?,
                compile_ms: r.get(4)?,
                cached: r.get(5)?,
            })
        })?;
        let mut out = HashMap::new();
        for r in rows {
            let r = r?;
            out.insert(r.mutant.clone().unwrap_or_default(), r);
        }
        Ok(out)
    }

    /// Store the classes of the given mutants for `target` (replacing theirs); the classes of
    /// the substrate's other mutants are left as they are.
    pub fn put_classes(&mut self, target: &str, classes: &[ClassRecord]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut put = tx.prepare("INSERT OR REPLACE INTO classes (mutant, target, class, duplicate_of) VALUES (?1, ?2, ?3, ?4)")?;
            for c in classes {
                put.execute(params![c.mutant, target, c.class.name(), c.duplicate_of])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Classes of a substrate's mutants for `target`, by mutant id.
    pub fn classes(&self, substrate: &str, target: &str) -> Result<HashMap<String, ClassRecord>> {
        let mut stmt = self
            .conn
            .prepare("SELECT c.mutant, c.class, c.duplicate_of FROM classes c JOIN mutants m ON m.id = c.mutant WHERE m.substrate = ?1 AND c.target = ?2")?;
        let rows = stmt.query_map(params![substrate, target], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?)))?;
        let mut out = HashMap::new();
        for r in rows {
            let (mutant, class, duplicate_of) = r?;
            let class = Class::parse(&class).map_err(StoreError::Corrupt)?;
            out.insert(mutant.clone(), ClassRecord { mutant, class, duplicate_of });
        }
        Ok(out)
    }

    /// `(command, status)` of every run, oldest first.
    pub fn runs(&self) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare("SELECT command, status FROM runs ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Every stored substrate description, by name.
    pub fn substrates(&self) -> Result<Vec<SubstrateDescription>> {
        let mut stmt = self.conn.prepare("SELECT description FROM substrates ORDER BY name")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.map(|r| Ok(serde_json::from_str(&r?)?)).collect()
    }

    /// Store evaluations in one transaction; an evaluation already stored is replaced.
    pub fn put_evaluations(&mut self, rows: &[Evaluation], run: i64) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut put = tx.prepare(
                "INSERT OR REPLACE INTO evaluations (mutant, target, suite, seed, image, backend, outcome, crash, detail, tau, max_abs, max_rel,
                   nonfinite, shape_ok, canary, inputs_restored, kernel_ms, wall_ms, run, orders)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
            )?;
            // A cell's step rows belong to the evaluation they were captured with (kmut depth).
            let mut drop_steps = tx.prepare("DELETE FROM step_errors WHERE mutant = ?1 AND target = ?2 AND suite = ?3 AND seed = ?4")?;
            for e in rows {
                drop_steps.execute(params![e.mutant, e.target, e.suite, e.seed as i64])?;
                put.execute(params![
                    e.mutant,
                    e.target,
                    e.suite,
                    e.seed as i64,
                    e.image,
                    e.backend,
                    e.outcome.name(),
                    e.crash,
                    e.detail,
                    e.tau,
                    e.max_abs,
                    e.max_rel,
                    e.nonfinite,
                    e.shape_ok,
                    e.canary,
                    e.inputs_restored,
                    e.kernel_ms,
                    e.wall_ms,
                    run,
                    (!e.orders.is_empty()).then(|| serde_json::to_string(&e.orders).unwrap_or_default())
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every evaluation of a substrate's mutants for `target`.
    pub fn evaluations(&self, substrate: &str, target: &str) -> Result<Vec<Evaluation>> {
        let mut stmt = self.conn.prepare(
            "SELECT e.mutant, e.suite, e.seed, e.image, e.backend, e.outcome, e.crash, e.detail, e.tau, e.max_abs, e.max_rel,
                    e.nonfinite, e.shape_ok, e.canary, e.inputs_restored, e.kernel_ms, e.wall_ms, e.orders
             FROM evaluations e JOIN mutants m ON m.id = e.mutant WHERE m.substrate = ?1 AND e.target = ?2 ORDER BY e.mutant, e.suite, e.seed",
        )?;
        let rows = stmt.query_map(params![substrate, target], |r| {
            let outcome: String = r.get(5)?;
            Ok(Evaluation {
                mutant: r.get(0)?,
                target: target.to_owned(),
                suite: r.get(1)?,
                seed: r.get::<_, i64>(2)? as u64,
                image: r.get(3)?,
                backend: r.get(4)?,
                // The schema's CHECK admits only the three outcomes.
                outcome: Outcome::parse(&outcome).unwrap_or(Outcome::Crash),
                crash: r.get(6)?,
                detail: r.get(7)?,
                tau: r.get(8)?,
                max_abs: r.get(9)?,
                max_rel: r.get(10)?,
                nonfinite: r.get(11)?,
                shape_ok: r.get(12)?,
                canary: r.get(13)?,
                inputs_restored: r.get(14)?,
                kernel_ms: r.get(15)?,
                wall_ms: r.get(16)?,
                orders: r.get::<_, Option<String>>(17)?.and_then(|j| serde_json::from_str(&j).ok()).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Store (or replace) the original's run on one input.
    pub fn put_baseline(&self, b: &Baseline, run: i64) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO baselines (substrate, target, suite, seed, backend, sizes, tau, max_abs, kernel_ms, prep_s, run, image, peak_bytes,
               valid, tau64_ref, tau64_orig)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            params![
                b.substrate,
                b.target,
                b.suite,
                b.seed as i64,
                b.backend,
                b.sizes,
                b.tau,
                b.max_abs,
                b.kernel_ms,
                b.prep_s,
                run,
                b.image,
                b.peak_bytes.map(|p| p as i64),
                b.valid,
                b.tau64_ref,
                b.tau64_orig
            ],
        )?;
        Ok(())
    }

    /// The original's runs of a substrate for `target`.
    pub fn baselines(&self, substrate: &str, target: &str) -> Result<Vec<Baseline>> {
        let mut stmt = self.conn.prepare(
            "SELECT suite, seed, backend, sizes, tau, max_abs, kernel_ms, prep_s, image, peak_bytes, valid, tau64_ref, tau64_orig
             FROM baselines WHERE substrate = ?1 AND target = ?2 ORDER BY suite, seed",
        )?;
        let rows = stmt.query_map(params![substrate, target], |r| {
            Ok(Baseline {
                substrate: substrate.to_owned(),
                target: target.to_owned(),
                suite: r.get(0)?,
                seed: r.get::<_, i64>(1)? as u64,
                backend: r.get(2)?,
                sizes: r.get(3)?,
                tau: r.get(4)?,
                max_abs: r.get(5)?,
                kernel_ms: r.get(6)?,
                prep_s: r.get(7)?,
                image: r.get(8)?,
                peak_bytes: r.get::<_, Option<i64>>(9)?.map(|p| p as u64),
                valid: r.get(10)?,
                tau64_ref: r.get(11)?,
                tau64_orig: r.get(12)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Targets that hold classes for `substrate`, most recent compile first.
    pub fn targets(&self, substrate: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT c.target FROM compilations c JOIN mutants m ON m.id = c.mutant WHERE m.substrate = ?1
             GROUP BY c.target ORDER BY MAX(c.run) DESC",
        )?;
        let rows = stmt.query_map(params![substrate], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Whether any witness search has prepared a generated column (a `W:` suite) here.
    pub fn has_generated_baselines(&self) -> Result<bool> {
        Ok(self.conn.query_row("SELECT EXISTS (SELECT 1 FROM baselines WHERE suite LIKE 'W:%')", [], |r| r.get(0))?)
    }

    /// Every mutant with at least one stored evaluation, under any target (sorted): what a
    /// command that only reads evaluated mutants (`kmut audit`) needs compiled, and no more.
    pub fn evaluated_mutants(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT mutant FROM evaluations ORDER BY mutant")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The kernel seconds of one run's evaluations by substrate, heaviest first (ties by name):
    /// where a run's GPU time went (`kmut bench run`). Evaluations without a kernel time (a
    /// crash, a timeout) count nothing; a substrate with none of its evaluations timed is left out.
    pub fn kernel_seconds_by_substrate(&self, run: i64) -> Result<Vec<(String, f64)>> {
        let mut stmt = self.conn.prepare(
            "SELECT m.substrate, SUM(e.kernel_ms) / 1000.0 AS s FROM evaluations e JOIN mutants m ON m.id = e.mutant
             WHERE e.run = ?1 AND e.kernel_ms IS NOT NULL GROUP BY m.substrate ORDER BY s DESC, m.substrate",
        )?;
        let rows = stmt.query_map(params![run], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The distinct targets evaluations are stored under (compile targets for GPU runs, `cpu`
    /// for the CPU backend).
    pub fn evaluation_targets(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT target FROM evaluations ORDER BY target")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The image every current mutant of `desc`, and its original, is evaluated on by `backend`
    /// under the compile target `target` (see [`CurrentImages`]).
    pub fn current_images(&self, desc: &SubstrateDescription, target: &str, backend: Backend) -> Result<CurrentImages> {
        let whole = desc.kernels.join(",");
        let original: Option<(String, Option<String>)> = self
            .conn
            .query_row(
                "SELECT source_hash, image_hash FROM originals WHERE substrate = ?1 AND target = ?2 AND scope = ?3",
                params![desc.name, target, whole],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let original = original.and_then(|(source, image)| match backend {
            Backend::Gpu => image,
            Backend::Cpu => Some(format!("cpu:{source}")),
        });
        let mut stmt = self.conn.prepare(
            "SELECT m.id, m.kind, c.source_hash, c.image_hash FROM mutants m LEFT JOIN compilations c ON c.mutant = m.id AND c.target = ?2
             WHERE m.substrate = ?1 AND m.stale = 0",
        )?;
        let rows = stmt.query_map(params![desc.name, target], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, Option<String>>(3)?))
        })?;
        let mut mutants = HashMap::new();
        for row in rows {
            let (id, kind, source, image) = row?;
            let current = match (kind.as_str(), backend) {
                ("launch", _) => original.as_ref().map(|o| format!("launch:{o}")),
                (_, Backend::Gpu) => image,
                (_, Backend::Cpu) => source.map(|s| format!("cpu:{s}")),
            };
            if let Some(c) = current {
                mutants.insert(id, c);
            }
        }
        Ok(CurrentImages { mutants, original })
    }
}
