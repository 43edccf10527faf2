//! The miss rates: per protocol, overall, by level and by family, with their intervals and
//! everything a reader must know before trusting them (what the rate is over, what is left
//! out, the warnings of the score).

use kmut_model::{Backend, Inputs};
use kmut_score::{Denominator, Estimate, Group, Score, TimeoutPolicy};
use serde::Serialize;

use super::{Rendered, Section};
use crate::chart::{self, Series};
use crate::templates::Templates;
use crate::{ReportData, ReportError};

pub struct Overview;

/// A miss rate as text: exact, an estimate with its 95% interval, or (with undecided mutants,
/// where the point would lean towards kills) only the interval; "no verdict" when no mutant of
/// the group has one.
pub fn rate_text(e: Option<&Estimate>) -> String {
    match e {
        None => "no verdict".into(),
        Some(e) if e.exact => format!("{:.1}%", 100.0 * e.rate),
        Some(e) if e.undecided > 0 || e.rate.is_nan() => format!("{:.1} to {:.1}%", 100.0 * e.low, 100.0 * e.high),
        Some(e) => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * e.rate, 100.0 * e.low, 100.0 * e.high),
    }
}

#[derive(Serialize)]
struct ProtocolView {
    name: String,
    title: String,
    tolerance: String,
    inputs: &'static str,
    denominator: &'static str,
    timeouts: &'static str,
    backends: String,
    classes: String,
    sampled: Option<String>,
    cpu: Option<String>,
    warnings: Vec<String>,
    stale: usize,
    original_failures: Vec<String>,
}

#[derive(Serialize)]
pub(crate) struct CellView {
    pub rate: String,
    pub settled: usize,
    pub survived: usize,
    /// Live mutants without a settled verdict, by why (empty when none).
    pub unsettled: String,
}

#[derive(Serialize)]
struct RowView {
    name: String,
    live: usize,
    cells: Vec<CellView>,
}

#[derive(Serialize)]
struct TableView {
    title: &'static str,
    first: &'static str,
    rows: Vec<RowView>,
    chart: String,
    /// (protocol, CSS colour) of the chart's series.
    legend: Vec<(String, String)>,
}

#[derive(Serialize)]
struct View {
    backend: &'static str,
    protocols: Vec<ProtocolView>,
    names: Vec<String>,
    tables: Vec<TableView>,
    racy: Option<TableView>,
}

impl Section for Overview {
    fn id(&self) -> &'static str {
        "overview"
    }

    fn title(&self) -> &'static str {
        "Miss rates"
    }

    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError> {
        let scores: Vec<&Score> = data.scores.iter().map(|s| &s.score).collect();
        let names: Vec<String> = data.scores.iter().map(|s| s.name.clone()).collect();
        let mut tables = vec![
            table("Overall and by level", "group", &scores, |s| std::iter::once(&s.overall).chain(&s.by_level).collect())?,
            table("By family", "family", &scores, |s| s.by_family.iter().collect())?,
        ];
        let racy = match data.backend {
            Backend::Cpu if scores.iter().any(|s| s.racy_on_cpu.as_ref().is_some_and(|r| r.live > 0)) => {
                Some(table("Racy on the CPU (apart from the tables above)", "", &scores, |s| s.racy_on_cpu.iter().collect())?)
            }
            Backend::Cpu | Backend::Gpu => None,
        };
        tables.retain(|t| !t.rows.is_empty());
        let view = View {
            backend: match data.backend {
                Backend::Gpu => "a GPU's evaluations",
                Backend::Cpu => "the CPU backend's evaluations (small suites; docs/cpu-backend.md says what a CPU verdict stands for)",
            },
            protocols: data.scores.iter().map(|p| protocol(&p.score)).collect(),
            names,
            tables,
            racy,
        };
        Ok(Rendered::Shown(templates.render("overview.html", &view)?))
    }
}

