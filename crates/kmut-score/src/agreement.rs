//! How often the CPU backend's verdict matches a GPU's, on the same mutants and the same inputs.
//!
//! Both backends must have run the same cells: `kmut run --backend cpu` and, on a GPU, `kmut run
//! --suites small` (the CPU backend's inputs), best with `--full-matrix` and the same `--seed`
//! and `--sample`, so that every (mutant, input) cell exists on both sides. Only cells present
//! on both count. A cell is a kill at the tolerance as in scoring (`Evaluation::kills_at`); a
//! mutant is killed on a backend when any shared cell kills it.

use std::collections::{BTreeMap, HashMap};

use kmut_model::{cpu_fidelity, Backend, CpuFidelity, Family, CPU_TARGET};
use kmut_store::Store;
use serde::Serialize;

use crate::ScoreError;

/// Agreement counts for one group of mutants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgreementRow {
    pub name: String,
    /// Mutants with at least one cell on both backends.
    pub mutants: usize,
    /// ... whose verdicts (killed or not) agree.
    pub agree: usize,
    /// Killed on the CPU only, and on the GPU only.
    pub cpu_only: usize,
    pub gpu_only: usize,
    /// (mutant, input) cells on both backends, and those whose kills agree.
    pub cells: usize,
    pub cells_agree: usize,
}

impl AgreementRow {
    fn named(name: &str) -> AgreementRow {
        AgreementRow { name: name.to_owned(), ..AgreementRow::default() }
    }

    fn add(&mut self, gpu: bool, cpu: bool, cells: usize, cells_agree: usize) {
        self.mutants += 1;
        self.agree += usize::from(gpu == cpu);
        self.cpu_only += usize::from(cpu && !gpu);
        self.gpu_only += usize::from(gpu && !cpu);
        self.cells += cells;
        self.cells_agree += cells_agree;
    }

    /// The share of mutants whose verdicts agree (`None` for an empty row).
    pub fn rate(&self) -> Option<f64> {
        (self.mutants > 0).then(|| self.agree as f64 / self.mutants as f64)
    }
}

/// The agreement of a CPU run with a GPU run.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    pub tolerance: f64,
    pub gpu_backends: Vec<String>,
    pub cpu_backends: Vec<String>,
    /// Every compared mutant but the racy-on-CPU ones: the GPU-comparable figure.
    pub comparable: AgreementRow,
    /// Synchronisation and warp mutants (run on the CPU in several thread orders).
    pub racy_on_cpu: AgreementRow,
    pub by_family: Vec<AgreementRow>,
}

/// Compare the GPU evaluations in `gpu` with the CPU backend's in `cpu` (one store may hold both).
pub fn agreement(gpu: &Store, cpu: &Store, tolerance: f64) -> Result<Agreement, ScoreError> {
    let mut by_family: BTreeMap<Family, AgreementRow> = BTreeMap::new();
    let mut comparable = AgreementRow::named("GPU-comparable");
    let mut racy = AgreementRow::named("racy-on-CPU");
    let (mut gpu_backends, mut cpu_backends) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for d in gpu.substrates()? {
        let Some(target) = gpu.targets(&d.name)?.into_iter().find(|t| t != CPU_TARGET) else { continue };
        // Only cells of the current images on both sides (a stale cell is of another program).
        let gpu_current = gpu.current_images(&d, &target, Backend::Gpu)?.mutants;
        let cpu_current = match cpu.targets(&d.name)?.into_iter().next() {
            Some(t) => cpu.current_images(&d, &t, Backend::Cpu)?.mutants,
            None => HashMap::new(),
        };
        let cpu_cells: HashMap<(String, String, u64), bool> = cpu
            .evaluations(&d.name, CPU_TARGET)?
            .into_iter()
            .filter(|e| cpu_current.get(&e.mutant) == Some(&e.image))
            .inspect(|e| {
                cpu_backends.insert(e.backend.clone());
            })
            .map(|e| ((e.mutant.clone(), e.suite.clone(), e.seed), e.kills_at(tolerance)))
            .collect();
        let mut cells: BTreeMap<String, Vec<(bool, bool)>> = BTreeMap::new();
        for e in gpu.evaluations(&d.name, &target)?.into_iter().filter(|e| gpu_current.get(&e.mutant) == Some(&e.image)) {
            if let Some(&c) = cpu_cells.get(&(e.mutant.clone(), e.suite.clone(), e.seed)) {
                gpu_backends.insert(e.backend.clone());
                cells.entry(e.mutant.clone()).or_default().push((e.kills_at(tolerance), c));
            }
        }
        for m in gpu.mutants(&d.name)? {
            let Some(pairs) = cells.get(&m.id) else { continue };
            let (g, c) = (pairs.iter().any(|p| p.0), pairs.iter().any(|p| p.1));
            let same = pairs.iter().filter(|p| p.0 == p.1).count();
            by_family.entry(m.family).or_insert_with(|| AgreementRow::named(m.family.name())).add(g, c, pairs.len(), same);
            let group = if cpu_fidelity(m.family, &m.rule) == CpuFidelity::RacyOnCpu { &mut racy } else { &mut comparable };
            group.add(g, c, pairs.len(), same);
        }
    }
    Ok(Agreement {
        tolerance,
        gpu_backends: gpu_backends.into_iter().collect(),
        cpu_backends: cpu_backends.into_iter().collect(),
        comparable,
        racy_on_cpu: racy,
        by_family: by_family.into_values().collect(),
    })
}
