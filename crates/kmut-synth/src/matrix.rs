//! A problem's kill matrix over its witnessed mutants and its candidate inputs, read from the
//! store with the same rules as `kmut score --denominator witnessed` (`docs/scoring.md`).

use std::collections::HashMap;

use kmut_model::{cpu_fidelity, Backend, Class, Column, CpuFidelity, Inputs, Outcome, Protocol, SubstrateDescription};
use kmut_score::{verdict, TimeoutPolicy, Verdict};
use kmut_store::{Evaluation, Store};
use serde::Serialize;

use crate::bits::Bits;
use crate::split::Half;

/// Where a candidate input comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// One of the checking protocol's own trial inputs (`T0_original` under a trial seed).
    Official,
    /// One of the substrate's own targeted suites.
    Suite { suite: String },
    /// A witness search column, `W:<generator>:<scale>:<sizes>` (`python/kmut/generators.py`).
    Generated { generator: String, scale: String, sizes: String },
}

impl Source {
    fn of(column: &Column, official: &[Column]) -> Source {
        if official.contains(column) {
            return Source::Official;
        }
        match column.suite.strip_prefix("W:").map(|rest| rest.splitn(3, ':').map(str::to_owned).collect::<Vec<_>>()) {
            Some(p) if p.len() == 3 => Source::Generated { generator: p[0].clone(), scale: p[1].clone(), sizes: p[2].clone() },
            _ => Source::Suite { suite: column.suite.clone() },
        }
    }

    /// A few words for tables: `official`, the suite's name, or `scaled x100 @small`.
    pub fn label(&self) -> String {
        match self {
            Source::Official => "official".into(),
            Source::Suite { suite } => suite.clone(),
            Source::Generated { generator, scale, sizes } if scale == "1" => format!("{generator} @{sizes}"),
            Source::Generated { generator, scale, sizes } => format!("{generator} x{scale} @{sizes}"),
        }
    }
}

/// One input a synthesised suite may pick: a column of the kill matrix, valid for the problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub column: Column,
    pub source: Source,
}

/// What a problem's matrix leaves out, so that missing data never reads as a result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Live mutants (on the CPU backend: less the equivalent- and racy-on-CPU ones).
    pub live: usize,
    /// Killed by some valid input: the population a suite is synthesised for.
    pub witnessed: usize,
    /// Missed by the protocol, and a complete search found no valid input that kills them.
    pub possibly_equivalent: usize,
    /// Missed by the protocol, not killed by any input run so far, with part of the search not
    /// run: whether they are witnessed is unknown, and they are left out.
    pub undecided: usize,
    /// The protocol's verdict is a timeout, or it was run on only part of the protocol's inputs.
    pub protocol_undecided: usize,
    /// No current cell on any of the protocol's inputs (outside the run's sample).
    pub not_run: usize,
    /// Generated columns the validity gate refused (past the legitimate-variance ceiling).
    pub invalid_columns: usize,
    /// Generated columns never prepared: their validity, and every cell on them, is unknown.
    pub unprepared_columns: usize,
    /// (witnessed mutant, candidate) cells with no current evaluation: a first-kill run stops a
    /// mutant at its first kill, so only a `--full-matrix` run fills them.
    pub missing_cells: usize,
}

/// One problem (substrate): its candidates in tie-break order (the protocol's inputs, then the
/// substrate's suites, then generated columns in the witness search's order, each by seed), its
/// witnessed mutants, and which candidate kills which.
#[derive(Debug, Clone)]
pub struct Problem {
    pub substrate: String,
    pub level: u8,
    pub path: String,
    pub candidates: Vec<Candidate>,
    /// Witnessed mutant ids.
    pub mutants: Vec<String>,
    pub halves: Vec<Half>,
    /// Per candidate: the mutants its cell kills.
    pub kills: Vec<Bits>,
    /// Per candidate: the mutants with no current cell on it.
    pub unknown: Vec<Bits>,
    /// The candidates that are the protocol's own inputs (its decisive columns).
    pub official: Vec<usize>,
    pub counts: Counts,
}

