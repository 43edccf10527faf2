//! Turning one substrate into mutants: every source rule at every site of every readable
//! `__global__`/`__device__` function, and every launch rule at every launch step.

use std::collections::{BTreeSet, HashMap, HashSet};

use kmut_model::{mutant_id, Edit, LaunchTransform, Mutant, MutantKind, SubstrateDescription};
use kmut_syntax::{reaching_kernels, CudaSource, SyntaxError, Unreadable};

use crate::context::Ctx;
use crate::matchers::{LaunchFault, Matcher};
use crate::rule::Rule;
use crate::site::Site;

/// All mutants of one substrate, and what the parser could not read.
#[derive(Debug)]
pub struct SubstrateMutants {
    pub mutants: Vec<Mutant>,
    /// Regions left unmutated because the parser could not read them (line numbers are in the
    /// substrate file when its CUDA could be located there).
    pub unreadable: Vec<Unreadable>,
}

/// Generate the mutants of `desc` for `rules`.
pub fn mutate(desc: &SubstrateDescription, rules: &[&Rule]) -> Result<SubstrateMutants, SyntaxError> {
    let offset = desc.cuda_line.saturating_sub(1);
    let file = if desc.path.is_empty() { format!("{}.cu", desc.name) } else { desc.path.clone() };
    let src = CudaSource::parse(&file, &desc.cuda).map_err(|mut e| {
        e.line += offset;
        e
    })?;
    let layer_of: HashMap<&str, usize> = desc.kernels.iter().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
    let depth = |layer: usize| {
        if desc.kernels.len() > 1 {
            layer as f64 / (desc.kernels.len() - 1) as f64
        } else {
            0.0
        }
    };
    let functions = src.functions();
    let reach = reaching_kernels(&functions);

    let lines = SourceLines::new(&desc.cuda);
    let mut mutants = Vec::new();
    let mut seen: HashSet<(String, usize, usize, String)> = HashSet::new();
    for func in functions.iter().filter(|f| !f.has_error) {
        let ctx = Ctx::new(&src, func);
        let layers: Vec<usize> = reach
            .get(&func.name)
            .map(|ks| ks.iter().filter_map(|k| layer_of.get(k.as_str()).copied()).collect::<BTreeSet<_>>().into_iter().collect())
            .unwrap_or_default();
        for rule in rules.iter().filter(|r| !r.is_launch_rule()) {
            for site in rule.sites(&ctx) {
                let original = &desc.cuda[site.start..site.end];
                if original == site.text || !seen.insert((rule.id.to_owned(), site.start, site.end, site.text.clone())) {
                    continue;
                }
                mutants.push(source_mutant(desc, &src, &lines, rule, &func.name, &layers, depth, offset, &site));
            }
        }
    }
    for rule in rules.iter().filter(|r| r.is_launch_rule()) {
        let Matcher::Launch(fault) = rule.matcher else {
            continue;
        };
        mutants.extend(launch_mutants(desc, rule, fault, &layer_of, depth));
    }
    let unreadable = src
        .unreadable()
        .into_iter()
        .map(|mut u| {
            u.line += offset;
            u
        })
        .collect();
    Ok(SubstrateMutants { mutants, unreadable })
}

#[allow(clippy::too_many_arguments)]
fn source_mutant(
    desc: &SubstrateDescription,
    src: &CudaSource,
    lines: &SourceLines<'_>,
    rule: &Rule,
    function: &str,
    layers: &[usize],
    depth: impl Fn(usize) -> f64,
    offset: usize,
    site: &Site,
) -> Mutant {
    let mut edits = vec![Edit { start: site.start, end: site.end, text: site.text.clone() }];
    if let Some(header) = site.include {
        if !desc.cuda.contains(&format!("#include <{header}>")) {
            edits.push(Edit { start: 0, end: 0, text: format!("#include <{header}>\n") });
        }
    }
    let (line, col) = src.lines.line_col(site.start);
    let diff = unified_diff(&desc.name, lines, &edits);
    let layer = layers.first().copied();
    Mutant {
        id: mutant_id(&desc.name, rule.id, &format!("{}:{}:{}", site.start, site.end, site.text)),
        substrate: desc.name.clone(),
        rule: rule.id.to_owned(),
        family: rule.family,
        kernel: function.to_owned(),
        layers: layers.to_vec(),
        layer,
        depth: layer.map_or(0.0, depth),
        line: line + offset,
        col,
        span: [site.start, site.end],
        original: desc.cuda[site.start..site.end].to_owned(),
        replacement: site.text.clone(),
        mutation: MutantKind::Source { edits },
        diff,
    }
}

