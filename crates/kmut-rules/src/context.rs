//! What rules need to know about one function, derived from its syntax tree: the type of each
//! name, which variables accumulate inside loops, which arrays are shared, which pointers are
//! outputs, and which values derive from thread and block indices. Rules find their context
//! ("the accumulator of this loop", "the bound of this guard") here, never from fixed names.

use std::collections::{HashMap, HashSet};

use kmut_syntax::{descendants, field, named_children, operator, CudaSource, GpuFunction, Node};

/// Facts about one GPU function.
pub struct FunctionInfo {
    /// Declared type text of every parameter and local, by name (`float`, `const float*`, ...).
    pub types: HashMap<String, String>,
    /// Names of pointer parameters and arrays.
    pub pointers: HashSet<String>,
    /// Pointer parameters without `const`: the function's global outputs.
    pub outputs: HashSet<String>,
    /// `__shared__` arrays.
    pub shared: HashSet<String>,
    /// Locals updated with `+=`, `-=` or `x = x + ...` inside a loop body: scalars, and local
    /// (register, not `__shared__`) arrays whose elements are so updated (`acc[i][j] += a * b`,
    /// a tiled kernel's micro-tile), by the array's name.
    pub accumulators: HashSet<String>,
    /// Local arrays declared without `__shared__` (per-thread, in registers or local memory).
    pub local_arrays: HashSet<String>,
    /// Locals whose value derives from `threadIdx`, `blockIdx` or other such locals.
    pub thread_derived: HashSet<String>,
    /// Integer-typed parameters (candidate sizes and strides).
    pub int_params: Vec<String>,
}

/// A rule's view of one function.
pub struct Ctx<'a> {
    pub src: &'a CudaSource,
    pub func: &'a GpuFunction<'a>,
    pub info: FunctionInfo,
    /// The body's mutable nodes in preorder, computed once and shared by every rule.
    nodes: Vec<Node<'a>>,
}

