//! `__global__` kernels and `__device__` helpers, and which kernels reach each helper.

use std::collections::{BTreeSet, HashMap};

use tree_sitter::Node;

use crate::walk::{descendants, field};
use crate::CudaSource;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Global,
    Device,
}

/// One GPU function definition.
#[derive(Debug, Clone)]
pub struct GpuFunction<'t> {
    pub name: String,
    pub kind: FunctionKind,
    pub node: Node<'t>,
    pub body: Node<'t>,
    /// The definition contains an ERROR or MISSING node: it is never mutated.
    pub has_error: bool,
    /// Names of functions this one calls.
    pub calls: BTreeSet<String>,
}

pub(crate) fn find(src: &CudaSource) -> Vec<GpuFunction<'_>> {
    let mut out = Vec::new();
    for node in descendants(src.root()).filter(|n| n.kind() == "function_definition") {
        let mut cursor = node.walk();
        let kind = node.children(&mut cursor).find_map(|c| match c.kind() {
            "__global__" => Some(FunctionKind::Global),
            "__device__" => Some(FunctionKind::Device),
            _ => None,
        });
        let (Some(kind), Some(body)) = (kind, field(node, "body")) else {
            continue;
        };
        let Some(name) = function_name(src, node) else {
            continue;
        };
        let calls = descendants(body)
            .filter(|n| n.kind() == "call_expression")
            .filter_map(|c| field(c, "function"))
            .filter(|f| f.kind() == "identifier")
            .map(|f| src.text(f).to_owned())
            .collect();
        out.push(GpuFunction { name, kind, node, body, has_error: node.has_error(), calls });
    }
    out
}

fn function_name(src: &CudaSource, def: Node<'_>) -> Option<String> {
    let mut decl = field(def, "declarator")?;
    // Unwrap pointer/reference declarators down to the function declarator.
    while decl.kind() != "function_declarator" {
        decl = field(decl, "declarator")?;
    }
    let id = field(decl, "declarator")?;
    Some(src.text(id).to_owned())
}

/// For each function name, the kernels (by name) that reach it through calls, itself included
/// when it is a kernel.
pub fn reaching_kernels(functions: &[GpuFunction<'_>]) -> HashMap<String, BTreeSet<String>> {
    let by_name: HashMap<&str, &GpuFunction<'_>> = functions.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut reach: HashMap<String, BTreeSet<String>> = HashMap::new();
    for k in functions.iter().filter(|f| f.kind == FunctionKind::Global) {
        let mut stack = vec![k.name.as_str()];
        let mut seen = BTreeSet::new();
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            reach.entry(f.to_owned()).or_default().insert(k.name.clone());
            if let Some(def) = by_name.get(f) {
                stack.extend(def.calls.iter().map(String::as_str).filter(|c| by_name.contains_key(c)));
            }
        }
    }
    reach
}
