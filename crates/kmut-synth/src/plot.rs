//! The budget curve as an SVG (plotters, SVG backend only): detection against inputs per
//! problem, on the full pool and held out (one split, and cross-validated over several), the
//! protocol's own inputs beside it.

use plotters::prelude::*;

use crate::{Rate, Synthesis};

/// A labelled line of the plot.
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// Percent, or `None` where the rate has no mutants.
fn pct(r: &Rate) -> Option<f64> {
    r.rate.map(|x| 100.0 * x)
}

/// The curve of `s` as SVG text. Each rate is plotted at its known kills; missing cells are in
/// the table, not in the plot, and the title says when there are any.
pub fn svg(s: &Synthesis) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (720, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let max_b = s.budgets.last().copied().unwrap_or(1).max(1) as f64;
        let mut values: Vec<f64> = s.curve.iter().flat_map(|p| [pct(&p.full), pct(&p.held_out), p.exact_full.as_ref().and_then(pct)]).flatten().collect();
        values.extend([pct(&s.official_full), pct(&s.official_held_out)].into_iter().flatten());
        values.extend(s.cross_validated.iter().filter_map(|c| c.rate().map(|x| 100.0 * x)));
        let low = values.iter().copied().fold(100.0, f64::min).min(90.0);
        let low = (low / 5.0).floor() * 5.0;
        let incomplete = s.curve.iter().any(|p| !p.full.complete()) || !s.official_full.complete();
        let title = format!("kmut synth: detection of witnessed mutants{}", if incomplete { " (known kills; cells missing)" } else { "" });
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.5..max_b + 0.5, low..100.5)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(if s.with_official { "inputs added to the official trials, per problem" } else { "inputs per problem" })
            .y_desc("detected (%)")
            .x_labels(s.budgets.len().max(2))
            .draw()
            .map_err(|e| e.to_string())?;
        let series = |f: &dyn Fn(&crate::Point) -> Option<f64>| s.curve.iter().filter_map(|p| f(p).map(|y| (p.budget as f64, y))).collect::<Vec<_>>();
        let mut lines: Vec<Line> =
            vec![("greedy, full pool", BLUE, series(&|p| pct(&p.full))), ("greedy, held out (chosen on dev, test half)", RED, series(&|p| pct(&p.held_out)))];
        let cv_label = format!("greedy, held out, {}x2 cross-validated (pooled)", s.splits);
        if !s.cross_validated.is_empty() {
            let points = s.cross_validated.iter().filter_map(|c| c.rate().map(|y| (c.budget as f64, 100.0 * y))).collect();
            lines.push((&cv_label, RGBColor(230, 140, 0), points));
        }
        if s.exact {
            lines.push(("exact optimum, full pool", GREEN, series(&|p| p.exact_full.as_ref().and_then(pct))));
        }
        for (label, colour, points) in lines {
            chart
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled()))).map_err(|e| e.to_string())?;
        }
        for (label, rate, colour) in
            [("official trials, full pool", &s.official_full, BLACK), ("official trials, test half", &s.official_held_out, RGBColor(128, 128, 128))]
        {
            if let Some(y) = pct(rate) {
                chart
                    .draw_series(LineSeries::new(vec![(0.5, y), (max_b + 0.5, y)], colour.stroke_width(1)))
                    .map_err(|e| e.to_string())?
                    .label(label)
                    .legend(move |(x, yy)| PathElement::new(vec![(x, yy), (x + 20, yy)], colour.stroke_width(1)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
