//! A GPU run's plan: CUBIN images from the content-addressed cache.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use kmut_compile::{source_key, Compile, ImageCache, Scopes};
use kmut_exec::{Candidate, SubstratePlan};
use kmut_model::{Backend, Inputs, MutantKind, Protocol};
use kmut_nvrtc::{Compiler, Options};

use crate::{live, order, Compiled, PlanError, Planned, Sampling};

/// Where a GPU run's images come from: the cache, and the compiler that fills it where an
/// image is missing (a store copied from another machine, a cleared cache).
pub struct GpuImages<'a> {
    pub cache: &'a ImageCache,
    /// NVRTC here (for kernel symbols) ...
    pub compiler: &'a Compiler,
    /// ... and what compiles missing images (a process pool, or the same NVRTC).
    pub service: &'a dyn Compile,
    pub options: &'a Options,
    pub threads: usize,
    /// Compile only the originals now and leave the mutants' images to [`RoundCompiler`],
    /// round by round: a budgeted run compiles only what it is about to run.
    pub defer_mutants: bool,
}

/// The image sources a deferred plan did not compile, by `(substrate, candidate)`.
#[derive(Debug, Clone, Default)]
pub struct Deferred {
    sources: HashMap<(usize, usize), String>,
}

impl Deferred {
    pub fn len(&self) -> usize {
        self.sources.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }
}

/// Compiles a round's missing mutant images into the cache when the engine starts the round
/// (`kmut_exec::RoundImages`).
pub struct RoundCompiler<'a> {
    pub images: GpuImages<'a>,
    pub target: &'a str,
    pub deferred: Deferred,
}

impl kmut_exec::RoundImages for RoundCompiler<'_> {
    fn make(&mut self, _plans: &[kmut_exec::SubstratePlan], round: &[(usize, usize)]) -> Result<usize, String> {
        // Each source leaves the list once asked for: a later round never compiles it again.
        let wanted: Vec<String> = round.iter().filter_map(|k| self.deferred.sources.remove(k)).collect();
        let refs: Vec<&str> = wanted.iter().map(String::as_str).collect();
        self.images.cache.fill(self.images.service, self.images.options, self.target, &refs, self.images.threads).map_err(|e| e.to_string())
    }
}

/// Plan a GPU run: each substrate's `inputs` columns under `protocol`, its original image and
/// its live candidates. Only the originals' and the sampled mutants' images are compiled
/// where the cache lacks them; a mutant outside the sample needs no image. With
/// `defer_mutants` only the originals' are, and the mutants' sources are left in
/// `Planned::deferred` for a [`RoundCompiler`].
pub fn plan_gpu(compiled: &Compiled<'_>, images: &GpuImages<'_>, protocol: &Protocol, inputs: Inputs, sampling: Sampling) -> Result<Planned, PlanError> {
    let mut plans = Vec::new();
    let mut originals = Vec::new();
    // The source each candidate's image is compiled from (none for launch mutants).
    let mut candidate_sources: Vec<Vec<Option<String>>> = Vec::new();
    let mut footprints = crate::footprints::Tables::default();
    for (desc, mutants) in compiled.substrates {
        let scopes = Scopes::parse(desc).unwrap_or_else(|_| Scopes::whole(desc));
        let all = scopes.all();
        let original_source = scopes.original_source(&desc.cuda, &all);
        let current = compiled.store.current_images(desc, compiled.target, Backend::Gpu)?;
        let original_id = current.original.clone().ok_or_else(|| PlanError::NoOriginal { substrate: desc.name.clone(), target: compiled.target.to_owned() })?;
        let mut candidates = Vec::new();
        let mut sources = Vec::new();
        for m in live(compiled.store, desc, compiled.target, mutants)? {
            let image_id = current.mutants.get(&m.id).cloned().unwrap_or_default();
            let (image, scope, transform, source) = match &m.mutation {
                MutantKind::Launch { transform } => (None, all.clone(), Some(transform.clone()), None),
                MutantKind::Source { .. } => {
                    let (scope, source) = scopes.mutant_source(&desc.cuda, m).expect("a source mutant");
                    (Some(images.cache.image_path(&source_key(&source, compiled.target))), scope, None, Some(source))
                }
            };
            candidates.push(Candidate { id: m.id.clone(), family: m.family, image, image_id, scope, transform, variant: None, orders: vec![] });
            sources.push(source);
        }
        let columns = protocol.columns_for(desc, inputs);
        plans.push(SubstratePlan {
            name: desc.name.clone(),
            level: desc.level,
            path: desc.path.clone(),
            original_image: images.cache.image_path(&source_key(&original_source, compiled.target)),
            original_id,
            symbols: BTreeMap::new(),
            original_variant: None,
            search_from: kmut_exec::search_from(&columns, protocol, desc, inputs),
            columns,
            candidates,
            original_bound: None,
            prior_peaks: footprints.for_substrate(Path::new(&desc.path), &desc.name)?,
        });
        originals.push(original_source);
        candidate_sources.push(sources);
    }
    let order = order(&plans, sampling);
    let mut wanted: Vec<&str> = originals.iter().map(String::as_str).collect();
    let mut deferred = Deferred::default();
    if images.defer_mutants {
        deferred.sources = order.iter().filter_map(|&(s, c)| Some(((s, c), candidate_sources[s][c].clone()?))).collect();
    } else {
        wanted.extend(order.iter().filter_map(|&(s, c)| candidate_sources[s][c].as_deref()));
    }
    let compiled_now = images.cache.fill(images.service, images.options, compiled.target, &wanted, images.threads)?;
    let mut notes = Vec::new();
    if compiled_now > 0 {
        notes.push(format!("compiled {compiled_now} images missing from the cache `{}`", images.cache.dir().display()));
    }
    for ((p, original_source), (desc, _)) in plans.iter_mut().zip(&originals).zip(compiled.substrates) {
        p.symbols = symbols(images, &p.original_image, original_source, &desc.kernels)?;
    }
    Ok(Planned { plans, order, notes, made: compiled_now, deferred })
}

/// Each kernel's symbol in the original image: its own name for `extern "C"` kernels, read
/// from the image; only a source with C++-linkage kernels is compiled again (with NVRTC name
/// expressions) to learn their mangled names.
fn symbols(images: &GpuImages<'_>, image: &Path, source: &str, kernels: &[String]) -> Result<BTreeMap<String, String>, PlanError> {
    let bytes = std::fs::read(image).map_err(|source| PlanError::Image { path: image.display().to_string(), source })?;
    let present: Vec<String> = kmut_nvrtc::inspect_cubin(&bytes)?.into_iter().map(|k| k.name).collect();
    if kernels.iter().all(|k| present.contains(k)) {
        return Ok(kernels.iter().map(|k| (k.clone(), k.clone())).collect());
    }
    let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
    Ok(images.compiler.compile_kernels(source, kmut_compile::PROGRAM_NAME, images.options, &names)?.symbols.into_iter().collect())
}