impl<'a> Ctx<'a> {
    pub fn new(src: &'a CudaSource, func: &'a GpuFunction<'a>) -> Ctx<'a> {
        let info = FunctionInfo::analyse(src, func);
        Ctx { src, func, info, nodes: mutable_nodes(func.body) }
    }

    pub fn text(&self, node: Node<'_>) -> &'a str {
        &self.src.text[node.byte_range()]
    }

    /// Nodes of the function body in source order, without the syntax never mutated.
    pub fn nodes(&self) -> impl Iterator<Item = Node<'a>> + '_ {
        self.nodes.iter().copied()
    }

    /// Whether an expression evaluates to a floating-point value, as far as the tree shows.
    pub fn is_float(&self, node: Node<'_>) -> bool {
        match node.kind() {
            "number_literal" => is_float_literal(self.text(node)),
            "identifier" => self.info.types.get(self.text(node)).is_some_and(|t| is_float_type(t) && !t.contains('*')),
            "subscript_expression" => field(node, "argument").is_some_and(|a| self.info.types.get(self.text(a)).is_some_and(|t| is_float_type(t))),
            "call_expression" => field(node, "function").is_some_and(|f| FLOAT_FUNCTIONS.contains(&self.text(f))),
            "parenthesized_expression" | "unary_expression" => named_children(node).first().is_some_and(|c| self.is_float(*c)),
            "binary_expression" => {
                let op = operator(node).map(|o| self.text(o)).unwrap_or_default();
                if RELATIONAL.contains(&op) || op == "&&" || op == "||" {
                    return false;
                }
                field(node, "left").is_some_and(|l| self.is_float(l)) || field(node, "right").is_some_and(|r| self.is_float(r))
            }
            "cast_expression" => field(node, "type").is_some_and(|t| is_float_type(self.text(t))),
            "conditional_expression" => field(node, "consequence").is_some_and(|c| self.is_float(c)),
            _ => false,
        }
    }

    /// Whether `node` mentions a thread-derived value (threadIdx, blockIdx or a local from them).
    pub fn is_thread_derived(&self, node: Node<'_>) -> bool {
        descendants(node).any(|n| match n.kind() {
            "identifier" => {
                let t = self.text(n);
                t == "threadIdx" || t == "blockIdx" || self.info.thread_derived.contains(t)
            }
            _ => false,
        })
    }

    /// The innermost `for` statement enclosing `node` within this function.
    pub fn enclosing_for(&self, node: Node<'a>) -> Option<Node<'a>> {
        let mut n = node.parent();
        while let Some(p) = n {
            if p.id() == self.func.body.id() {
                return None;
            }
            if p.kind() == "for_statement" {
                return Some(p);
            }
            n = p.parent();
        }
        None
    }

    /// Whether `node` lies inside a loop body of this function.
    pub fn in_loop(&self, node: Node<'a>) -> bool {
        let mut n = node.parent();
        while let Some(p) = n {
            if p.id() == self.func.body.id() {
                return false;
            }
            if matches!(p.kind(), "for_statement" | "while_statement" | "do_statement") {
                return true;
            }
            n = p.parent();
        }
        false
    }
}

pub const RELATIONAL: [&str; 4] = ["<", "<=", ">", ">="];

/// Functions whose result is floating-point.
pub const FLOAT_FUNCTIONS: &[&str] = &[
    "expf",
    "exp",
    "__expf",
    "logf",
    "log",
    "__logf",
    "sqrtf",
    "sqrt",
    "rsqrtf",
    "tanhf",
    "tanh",
    "erff",
    "erf",
    "powf",
    "__powf",
    "sinf",
    "cosf",
    "__sinf",
    "__cosf",
    "fmaxf",
    "fminf",
    "fabsf",
    "fabs",
    "fmaf",
    "__fdividef",
    "log1pf",
    "expm1f",
    "__half2float",
    "floorf",
    "ceilf",
    "roundf",
    "exp2f",
    "log2f",
];

/// Preorder nodes of `body`, skipping the syntax that is never mutated: preprocessor lines,
/// launch bounds and array sizes.
fn mutable_nodes(body: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "launch_bounds" || n.kind().starts_with("preproc") {
            continue;
        }
        out.push(n);
        let size = (n.kind() == "array_declarator").then(|| n.child_by_field_name("size").map(|s| s.id())).flatten();
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.children(&mut cursor).filter(|c| Some(c.id()) != size).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

pub fn is_float_literal(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    !t.starts_with("0x") && (t.contains('.') || t.contains('e') || t.ends_with('f'))
}

pub fn is_float_type(t: &str) -> bool {
    t.contains("float") || t.contains("double") || t.contains("half") || t.contains("bfloat16")
}

impl FunctionInfo {
    fn analyse(src: &CudaSource, func: &GpuFunction<'_>) -> FunctionInfo {
        let mut info = FunctionInfo {
            types: HashMap::new(),
            pointers: HashSet::new(),
            outputs: HashSet::new(),
            shared: HashSet::new(),
            accumulators: HashSet::new(),
            local_arrays: HashSet::new(),
            thread_derived: HashSet::new(),
            int_params: Vec::new(),
        };
        let text = |n: Node<'_>| src.text(n).to_owned();
        // Parameters.
        if let Some(params) = field(func.node, "declarator").and_then(|d| find_kind(d, "parameter_list")) {
            for p in named_children(params).into_iter().filter(|p| p.kind() == "parameter_declaration") {
                let Some(ty) = field(p, "type") else { continue };
                let Some(decl) = field(p, "declarator") else {
                    continue;
                };
                let (name, pointer) = declarator_name(src, decl);
                let is_const = src.text(p).contains("const");
                let mut t = text(ty);
                if pointer {
                    t.push('*');
                    info.pointers.insert(name.clone());
                    if !is_const {
                        info.outputs.insert(name.clone());
                    }
                } else if !is_float_type(&t) {
                    info.int_params.push(name.clone());
                }
                info.types.insert(name, t);
            }
        }
        // Locals, in order, so thread-derivation propagates forward.
        for d in descendants(func.body).filter(|n| n.kind() == "declaration") {
            let Some(ty) = field(d, "type") else { continue };
            let shared = src.text(d).contains("__shared__");
            for decl in named_children(d).into_iter().filter(|c| Some(c.id()) != Some(ty.id())) {
                if decl.kind() == "type_qualifier" || decl.kind().ends_with("specifier") {
                    continue;
                }
                let (name, pointer) = declarator_name(src, decl);
                if name.is_empty() {
                    continue;
                }
                let array = find_kind(decl, "array_declarator").is_some();
                let mut t = text(ty);
                if pointer || array {
                    t.push('*');
                    info.pointers.insert(name.clone());
                }
                if shared {
                    info.shared.insert(name.clone());
                } else if array {
                    info.local_arrays.insert(name.clone());
                }
                if let Some(value) = field(decl, "value") {
                    let derived = descendants(value).any(|n| {
                        n.kind() == "identifier" && {
                            let t = src.text(n);
                            t == "threadIdx" || t == "blockIdx" || info.thread_derived.contains(t)
                        }
                    });
                    if derived {
                        info.thread_derived.insert(name.clone());
                    }
                }
                info.types.insert(name, t);
            }
        }
        // Accumulators: updated inside a loop body.
        for a in descendants(func.body).filter(|n| n.kind() == "assignment_expression") {
            let (Some(left), Some(op)) = (field(a, "left"), operator(a)) else {
                continue;
            };
            // A for-statement's own update (`j += blockDim.x`) steps its counter; it accumulates
            // nothing (`boundary-loop-step-double` is its fault, and `acc = e` there only hangs).
            if !inside_loop(a, func.body) || is_loop_update(a) {
                continue;
            }
            let Some(variable) = updated_variable(src, &info.local_arrays, left).map(|v| src.text(v)) else {
                continue;
            };
            let target = src.text(left);
            let op = src.text(op);
            let self_update =
                op == "=" && field(a, "right").is_some_and(|r| r.kind() == "binary_expression" && field(r, "left").is_some_and(|l| src.text(l) == target));
            // A pointer named bare is no accumulator; a local array's element is.
            let element = left.kind() == "subscript_expression";
            if (op == "+=" || op == "-=" || self_update) && info.types.contains_key(variable) && (element || !info.pointers.contains(variable)) {
                info.accumulators.insert(variable.to_owned());
            }
        }
        info
    }
}

/// The variable an assignment's left side updates, if it can be an accumulator: a scalar
/// (`acc`), or a local array named in `local_arrays` for an element of it (`acc[i][j]`).
pub fn updated_variable<'t>(src: &CudaSource, local_arrays: &HashSet<String>, left: Node<'t>) -> Option<Node<'t>> {
    match left.kind() {
        "identifier" => Some(left),
        "subscript_expression" => subscript_base(left).filter(|b| local_arrays.contains(src.text(*b))),
        _ => None,
    }
}

/// The array an element access names: `acc` for `acc[i][j]` (None for `p->a[i]`, `f()[i]`).
pub fn subscript_base(n: Node<'_>) -> Option<Node<'_>> {
    let mut n = n;
    while n.kind() == "subscript_expression" {
        n = field(n, "argument")?;
    }
    (n.kind() == "identifier").then_some(n)
}

/// Whether `n` is the update clause of its parent for-statement (`for (...; ...; n)`).
pub fn is_loop_update(n: Node<'_>) -> bool {
    n.parent().is_some_and(|p| p.kind() == "for_statement" && field(p, "update").is_some_and(|u| u.id() == n.id()))
}

fn inside_loop(node: Node<'_>, body: Node<'_>) -> bool {
    let mut n = node.parent();
    while let Some(p) = n {
        if p.id() == body.id() {
            return false;
        }
        if matches!(p.kind(), "for_statement" | "while_statement" | "do_statement") {
            return true;
        }
        n = p.parent();
    }
    false
}

/// The first node of `kind` in `node`'s subtree.
pub fn find_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    descendants(node).find(|n| n.kind() == kind)
}

/// The declared name of a declarator and whether it declares a pointer.
fn declarator_name(src: &CudaSource, decl: Node<'_>) -> (String, bool) {
    let mut pointer = false;
    let mut n = decl;
    loop {
        match n.kind() {
            "identifier" => return (src.text(n).to_owned(), pointer),
            "pointer_declarator" | "reference_declarator" => pointer = true,
            _ => {}
        }
        match field(n, "declarator") {
            Some(inner) => n = inner,
            None => {
                // Fall back to the first identifier inside.
                return (descendants(n).find(|c| c.kind() == "identifier").map(|c| src.text(c).to_owned()).unwrap_or_default(), pointer);
            }
        }
    }
}
