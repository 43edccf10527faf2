//! The CPU backend's plan: each substrate's small-suite columns, its original and the chosen
//! mutants built as CPU variants (g++, many per library).

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use kmut_compile::{source_key, Scopes};
use kmut_exec::{Candidate, SubstratePlan};
use kmut_model::{cpu_fidelity, Backend, CpuFidelity, Inputs, Mutant, MutantKind, Protocol, SubstrateDescription, CPU_TARGET, RACE_ORDERS};
use kmut_store::CurrentImages;

use crate::{live, order, Compiled, PlanError, Planned, Sampling};

/// How a CPU run is planned beyond the sampling.
pub struct CpuPlanOptions<'a> {
    pub gxx: &'a kmut_cpu::Compiler,
    /// Where g++ keeps built libraries (beside the image cache).
    pub build: kmut_cpu::BuildOptions,
    /// Set aside a substrate whose stored CPU baseline took longer than this per input (ms).
    pub heavy_ms: Option<f64>,
    pub interrupt: &'a AtomicBool,
}

/// Plan a CPU run on `inputs` as the CPU backend runs them (the small suites, or the witness
/// search's small-size columns). The order is a GPU run's with the equivalent-on-CPU mutants taken out, so
/// the same seed and sample give the same mutants on both backends; racy-on-CPU ones run in
/// every order of `RACE_ORDERS`. A mutant g++ cannot build is left out (it stays not run) and
/// said so in the notes; a substrate whose stored CPU baseline is over the heavy limit is set
/// aside before building anything.
pub fn plan_cpu(compiled: &Compiled<'_>, protocol: &Protocol, inputs: Inputs, sampling: Sampling, options: &CpuPlanOptions<'_>) -> Result<Planned, PlanError> {
    let inputs = inputs.on(Backend::Cpu);
    let mut plans = Vec::new();
    let mut variants: Vec<kmut_cpu::Variant> = Vec::new();
    let mut equivalent = HashSet::new();
    let mut notes = Vec::new();
    for (desc, mutants) in compiled.substrates {
        let scopes = Scopes::parse(desc).unwrap_or_else(|_| Scopes::whole(desc));
        let all = scopes.all();
        let original = variant(scopes.original_source(&desc.cuda, &all), &all);
        let current = compiled.store.current_images(desc, compiled.target, Backend::Cpu)?;
        let live = live(compiled.store, desc, compiled.target, mutants)?;
        for (i, m) in live.iter().enumerate() {
            if cpu_fidelity(m.family, &m.rule) == CpuFidelity::EquivalentOnCpu {
                // Kept in the plan so the sampling order is the GPU's; taken out of it below.
                equivalent.insert((plans.len(), i));
            }
        }
        let (candidates, mine) = candidates(&scopes, desc, &live, &current);
        variants.extend(mine);
        let columns = protocol.columns_for(desc, inputs);
        plans.push(SubstratePlan {
            name: desc.name.clone(),
            level: desc.level,
            path: desc.path.clone(),
            original_image: PathBuf::new(),
            original_id: current.original.clone().ok_or_else(|| PlanError::NoOriginal { substrate: desc.name.clone(), target: compiled.target.to_owned() })?,
            symbols: BTreeMap::new(),
            original_variant: Some(original.name.clone()),
            search_from: kmut_exec::search_from(&columns, protocol, desc, inputs),
            columns,
            candidates,
            original_bound: None,
            // Host memory on the CPU backend: the device ledger has no budget there.
            prior_peaks: std::collections::BTreeMap::new(),
        });
        variants.push(original);
    }
    let mut order = order(&plans, sampling);
    let sampled = order.len();
    order.retain(|at| !equivalent.contains(at));
    if order.len() < sampled {
        notes
            .push(format!("{} fast-math mutants are equivalent on the CPU (its intrinsics are the accurate functions) and are not run", sampled - order.len()));
    }
    let heavy = known_heavy(compiled, &plans, options.heavy_ms, &mut notes)?;
    order.retain(|(s, _)| !heavy.contains(s));
    // Build only what runs: the originals and the chosen mutants, each distinct source once.
    let chosen: HashSet<&str> = plans
        .iter()
        .filter_map(|p| p.original_variant.as_deref())
        .chain(order.iter().filter_map(|&(s, c)| plans[s].candidates[c].variant.as_deref()))
        .collect();
    let mut wanted: Vec<kmut_cpu::Variant> = Vec::new();
    let mut distinct = HashSet::new();
    for v in variants {
        if chosen.contains(v.name.as_str()) && distinct.insert(v.name.clone()) {
            wanted.push(v);
        }
    }
    if options.interrupt.load(Ordering::Relaxed) {
        return Err(PlanError::Interrupted);
    }
    let built = kmut_cpu::build(options.gxx, &wanted, &options.build)?;
    let cached = built.units.iter().filter(|u| u.cached).count();
    notes.push(format!(
        "built {} CPU variants ({} libraries, {cached} from the cache `{}`)",
        built.libraries.len(),
        built.units.len(),
        options.build.cache_dir.display()
    ));
    for p in &mut plans {
        let name = p.original_variant.clone().expect("set above");
        let library = built
            .libraries
            .get(&name)
            .ok_or_else(|| PlanError::OriginalUnbuilt { substrate: p.name.clone(), log: log_head(built.failed.get(&name).map_or("", String::as_str)) })?;
        p.original_image.clone_from(library);
        for c in &mut p.candidates {
            if let Some(lib) = c.variant.as_ref().and_then(|v| built.libraries.get(v)) {
                c.image = Some(lib.clone());
            }
        }
    }
    let before = order.len();
    let unbuilt: Vec<String> = order
        .iter()
        .filter_map(|&(s, c)| {
            let cand = &plans[s].candidates[c];
            let v = cand.variant.as_ref()?;
            built.failed.get(v).map(|log| format!("{}: {}", cand.id, log_head(log).lines().next().unwrap_or("")))
        })
        .collect();
    order.retain(|&(s, c)| plans[s].candidates[c].variant.is_none() || plans[s].candidates[c].image.is_some());
    if !unbuilt.is_empty() {
        notes.push(format!(
            "{} of {before} mutants do not build for the CPU backend and are left out (they stay not run); first: {}",
            unbuilt.len(),
            unbuilt.first().map_or("", String::as_str)
        ));
    }
    Ok(Planned { plans, order, notes, made: built.units.len() - cached, deferred: crate::Deferred::default() })
}

