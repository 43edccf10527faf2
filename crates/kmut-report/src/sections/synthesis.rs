//! Suite synthesis (`kmut_synth`, `docs/synth.md`): the budget curve of the report's first
//! protocol, detection of witnessed mutants against the inputs a synthesised suite has per
//! problem, on the full pool and held out, as a table and the library's SVG plot. Missing cells
//! of a first-kill matrix are shown as the range they leave open, with the library's warnings.

use kmut_synth::{Rate, Synthesis};
use serde::Serialize;

use super::{Rendered, Section};
use crate::templates::Templates;
use crate::{ReportData, ReportError, Stage};

pub struct SynthesisSection;

#[derive(Serialize)]
struct Row {
    budget: String,
    full: String,
    held_out: String,
    /// The held-out rate cross-validated over salted splits (`kmut_synth::crossval`), empty
    /// where not computed.
    cross_validated: String,
    /// Known kills over witnessed mutants on the full pool, as counts.
    full_counts: String,
}

#[derive(Serialize)]
struct View {
    protocol: String,
    tolerance: String,
    backend: &'static str,
    problems: usize,
    witnessed: usize,
    live: usize,
    possibly_equivalent: usize,
    undecided: usize,
    not_run: usize,
    missing_cells: usize,
    warnings: Vec<String>,
    rows: Vec<Row>,
    /// Salted splits of the cross-validated column (0: no column).
    splits: u32,
    needed: Option<String>,
    chart: String,
}

impl Section for SynthesisSection {
    fn id(&self) -> &'static str {
        "synthesis"
    }

    fn title(&self) -> &'static str {
        "Suite synthesis"
    }

    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError> {
        match &data.synthesis {
            Stage::Measured(s) => Ok(Rendered::Shown(templates.render("synthesis.html", &view(s)?)?)),
            Stage::NotMeasured(why) => Ok(Rendered::NotMeasured(why.clone())),
        }
    }
}

/// A rate as `kmut synth` prints it: the known kills with the 95% interval, or, where cells are
/// missing, the range from the known kills to what the missing cells could add.
pub fn rate_text(r: &Rate) -> String {
    match (r.rate, r.upper, r.interval) {
        (Some(p), Some(_), Some((lo, hi))) if r.complete() => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * p, 100.0 * lo, 100.0 * hi),
        (Some(p), Some(u), Some((lo, hi))) => format!("{:.1} to {:.1}% [{:.1}, {:.1}]", 100.0 * p, 100.0 * u, 100.0 * lo, 100.0 * hi),
        _ => "no witnessed mutant".into(),
    }
}

fn counts(r: &Rate) -> String {
    let d = r.detected;
    if d.known == d.possible {
        format!("{} / {}", d.known, d.total)
    } else {
        format!("{} to {} / {}", d.known, d.possible, d.total)
    }
}

fn view(s: &Synthesis) -> Result<View, ReportError> {
    let mut rows = vec![Row {
        budget: "official trials".into(),
        full: rate_text(&s.official_full),
        held_out: rate_text(&s.official_held_out),
        cross_validated: String::new(),
        full_counts: counts(&s.official_full),
    }];
    rows.extend(s.curve.iter().map(|p| Row {
        budget: p.budget.to_string(),
        full: rate_text(&p.full),
        held_out: rate_text(&p.held_out),
        cross_validated: s.cross_validated.iter().find(|c| c.budget == p.budget).map(ToString::to_string).unwrap_or_default(),
        full_counts: counts(&p.full),
    }));
    let n = &s.needed;
    let needed = n.median.zip(n.max).map(|(median, max)| {
        let hist: Vec<String> = n.histogram.iter().map(|(k, c)| format!("{c} need {k}")).collect();
        format!("greedy inputs to detect every witnessed mutant of a problem: median {median}, max {max} ({})", hist.join(", "))
    });
    let t = &s.totals;
    Ok(View {
        protocol: s.protocol.clone(),
        tolerance: format!("{:e}", s.tolerance),
        backend: match s.backend {
            kmut_model::Backend::Gpu => "a GPU's evaluations",
            kmut_model::Backend::Cpu => "the CPU backend's evaluations (small inputs)",
        },
        problems: s.problems.len(),
        witnessed: t.witnessed,
        live: t.live,
        possibly_equivalent: t.possibly_equivalent,
        undecided: t.undecided + t.protocol_undecided,
        not_run: t.not_run,
        missing_cells: t.missing_cells,
        warnings: s.warnings.clone(),
        rows,
        splits: s.splits,
        needed,
        chart: kmut_synth::svg(s).map_err(|e| ReportError::Chart("the budget curve".into(), e))?,
    })
}

