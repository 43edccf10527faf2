//! Checking protocols, as data (`protocols/kernelbench.json`): which inputs a kernel is checked
//! on and the tolerance of the comparison. The execution engine evaluates the protocol's inputs;
//! scoring re-reads the stored `tau*` at the protocol's tolerance, so a protocol that differs
//! only in tolerance (`KernelBench` HEAD) is scored without running anything again.

use serde::{Deserialize, Serialize};

use crate::{Backend, SubstrateDescription, GENERATED_SEEDS};

/// One checking protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Protocol {
    pub name: String,
    pub title: String,
    /// Suites whose every seed is a trial input (usually `T0_original`).
    pub suites: Vec<String>,
    pub atol: f64,
    pub rtol: f64,
    pub backend_flags: String,
    pub comparison: String,
}

#[derive(Deserialize)]
struct File {
    protocols: Vec<Protocol>,
}

/// One input of a kill matrix: a suite and one of its seeds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Column {
    pub suite: String,
    pub seed: u64,
}

impl Protocol {
    /// Every protocol kmut knows, in the order of the data file.
    pub fn all() -> Vec<Protocol> {
        let file: File = serde_json::from_str(include_str!("../../../protocols/kernelbench.json")).expect("protocols/kernelbench.json is valid");
        file.protocols
    }

    /// The protocol called `name`, or an error listing the known ones.
    pub fn named(name: &str) -> Result<Protocol, String> {
        let all = Protocol::all();
        let known: Vec<String> = all.iter().map(|p| p.name.clone()).collect();
        all.into_iter().find(|p| p.name == name).ok_or_else(|| format!("unknown protocol `{name}`; known: {}", known.join(", ")))
    }

    /// `KernelBench` passes `atol = rtol`; `tau*` is scored against the larger, which is exact
    /// when they are equal.
    pub fn tolerance(&self) -> f64 {
        self.atol.max(self.rtol)
    }

    /// The protocol's inputs for `desc`, plus every other suite's when `all_suites` is set
    /// (the targeted suites as extra kill-matrix columns). Protocol suites come first.
    pub fn columns(&self, desc: &SubstrateDescription, all_suites: bool) -> Vec<Column> {
        let mut out = Vec::new();
        for name in &self.suites {
            if let Some(s) = desc.suites.iter().find(|s| &s.name == name) {
                out.extend(s.seeds.iter().map(|&seed| Column { suite: s.name.clone(), seed }));
            }
        }
        if all_suites {
            for s in desc.suites.iter().filter(|s| !self.suites.contains(&s.name)) {
                out.extend(s.seeds.iter().map(|&seed| Column { suite: s.name.clone(), seed }));
            }
        }
        out
    }

    /// The columns of `inputs` for `desc`: the protocol's, every suite's, or the small suites'
    /// (the CPU backend's, and a GPU run's when comparing the two backends on equal inputs).
    /// The protocol's tolerance applies to each.
    pub fn columns_for(&self, desc: &SubstrateDescription, inputs: Inputs) -> Vec<Column> {
        let small = || desc.suites.iter().filter(|s| s.small).flat_map(|s| s.seeds.iter().map(|&seed| Column { suite: s.name.clone(), seed }));
        let generated = |official: bool| {
            desc.generated
                .iter()
                .filter(move |g| official || !SubstrateDescription::is_official_size(g))
                .flat_map(|g| GENERATED_SEEDS.iter().map(move |&seed| Column { suite: g.clone(), seed }))
        };
        match inputs {
            Inputs::Protocol => self.columns(desc, false),
            Inputs::All => self.columns(desc, true),
            Inputs::Small => small().collect(),
            Inputs::Witness => self.columns(desc, true).into_iter().chain(generated(true)).collect(),
            Inputs::WitnessSmall => small().chain(generated(false)).collect(),
        }
    }
}

/// Which suites' seeds are a run's (and a score's) input columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inputs {
    /// The protocol's own suites (`T0_original` for `KernelBench`).
    Protocol,
    /// The protocol's suites, then every targeted suite.
    All,
    /// Only the suites marked `small`: sizes a CPU runs in well under a second.
    Small,
    /// The witness search's: the protocol's, every suite, then the generated columns.
    Witness,
    /// The witness search on the CPU backend: the small suites and the generated columns at
    /// small sizes.
    WitnessSmall,
}

