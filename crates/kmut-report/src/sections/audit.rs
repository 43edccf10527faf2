//! The protocol audit (`kmut_audit`, `docs/protocols.md`) of the report's protocols from the
//! cells the store holds (as `kmut audit --no-run`): detection on the unified denominator with
//! its intervals, each protocol's false kills, the decomposition of a gain into inputs and
//! tolerance, and what was left out of the denominator.

use kmut_audit::{Audit, Rate};
use serde::Serialize;

use super::{Rendered, Section};
use crate::templates::Templates;
use crate::{ReportData, ReportError, Stage};

pub struct AuditSection;

#[derive(Serialize)]
struct ProtocolRow {
    protocol: String,
    title: String,
    comparison: String,
    detected: String,
    rate: String,
    false_kill_columns: usize,
    false_kill_problems: usize,
    dropped_columns: usize,
    blind_mutants: usize,
    blind_problems: usize,
    not_modelled: Vec<String>,
}

#[derive(Serialize)]
struct FamilyRow {
    family: String,
    mutants: usize,
    rates: Vec<String>,
}

#[derive(Serialize)]
struct View {
    backend: &'static str,
    witness_tolerance: String,
    substrates: usize,
    live: usize,
    unified: usize,
    left_out: String,
    warnings: Vec<String>,
    protocols: Vec<ProtocolRow>,
    names: Vec<String>,
    families: Vec<FamilyRow>,
    decompositions: Vec<String>,
    missed_by_all: usize,
}

impl Section for AuditSection {
    fn id(&self) -> &'static str {
        "audit"
    }

    fn title(&self) -> &'static str {
        "Protocol audit"
    }

    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError> {
        match &data.audit {
            Stage::Measured(a) => Ok(Rendered::Shown(templates.render("audit.html", &view(a))?)),
            Stage::NotMeasured(why) => Ok(Rendered::NotMeasured(why.clone())),
        }
    }
}

/// A detection rate as `kmut audit` prints it: exact, or the estimate with its 95% interval.
fn pct(r: &Rate) -> String {
    match (r.rate, r.low, r.high) {
        (Some(x), _, _) if r.exact => format!("{:.1}%", 100.0 * x),
        (Some(x), Some(l), Some(h)) if x.is_finite() => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * x, 100.0 * l, 100.0 * h),
        (_, Some(l), Some(h)) => format!("{:.1} to {:.1}%", 100.0 * l, 100.0 * h),
        _ => "no mutant".into(),
    }
}

fn view(a: &Audit) -> View {
    let p = &a.population;
    let apart = if p.apart_on_cpu > 0 { format!(", {} set apart on the CPU (racy- or equivalent-on-CPU)", p.apart_on_cpu) } else { String::new() };
    let left_out = format!(
        "{} possibly equivalent (complete search, no witness), {} with an incomplete witness search, {} timed out under some protocol, {} undecided under some protocol{apart}",
        p.possibly_equivalent, p.search_incomplete, p.timed_out, p.undecided
    );
    let families = a.rates.first().map_or_else(Vec::new, |first| {
        first
            .by_family
            .iter()
            .enumerate()
            .map(|(i, g)| FamilyRow {
                family: g.group.clone(),
                mutants: g.mutants,
                rates: a.rates.iter().map(|r| r.by_family.get(i).map_or_else(|| "-".into(), pct)).collect(),
            })
            .collect()
    });
    View {
        backend: match a.backend {
            kmut_model::Backend::Gpu => "a GPU's evaluations",
            kmut_model::Backend::Cpu => "the CPU backend's evaluations (small inputs, not the protocols' official sizes)",
        },
        witness_tolerance: format!("{:e}", a.witness_tolerance),
        substrates: p.substrates,
        live: p.live,
        unified: p.unified,
        left_out,
        warnings: a.warnings.clone(),
        protocols: a
            .rates
            .iter()
            .map(|r| ProtocolRow {
                protocol: r.protocol.clone(),
                title: r.title.clone(),
                comparison: r.comparison.clone(),
                detected: format!("{} / {}", r.overall.detected, r.overall.mutants),
                rate: pct(&r.overall),
                false_kill_columns: r.false_kill_columns,
                false_kill_problems: r.false_kill_problems,
                dropped_columns: r.dropped_columns,
                blind_mutants: r.blind_mutants,
                blind_problems: r.blind_problems,
                not_modelled: r.not_modelled.clone(),
            })
            .collect(),
        names: a.rates.iter().map(|r| r.protocol.clone()).collect(),
        families,
        decompositions: a
            .decompositions
            .iter()
            .map(|d| {
                format!(
                    "{} over {}: {:+.1} points ({:+} mutants) = inputs {:+.1} ({:+}) + tolerance {:+.1} ({:+})",
                    d.to, d.from, d.total_points, d.total, d.inputs_points, d.inputs, d.tolerance_points, d.tolerance
                )
            })
            .collect(),
        missed_by_all: a.missed_by_all,
    }
}