#[cfg(test)]
mod tests {
    use kmut_synth::{Counts, Detection, Needed, Point, Split};

    use super::*;

    fn rate(total: usize, known: usize, possible: usize) -> Rate {
        let n = total as f64;
        Rate {
            detected: Detection { total, known, possible },
            rate: Some(known as f64 / n),
            upper: Some(possible as f64 / n),
            interval: Some((0.5 * known as f64 / n, (possible as f64 / n).min(1.0))),
        }
    }

    fn synthesis(missing: usize) -> Synthesis {
        Synthesis {
            protocol: "official".into(),
            tolerance: 1e-2,
            backend: kmut_model::Backend::Cpu,
            split: Split::None,
            with_official: false,
            exact: false,
            optimistic: false,
            assumed_cells: 0,
            budgets: vec![1, 2],
            splits: 1,
            cross_validated: [1, 2]
                .map(|b| kmut_synth::CrossValidated { budget: b, pooled: Detection { total: 10, known: 7, possible: 7 }, folds: vec![Some(0.6), Some(0.8)] })
                .to_vec(),
            curve: [1, 2]
                .map(|b| Point {
                    budget: b,
                    full: rate(10, 6 + b, 6 + b + usize::from(missing > 0)),
                    held_out: rate(5, 3, 3),
                    exact_full: None,
                    exact_held_out: None,
                    exact_proven: None,
                })
                .to_vec(),
            official_full: rate(10, 5, 5),
            official_held_out: rate(5, 2, 2),
            problems: Vec::new(),
            skipped: Vec::new(),
            totals: Counts { live: 20, witnessed: 10, missing_cells: missing, ..Counts::default() },
            needed: Needed::default(),
            fill: kmut_synth::Fill::default(),
            warnings: vec!["3 cells of witnessed mutants on candidate inputs were never run".into()],
        }
    }

    #[test]
    fn a_rate_with_missing_cells_shows_the_range_they_leave_open_never_a_point() {
        assert_eq!(rate_text(&rate(10, 7, 7)), "70.0% [35.0, 70.0]");
        assert_eq!(rate_text(&rate(10, 7, 9)), "70.0 to 90.0% [35.0, 90.0]");
        assert_eq!(rate_text(&Rate::default()), "no witnessed mutant");
        assert_eq!(counts(&rate(10, 7, 9)), "7 to 9 / 10");
    }

    #[test]
    fn the_section_shows_the_curve_table_the_plot_and_the_warnings() {
        let html = Templates::new().render("synthesis.html", &view(&synthesis(3)).unwrap()).unwrap();
        assert!(html.contains("<svg"), "the budget curve is drawn");
        assert!(html.contains("budget-curve") && html.contains("<td>official trials</td>") && html.contains("<td>2</td>"));
        assert!(html.contains("80.0 to 90.0% [40.0, 90.0]"), "b = 2 with a missing cell is a range");
        assert!(html.contains("Warning: 3 cells of witnessed mutants"), "the library's warnings are visible");
        assert!(html.contains("70.0% (folds 60.0 to 80.0)"), "the cross-validated column: pooled, then the fold range");
    }
}
