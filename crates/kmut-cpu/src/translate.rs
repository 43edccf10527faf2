//! CUDA source to one C++ translation unit: the prelude, then every variant (the original and
//! its mutants) in a namespace of its own, each followed by an `extern "C"` launcher per kernel.
//!
//! The source itself is kept as written; the prelude's macros do most of the work. The rewrites
//! here are the few constructs a macro cannot reach:
//! * `#include` lines are commented out: the prelude already includes what CUDA headers provide,
//!   and an include inside a namespace would be wrong.
//! * `extern "C"` is dropped (two variants' `extern "C"` kernels of one name would be one
//!   function); an `extern "C" { ... }` block becomes an inline namespace.
//! * `extern __shared__ T name[];` (dynamic shared memory, unsized) becomes a sized static array.
//! * `static __shared__` loses its `static` (the macro already says it).
//!
//! Every `#define` of a variant is `#undef`'d after it, so one variant's macros never leak into
//! the next. `#line` directives name each variant's code `variant/<name>.cu` and its launchers
//! `variant/<name>.launch`, so a compile error is attributed to the variant that caused it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use std::ops::Range;

use kmut_syntax::{CudaSource, GpuFunction};

use crate::lex::{self, Kind, Token};
use crate::CpuError;

/// The prelude header, compiled at the top of every translation unit.
pub const PRELUDE: &str = include_str!("prelude.hpp");

/// Calls that need every thread of a block (or warp) to reach them: kernels that make them run
/// one fiber per thread; the others take the fast path of plain calls.
pub const SYNC_CALLS: &[&str] = &[
    "__syncthreads",
    "__syncthreads_count",
    "__syncthreads_and",
    "__syncthreads_or",
    "__syncwarp",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__shfl",
    "__shfl_up",
    "__shfl_down",
    "__shfl_xor",
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__activemask",
    "__reduce_add_sync",
];

/// One CUDA source to translate: the original or a mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// A C identifier, unique within a translation unit; part of the launcher symbols.
    pub name: String,
    pub source: String,
    /// The `__global__` functions to make launchers for.
    pub kernels: Vec<String>,
}

impl Variant {
    pub fn new(name: impl Into<String>, source: impl Into<String>, kernels: &[&str]) -> Variant {
        Variant { name: name.into(), source: source.into(), kernels: kernels.iter().map(|k| (*k).to_owned()).collect() }
    }
}

/// A variant as C++: its namespace block and launchers, ready to be put in a translation unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    pub name: String,
    pub text: String,
    /// Kernels that run one fiber per thread (the others take the fast path).
    pub fibers: BTreeSet<String>,
}

/// `kmut_launch_<variant>_<kernel>`: `int (unsigned gx, gy, gz, bx, by, bz, void** args, int order)`.
pub fn launcher_symbol(variant: &str, kernel: &str) -> String {
    format!("kmut_launch_{variant}_{kernel}")
}

/// `kmut_params_<variant>_<kernel>`: `int (long long* sizes, int capacity)`, the parameter count,
/// with each parameter's byte size written into `sizes`.
pub fn params_symbol(variant: &str, kernel: &str) -> String {
    format!("kmut_params_{variant}_{kernel}")
}

