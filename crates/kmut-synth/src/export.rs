//! The chosen inputs as a protocol file. The protocol itself is a `kmut_model::Protocol` value
//! built in one function, [`protocol`], so that a change of the protocol format (issue 14)
//! touches one place; the per-problem inputs, which today's `Protocol` has no field for, travel
//! beside it.

use std::collections::BTreeMap;

use kmut_model::Protocol;
use serde::{Deserialize, Serialize};

use crate::{Status, Synthesis};

/// One chosen input of a problem: a kill-matrix column, replayable from its suite name and seed
/// (a `W:` name by `python/kmut/generators.py`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChosenInput {
    pub suite: String,
    pub seed: u64,
    /// Where it came from: `official`, a suite's name or the generator (`scaled x100 @small`).
    pub source: String,
}

/// One problem's inputs and where its substrate lives (the Python export draws from it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedProblem {
    pub path: String,
    pub level: u8,
    pub inputs: Vec<ChosenInput>,
}

/// How the inputs were chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// The protocol whose tolerance judged the kills (and whose inputs are `official`).
    pub from: String,
    pub tolerance: f64,
    /// The largest budget: inputs per problem beyond the protocol's when `with_official`.
    pub budget: usize,
    pub split: String,
    pub with_official: bool,
    pub exact: bool,
}

/// The protocol file `kmut synth --out` writes: `protocols` holding one protocol in the format of `protocols/*.json` (docs/protocols.md),
/// and under `problems` each problem's inputs. Problems without witnessed mutants are absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedProtocol {
    pub about: String,
    pub protocols: Vec<Protocol>,
    pub selection: Selection,
    pub problems: BTreeMap<String, ExportedProblem>,
}

/// The synthesised suite of `s` as a protocol: the base protocol's comparison and tolerance on
/// each problem's chosen inputs.
pub fn protocol(s: &Synthesis, base: &Protocol) -> ExportedProtocol {
    let mut problems = BTreeMap::new();
    for p in s.problems.iter().filter(|p| p.status != Status::NoWitnessed) {
        let inputs = p.chosen.iter().map(|c| ChosenInput { suite: c.column.suite.clone(), seed: c.column.seed, source: c.source.label() }).collect();
        problems.insert(p.substrate.clone(), ExportedProblem { path: p.path.clone(), level: p.level, inputs });
    }
    let budget = s.budgets.last().copied().unwrap_or(0);
    // The base protocol's comparison, tolerance, validity filter and shape rule; each problem's
    // chosen inputs in `inputs.per_problem` (what `kmut audit` and `kmut score` run for it), the
    // base protocol's inputs for a problem with nothing chosen (no witnessed mutant).
    let mut protocol = base.clone();
    protocol.name = format!("synth-{}", base.name);
    protocol.title = format!(
        "kmut synth: at most {budget} inputs per problem{} chosen to detect witnessed mutants at {:e}",
        if s.with_official { " beside the official trials" } else { "" },
        s.tolerance
    );
    protocol.source = format!("kmut synth over a kill matrix (docs/synth.md), from {}", base.name);
    protocol.inputs.per_problem = problems
        .iter()
        .map(|(name, p)| (name.clone(), p.inputs.iter().map(|i| kmut_model::Column { suite: i.suite.clone(), seed: i.seed }).collect()))
        .collect();
    protocol.inputs.trials =
        format!("each problem's chosen inputs under `inputs.per_problem` (suite and seed); a problem not listed there is checked on {}'s inputs", base.name);
    ExportedProtocol {
        about: "Inputs chosen by `kmut synth` (docs/synth.md) from a kill matrix: per problem, the suite and seed of each input; W: suites are replayable from their names (python/kmut/generators.py) and seeds.".into(),
        protocols: vec![protocol],
        selection: Selection {
            from: base.name.clone(),
            tolerance: s.tolerance,
            budget,
            split: serde_json::to_value(s.split).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            with_official: s.with_official,
            exact: s.exact,
        },
        problems,
    }
}
