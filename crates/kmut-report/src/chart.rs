//! SVG charts, drawn with plotters' SVG backend (text stays `<text>`, so no font is needed and
//! the chart scales in the page).

use kmut_score::Estimate;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ReportError;

/// One protocol's miss rates over the chart's groups (`None`: no verdict in that group).
pub struct Series<'a> {
    pub name: &'a str,
    pub rates: Vec<Option<Estimate>>,
}

/// The colour of the `k`-th series, as CSS (for the legend the page prints under the chart).
pub fn css_colour(k: usize) -> String {
    let RGBColor(r, g, b) = COLOURS[k % COLOURS.len()];
    format!("rgb({r}, {g}, {b})")
}

const COLOURS: [RGBColor; 6] =
    [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40), RGBColor(148, 103, 189), RGBColor(140, 86, 75)];
const BAR: f64 = 14.0;
const GAP: f64 = 12.0;

/// Horizontal bars of miss rates (percent) per group, one bar per protocol, each with its 95%
/// interval as a whisker. Where undecided mutants leave only an interval (or there is no point
/// estimate), the bar is drawn pale from the interval's low end to its high end, never as a point.
/// A group with no verdict gets a "no verdict" label instead of a bar of length zero. The legend
/// (series colours, [`css_colour`]) is the page's, under the chart, where it hides no bar.
pub fn miss_rates(title: &str, groups: &[String], series: &[Series]) -> Result<String, ReportError> {
    let per_group = series.len().max(1) as f64 * BAR + GAP;
    let height = (60.0 + groups.len() as f64 * per_group) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        draw(&root, title, groups, series, per_group).map_err(|e| ReportError::Chart(title.to_owned(), e.to_string()))?;
        root.present().map_err(|e| ReportError::Chart(title.to_owned(), e.to_string()))?;
    }
    Ok(svg)
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    groups: &[String],
    series: &[Series],
    per_group: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let span = groups.len() as f64 * per_group;
    // Group i occupies [i * per_group, (i + 1) * per_group) from the top; its label sits at its middle.
    let centres: Vec<f64> = (0..groups.len()).map(|i| span - (i as f64 + 0.5) * per_group).collect();
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(180)
        .build_cartesian_2d(0f64..100f64, 0f64..span.max(1.0))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .max_light_lines(0)
        .x_labels(11)
        .y_labels(0)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 13))
        .x_desc("miss rate, % (bars: estimate; whiskers: 95% interval)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    // Group names right-aligned left of the axis, at their group's middle.
    let name_style = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (name, &y) in groups.iter().zip(&centres) {
        let (px, py) = chart.backend_coord(&(0.0, y));
        root.draw(&Text::new(name.clone(), (px - 6, py), name_style.clone()))?;
    }
    for (k, s) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        for (i, rate) in s.rates.iter().enumerate() {
            let top = span - i as f64 * per_group - GAP / 2.0 - k as f64 * BAR;
            let (y0, y1) = (top - BAR + 2.0, top - 1.0);
            let mid = f64::midpoint(y0, y1);
            let Some(e) = rate else {
                chart.draw_series(std::iter::once(Text::new(
                    format!("{}: no verdict", s.name),
                    (1.0, mid + 4.0),
                    ("sans-serif", 12).into_font().color(&colour),
                )))?;
                continue;
            };
            let interval_only = e.undecided > 0 || e.rate.is_nan();
            let bar = if interval_only {
                Rectangle::new([(100.0 * e.low, y0), (100.0 * e.high, y1)], colour.mix(0.3).filled())
            } else {
                Rectangle::new([(0.0, y0), (100.0 * e.rate, y1)], colour.filled())
            };
            chart.draw_series(std::iter::once(bar))?;
            if !interval_only {
                // The estimate itself, visible also at 0%.
                chart.draw_series(std::iter::once(PathElement::new(vec![(100.0 * e.rate, y0 - 1.0), (100.0 * e.rate, y1 + 1.0)], BLACK.stroke_width(2))))?;
            }
            if !e.exact {
                chart.draw_series(std::iter::once(PathElement::new(vec![(100.0 * e.low, mid), (100.0 * e.high, mid)], BLACK.stroke_width(1))))?;
                for end in [e.low, e.high] {
                    chart.draw_series(std::iter::once(PathElement::new(vec![(100.0 * end, y0 + 2.0), (100.0 * end, y1 - 2.0)], BLACK.stroke_width(1))))?;
                }
            }
        }
    }
    Ok(())
}