/// The file name compile errors in a variant's code carry.
pub fn variant_file(variant: &str) -> String {
    format!("variant/{variant}.cu")
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Translate one variant.
pub fn translate_variant(v: &Variant) -> Result<Translated, CpuError> {
    let bad = |message: String| CpuError::Translate { variant: v.name.clone(), message };
    if !is_identifier(&v.name) {
        return Err(bad(format!("the variant name {:?} is not a C identifier", v.name)));
    }
    if v.kernels.is_empty() {
        return Err(bad("no kernel names given".to_owned()));
    }
    if let Some(k) = v.kernels.iter().find(|k| !is_identifier(k)) {
        return Err(bad(format!("the kernel name {k:?} is not a C identifier")));
    }
    let tokens = lex::tokens(&v.source);
    let parsed = CudaSource::parse("variant.cu", &v.source).ok();
    let functions = parsed.as_ref().map(CudaSource::functions);
    let (body, macros) = rewrite(&v.source, &tokens);
    let fibers = fiber_kernels(&v.source, &tokens, functions.as_deref(), &v.kernels);
    let ns = format!("kmut_v_{}", v.name);
    let mut text = String::with_capacity(body.len() + 1024);
    let _ = writeln!(text, "namespace {ns} {{");
    let _ = writeln!(text, "#line 1 \"{}\"", variant_file(&v.name));
    text.push_str(&body);
    if !body.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("}\n");
    let _ = writeln!(text, "#line 1 \"variant/{}.launch\"", v.name);
    for m in &macros {
        let _ = writeln!(text, "#undef {m}");
    }
    for k in &v.kernels {
        let fiber = fibers.contains(k);
        let _ = writeln!(
            text,
            "KMUT_EXPORT int {}(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, void** args, int order) \
             {{ return ::kmut::launch<&::{ns}::{k}, {fiber}>(gx, gy, gz, bx, by, bz, args, order); }}",
            launcher_symbol(&v.name, k)
        );
        let _ = writeln!(
            text,
            "KMUT_EXPORT int {}(long long* sizes, int cap) {{ return ::kmut::param_sizes<&::{ns}::{k}>(sizes, cap); }}",
            params_symbol(&v.name, k)
        );
    }
    Ok(Translated { name: v.name.clone(), text, fibers })
}

/// The translation unit of already translated variants.
pub fn unit_text(parts: &[&Translated]) -> String {
    let mut tu = String::with_capacity(PRELUDE.len() + parts.iter().map(|p| p.text.len()).sum::<usize>() + 256);
    let _ = writeln!(tu, "// kmut-cpu translation unit: {} variant(s)", parts.len());
    tu.push_str("#line 1 \"kmut-prelude.hpp\"\n");
    tu.push_str(PRELUDE);
    for p in parts {
        let _ = writeln!(tu, "// ---------------------------------------------------------------- variant {}", p.name);
        tu.push_str(&p.text);
    }
    tu
}

/// Translate `variants` into one translation unit.
pub fn translate(variants: &[Variant]) -> Result<String, CpuError> {
    let mut seen = BTreeSet::new();
    let mut parts = Vec::with_capacity(variants.len());
    for v in variants {
        if !seen.insert(v.name.as_str()) {
            return Err(CpuError::Translate { variant: v.name.clone(), message: "two variants have this name".to_owned() });
        }
        parts.push(translate_variant(v)?);
    }
    Ok(unit_text(&parts.iter().collect::<Vec<_>>()))
}

/// The source with the rewrites applied, and the macros it defines. A `__shared__` declaration
/// inside a function gets a `KMUT_NOTE_SHARED` per name after it.
fn rewrite(src: &str, tokens: &[Token]) -> (String, Vec<String>) {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let in_function = in_function_body(tokens);
    let mut macros = Vec::new();
    let ident = |i: usize, name: &str| tokens.get(i).is_some_and(|t| t.is_ident(src, name));
    let punct = |i: usize, c: u8| tokens.get(i).is_some_and(|t| t.kind == Kind::Punct(c));
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Directive => {
                let d = t.text(src);
                if lex::is_include(d) {
                    let first = d.lines().next().unwrap_or_default();
                    let newlines = "\n".repeat(d.matches('\n').count());
                    edits.push((t.span.clone(), format!("// kmut-cpu, provided by the prelude: {first}{newlines}")));
                } else if let Some(m) = lex::defined_macro(d) {
                    if !macros.iter().any(|x| x == m) {
                        macros.push(m.to_owned());
                    }
                }
            }
            Kind::Ident if t.text(src) == "extern" => {
                let next = tokens.get(i + 1);
                if next.is_some_and(|n| n.kind == Kind::Str && n.text(src) == "\"C\"") {
                    if punct(i + 2, b'{') {
                        edits.push((t.span.start..tokens[i + 2].span.end, "inline namespace kmut_extern_c {".to_owned()));
                    } else {
                        edits.push((t.span.start..tokens[i + 1].span.end, String::new()));
                    }
                } else if ident(i + 1, "__shared__") {
                    edits.push(dynamic_shared(src, tokens, i).unwrap_or_else(|| (t.span.clone(), String::new())));
                }
            }
            Kind::Ident if t.text(src) == "static" && ident(i + 1, "__shared__") => edits.push((t.span.clone(), String::new())),
            Kind::Ident if t.text(src) == "__shared__" && !(i > 0 && ident(i - 1, "extern")) && in_function[i] => {
                if let Some((end, names)) = shared_names(src, tokens, i) {
                    let notes = names.iter().fold(String::new(), |mut acc, n| {
                        let _ = write!(acc, " KMUT_NOTE_SHARED({n});");
                        acc
                    });
                    edits.push((end..end, notes));
                }
            }
            _ => {}
        }
    }
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(src.len() + 256);
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(&src[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&src[at..]);
    (out, macros)
}

/// For each token, whether it is inside a function body: inside a brace opened right after a
/// `)` (a function's or a lambda's parameter list), at any depth. Lexical, so it holds where
/// the parser misreads a function.
fn in_function_body(tokens: &[Token]) -> Vec<bool> {
    let mut stack: Vec<bool> = Vec::new();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Punct(b'{') => {
                let after_params = i > 0 && tokens[i - 1].kind == Kind::Punct(b')');
                stack.push(after_params || stack.last().copied().unwrap_or(false));
            }
            Kind::Punct(b'}') => {
                stack.pop();
            }
            _ => {}
        }
        out.push(stack.last().copied().unwrap_or(false));
    }
    out
}