impl Problem {
    /// A problem from a hand-made matrix: `cells[candidate][mutant]` is `Some(killed)` or `None`
    /// (not run). Candidates whose column is in `official` are the protocol's.
    pub fn from_matrix(substrate: &str, columns: &[Column], official: &[Column], mutants: &[String], cells: &[Vec<Option<bool>>]) -> Problem {
        let n = mutants.len();
        let mut kills = Vec::new();
        let mut unknown = Vec::new();
        for row in cells {
            let (mut k, mut u) = (Bits::new(n), Bits::new(n));
            for (m, cell) in row.iter().enumerate() {
                match cell {
                    Some(true) => k.set(m),
                    Some(false) => {}
                    None => u.set(m),
                }
            }
            kills.push(k);
            unknown.push(u);
        }
        let missing_cells = unknown.iter().map(Bits::count).sum();
        Problem {
            substrate: substrate.into(),
            level: 0,
            path: String::new(),
            candidates: columns.iter().map(|c| Candidate { column: c.clone(), source: Source::of(c, official) }).collect(),
            halves: mutants.iter().map(|m| Half::of(m)).collect(),
            mutants: mutants.to_vec(),
            kills,
            unknown,
            official: columns.iter().enumerate().filter(|(_, c)| official.contains(c)).map(|(i, _)| i).collect(),
            counts: Counts { live: n, witnessed: n, missing_cells, ..Counts::default() },
        }
    }

    /// The witnessed mutants of one half (or all of them).
    pub fn mask(&self, half: Option<Half>) -> Bits {
        let mut b = Bits::new(self.mutants.len());
        for (i, h) in self.halves.iter().enumerate() {
            if half.is_none() || half == Some(*h) {
                b.set(i);
            }
        }
        b
    }

    /// The same problem with its mutants in the halves of split number `salt` (`Half::salted`).
    #[must_use]
    pub fn resplit(&self, salt: u32) -> Problem {
        Problem { halves: self.mutants.iter().map(|m| Half::salted(m, salt)).collect(), ..self.clone() }
    }

    /// The problem cut down to the mutants at `keep` (indices into `mutants`, in the order
    /// given), each placed in the half `half` gives it: the nested and learning-curve studies
    /// (`examples/`) drop mutants before anything reads them.
    #[must_use]
    pub fn restrict(&self, keep: &[usize], half: impl Fn(&str) -> Half) -> Problem {
        let cut = |b: &Bits| {
            let mut out = Bits::new(keep.len());
            keep.iter().enumerate().filter(|(_, &m)| b.get(m)).for_each(|(i, _)| out.set(i));
            out
        };
        let mutants: Vec<String> = keep.iter().map(|&m| self.mutants[m].clone()).collect();
        Problem {
            halves: mutants.iter().map(|id| half(id)).collect(),
            kills: self.kills.iter().map(cut).collect(),
            unknown: self.unknown.iter().map(cut).collect(),
            mutants,
            ..self.clone()
        }
    }
}

/// Which evaluations to read and how to judge them.
#[derive(Debug, Clone)]
pub struct MatrixOptions {
    pub protocol: Protocol,
    pub tolerance: f64,
    pub backend: Backend,
}

impl MatrixOptions {
    /// `protocol`'s evaluations on `backend`, judged at its own tolerance.
    #[must_use]
    pub fn of(protocol: &Protocol, backend: Backend) -> MatrixOptions {
        MatrixOptions { tolerance: protocol.tolerance(), protocol: protocol.clone(), backend }
    }
}

/// A substrate with nothing to synthesise from, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub substrate: String,
    pub reason: String,
}

/// Read every problem's matrix (the named substrates, or all in the store).
pub fn load(store: &Store, substrates: &[String], options: &MatrixOptions) -> Result<(Vec<Problem>, Vec<Skipped>), kmut_store::StoreError> {
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    let descs = store.substrates()?;
    for name in substrates.iter().filter(|n| !descs.iter().any(|d| &d.name == *n)) {
        skipped.push(Skipped { substrate: name.clone(), reason: "not in the store".into() });
    }
    for d in descs.iter().filter(|d| substrates.is_empty() || substrates.contains(&d.name)) {
        match problem(store, d, options)? {
            Ok(p) => problems.push(p),
            Err(reason) => skipped.push(Skipped { substrate: d.name.clone(), reason }),
        }
    }
    Ok((problems, skipped))
}