const ERROR_LOW: f64 = 1e-10;
const ERROR_HIGH: f64 = 1e3;

/// One line of a [`curves`] chart: its name and its points (x, y), drawn in colour `k`.
pub struct Curve {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Past this many steps the x axis is logarithmic (of j - k + 1), so a recurrent network's
/// thousands of steps do not squeeze the first few, where most faults are, into one pixel.
const LINEAR_UP_TO: f64 = 64.0;
/// Past this many points a line is drawn without a dot per point.
const DOTS_UP_TO: usize = 64;

/// Lines of errors against steps after the fault (`x`: j - k), the error on a log scale clamped
/// to [1e-10, 1e3] (an infinite or NaN error is drawn at the top). The legend is the page's.
pub fn curves(title: &str, x_desc: &str, y_desc: &str, lines: &[Curve]) -> Result<String, ReportError> {
    let max_x = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)).fold(1.0, f64::max);
    let lines: Vec<Curve> = lines
        .iter()
        .map(|l| Curve {
            name: l.name.clone(),
            points: l.points.iter().map(|&(x, y)| (x, if y.is_nan() { ERROR_HIGH } else { y.clamp(ERROR_LOW, ERROR_HIGH) })).collect(),
        })
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 420)).into_drawing_area();
        let fail = |e: Box<dyn std::error::Error>| ReportError::Chart(title.to_owned(), e.to_string());
        if max_x <= LINEAR_UP_TO {
            draw_curves(&root, title, (x_desc, y_desc), 0f64..max_x, |x| x, &lines).map_err(fail)?;
        } else {
            let x_desc = format!("{x_desc} + 1, log scale");
            draw_curves(&root, title, (&x_desc, y_desc), (1f64..max_x + 1.0).log_scale(), |x| x + 1.0, &lines).map_err(fail)?;
        }
        root.present().map_err(|e| ReportError::Chart(title.to_owned(), e.to_string()))?;
    }
    Ok(svg)
}

fn draw_curves<X>(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    x_range: X,
    x_of: impl Fn(f64) -> f64,
    lines: &[Curve],
) -> Result<(), Box<dyn std::error::Error>>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range, (ERROR_LOW..ERROR_HIGH).log_scale())?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 13))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    for (k, line) in lines.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let points: Vec<(f64, f64)> = line.points.iter().map(|&(x, y)| (x_of(x), y)).collect();
        chart.draw_series(std::iter::once(PathElement::new(points.clone(), colour.stroke_width(2))))?;
        if points.len() <= DOTS_UP_TO {
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> Vec<Curve> {
        vec![Curve { name: "median".into(), points: (0..n).map(|d| (d as f64, if d == 1 { f64::INFINITY } else { 1e-3 })).collect() }]
    }

    #[test]
    fn a_short_curve_is_linear_with_dots_and_a_long_one_logarithmic_without() {
        let short = curves("t", "j - k", "error", &line(4)).unwrap();
        assert_eq!(short.matches("<circle").count(), 4, "a dot per point");
        assert!(!short.contains("log scale"));
        let long = curves("t", "j - k", "error", &line(5000)).unwrap();
        assert_eq!(long.matches("<circle").count(), 0, "thousands of points: the line alone");
        assert!(long.contains("j - k + 1, log scale"));
        assert!(long.len() < 200_000, "the chart stays small: {} bytes", long.len());
    }
}