fn launch_mutants(desc: &SubstrateDescription, rule: &Rule, fault: LaunchFault, layer_of: &HashMap<&str, usize>, depth: impl Fn(usize) -> f64) -> Vec<Mutant> {
    let mut out = Vec::new();
    let describe = |g: [u32; 3], b: [u32; 3]| format!("grid ({}, {}, {}), block ({}, {}, {})", g[0], g[1], g[2], b[0], b[1], b[2]);
    let mut push = |step: usize, transform: LaunchTransform, original: String, replacement: String, line: usize| {
        let kernel = desc.steps[step].kernel.clone();
        let layer = layer_of.get(kernel.as_str()).copied();
        let site = serde_json_like(&transform);
        out.push(Mutant {
            id: mutant_id(&desc.name, rule.id, &site),
            substrate: desc.name.clone(),
            rule: rule.id.to_owned(),
            family: rule.family,
            kernel: kernel.clone(),
            layers: layer.into_iter().collect(),
            layer,
            depth: layer.map_or(0.0, &depth),
            line,
            col: 1,
            span: [0, 0],
            diff: format!(
                "--- a/{name} launch step {step}\n+++ b/{name} launch step {step}\n-{kernel}: {original}\n+{kernel}: {replacement}\n",
                name = desc.name
            ),
            original,
            replacement,
            mutation: MutantKind::Launch { transform },
        });
    };
    for (j, s) in desc.steps.iter().enumerate() {
        let here = describe(s.grid, s.block);
        match fault {
            LaunchFault::SwapGridBlock => push(j, LaunchTransform::SwapGridBlock { step: j }, here.clone(), describe(s.block, s.grid), desc.launch_line),
            LaunchFault::GridX(d) => {
                if let Some(g) = s.grid[0].checked_add_signed(d).filter(|g| *g >= 1) {
                    push(j, LaunchTransform::GridX { step: j, delta: d }, here.clone(), describe([g, s.grid[1], s.grid[2]], s.block), desc.launch_line);
                }
            }
            LaunchFault::BlockX(d) => {
                if let Some(b) = s.block[0].checked_add_signed(d).filter(|b| *b >= 1) {
                    push(j, LaunchTransform::BlockX { step: j, delta: d }, here.clone(), describe(s.grid, [b, s.block[1], s.block[2]]), desc.launch_line);
                }
            }
            LaunchFault::CdivFloor => {}
        }
    }
    if fault == LaunchFault::CdivFloor {
        let mut cursor = 0;
        for (i, c) in desc.cdiv_calls.iter().enumerate() {
            if c.b <= 1 {
                continue;
            }
            if desc.steps.is_empty() {
                break;
            }
            // Calls come in step order: the step they size is the next one (from the last
            // attributed) whose grid holds the result.
            let holds = |s: &kmut_model::LaunchStep| s.grid.iter().any(|&g| i64::from(g) == c.result);
            let step = (cursor..desc.steps.len()).find(|&j| holds(&desc.steps[j])).or_else(|| desc.steps.iter().position(holds)).unwrap_or(cursor);
            cursor = step;
            push(step, LaunchTransform::CdivFloor { call: i }, format!("K.cdiv({}, {})", c.a, c.b), format!("{} // {}", c.a, c.b), c.line);
        }
    }
    out
}

