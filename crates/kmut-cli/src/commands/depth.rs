//! `kmut depth`: the depth analysis of pipelines (crates/kmut-depth) as tables, JSON and SVG.

use kmut_depth::{CurvePoint, Depth, Spread};
use kmut_score::{Denominator, Group};

use crate::args::DepthArgs;
use crate::commands::score::rate;
use crate::ExitStatus;

pub fn run(args: &DepthArgs) -> anyhow::Result<ExitStatus> {
    let (store, options) = super::score::open(&args.score)?;
    let depth = kmut_depth::analyse(&store, &args.score.substrates, &options)?;
    for w in &depth.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(dir) = &args.svg {
        for f in kmut_depth::svg::write_all(&depth, dir)? {
            eprintln!("depth: wrote {}", f.display());
        }
    }
    if args.score.json {
        println!("{}", serde_json::to_string_pretty(&depth)?);
    } else {
        print(&depth);
    }
    Ok(ExitStatus::Success)
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

fn spread(s: &Spread) -> Vec<String> {
    vec![s.n.to_string(), num(s.q1), num(s.median), num(s.q3), s.infinite.to_string()]
}

fn group_row(name: &str, g: &Group) -> Vec<String> {
    vec![name.to_owned(), g.live.to_string(), g.evaluated.to_string(), g.survived.to_string(), g.undecided.to_string(), rate(g.miss.as_ref())]
}

const GROUP: [&str; 6] = ["", "live", "settled", "survived", "undecided", "miss rate"];

fn curve_rows(curve: &[CurvePoint], limit: usize) -> Vec<Vec<String>> {
    // Every distance up to 8, then every fourth: long networks stay readable (--json has all).
    curve
        .iter()
        .filter(|p| p.distance <= 8 || p.distance % 4 == 0 || p.distance == curve.last().map_or(0, |l| l.distance))
        .take(limit)
        .map(|p| {
            let mut row = vec![p.distance.to_string()];
            row.extend(spread(&p.spread));
            row
        })
        .collect()
}

fn print(d: &Depth) {
    let over = match d.denominator {
        Denominator::Witnessed => "witnessed mutants (a survivor counts when some valid input kills it; kmut witness)",
        _ => "live mutants (no witness search in this store)",
    };
    println!(
        "protocol {} at atol = rtol = {:e}, {} backend{}; miss rate = survived / settled over {over}; {} pipeline substrates",
        d.protocol,
        d.tolerance,
        d.backend.name(),
        if d.backend == kmut_model::Backend::Cpu { " (the small suites, not the official sizes)" } else { "" },
        d.substrates
    );
    println!(
        "per-step rows: {} columns with a step layout ({} with the original's step outputs kept on the host); the curves use {} faults (their first scored column), {} more had no effect on it",
        d.columns_with_layout, d.columns_kept_on_host, d.curves_from, d.no_effect
    );
    for w in &d.warnings {
        println!("WARNING: {w}");
    }
    println!("\nsurvival by the mutated layer's depth quartile (layer / (kernels - 1))");
    let rows: Vec<_> = d.quartiles.iter().map(|g| group_row(&g.name, g)).collect();
    print!("{}", crate::table::render(&GROUP, &rows));
    println!("\nby architecture (median of their miss rates: {})", d.architecture_median.map_or_else(|| "-".into(), |m| format!("{:.1}%", 100.0 * m)));
    let mut header = vec!["substrate", "kernels", "steps", "settled", "miss rate"];
    header.extend(["Q1", "Q2", "Q3", "Q4"]);
    let rows: Vec<_> = d
        .by_architecture
        .iter()
        .map(|a| {
            let mut r = vec![
                a.substrate.clone(),
                a.kernels.to_string(),
                a.steps.map_or_else(|| "-".into(), |s| s.to_string()),
                a.overall.evaluated.to_string(),
                rate(a.overall.miss.as_ref()),
            ];
            r.extend(a.quartiles.iter().map(|q| rate(q.miss.as_ref())));
            r
        })
        .collect();
    print!("{}", crate::table::render(&header, &rows));
    let curve_header = ["j - k", "n", "q1", "median", "q3", "infinite"];
    println!("\npropagation: relative L2 error after step j of a fault injected at step k");
    print!("{}", crate::table::render(&curve_header, &curve_rows(&d.propagation, 40)));
    println!("\nby the kind of layer the error was measured after: gain = error after the step / largest error among the steps it reads");
    let rows: Vec<_> = d
        .by_kind
        .iter()
        .map(|k| {
            let mut r = vec![k.kind.clone()];
            r.extend(spread(&k.gain));
            r.push(format!("{:.1}%", 100.0 * k.erased));
            r.push(k.curve.iter().map(|p| p.spread.n).sum::<usize>().to_string());
            r
        })
        .collect();
    print!("{}", crate::table::render(&["kind", "crossings", "gain q1", "gain median", "gain q3", "infinite", "erased", "points"], &rows));
    let m = &d.masking;
    println!(
        "\nmasking: {} of {} survivors with per-step rows ({} survivors in all) exceeded the tolerance after an intermediate step; masking distance (steps after the fault) median {} [{}, {}]",
        m.masked,
        m.with_steps,
        m.survivors,
        num(m.distance.median),
        num(m.distance.q1),
        num(m.distance.q3)
    );
    let rows: Vec<_> = m.by_kind.iter().map(|(k, n)| vec![k.clone(), n.to_string()]).collect();
    if !rows.is_empty() {
        print!("{}", crate::table::render(&["masked at a step of kind", "survivors"], &rows));
    }
    println!("\nwhat-if: a checker comparing every layer's output with the original's, beside the output-only protocol");
    let w = &d.what_if;
    print!("{}", crate::table::render(&GROUP, &[group_row("output only", &w.output_only), group_row("every layer", &w.every_layer)]));
}
