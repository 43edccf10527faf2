//! Checking protocols, as data (`protocols/kernelbench.json`): which inputs a kernel is checked
//! on and the tolerance of the comparison. The execution engine evaluates the protocol's inputs;
//! scoring re-reads the stored `tau*` at the protocol's tolerance, so a protocol that differs
//! only in tolerance (`KernelBench` HEAD) is scored without running anything again.

use serde::{Deserialize, Serialize};

use crate::{Backend, SubstrateDescription};

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

    /// The inputs a run on `backend` evaluates: the protocol's (and, with `all_suites`, every
    /// suite's) on a GPU; on the CPU, the substrate's small suites, whose sizes a CPU can run.
    /// The protocol's tolerance applies either way.
    pub fn columns_on(&self, desc: &SubstrateDescription, all_suites: bool, backend: Backend) -> Vec<Column> {
        match backend {
            Backend::Gpu => self.columns(desc, all_suites),
            Backend::Cpu => desc.suites.iter().filter(|s| s.small).flat_map(|s| s.seeds.iter().map(|&seed| Column { suite: s.name.clone(), seed })).collect(),
        }
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
        };
        let p = Protocol::named("official").unwrap();
        let cols = |desc: &SubstrateDescription, all| p.columns(desc, all).into_iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect::<Vec<_>>();
        assert_eq!(cols(&desc, false), ["T0_original:1", "T0_original:2"]);
        assert_eq!(cols(&desc, true), ["T0_original:1", "T0_original:2", "T1_small:7", "T2_big:3"]);
        desc.suites[0].small = true;
        let cpu: Vec<String> = p.columns_on(&desc, true, Backend::Cpu).iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
        assert_eq!(cpu, ["T1_small:7"]);
    }
}
