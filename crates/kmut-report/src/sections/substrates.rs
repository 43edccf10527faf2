//! The substrates: an index on the overview, and a page per substrate with its kernels, its
//! input columns and every current mutant (rule, family, layer, diff, class, the verdict under
//! each protocol, the witness and its spec, and the mutant's result on every input it ran).

use kmut_model::{Class, CpuFidelity, MutantKind};
use kmut_score::{Group, Kill, Verdict};
use serde::Serialize;

use super::overview::{cell, CellView};
use super::{Rendered, Section};
use crate::templates::Templates;
use crate::{file_safe, MutantData, ReportData, ReportError, SubstrateData, VERDICT_WORDS};

pub struct Substrates;

#[derive(Serialize)]
struct IndexRow {
    name: String,
    href: String,
    level: u8,
    kernels: usize,
    mutants: usize,
    live: usize,
    cells: Vec<CellView>,
}

#[derive(Serialize)]
struct IndexView {
    protocols: Vec<String>,
    rows: Vec<IndexRow>,
}

impl Section for Substrates {
    fn id(&self) -> &'static str {
        "substrates"
    }

    fn title(&self) -> &'static str {
        "Substrates"
    }

    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError> {
        if data.substrates.is_empty() {
            return Ok(Rendered::NotMeasured("The store holds no substrate: run `kmut compile` (and `kmut run`) first.".into()));
        }
        let rows = data
            .substrates
            .iter()
            .map(|s| IndexRow {
                name: s.name.clone(),
                href: format!("substrates/{}.html", file_safe(&s.name)),
                level: s.level,
                kernels: s.kernels.len(),
                mutants: s.total_mutants(),
                live: s.live_mutants(),
                cells: rates_of(data, &s.name),
            })
            .collect();
        let view = IndexView { protocols: data.scores.iter().map(|s| s.name.clone()).collect(), rows };
        Ok(Rendered::Shown(templates.render("substrates.html", &view)?))
    }
}

/// The substrate's miss rate under each protocol.
fn rates_of(data: &ReportData, name: &str) -> Vec<CellView> {
    data.scores.iter().map(|p| p.score.by_substrate.iter().find(|g| g.name == name).map_or_else(|| cell(&Group::default()), cell)).collect()
}

#[derive(Serialize)]
pub struct PageView {
    name: String,
    level: u8,
    path: String,
    target: Option<String>,
    backend: &'static str,
    protocols: Vec<ProtocolHead>,
    rates: Vec<CellView>,
    classes: Vec<(&'static str, usize)>,
    kernels: Vec<crate::KernelData>,
    columns: Vec<ColumnView>,
    generated_columns: usize,
    invalid_columns: usize,
    families: Vec<&'static str>,
    verdict_words: Vec<&'static str>,
    mutants: Vec<MutantView>,
    stale_cells: usize,
    /// Mutants not listed (never run; `kmut report --scope all` lists them).
    unlisted: usize,
}

#[derive(Serialize)]
struct ProtocolHead {
    name: String,
    tolerance: String,
}

#[derive(Serialize)]
struct ColumnView {
    name: String,
    generated: bool,
    sizes: String,
    tau: String,
    validity: String,
    current: bool,
}

#[derive(Serialize)]
struct MutantView {
    id: String,
    rule: String,
    family: &'static str,
    kernel: String,
    layer: String,
    place: String,
    change: String,
    class: String,
    diff: String,
    /// Under each protocol: the filter's word and a sentence.
    verdicts: Vec<VerdictView>,
    fidelity: Option<&'static str>,
    cells: Vec<CellRow>,
}

#[derive(Serialize)]
struct VerdictView {
    word: String,
    text: String,
    witness: Option<String>,
}

#[derive(Serialize)]
struct CellRow {
    column: String,
    outcome: String,
    tau: String,
    /// Under each protocol's tolerance: `fails` (a kill) or `passes`.
    marks: Vec<&'static str>,
    notes: String,
}

/// A number as the tables print it.
fn num(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        Some(t) if t.is_infinite() => "inf".into(),
        Some(t) if t.is_nan() => "nan".into(),
        Some(0.0) => "0".into(),
        Some(t) => format!("{t:.3e}"),
    }
}

