//! Depth and propagation (`kmut_depth`, `docs/depth.md`): the miss rate by the mutated layer's
//! depth quartile, the error's propagation through the later steps of a pipeline, each layer
//! kind's gain, and the survivors a later layer masks. Everything is the library's analysis of
//! the report's first protocol; this module only lays it out.

use kmut_depth::{CurvePoint, Depth, Spread};
use kmut_score::{Denominator, Group};
use serde::Serialize;

use super::overview::rate_text;
use super::{Rendered, Section};
use crate::chart::{self, Curve};
use crate::templates::Templates;
use crate::{ReportData, ReportError, Stage};

pub struct DepthSection;

#[derive(Serialize)]
struct GroupRow {
    name: String,
    live: usize,
    settled: usize,
    survived: usize,
    undecided: usize,
    rate: String,
}

#[derive(Serialize)]
struct SpreadRow {
    name: String,
    n: usize,
    q1: String,
    median: String,
    q3: String,
    infinite: usize,
    /// The share of crossings that erased the error (gain rows only).
    erased: Option<String>,
}

#[derive(Serialize)]
struct View {
    protocol: String,
    tolerance: String,
    denominator: &'static str,
    substrates: usize,
    architecture_median: String,
    columns_with_layout: usize,
    columns_kept_on_host: usize,
    curves_from: usize,
    no_effect: usize,
    warnings: Vec<String>,
    quartiles: Vec<GroupRow>,
    /// Empty when no fault has per-step rows (then `chart` is empty too).
    propagation: Vec<SpreadRow>,
    chart: String,
    legend: Vec<(String, String)>,
    gains: Vec<SpreadRow>,
    masked: usize,
    with_steps: usize,
    survivors: usize,
    masking_distance: String,
    masked_by_kind: Vec<(String, usize)>,
    what_if: Vec<GroupRow>,
}

impl Section for DepthSection {
    fn id(&self) -> &'static str {
        "depth"
    }

    fn title(&self) -> &'static str {
        "Depth and propagation"
    }

    fn render(&self, data: &ReportData, templates: &Templates) -> Result<Rendered, ReportError> {
        let d = match &data.depth {
            Stage::Measured(d) => d,
            Stage::NotMeasured(why) => return Ok(Rendered::NotMeasured(why.clone())),
        };
        if d.quartiles.iter().all(|g| g.live == 0) && d.columns_with_layout == 0 {
            return Ok(Rendered::NotMeasured(format!(
                "The store's {} pipeline substrates have no evaluated mutant and no per-step rows: run `kmut run` (or `kmut witness`) on them (level-3 networks), which stores every step's error, then report again.",
                d.substrates
            )));
        }
        Ok(Rendered::Shown(templates.render("depth.html", &view(d)?)?))
    }
}

fn num(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else if v.is_infinite() {
        "inf".into()
    } else {
        format!("{v:.2e}")
    }
}

fn group_row(g: &Group) -> GroupRow {
    GroupRow { name: g.name.clone(), live: g.live, settled: g.evaluated, survived: g.survived, undecided: g.undecided, rate: rate_text(g.miss.as_ref()) }
}

fn spread_row(name: String, s: &Spread, erased: Option<f64>) -> SpreadRow {
    SpreadRow { name, n: s.n, q1: num(s.q1), median: num(s.median), q3: num(s.q3), infinite: s.infinite, erased: erased.map(|e| format!("{:.1}%", 100.0 * e)) }
}

/// The curve's rows: every distance up to 8, every fourth up to 64, then the powers of two and
/// the last (a recurrent network has thousands of steps; `kmut depth --json` has every point).
fn curve_rows(curve: &[CurvePoint]) -> Vec<SpreadRow> {
    let last = curve.last().map_or(0, |p| p.distance);
    curve
        .iter()
        .filter(|p| p.distance <= 8 || (p.distance <= 64 && p.distance % 4 == 0) || p.distance.is_power_of_two() || p.distance == last)
        .map(|p| spread_row(p.distance.to_string(), &p.spread, None))
        .collect()
}

fn view(d: &Depth) -> Result<View, ReportError> {
    let c = &d.propagation;
    let pick = |f: fn(&Spread) -> f64| c.iter().filter(|p| p.spread.n > 0).map(|p| (p.distance as f64, f(&p.spread))).collect::<Vec<_>>();
    let lines = [
        Curve { name: "median".into(), points: pick(|s| s.median) },
        Curve { name: "first quartile".into(), points: pick(|s| s.q1) },
        Curve { name: "third quartile".into(), points: pick(|s| s.q3) },
    ];
    let measured = lines[0].points.len();
    let chart = if measured == 0 {
        String::new()
    } else {
        chart::curves(
            &format!("Relative L2 error after each later step ({} faults)", d.curves_from),
            "steps after the injected one (j - k)",
            "relative L2 error (log scale)",
            &lines,
        )?
    };
    let m = &d.masking;
    Ok(View {
        protocol: d.protocol.clone(),
        tolerance: format!("{:e}", d.tolerance),
        denominator: match d.denominator {
            Denominator::Witnessed => "witnessed mutants (a survivor counts only when some valid input kills it)",
            _ => "live mutants (no witness search in this store)",
        },
        substrates: d.substrates,
        architecture_median: d.architecture_median.map_or_else(|| "-".into(), |r| format!("{:.1}%", 100.0 * r)),
        columns_with_layout: d.columns_with_layout,
        columns_kept_on_host: d.columns_kept_on_host,
        curves_from: d.curves_from,
        no_effect: d.no_effect,
        warnings: d.warnings.clone(),
        quartiles: d.quartiles.iter().map(group_row).collect(),
        propagation: if measured == 0 { Vec::new() } else { curve_rows(c) },
        chart,
        legend: lines.iter().enumerate().map(|(k, l)| (l.name.clone(), chart::css_colour(k))).collect(),
        gains: d.by_kind.iter().map(|k| spread_row(k.kind.clone(), &k.gain, Some(k.erased))).collect(),
        masked: m.masked,
        with_steps: m.with_steps,
        survivors: m.survivors,
        masking_distance: format!("median {} [{}, {}]", num(m.distance.median), num(m.distance.q1), num(m.distance.q3)),
        masked_by_kind: m.by_kind.iter().map(|(k, n)| (k.clone(), *n)).collect(),
        what_if: [&d.what_if.output_only, &d.what_if.every_layer].into_iter().map(group_row).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_table_keeps_every_distance_to_8_every_fourth_to_64_then_powers_of_two_and_the_last() {
        let curve: Vec<CurvePoint> = (0..=300).map(|distance| CurvePoint { distance, spread: kmut_depth::quantiles(&mut [1e-3, 2e-3]) }).collect();
        let names: Vec<String> = curve_rows(&curve).into_iter().map(|r| r.name).collect();
        let mut want: Vec<String> = (0..=8).chain((12..=64).step_by(4)).chain([128, 256, 300]).map(|d| d.to_string()).collect();
        assert_eq!(names, want);
        want.truncate(3);
        assert_eq!(curve_rows(&curve[..3]).into_iter().map(|r| r.name).collect::<Vec<_>>(), want, "a short curve keeps every point");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(num(f64::NAN), "-");
    }
}