/// The end of the `__shared__` declaration at token `i` (after its `;`) and the names it
/// declares: in each top-level comma-separated declarator, the last identifier before its first
/// `[` or `=`.
fn shared_names<'s>(src: &'s str, tokens: &[Token], i: usize) -> Option<(usize, Vec<&'s str>)> {
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut last: Option<&str> = None;
    let mut closed = false; // past this declarator's name (a `[` or `=` seen)
    for t in &tokens[i + 1..] {
        match t.kind {
            Kind::Punct(b'(' | b'[' | b'{') => {
                if depth == 0 && t.kind == Kind::Punct(b'[') {
                    closed = true;
                }
                depth += 1;
            }
            Kind::Punct(b')' | b']' | b'}') => depth -= 1,
            Kind::Punct(b'=') if depth == 0 => closed = true,
            Kind::Punct(b',' | b';') if depth == 0 => {
                names.push(last?);
                if t.kind == Kind::Punct(b';') {
                    return Some((t.span.end, names));
                }
                (last, closed) = (None, false);
            }
            Kind::Ident if depth == 0 && !closed => last = Some(t.text(src)),
            Kind::Directive => return None,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

/// `extern __shared__ T name[];` starting at token `i`, as a sized thread-local array of
/// `KMUT_DYNAMIC_SHARED_BYTES`. None when the declaration has another shape.
fn dynamic_shared(src: &str, tokens: &[Token], i: usize) -> Option<(Range<usize>, String)> {
    let semi = (i..tokens.len()).find(|&j| tokens[j].kind == Kind::Punct(b';'))?;
    if semi < i + 6 || tokens[semi - 1].kind != Kind::Punct(b']') || tokens[semi - 2].kind != Kind::Punct(b'[') || tokens[semi - 3].kind != Kind::Ident {
        return None;
    }
    let name = tokens[semi - 3].text(src);
    let declared = &src[tokens[i + 2].span.start..tokens[semi - 3].span.start];
    // The element type for sizeof: the declared type without __align__(...).
    let mut element = String::new();
    let mut j = i + 2;
    while j < semi - 3 {
        if tokens[j].is_ident(src, "__align__") {
            let mut depth = 0;
            j += 1;
            while j < semi - 3 {
                match tokens[j].kind {
                    Kind::Punct(b'(') => depth += 1,
                    Kind::Punct(b')') => depth -= 1,
                    _ => {}
                }
                j += 1;
                if depth == 0 {
                    break;
                }
            }
            continue;
        }
        element.push_str(tokens[j].text(src));
        element.push(' ');
        j += 1;
    }
    let text = format!("static thread_local {declared}{name}[KMUT_DYNAMIC_SHARED_BYTES / sizeof({})] __attribute__((aligned(16)));", element.trim_end());
    Some((tokens[i].span.start..tokens[semi].span.end, text))
}

/// The kernels among `kernels` that reach a barrier or warp operation, by a conservative
/// lexical call graph: a function reaches another when its body names it (so template and
/// qualified calls count). A kernel the parser cannot find runs fibers, and so does every
/// kernel when a macro names a sync call, or that reaches a function the parser misread.
fn fiber_kernels(src: &str, tokens: &[Token], functions: Option<&[GpuFunction<'_>]>, kernels: &[String]) -> BTreeSet<String> {
    let is_sync = |t: &Token| t.kind == Kind::Ident && SYNC_CALLS.contains(&t.text(src));
    let all = || kernels.iter().cloned().collect::<BTreeSet<_>>();
    if tokens.iter().filter(|t| t.kind == Kind::Directive).any(|t| SYNC_CALLS.iter().any(|s| t.text(src).contains(s))) {
        return all();
    }
    if !tokens.iter().any(is_sync) {
        return BTreeSet::new();
    }
    let Some(functions) = functions else {
        return all();
    };
    // Per function name (overloads merged): does its body sync, which functions does it name.
    let names: BTreeSet<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    let mut syncs: BTreeMap<&str, bool> = BTreeMap::new();
    let mut refs: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for f in functions {
        let body = f.body.start_byte()..f.body.end_byte();
        let inside = tokens.iter().filter(|t| t.span.start >= body.start && t.span.end <= body.end);
        let mut s = false;
        let r = refs.entry(f.name.as_str()).or_default();
        for t in inside {
            s |= is_sync(t);
            if t.kind == Kind::Ident && names.contains(t.text(src)) {
                r.insert(t.text(src));
            }
        }
        // A function the parser misread may hide a call: it syncs if anything in the source does.
        *syncs.entry(f.name.as_str()).or_default() |= s || f.has_error;
    }
    kernels
        .iter()
        .filter(|k| {
            if !names.contains(k.as_str()) {
                return true;
            }
            let mut stack = vec![k.as_str()];
            let mut seen = BTreeSet::new();
            while let Some(f) = stack.pop() {
                if !seen.insert(f) {
                    continue;
                }
                if syncs.get(f).copied().unwrap_or(false) {
                    return true;
                }
                stack.extend(refs.get(f).into_iter().flatten().copied());
            }
            false
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"#include <cuda_fp16.h>
#define TILE 16
__device__ float helper(float x) { __syncthreads(); return x; }
__device__ float plain(float x) { return x * 2.0f; }
extern "C" __global__ void uses_helper(float* out) { out[threadIdx.x] = helper(1.0f); }
extern "C" __global__ void no_sync(float* out) { out[threadIdx.x] = plain(1.0f); }
extern "C" {
__global__ void dynamic(float* out) { extern __shared__ __align__(16) float smem[]; static __shared__ int n; smem[0] = n; out[0] = smem[0]; }
}
"#;

    fn names(s: &BTreeSet<String>) -> Vec<&str> {
        s.iter().map(String::as_str).collect()
    }

    #[test]
    fn only_kernels_that_reach_a_barrier_run_fibers() {
        let v = Variant::new("v0", SRC, &["uses_helper", "no_sync", "dynamic"]);
        let t = translate_variant(&v).unwrap();
        assert_eq!(names(&t.fibers), ["dynamic", "uses_helper"]);
        // tree-sitter-cuda misreads `__align__(16)`: a misread function runs fibers, to be safe.
        let clean = SRC.replace("__align__(16) ", "");
        let t = translate_variant(&Variant::new("v0", clean, &["uses_helper", "no_sync", "dynamic"])).unwrap();
        assert_eq!(names(&t.fibers), ["uses_helper"]);
    }

    #[test]
    fn rewrites_keep_lines_and_drop_linkage() {
        let v = Variant::new("v0", SRC, &["uses_helper"]);
        let t = translate_variant(&v).unwrap();
        assert!(!t.text.contains("extern \"C\" __global__"), "{}", t.text);
        assert!(t.text.contains("inline namespace kmut_extern_c {"));
        assert!(t.text.contains("// kmut-cpu, provided by the prelude: #include <cuda_fp16.h>"));
        assert!(t.text.contains("static thread_local __align__(16) float smem[KMUT_DYNAMIC_SHARED_BYTES / sizeof(float)]"), "{}", t.text);
        assert!(t.text.contains(" __shared__ int n;") && !t.text.contains("static __shared__"));
        assert!(t.text.contains("#undef TILE"));
        assert!(t.text.contains("__shared__ int n; KMUT_NOTE_SHARED(n);"), "{}", t.text);
        // The namespace opens before the #line, so the source keeps its line numbers.
        let body = t.text.split_once("#line 1 \"variant/v0.cu\"\n").unwrap().1;
        assert_eq!(body.lines().nth(2).unwrap(), SRC.lines().nth(2).unwrap());
    }

    #[test]
    fn shared_declarations_are_noted_by_name() {
        let src = "__global__ void k(float* o) {\n    __shared__ __align__(16) float a[4][4], b = 1, *c;\n    __shared__ bool last;\n}\n";
        let t = translate_variant(&Variant::new("v", src, &["k"])).unwrap();
        assert!(t.text.contains("*c; KMUT_NOTE_SHARED(a); KMUT_NOTE_SHARED(b); KMUT_NOTE_SHARED(c);"), "{}", t.text);
        assert!(t.text.contains("bool last; KMUT_NOTE_SHARED(last);"));
    }

    #[test]
    fn names_must_be_identifiers_and_unique() {
        assert!(translate_variant(&Variant::new("bad-name", SRC, &["no_sync"])).is_err());
        assert!(translate_variant(&Variant::new("v", SRC, &["a b"])).is_err());
        let v = Variant::new("v", SRC, &["no_sync"]);
        assert!(translate(&[v.clone(), v]).is_err());
    }

    #[test]
    fn a_sync_call_in_a_macro_makes_every_kernel_run_fibers() {
        let src = "#define SYNC() __syncthreads()\n__global__ void k(float* o) { SYNC(); o[0] = 1.0f; }\n";
        let t = translate_variant(&Variant::new("v", src, &["k"])).unwrap();
        assert_eq!(names(&t.fibers), ["k"]);
    }
}
