//! What to evaluate: each substrate's columns and live mutants, and the order mutants are taken
//! in when only a sample (or a time budget) is run.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kmut_model::{Column, Family, LaunchTransform};
use sha2::{Digest, Sha256};

/// One live mutant, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub family: Family,
    /// The CUBIN holding the kernels in `scope`; `None` for launch mutants, which run the
    /// original image.
    pub image: Option<PathBuf>,
    /// What the stored evaluation is of: the image hash, or `launch:` and the original's hash.
    pub image_id: String,
    pub scope: Vec<String>,
    pub transform: Option<LaunchTransform>,
    /// CPU backend: the variant name of the mutant's kernels in the `image` library (`None` on
    /// a GPU, and for launch mutants, which run the original).
    pub variant: Option<String>,
    /// CPU backend: the thread orders to run it in (racy-on-CPU mutants); empty: one run in
    /// the default order.
    pub orders: Vec<u32>,
}

/// One substrate's share of a run.
#[derive(Debug, Clone)]
pub struct SubstratePlan {
    pub name: String,
    pub level: u8,
    /// The substrate file (the worker imports it).
    pub path: String,
    /// The full original image (a CUBIN, or on the CPU backend a shared library) and each
    /// kernel's symbol in it.
    pub original_image: PathBuf,
    /// What the original's baselines are of (`kmut_store::CurrentImages::original`): stored
    /// with each baseline, so a score takes only the current original's.
    pub original_id: String,
    pub symbols: BTreeMap<String, String>,
    /// CPU backend: the original's variant name in `original_image`.
    pub original_variant: Option<String>,
    pub columns: Vec<Column>,
    /// In a witness search, the first of `columns` past the protocol's own: a mutant that
    /// survived every column before it is queued on all the rest at once (the engine's
    /// `rounds`), and only the columns before it capture per-step rows. `columns.len()` outside
    /// a witness search ([`search_from`] computes both).
    pub search_from: usize,
    pub candidates: Vec<Candidate>,
    /// The bound the run judges this substrate's columns by, where a column on which the
    /// original itself fails it decides nothing (`kmut audit`: the protocol's per-problem
    /// bound; a kill there is a false kill, never a detection). Such a column, once its
    /// preparation shows the original failing, gets no mutant evaluations. `None`: every
    /// column is run (the original failing one is only reported).
    pub original_bound: Option<kmut_model::Bound>,
    /// Device bytes a column of each size class (`memory::size_class`) took when another store
    /// measured it (`substrates/footprints.json`, `kmut_plan::footprints`): the memory ledger's
    /// estimate for sizes this run's store never measured. Empty: none known.
    pub prior_peaks: BTreeMap<String, u64>,
}

impl SubstratePlan {
    /// Whether the run's bound rejects the original's output on a column with these measures
    /// (a false kill: nothing there decides); never without a bound.
    pub fn rejects_original(&self, tau: Option<f64>, max_abs: Option<f64>) -> bool {
        self.original_bound.is_some_and(|bound| bound.fails(tau, max_abs))
    }
}

/// `search_from` of a plan whose `columns` are `inputs`' under `protocol`: in a witness search,
/// how many leading columns are the protocol's own.
pub fn search_from(columns: &[Column], protocol: &kmut_model::Protocol, desc: &kmut_model::SubstrateDescription, inputs: kmut_model::Inputs) -> usize {
    if !inputs.is_witness() {
        return columns.len();
    }
    // The protocol's own columns as the backend runs them: the CPU backend's are the small
    // suites (`Inputs::on`), and the score decides the protocol's verdict from those.
    let own_inputs = if inputs == kmut_model::Inputs::WitnessSmall { kmut_model::Inputs::Small } else { kmut_model::Inputs::Protocol };
    let own = protocol.columns_for(desc, own_inputs);
    columns.iter().position(|c| !own.contains(c)).unwrap_or(columns.len())
}