impl Inputs {
    /// `official` (the protocol's), `all` or `small`, as `--suites` spells them.
    pub fn parse(text: &str) -> Result<Inputs, String> {
        match text {
            "official" | "protocol" => Ok(Inputs::Protocol),
            "all" => Ok(Inputs::All),
            "small" => Ok(Inputs::Small),
            "witness" => Ok(Inputs::Witness),
            other => Err(format!("unknown suites `{other}`; known: official, all, small, witness")),
        }
    }

    /// The inputs a backend can run: the CPU backend only ever runs the small suites.
    #[must_use]
    pub fn on(self, backend: Backend) -> Inputs {
        match (backend, self) {
            (Backend::Cpu, Inputs::Witness | Inputs::WitnessSmall) => Inputs::WitnessSmall,
            (Backend::Cpu, _) => Inputs::Small,
            (Backend::Gpu, _) => self,
        }
    }

    /// Whether these are a witness search's inputs.
    pub fn is_witness(self) -> bool {
        matches!(self, Inputs::Witness | Inputs::WitnessSmall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SuiteDescription;

    #[test]
    fn official_is_kernelbench_v01_and_head_only_tightens_the_tolerance() {
        let official = Protocol::named("official").unwrap();
        let head = Protocol::named("head").unwrap();
        assert!((official.tolerance() - 1e-2).abs() < 1e-15);
        assert!((head.tolerance() - 1e-4).abs() < 1e-15);
        assert_eq!(official.suites, vec!["T0_original".to_owned()]);
        assert_eq!(official.suites, head.suites);
        assert!(Protocol::named("nope").unwrap_err().contains("official, head"));
    }

    #[test]
    fn columns_put_the_protocol_first_and_add_other_suites_on_request() {
        let suite = |name: &str, seeds: &[u64]| SuiteDescription { name: name.into(), seeds: seeds.to_vec(), purpose: String::new(), small: false };
        let mut desc = SubstrateDescription {
            name: "s".into(),
            level: 1,
            path: String::new(),
            cuda: String::new(),
            cuda_line: 0,
            kernels: vec![],
            steps: vec![],
            cdiv_calls: vec![],
            launch_line: 0,
            suites: vec![suite("T1_small", &[7]), suite("T0_original", &[1, 2]), suite("T2_big", &[3])],
            generated: vec![],
        };
        let p = Protocol::named("official").unwrap();
        let cols = |desc: &SubstrateDescription, all| p.columns(desc, all).into_iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect::<Vec<_>>();
        assert_eq!(cols(&desc, false), ["T0_original:1", "T0_original:2"]);
        assert_eq!(cols(&desc, true), ["T0_original:1", "T0_original:2", "T1_small:7", "T2_big:3"]);
        desc.suites[0].small = true;
        let small: Vec<String> = p.columns_for(&desc, Inputs::All.on(Backend::Cpu)).iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
        assert_eq!(small, ["T1_small:7"]);
        assert_eq!(p.columns_for(&desc, Inputs::All.on(Backend::Gpu)).len(), 4);
        assert_eq!(Inputs::parse("official"), Ok(Inputs::Protocol));
        assert!(Inputs::parse("big").unwrap_err().contains("official, all, small"));
        // The witness search: every suite, then the generated columns (at small sizes only on the CPU).
        desc.generated = vec!["W:scaled:10:small".into(), "W:scaled:10:official".into()];
        let w: Vec<String> = p.columns_for(&desc, Inputs::Witness).iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
        assert_eq!(
            w,
            [
                "T0_original:1",
                "T0_original:2",
                "T1_small:7",
                "T2_big:3",
                "W:scaled:10:small:1",
                "W:scaled:10:small:2",
                "W:scaled:10:official:1",
                "W:scaled:10:official:2"
            ]
        );
        let cpu: Vec<String> = p.columns_for(&desc, Inputs::Witness.on(Backend::Cpu)).iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
        assert_eq!(cpu, ["T1_small:7", "W:scaled:10:small:1", "W:scaled:10:small:2"]);
    }
}
