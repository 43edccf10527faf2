//! What inputs that combine two kinds of fault could at most buy (issue 15): a value generator
//! drawn at a boundary size.
//!
//! The held-out misses at b = 2 are mostly *dev-blind* (`examples/misses.rs`): their killers kill
//! nothing in the choosing half. One way past that is an input that kills more kinds of fault at
//! once, so that a killer chosen for the dev mutants also covers test ones. A generated column is
//! `W:<generator>:<scale>:<sizes>` and a boundary column is the small suite's sizes with one
//! dimension moved just off a block size, so `W:signed:100:batch=257` is already a valid spec: the
//! signed values of `W:signed:100:small` at the boundary sizes of `W:boundary:1:batch=257`.
//!
//! This study adds, to every problem, one composite candidate per pair of a value column at the
//! small sizes and a boundary column of the same seed, and credits it with the **union** of its
//! two parts' kills (a cell unknown on either part and killed by neither stays unknown). That is
//! an upper bound, not an estimate: a composite may miss what one part kills (the value fault
//! needed the small sizes' shape, or the combined input fails the validity gate). If even the
//! bound leaves held-out b = 2 under the goal, the lever is not worth a device call; if it is
//! above, the next call measures the composites the bound's choice picks.
//!
//! A third row joins, besides, two boundary columns on different dimensions (`batch=257,width=255`)
//! and a value column with such a pair, under the same union bound.
//!
//! Folds as `kmut synth --splits` reads them (`Half::salted`, each split both ways, pooled), with
//! greedy and `pad` exactly as the held-out column; the first row is the store's own candidates.
//!
//! ```sh
//! cargo run --release -p kmut-synth --example composite -- STORE [--splits N]
//! ```
#![allow(clippy::print_stdout)]

mod common;

use common::{pct, pooled_by_level};
use kmut_model::Column;
use kmut_synth::{Bits, Candidate, Half, Problem, Source};

const BUDGETS: [usize; 4] = [1, 2, 3, 6];

/// The small-size value column and the boundary column that one composite joins.
fn parts(p: &Problem) -> (Vec<usize>, Vec<usize>) {
    let (mut values, mut boundary) = (Vec::new(), Vec::new());
    for (i, c) in p.candidates.iter().enumerate() {
        if let Source::Generated { generator, sizes, .. } = &c.source {
            // `dense` at a boundary size would be the boundary column itself (u at those sizes).
            if generator == "boundary" {
                boundary.push(i);
            } else if sizes == "small" && generator != "dense" {
                values.push(i);
            }
        }
    }
    (values, boundary)
}

/// Push onto `out` a candidate `source` (drawn at `seed`) credited with the union of candidates
/// `a` and `b` of `p`: killed where either kills, unknown where either is unknown and neither kills.
fn push_union(out: &mut Problem, p: &Problem, a: usize, b: usize, source: Source, seed: u64) {
    let mut kills = p.kills[a].clone();
    kills.union_with(&p.kills[b]);
    let mut unknown = Bits::new(p.mutants.len());
    p.unknown[a].ones().chain(p.unknown[b].ones()).filter(|&m| !kills.get(m)).for_each(|m| unknown.set(m));
    let Source::Generated { generator, scale, sizes } = &source else { unreachable!("composites are generated columns") };
    out.candidates.push(Candidate { column: Column { suite: format!("W:{generator}:{scale}:{sizes}"), seed }, source });
    out.kills.push(kills);
    out.unknown.push(unknown);
}

/// `p` with a composite candidate for every (value column, boundary column) pair of one seed,
/// credited with the union of the two parts' kills.
fn with_composites(p: &Problem) -> Problem {
    let mut out = p.clone();
    let (values, boundary) = parts(p);
    for &v in &values {
        for &b in &boundary {
            let (cv, cb) = (&p.candidates[v], &p.candidates[b]);
            if cv.column.seed != cb.column.seed {
                continue;
            }
            let (Source::Generated { generator, scale, .. }, Source::Generated { sizes, .. }) = (&cv.source, &cb.source) else {
                continue;
            };
            let source = Source::Generated { generator: generator.clone(), scale: scale.clone(), sizes: sizes.clone() };
            push_union(&mut out, p, v, b, source, cv.column.seed);
        }
    }
    out
}