/// Substrates an earlier CPU run of this store measured above the limit (their stored
/// baselines): set aside at once, without paying for a column preparation again.
fn known_heavy(compiled: &Compiled<'_>, plans: &[SubstratePlan], heavy_ms: Option<f64>, notes: &mut Vec<String>) -> Result<HashSet<usize>, PlanError> {
    let mut heavy = HashSet::new();
    let Some(limit) = heavy_ms else { return Ok(heavy) };
    for (i, p) in plans.iter().enumerate() {
        let slowest = compiled.store.baselines(&p.name, CPU_TARGET)?.iter().filter_map(|b| b.kernel_ms).fold(0.0_f64, f64::max);
        if slowest > limit {
            notes.push(format!(
                "{}: set aside: an earlier CPU run measured its original at {:.1} s per input (limit {:.1} s; --heavy-limit 0 runs it anyway); run it on a GPU",
                p.name,
                slowest / 1e3,
                limit / 1e3
            ));
            heavy.insert(i);
        }
    }
    Ok(heavy)
}

/// One substrate's live mutants as CPU candidates, and the variants to build for them. An
/// equivalent-on-CPU mutant gets a placeholder without image or variant (it never runs).
fn candidates(scopes: &Scopes, desc: &SubstrateDescription, live: &[&Mutant], current: &CurrentImages) -> (Vec<Candidate>, Vec<kmut_cpu::Variant>) {
    let all = scopes.all();
    let mut candidates = Vec::new();
    let mut variants = Vec::new();
    for m in live {
        let fidelity = cpu_fidelity(m.family, &m.rule);
        let orders = if fidelity == CpuFidelity::RacyOnCpu { RACE_ORDERS.to_vec() } else { vec![] };
        let image_id = current.mutants.get(&m.id).cloned().unwrap_or_default();
        let mut c = Candidate { id: m.id.clone(), family: m.family, image: None, image_id, scope: vec![], transform: None, variant: None, orders };
        match &m.mutation {
            _ if fidelity == CpuFidelity::EquivalentOnCpu => {}
            MutantKind::Launch { transform } => {
                c.scope.clone_from(&all);
                c.transform = Some(transform.clone());
            }
            MutantKind::Source { .. } => {
                let (scope, source) = scopes.mutant_source(&desc.cuda, m).expect("a source mutant");
                let v = variant(source, &scope);
                c.scope = scope;
                c.variant = Some(v.name.clone());
                variants.push(v);
            }
        }
        candidates.push(c);
    }
    (candidates, variants)
}

/// A CPU variant named by a hash of its source and kernels: identical mutants share one.
fn variant(source: String, kernels: &[String]) -> kmut_cpu::Variant {
    let key = source_key(&source, &format!("cpu:{}", kernels.join(",")));
    kmut_cpu::Variant { name: format!("v{}", &key[..16]), source, kernels: kernels.to_vec() }
}

/// The first lines of a compiler log.
fn log_head(log: &str) -> String {
    log.lines().take(12).collect::<Vec<_>>().join("\n")
}