/// One substrate's matrix, or why there is none.
fn problem(store: &Store, d: &SubstrateDescription, o: &MatrixOptions) -> Result<Result<Problem, String>, kmut_store::StoreError> {
    let Some(target) = store.targets(&d.name)?.into_iter().next() else {
        return Ok(Err("not compiled (no compile record)".into()));
    };
    let evaluated_on = o.backend.evaluation_target(&target);
    let current = store.current_images(d, &target, o.backend)?;
    let baselines = store.baselines(&d.name, &evaluated_on)?;
    let base = |c: &Column| baselines.iter().find(|b| b.suite == c.suite && b.seed == c.seed && b.image.is_some() && b.image == current.original);
    // A column whose current original fails it decides nothing (kmut score's decisive columns).
    let fails = |c: &Column| base(c).is_some_and(|b| !matches!(b.tau, Some(t) if t <= o.tolerance));
    let official: Vec<Column> = o.protocol.columns_for(d, Inputs::Protocol.on(o.backend)).into_iter().filter(|c| !fails(c)).collect();
    let mut counts = Counts::default();
    let mut columns = Vec::new();
    for c in o.protocol.columns_for(d, Inputs::Witness.on(o.backend)) {
        if c.suite.starts_with("W:") {
            match base(&c).and_then(|b| b.valid) {
                Some(true) => columns.push(c),
                Some(false) => counts.invalid_columns += 1,
                None => counts.unprepared_columns += 1,
            }
        } else if !fails(&c) {
            columns.push(c);
        }
    }
    let class_of = store.classes(&d.name, &target)?;
    let evals = store.evaluations(&d.name, &evaluated_on)?;
    let mut cells: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
    for e in evals.iter().filter(|e| current.mutants.get(&e.mutant) == Some(&e.image)) {
        cells.entry(e.mutant.as_str()).or_default().push(e);
    }
    let mut rows: Vec<(String, Vec<Option<bool>>)> = Vec::new();
    for m in store.mutants(&d.name)? {
        if class_of.get(&m.id).map(|c| c.class) != Some(Class::Live) {
            continue;
        }
        // On the CPU backend, mutants whose CPU verdict does not stand for a GPU's are set apart
        // as `kmut score` does.
        if o.backend == Backend::Cpu && cpu_fidelity(m.family, &m.rule) != CpuFidelity::Comparable {
            continue;
        }
        counts.live += 1;
        let mine = cells.get(m.id.as_str()).map(Vec::as_slice).unwrap_or_default();
        let row: Vec<Option<bool>> =
            columns.iter().map(|c| mine.iter().find(|e| e.suite == c.suite && e.seed == c.seed).map(|e| kills(e, o.tolerance))).collect();
        match verdict(mine, &official, o.tolerance, TimeoutPolicy::Exclude) {
            Verdict::Killed(_) => {}
            Verdict::Survived if row.contains(&Some(true)) => {}
            Verdict::Survived if counts.unprepared_columns == 0 && row.iter().all(Option::is_some) => {
                counts.possibly_equivalent += 1;
                continue;
            }
            Verdict::Survived => {
                counts.undecided += 1;
                continue;
            }
            Verdict::NotRun => {
                counts.not_run += 1;
                continue;
            }
            _ => {
                counts.protocol_undecided += 1;
                continue;
            }
        }
        rows.push((m.id.clone(), row));
    }
    let ids: Vec<String> = rows.iter().map(|(id, _)| id.clone()).collect();
    let cells: Vec<Vec<Option<bool>>> = (0..columns.len()).map(|c| rows.iter().map(|(_, r)| r[c]).collect()).collect();
    let mut p = Problem::from_matrix(&d.name, &columns, &official, &ids, &cells);
    p.level = d.level;
    p.path.clone_from(&d.path);
    counts.witnessed = ids.len();
    counts.missing_cells = p.counts.missing_cells;
    p.counts = counts;
    Ok(Ok(p))
}

/// A cell witnesses when its output fails the comparison or it crashed; the watchdog's stop does
/// not (the audited protocols would not fail a merely slow kernel; `kmut score`'s default).
fn kills(e: &Evaluation, tolerance: f64) -> bool {
    match e.outcome {
        Outcome::Timeout => false,
        Outcome::Crash => true,
        Outcome::Completed => e.kills_at(tolerance),
    }
}