/// Positions `0..n` of `items` reordered so that every prefix is a stratified sample: strata
/// are `(substrate, family)`, taken in proportion to their size (the next pick is always the
/// stratum furthest below its share), and within a stratum by a seeded hash of the mutant id.
/// The same seed always gives the same order.
pub fn stratified_order(items: &[(&str, Family, &str)], seed: u64) -> Vec<usize> {
    // (hash key, position) per stratum
    type Members = Vec<(Vec<u8>, usize)>;
    let mut strata: BTreeMap<(String, Family), Members> = BTreeMap::new();
    for (i, (substrate, family, id)) in items.iter().enumerate() {
        let mut h = Sha256::new();
        h.update(seed.to_le_bytes());
        h.update(id.as_bytes());
        let key: Vec<u8> = h.finalize().iter().take(8).copied().collect();
        strata.entry(((*substrate).to_owned(), *family)).or_default().push((key, i));
    }
    let mut queues: Vec<Vec<usize>> = strata
        .into_values()
        .map(|mut v| {
            v.sort();
            v.into_iter().rev().map(|(_, i)| i).collect()
        })
        .collect();
    let sizes: Vec<f64> = queues.iter().map(|q| q.len() as f64).collect();
    let mut taken = vec![0f64; queues.len()];
    let mut out = Vec::with_capacity(items.len());
    while out.len() < items.len() {
        // Sainte-Laguë: the stratum with the largest size / (2 * taken + 1) goes next.
        let next = (0..queues.len())
            .filter(|&h| !queues[h].is_empty())
            .max_by(|&a, &b| (sizes[a] / (2.0 * taken[a] + 1.0)).total_cmp(&(sizes[b] / (2.0 * taken[b] + 1.0))).then(b.cmp(&a)))
            .expect("a stratum has items left");
        out.push(queues[next].pop().expect("not empty"));
        taken[next] += 1.0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(spec: &[(&'static str, Family, usize)]) -> Vec<(&'static str, Family, String)> {
        let mut v = Vec::new();
        for &(s, f, n) in spec {
            for i in 0..n {
                v.push((s, f, format!("{s}-{f:?}-{i}")));
            }
        }
        v
    }

    #[test]
    fn every_prefix_is_close_to_proportional() {
        let owned = items(&[("a", Family::Arithmetic, 60), ("a", Family::Boundary, 30), ("b", Family::Indexing, 10)]);
        let refs: Vec<(&str, Family, &str)> = owned.iter().map(|(s, f, i)| (*s, *f, i.as_str())).collect();
        let order = stratified_order(&refs, 7);
        assert_eq!(order.len(), 100);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>(), "a permutation");
        let first10: Vec<Family> = order[..10].iter().map(|&i| refs[i].1).collect();
        assert_eq!(first10.iter().filter(|f| **f == Family::Arithmetic).count(), 6);
        assert_eq!(first10.iter().filter(|f| **f == Family::Boundary).count(), 3);
        assert_eq!(first10.iter().filter(|f| **f == Family::Indexing).count(), 1);
    }

    #[test]
    fn a_witness_search_starts_past_the_columns_that_decide_the_protocol_s_verdict() {
        use kmut_model::{Backend, Inputs, Protocol, SubstrateDescription, SuiteDescription};
        let suite = |name: &str, seeds: &[u64], small: bool| SuiteDescription { name: name.into(), seeds: seeds.to_vec(), purpose: String::new(), small };
        let desc = SubstrateDescription {
            name: "L1p1_x".into(),
            level: 1,
            path: "L1p1_x.py".into(),
            cuda: String::new(),
            cuda_line: 0,
            kernels: vec!["k".into()],
            steps: vec![],
            cdiv_calls: vec![],
            launch_line: 0,
            suites: vec![suite("T0_original", &[1, 2], false), suite("T1_small", &[7], true), suite("T2_big", &[3], false)],
            generated: vec!["W:scaled:10:small".into(), "W:scaled:10:official".into()],
        };
        let p = Protocol::named("official").unwrap();
        let from = |inputs: Inputs| search_from(&p.columns_for(&desc, inputs), &p, &desc, inputs);
        // On a GPU the protocol's two trials come first; the suites and generated columns are the search.
        assert_eq!(from(Inputs::Witness), 2);
        // On the CPU the small suites are what the protocol's verdict is read from.
        assert_eq!(from(Inputs::Witness.on(Backend::Cpu)), 1);
        // Not a witness search: no search columns.
        assert_eq!(from(Inputs::All), 4);
    }

    #[test]
    fn the_order_depends_on_the_seed_only() {
        let owned = items(&[("a", Family::Arithmetic, 20), ("b", Family::Semantic, 20)]);
        let refs: Vec<(&str, Family, &str)> = owned.iter().map(|(s, f, i)| (*s, *f, i.as_str())).collect();
        assert_eq!(stratified_order(&refs, 1), stratified_order(&refs, 1));
        assert_ne!(stratified_order(&refs, 1), stratified_order(&refs, 2));
    }

    #[test]
    fn the_order_of_some_substrates_is_their_part_of_the_whole_order() {
        // A witness search over some substrates (`WIT_SUBSTRATES` in the campaign script) extends
        // the whole search's sample only if their order is the whole order restricted to them.
        let owned = items(&[
            ("a", Family::Arithmetic, 37),
            ("a", Family::Boundary, 11),
            ("b", Family::Indexing, 23),
            ("b", Family::Arithmetic, 5),
            ("c", Family::Semantic, 17),
            ("c", Family::Boundary, 29),
        ]);
        let refs: Vec<(&str, Family, &str)> = owned.iter().map(|(s, f, i)| (*s, *f, i.as_str())).collect();
        for keep in [&["a", "c"][..], &["b"][..], &["b", "c"][..]] {
            let whole: Vec<&str> = stratified_order(&refs, 3).into_iter().map(|i| refs[i]).filter(|r| keep.contains(&r.0)).map(|r| r.2).collect();
            let part_refs: Vec<(&str, Family, &str)> = refs.iter().copied().filter(|r| keep.contains(&r.0)).collect();
            let part: Vec<&str> = stratified_order(&part_refs, 3).into_iter().map(|i| part_refs[i].2).collect();
            assert_eq!(part, whole, "substrates {keep:?}");
        }
    }
}