fn protocol(s: &Score) -> ProtocolView {
    let c = &s.classes;
    let o = &s.overall;
    ProtocolView {
        name: s.protocol.clone(),
        title: s.title.clone(),
        tolerance: format!("{:e}", s.tolerance),
        inputs: match (s.backend, s.inputs) {
            (Backend::Cpu, _) => "the small suites (CPU backend: not the protocol's official sizes)",
            (Backend::Gpu, Inputs::Small) => "the small suites (not the protocol's official sizes)",
            (Backend::Gpu, Inputs::All) => "the protocol's inputs and every targeted suite",
            (Backend::Gpu, Inputs::Protocol) => "the protocol's inputs",
            (Backend::Gpu, Inputs::Witness | Inputs::WitnessSmall) => "the witness search's inputs",
        },
        denominator: match s.denominator {
            Denominator::Witnessed => {
                "witnessed mutants: a survivor counts only when some valid input kills it (kmut witness); possibly equivalent ones (no valid input of a complete search kills them) are outside the rate"
            }
            _ => "live mutants (no witness search in this store: a mutant no input can expose counts as a miss)",
        },
        timeouts: match s.timeouts {
            TimeoutPolicy::Exclude => "timeouts are outside the denominator",
            TimeoutPolicy::Kill => "timeouts count as kills",
        },
        backends: if s.backends.is_empty() { "none yet".into() } else { s.backends.join(", ") },
        classes: format!(
            "{} substrates; {} mutants: {} stillborn, {} equivalent, {} duplicate, {} live",
            s.substrates, c.generated, c.stillborn, c.equivalent, c.duplicate, c.live
        ),
        sampled: s.sampled.then(|| {
            format!(
                "{} of {} live mutants have a settled verdict ({} timed out, {} undecided, {} not run, {} possibly equivalent): rates are stratified estimates with 95% intervals{}",
                o.evaluated,
                o.live,
                o.timeouts,
                o.undecided,
                o.not_run,
                o.possibly_equivalent,
                o.miss.as_ref().filter(|e| e.unsampled > 0.0).map_or_else(String::new, |e| format!(
                    "; {:.1}% of them are in strata with no verdict at all, and the intervals include every rate those could have",
                    100.0 * e.unsampled
                ))
            )
        }),
        cpu: s.racy_on_cpu.as_ref().map(|r| {
            format!(
                "{} fast-math mutants are equivalent on the CPU (not run); {} synchronisation and warp mutants are racy on the CPU and counted apart ({} race witnesses, {} order-dependent)",
                s.equivalent_on_cpu, r.live, s.race_witnesses, s.order_dependent
            )
        }),
        warnings: s.warnings.clone(),
        stale: s.stale_evaluations,
        original_failures: s
            .original_failures
            .iter()
            .map(|f| format!("{} {} seed {} (tau* {})", f.substrate, f.suite, f.seed, f.tau.map_or_else(|| "-, it crashed".to_owned(), |t| format!("{t:.3e}"))))
            .collect(),
    }
}

pub(crate) fn cell(g: &Group) -> CellView {
    // The report scores with timeouts outside the denominator, so they are unsettled here.
    let parts = [(g.timeouts, "timed out"), (g.undecided, "undecided"), (g.not_run, "not run"), (g.possibly_equivalent, "possibly equivalent")];
    let unsettled: Vec<String> = parts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    CellView { rate: rate_text(g.miss.as_ref()), settled: g.evaluated, survived: g.survived, unsettled: unsettled.join(", ") }
}

/// One table (and its chart) of the groups `pick` takes from each score, rows in the first
/// score's order.
fn table(title: &'static str, first: &'static str, scores: &[&Score], pick: impl Fn(&Score) -> Vec<&Group>) -> Result<TableView, ReportError> {
    let picked: Vec<Vec<&Group>> = scores.iter().map(|s| pick(s)).collect();
    let names: Vec<String> = picked.first().map(|gs| gs.iter().map(|g| g.name.clone()).collect()).unwrap_or_default();
    let find = |k: usize, name: &str| picked[k].iter().find(|g| g.name == name).copied();
    let rows = names
        .iter()
        .map(|name| RowView {
            name: name.clone(),
            live: find(0, name).map_or(0, |g| g.live),
            cells: (0..scores.len()).map(|k| find(k, name).map_or_else(|| cell(&Group::default()), cell)).collect(),
        })
        .collect();
    let series: Vec<Series> =
        scores.iter().enumerate().map(|(k, s)| Series { name: &s.protocol, rates: names.iter().map(|n| find(k, n).and_then(|g| g.miss)).collect() }).collect();
    let chart = if names.is_empty() { String::new() } else { chart::miss_rates(&format!("Miss rate: {}", title.to_lowercase()), &names, &series)? };
    let legend = scores.iter().enumerate().map(|(k, s)| (s.protocol.clone(), chart::css_colour(k))).collect();
    Ok(TableView { title, first, rows, chart, legend })
}