/// Two boundary columns of one seed on different dimensions, joined (`batch=257,width=255`),
/// credited with the union of their kills; then `with_composites` over the result, so a value
/// column may join two boundary dimensions at once.
fn with_double_boundaries(p: &Problem) -> Problem {
    let mut out = p.clone();
    let (_, boundary) = parts(p);
    for (i, &a) in boundary.iter().enumerate() {
        for &b in &boundary[i + 1..] {
            let (ca, cb) = (&p.candidates[a], &p.candidates[b]);
            let (Source::Generated { sizes: sa, .. }, Source::Generated { sizes: sb, .. }) = (&ca.source, &cb.source) else { continue };
            let dim = |s: &str| s.split('=').next().unwrap_or("").to_string();
            if ca.column.seed != cb.column.seed || dim(sa) == dim(sb) || sa.contains(',') || sb.contains(',') {
                continue;
            }
            let source = Source::Generated { generator: "boundary".into(), scale: "1".into(), sizes: format!("{sa},{sb}") };
            push_union(&mut out, p, a, b, source, ca.column.seed);
        }
    }
    with_composites(&out)
}

/// `p` with the choosing half of split `salt` as `Dev`.
fn folded(p: &Problem, salt: u32, choose: Half) -> Problem {
    let all: Vec<usize> = (0..p.mutants.len()).collect();
    p.restrict(&all, |id| if Half::salted(id, salt) == choose { Half::Dev } else { Half::Test })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: composite STORE [--splits N]")?;
    let splits = common::splits(&args)?;
    let (loaded, read) = common::official_matrix(path)?;
    let composed: Vec<Problem> = loaded.iter().map(with_composites).collect();
    let added: usize = composed.iter().zip(&loaded).map(|(c, p)| c.candidates.len() - p.candidates.len()).sum();
    let with_any = composed.iter().zip(&loaded).filter(|(c, p)| c.candidates.len() > p.candidates.len()).count();
    println!("{read}\n{added} composite candidates over {with_any} problems (union of the parts' kills: an upper bound)");
    println!("{splits} splits read both ways; held-out detection, pooled");
    let double: Vec<Problem> = loaded.iter().map(with_double_boundaries).collect();
    for (name, problems) in [("store's candidates", &loaded), ("with composites", &composed), ("two boundary dims", &double)] {
        let (per_level, _) = pooled_by_level(splits, &BUDGETS, |salt, choose| problems.iter().map(|p| folded(p, salt, choose)).collect());
        for (level, per_b) in per_level.iter().enumerate() {
            let label = if level == 0 { name.to_string() } else { format!("level {level}") };
            print!("{label:>20}");
            for (d, b) in per_b.iter().zip(BUDGETS) {
                print!("  b={b} {}", pct(*d));
            }
            println!();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(suite: &str, seed: u64) -> Column {
        Column { suite: suite.into(), seed }
    }

    #[test]
    fn a_composite_joins_a_small_value_column_and_a_boundary_column_of_one_seed_with_the_union_of_their_kills() {
        let official = [col("T0_original", 1)];
        let columns = [col("T0_original", 1), col("W:signed:100:small", 7), col("W:boundary:1:batch=257", 7), col("W:boundary:1:batch=33", 8)];
        let mutants: Vec<String> = ["a", "b", "c"].iter().map(|s| (*s).to_string()).collect();
        let cells = vec![
            vec![Some(false), Some(false), Some(false)],
            vec![Some(true), Some(false), None],
            vec![Some(false), Some(true), None],
            vec![Some(false), Some(false), Some(true)],
        ];
        let p = Problem::from_matrix("L1p1", &columns, &official, &mutants, &cells);
        let c = with_composites(&p);
        // One pair shares seed 7; the batch=33 column (seed 8) joins nothing.
        assert_eq!(c.candidates.len(), 5);
        assert_eq!(c.candidates[4].column, col("W:signed:100:batch=257", 7));
        assert_eq!(c.kills[4].ones().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(c.unknown[4].ones().collect::<Vec<_>>(), vec![2], "unknown on both parts and killed by neither");
    }

    #[test]
    fn two_boundary_dimensions_join_once_and_a_value_column_joins_the_pair() {
        let official = [col("T0_original", 1)];
        let columns = [
            col("T0_original", 1),
            col("W:signed:100:small", 7),
            col("W:boundary:1:batch=257", 7),
            col("W:boundary:1:width=255", 7),
            col("W:boundary:1:batch=33", 7),
        ];
        let mutants: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| (*s).to_string()).collect();
        let row = |k: usize| (0..4).map(|m| Some(m == k)).collect::<Vec<_>>();
        let cells = vec![row(9), row(0), row(1), row(2), row(3)];
        let p = Problem::from_matrix("L1p1", &columns, &official, &mutants, &cells);
        let d = with_double_boundaries(&p);
        let suites: Vec<&str> = d.candidates[5..].iter().map(|c| c.column.suite.as_str()).collect();
        // batch=257 and batch=33 share a dimension and never join; each joins width=255.
        assert_eq!(&suites[..2], ["W:boundary:1:batch=257,width=255", "W:boundary:1:width=255,batch=33"]);
        let triple = suites.iter().position(|s| *s == "W:signed:100:batch=257,width=255").expect("the value column joins the pair");
        assert_eq!(d.kills[5 + triple].ones().collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