/// A stable textual key of a launch transform, for ids.
fn serde_json_like(t: &LaunchTransform) -> String {
    match t {
        LaunchTransform::SwapGridBlock { step } => format!("launch:swap:{step}"),
        LaunchTransform::GridX { step, delta } => format!("launch:grid:{step}:{delta}"),
        LaunchTransform::BlockX { step, delta } => format!("launch:block:{step}:{delta}"),
        LaunchTransform::CdivFloor { call } => format!("launch:cdiv:{call}"),
    }
}

/// A source split into lines once per substrate, with each line's first byte: a diff per mutant
/// then costs its hunk, not the file (splitting the whole source for each of a network's
/// thousands of mutants was most of a compile stage that had nothing to compile).
struct SourceLines<'s> {
    lines: Vec<&'s str>,
    starts: Vec<usize>,
}

impl<'s> SourceLines<'s> {
    fn new(source: &'s str) -> SourceLines<'s> {
        let lines: Vec<&str> = source.split_inclusive('\n').collect();
        let mut starts = Vec::with_capacity(lines.len() + 1);
        let mut at = 0;
        for l in &lines {
            starts.push(at);
            at += l.len();
        }
        if source.ends_with('\n') {
            starts.push(at); // the empty line after the last newline
        }
        SourceLines { lines, starts }
    }

    /// The 0-based line holding `byte` (the number of newlines before it).
    fn line_of(&self, byte: usize) -> usize {
        match self.starts.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }
}

/// A unified diff of `edits` against the source of `src_lines`, one hunk per edit, two lines of
/// context. Computed from the edits directly: no whole-file diff per mutant.
fn unified_diff(name: &str, src_lines: &SourceLines<'_>, edits: &[Edit]) -> String {
    const CONTEXT: usize = 2;
    let lines = &src_lines.lines;
    let line_of = |byte: usize| src_lines.line_of(byte);
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.start);
    let mut out = format!("--- a/{name}.cu\n+++ b/{name}.cu\n");
    let mut shift: isize = 0;
    for e in sorted {
        let first = line_of(e.start);
        let last = if e.end > e.start { line_of(e.end - 1) } else { first };
        let last = last.max(first);
        let lo = first.saturating_sub(CONTEXT);
        let hi = (last + CONTEXT).min(lines.len().saturating_sub(1));
        let line_start: usize = src_lines.starts[first.min(lines.len())];
        let old: String = lines[first..=last.min(lines.len() - 1)].concat();
        let new = format!("{}{}{}", &old[..e.start - line_start], e.text, &old[(e.end - line_start).min(old.len())..]);
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = if new.is_empty() { Vec::new() } else { new.split_inclusive('\n').collect() };
        let old_count = hi - lo + 1;
        let new_count = old_count - old_lines.len() + new_lines.len();
        let new_start = (lo as isize + shift) as usize;
        let _ = std::fmt::Write::write_fmt(&mut out, format_args!("@@ -{},{} +{},{} @@\n", lo + 1, old_count, new_start + 1, new_count));
        let mut push = |prefix: char, l: &str| {
            out.push(prefix);
            out.push_str(l.strip_suffix('\n').unwrap_or(l));
            out.push('\n');
        };
        for l in &lines[lo..first] {
            push(' ', l);
        }
        for l in &old_lines {
            push('-', l);
        }
        for l in &new_lines {
            push('+', l);
        }
        if last < hi {
            for l in &lines[last + 1..=hi] {
                push(' ', l);
            }
        }
        shift += new_lines.len() as isize - old_lines.len() as isize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::SourceLines;

    #[test]
    fn line_of_counts_the_newlines_before_every_byte() {
        for source in ["a\nbb\n\nccc", "x\n", "", "\n\n", "one line", "k(){\n  x = 1;\n}\n"] {
            let lines = SourceLines::new(source);
            for b in 0..=source.len() {
                assert_eq!(lines.line_of(b), source[..b].matches('\n').count(), "{source:?} at byte {b}");
            }
            for (i, l) in lines.lines.iter().enumerate() {
                assert_eq!(&source[lines.starts[i]..lines.starts[i] + l.len()], *l);
            }
        }
    }
}
