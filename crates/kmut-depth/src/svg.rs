//! SVG plots of the depth analysis (plotters' SVG backend, no fonts or bitmaps): the survival by
//! depth quartile with its intervals, the propagation curve with its quartiles, and the median
//! curve of each layer kind. Errors are drawn on a log scale, clamped to [1e-10, 1e3]; an
//! infinite error is drawn at the top.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::{CurvePoint, Depth};

const LOW: f64 = 1e-10;
const HIGH: f64 = 1e3;

#[derive(Debug, thiserror::Error)]
#[error("could not draw `{path}`: {message}")]
pub struct PlotError {
    pub path: PathBuf,
    pub message: String,
}

fn clamp(v: f64) -> f64 {
    if v.is_nan() {
        HIGH
    } else {
        v.clamp(LOW, HIGH)
    }
}

fn fail<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError { path: path.to_path_buf(), message: e.to_string() }
}

/// Write `quartiles.svg`, `propagation.svg` and `kinds.svg` into `dir` (created if missing);
/// returns the files written.
pub fn write_all(depth: &Depth, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir).map_err(fail(dir))?;
    let files = [dir.join("quartiles.svg"), dir.join("propagation.svg"), dir.join("kinds.svg")];
    quartiles(depth, &files[0])?;
    propagation(depth, &files[1])?;
    kinds(depth, &files[2])?;
    Ok(files.to_vec())
}

fn quartiles(depth: &Depth, path: &Path) -> Result<(), PlotError> {
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(fail(path))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("miss rate by depth quartile ({}, tol {:e})", depth.protocol, depth.tolerance), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..4f64, 0f64..1f64)
        .map_err(fail(path))?;
    chart
        .configure_mesh()
        .x_desc("quartile of the mutated layer's depth (Q1 ... Q4)")
        .y_desc("miss rate")
        .x_labels(5)
        .disable_x_mesh()
        .draw()
        .map_err(fail(path))?;
    for (q, g) in depth.quartiles.iter().enumerate() {
        let Some(e) = &g.miss else { continue };
        let x = q as f64;
        if e.rate.is_finite() {
            chart.draw_series([Rectangle::new([(x + 0.2, 0.0), (x + 0.8, e.rate)], BLUE.mix(0.5).filled())]).map_err(fail(path))?;
        }
        chart.draw_series(LineSeries::new([(x + 0.5, e.low), (x + 0.5, e.high)], BLACK.stroke_width(2))).map_err(fail(path))?;
    }
    root.present().map_err(fail(path))
}

/// One line of a chart: its legend, its points and its colour.
type Series = (String, Vec<(f64, f64)>, RGBColor);

fn curve_chart(path: &Path, title: &str, max_distance: usize, series: &[Series]) -> Result<(), PlotError> {
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(fail(path))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..(max_distance.max(1) as f64), (LOW..HIGH).log_scale())
        .map_err(fail(path))?;
    chart
        .configure_mesh()
        .x_desc("steps after the injected one (j - k)")
        .y_desc("relative L2 error")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(fail(path))?;
    for (label, points, color) in series {
        let color = *color;
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
            .map_err(fail(path))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(fail(path))?;
    root.present().map_err(fail(path))
}

fn points(curve: &[CurvePoint], pick: impl Fn(&CurvePoint) -> f64) -> Vec<(f64, f64)> {
    curve.iter().filter(|p| p.spread.n > 0).map(|p| (p.distance as f64, clamp(pick(p)))).collect()
}

fn propagation(depth: &Depth, path: &Path) -> Result<(), PlotError> {
    let max = depth.propagation.last().map_or(1, |p| p.distance);
    let c = &depth.propagation;
    curve_chart(
        path,
        &format!("error after each later step, {} faults", depth.curves_from),
        max,
        &[
            ("median".into(), points(c, |p| p.spread.median), BLUE),
            ("first quartile".into(), points(c, |p| p.spread.q1), RGBColor(120, 160, 220)),
            ("third quartile".into(), points(c, |p| p.spread.q3), RGBColor(120, 160, 220)),
        ],
    )
}

fn kinds(depth: &Depth, path: &Path) -> Result<(), PlotError> {
    let max = depth.by_kind.iter().filter_map(|k| k.curve.last()).map(|p| p.distance).max().unwrap_or(1);
    let series: Vec<_> = depth
        .by_kind
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let c = Palette99::pick(i).to_rgba();
            (format!("after {}", k.kind), points(&k.curve, |p| p.spread.median), RGBColor(c.0, c.1, c.2))
        })
        .collect();
    curve_chart(path, "median error after a step of each layer kind", max, &series)
}