/// The view of substrate `i`'s page.
pub fn page(data: &ReportData, i: usize) -> PageView {
    let s: &SubstrateData = &data.substrates[i];
    let mut families: Vec<&'static str> = s.mutants.iter().map(|m| m.mutant.family.name()).collect();
    families.sort_unstable();
    families.dedup();
    let mut verdict_words: Vec<&'static str> = VERDICT_WORDS.to_vec();
    verdict_words.extend(["stillborn", "equivalent", "duplicate", "uncompiled"]);
    PageView {
        name: s.name.clone(),
        level: s.level,
        path: s.path.clone(),
        target: s.target.clone(),
        backend: data.backend.name(),
        protocols: data.scores.iter().map(|p| ProtocolHead { name: p.name.clone(), tolerance: format!("{:e}", p.tolerance) }).collect(),
        rates: rates_of(data, &s.name),
        classes: s.classes.clone(),
        kernels: s.kernels.clone(),
        columns: s
            .columns
            .iter()
            .map(|c| ColumnView {
                name: format!("{} seed {}", c.suite, c.seed),
                generated: c.generated,
                sizes: c.sizes.clone(),
                tau: num(c.tau),
                validity: match c.valid {
                    None => "the substrate's own suite (gated at acceptance)".into(),
                    Some(true) => format!("valid (fp32 reference {} and original {} from fp64)", num(c.tau64_ref), num(c.tau64_orig)),
                    Some(false) => format!(
                        "invalid: past the legitimate-variance ceiling (reference {}, original {} from fp64); witnesses nothing",
                        num(c.tau64_ref),
                        num(c.tau64_orig)
                    ),
                },
                current: c.current,
            })
            .collect(),
        generated_columns: s.columns.iter().filter(|c| c.generated).count(),
        invalid_columns: s.columns.iter().filter(|c| c.valid == Some(false)).count(),
        families,
        verdict_words,
        mutants: s.mutants.iter().map(|m| mutant(data, m)).collect(),
        stale_cells: s.stale_cells,
        unlisted: s.unlisted,
    }
}

fn mutant(data: &ReportData, m: &MutantData) -> MutantView {
    let mu = &m.mutant;
    let class = match (m.class, &m.duplicate_of) {
        (None, _) => "uncompiled".to_owned(),
        (Some(Class::Duplicate), Some(of)) => format!("duplicate of {of}"),
        (Some(c), _) => c.name().to_owned(),
    };
    let verdicts = m
        .verdicts
        .iter()
        .map(|v| match v {
            None => VerdictView { word: m.class.map_or("uncompiled", Class::name).to_owned(), text: format!("not live: {class}"), witness: None },
            Some(v) => VerdictView {
                word: v.word.to_owned(),
                text: verdict_text(&v.verdict, v.out_of_bounds),
                witness: v.witness.as_ref().map(|c| format!("{} seed {}", c.suite, c.seed)),
            },
        })
        .collect();
    let cells = m
        .cells
        .iter()
        .map(|e| {
            let mut notes = Vec::new();
            if let Some(c) = &e.crash {
                notes.push(format!("crash {c}"));
            }
            if e.canary {
                notes.push("wrote out of bounds (canary)".into());
            }
            if !e.shape_ok {
                notes.push("wrong shape".into());
            }
            if e.nonfinite {
                notes.push("NaN/Inf where the reference is finite".into());
            }
            if !e.orders.is_empty() {
                let orders: Vec<String> = e.orders.iter().map(|(o, t)| format!("order {o}: {}", num(*t))).collect();
                notes.push(orders.join(", "));
            }
            CellRow {
                column: format!("{} seed {}", e.suite, e.seed),
                outcome: e.outcome.name().to_owned(),
                tau: num(e.tau),
                marks: data.scores.iter().map(|p| if e.kills_at(p.tolerance) { "fails" } else { "passes" }).collect(),
                notes: notes.join("; "),
            }
        })
        .collect();
    let (place, change) = match &mu.mutation {
        MutantKind::Source { .. } => (format!("line {}, column {}", mu.line, mu.col), format!("`{}` → `{}`", mu.original, mu.replacement)),
        MutantKind::Launch { .. } => (format!("launch descriptor, line {}", mu.line), format!("{} → {}", mu.original, mu.replacement)),
    };
    MutantView {
        id: mu.id.clone(),
        rule: mu.rule.clone(),
        family: mu.family.name(),
        kernel: mu.kernel.clone(),
        layer: mu.layer.map_or_else(|| "-".into(), |l| l.to_string()),
        place,
        change,
        class,
        diff: mu.diff.clone(),
        verdicts,
        fidelity: match m.fidelity {
            CpuFidelity::Comparable => None,
            CpuFidelity::RacyOnCpu => Some("racy on the CPU: run in several thread orders, counted apart from the GPU-comparable tables"),
            CpuFidelity::EquivalentOnCpu => Some("equivalent on the CPU (fast-math intrinsic computed accurately there): not run"),
        },
        cells,
    }
}

fn verdict_text(v: &Verdict, oob: bool) -> String {
    let base = match v {
        Verdict::Killed(Kill::Value) => "killed: an input's output fails the comparison".to_owned(),
        Verdict::Killed(Kill::Crash(c)) => format!("killed by a crash ({c})"),
        Verdict::Killed(Kill::Timeout) => "killed by the watchdog".to_owned(),
        Verdict::Survived => "survived: every input the protocol checks passes".to_owned(),
        Verdict::TimedOut => "timed out (outside the miss rate)".to_owned(),
        Verdict::Undecided => "undecided: run on some inputs, killed by none, not run on the others".to_owned(),
        Verdict::NotRun => "not run (outside the sample)".to_owned(),
        Verdict::PossiblyEquivalent => "possibly equivalent: the protocol misses it and no valid input of a complete witness search kills it".to_owned(),
    };
    if oob {
        format!("{base}; it wrote out of bounds")
    } else {
        base
    }
}
