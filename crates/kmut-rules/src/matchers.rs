//! Site finders. Each `Matcher` variant is one kind of syntactic fault; the catalogue
//! instantiates them with parameters. Context (accumulators, guards, loop variables, outputs,
//! float-typed expressions) comes from `Ctx`, derived from the syntax tree.

use kmut_syntax::{descendants, field, named_children, operator, Node};

use crate::context::{is_float_literal, is_float_type, is_loop_update, updated_variable, Ctx, RELATIONAL};
use crate::site::Site;

const FP16: &str = "cuda_fp16.h";
const BF16: &str = "cuda_bf16.h";

/// Which comparisons or operators a binary rule touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Any operands.
    Any,
    /// Integer (index, size) comparisons: neither side is floating-point.
    Integer,
    /// Floating-point value comparisons outside tie-break contexts.
    FloatValue,
    /// Floating-point comparisons that decide which of several candidates wins (argmax/argmin).
    TieBreak,
}

/// Rounding formats for precision rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Fp16,
    Bf16,
}

impl Format {
    fn round(self, expr: &str) -> String {
        match self {
            Format::Fp16 => format!("__half2float(__float2half({expr}))"),
            Format::Bf16 => format!("__bfloat162float(__float2bfloat16({expr}))"),
        }
    }

    fn header(self) -> &'static str {
        match self {
            Format::Fp16 => FP16,
            Format::Bf16 => BF16,
        }
    }
}

/// How an accumulator update is mutated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccFault {
    Overwrite,
    Negate,
    Round(Format),
}

/// Host-side launch faults (applied to the launch descriptor at run time, not to CUDA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchFault {
    SwapGridBlock,
    GridX(i32),
    BlockX(i32),
    CdivFloor,
}

#[derive(Debug, Clone, Copy)]
pub enum Matcher {
    /// Binary operator `from` becomes `to`.
    Binary { from: &'static str, to: &'static str, operands: Operands },
    /// `a - b` becomes `b - a`.
    SwapSubtraction,
    /// Compound assignment `from` becomes `to`, outside accumulator updates.
    Compound { from: &'static str, to: &'static str },
    /// `++` becomes `--` and back.
    IncrementFlip,
    /// Unary minus dropped.
    UnaryMinusDrop,
    /// A store to a global output stores its negation.
    NegateStore,
    /// `obj.axis` becomes `to.axis` for obj in `from`.
    IndexObject { from: &'static str, to: &'static str },
    /// `obj.from_axis` becomes `obj.to_axis` for obj in `objects`.
    IndexAxis { objects: &'static [&'static str], from: &'static str, to: &'static str },
    /// `obj.x` becomes `(obj.x + delta)`.
    IndexOffset { object: &'static str, delta: i32 },
    /// `A[x * S + y]` becomes `A[y * S + x]`.
    SubscriptAxisSwap,
    /// `A[x * S + y]` with another integer parameter for `S`.
    StrideConfusion,
    /// A shared-array index `i` becomes `i + 1`.
    SharedIndexOffByOne,
    /// `buf[t + s]` with loop variable `s` becomes `buf[t + s / 2]`.
    ReductionPartnerHalf,
    /// `warpSize` becomes 16.
    WarpSize16,
    /// A cast to a 64-bit integer is dropped.
    Int64CastDrop,
    /// A `long long` local becomes `int`.
    NarrowLongLong,
    /// `(a + b - 1) / b` becomes `a / b`.
    CeilToFloor,
    /// An early-return bounds guard is deleted.
    GuardReturnDrop,
    /// A bounds-guarded block runs unguarded.
    GuardIfDrop,
    /// A bounds-guarded conditional expression always takes its guarded branch.
    GuardTernaryDrop,
    /// The bound of a guard comparison is shifted by `delta`.
    GuardBoundShift { delta: i32 },
    /// One clause of a compound guard is dropped.
    GuardClauseDrop,
    /// The loop bound is shifted so the last iteration is lost (`extra: false`) or one more runs.
    LoopBound { extra: bool },
    /// A loop starting at 0 starts at 1.
    LoopStartOne,
    /// The loop step doubles.
    LoopStepDouble,
    /// A reduction loop starting at `X / 2` starts at `X / 4`.
    ReduceStartQuarter,
    /// A call's function is renamed (`from` names any of several spellings).
    CallRename { from: &'static [&'static str], to: &'static str },
    /// A call `f(x)` becomes the expression `template` with `{}` replaced by the argument.
    CallExpand { from: &'static [&'static str], template: &'static str, header: Option<&'static str> },
    /// An accumulator update inside a loop.
    Accumulator(AccFault),
    /// An accumulator starting at zero starts at one.
    AccumulatorInitOne,
    /// A max/min sentinel (`-FLT_MAX`, `-INFINITY`, a huge literal) becomes zero.
    SentinelZero,
    /// The literal of a floating-point comparison is shifted by +0.1.
    ThresholdShift,
    /// `c ? a : b` becomes `c ? b : a`.
    TernarySwap,
    /// `fabsf(x)` becomes `x`.
    AbsDrop,
    /// `fmaxf(x, literal)` (a clamp) becomes `x`.
    ClampLiteralDrop,
    /// `!x` becomes `x`.
    NotDrop,
    /// Floating-point literals scaled by `factor` (0, 1, 2 and 0.5 are left alone).
    LiteralScale { factor: f64 },
    /// A store to a global output is rounded through a narrow format.
    StoreRound(Format),
    /// `a / b` on floats becomes `__fdividef(a, b)`.
    FastDivide,
    /// `expf(a - b)` becomes `expf(a)`: the stabilising shift is gone.
    ExpShiftDrop,
    /// `sqrtf(a + eps)` becomes `sqrtf(a)`.
    SqrtEpsilonDrop,
    /// `a + 1e-5f` (a small literal) becomes `a`.
    EpsilonLiteralDrop,
    /// `double` locals become `float`.
    DoubleToFloat,
    /// `sum / n` (float by integer count) becomes `sum / (n - 1)`.
    CountMinusOne,
    /// A statement that only calls one of `calls` is deleted.
    DeleteCall { calls: &'static [&'static str] },
    /// `__syncthreads();` runs only in the first warp.
    BarrierDivergent,
    /// A barrier moves above the statement before it.
    BarrierMoveUp,
    /// A type qualifier (`__shared__`, `volatile`) is removed.
    QualifierDrop { qualifier: &'static str },
    /// `atomicAdd(p, v);` becomes a plain read-modify-write.
    AtomicDrop,
    /// The full-warp mask of a shuffle becomes a half-warp mask.
    ShuffleMaskHalve,
    /// A launch-descriptor fault; no CUDA site.
    Launch(LaunchFault),
}

impl Matcher {
    pub fn find(&self, ctx: &Ctx<'_>) -> Vec<Site> {
        use Matcher as M;
        match *self {
            M::Binary { from, to, operands } => binary(ctx, from, to, operands),
            M::SwapSubtraction => swap_subtraction(ctx),
            M::Compound { from, to } => compound(ctx, from, to),
            M::IncrementFlip => increment_flip(ctx),
            M::UnaryMinusDrop => unary_drop(ctx, "-"),
            M::NotDrop => unary_drop(ctx, "!"),
            M::NegateStore => stores(ctx).into_iter().map(|(_, right)| Site::replace(right, format!("-({})", ctx.text(right)))).collect(),
            M::IndexObject { from, to } => {
                fields(ctx, |obj, _| obj == from).into_iter().filter_map(|f| field(f, "argument").map(|a| Site::replace(a, to))).collect()
            }
            M::IndexAxis { objects, from, to } => fields(ctx, |obj, axis| objects.contains(&obj) && axis == from)
                .into_iter()
                .filter_map(|f| field(f, "field").map(|a| Site::replace(a, to)))
                .collect(),
            M::IndexOffset { object, delta } => fields(ctx, |obj, axis| obj == object && axis == "x")
                .into_iter()
                .map(|f| Site::replace(f, format!("({} {} 1)", ctx.text(f), if delta > 0 { "+" } else { "-" })))
                .collect(),
            M::SubscriptAxisSwap => subscript_axis(ctx, false),
            M::StrideConfusion => subscript_axis(ctx, true),
            M::SharedIndexOffByOne => shared_index(ctx),
            M::ReductionPartnerHalf => reduction_partner(ctx),
            M::WarpSize16 => ctx.nodes().filter(|n| n.kind() == "identifier" && ctx.text(*n) == "warpSize").map(|n| Site::replace(n, "16")).collect(),
            M::Int64CastDrop => int64_cast(ctx),
            M::NarrowLongLong => narrow_long_long(ctx),
            M::CeilToFloor => ceil_to_floor(ctx),
            M::GuardReturnDrop => guard_ifs(ctx).into_iter().filter(|(_, ret)| *ret).map(|(n, _)| delete_statement(ctx, n)).collect(),
            M::GuardIfDrop => guard_ifs(ctx)
                .into_iter()
                .filter(|(_, ret)| !*ret)
                .filter_map(|(n, _)| field(n, "consequence").map(|c| Site::replace(n, ctx.text(c))))
                .collect(),
            M::GuardTernaryDrop => ctx
                .nodes()
                .filter(|n| n.kind() == "conditional_expression")
                .filter(|n| field(*n, "condition").is_some_and(|c| is_guard_condition(ctx, c)))
                .filter_map(|n| field(n, "consequence").map(|c| Site::replace(n, ctx.text(c))))
                .collect(),
            M::GuardBoundShift { delta } => guard_bounds(ctx, delta),
            M::GuardClauseDrop => guard_clauses(ctx),
            M::LoopBound { extra } => loop_bounds(ctx, extra),
            M::LoopStartOne => loop_start(ctx),
            M::LoopStepDouble => loop_step(ctx),
            M::ReduceStartQuarter => reduce_start(ctx),
            M::CallRename { from, to } => calls(ctx, from).into_iter().filter_map(|c| field(c, "function").map(|f| Site::replace(f, to))).collect(),
            M::CallExpand { from, template, header } => calls(ctx, from)
                .into_iter()
                .filter_map(|c| {
                    let args = arguments(c);
                    let [arg] = args.as_slice() else { return None };
                    let site = Site::replace(c, template.replace("{}", ctx.text(*arg)));
                    Some(match header {
                        Some(h) => site.with_include(h),
                        None => site,
                    })
                })
                .collect(),
            M::Accumulator(fault) => accumulator(ctx, fault),
            M::AccumulatorInitOne => accumulator_init(ctx),
            M::SentinelZero => sentinel(ctx),
            M::ThresholdShift => threshold(ctx),
            M::TernarySwap => ternary_swap(ctx),
            M::AbsDrop => {
                calls(ctx, &["fabsf", "fabs", "abs"]).into_iter().filter_map(|c| single_arg(ctx, c).map(|a| Site::replace(c, format!("({a})")))).collect()
            }
            M::ClampLiteralDrop => clamp_literal(ctx),
            M::LiteralScale { factor } => literal_scale(ctx, factor),
            M::StoreRound(format) => store_round(ctx, format),
            M::FastDivide => fast_divide(ctx),
            M::ExpShiftDrop => exp_shift(ctx),
            M::SqrtEpsilonDrop => sqrt_epsilon(ctx),
            M::EpsilonLiteralDrop => epsilon_literal(ctx),
            M::DoubleToFloat => ctx.nodes().filter(|n| n.kind() == "primitive_type" && ctx.text(*n) == "double").map(|n| Site::replace(n, "float")).collect(),
            M::CountMinusOne => count_minus_one(ctx),
            M::DeleteCall { calls: names } => call_statements(ctx, names).into_iter().map(|s| delete_statement(ctx, s)).collect(),
            M::BarrierDivergent => {
                call_statements(ctx, &["__syncthreads"]).into_iter().map(|s| Site::replace(s, "if (threadIdx.x < 32) __syncthreads();")).collect()
            }
            M::BarrierMoveUp => barrier_move_up(ctx),
            M::QualifierDrop { qualifier } => qualifier_drop(ctx, qualifier),
            M::AtomicDrop => atomic_drop(ctx),
            M::ShuffleMaskHalve => shuffle_mask(ctx),
            M::Launch(_) => Vec::new(),
        }
    }
}

// --- helpers ---------------------------------------------------------------------------------

/// Delete a statement; when it stands alone on its line, the whole line goes.
fn delete_statement(ctx: &Ctx<'_>, stmt: Node<'_>) -> Site {
    let text = &ctx.src.text;
    let line_start = text[..stmt.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[stmt.end_byte()..].find('\n').map_or(text.len(), |i| stmt.end_byte() + i + 1);
    let before = &text[line_start..stmt.start_byte()];
    let after = &text[stmt.end_byte()..line_end];
    if before.trim().is_empty() && after.trim().is_empty() {
        Site::span(line_start, line_end, "")
    } else {
        Site::replace(stmt, "")
    }
}

fn op_text<'a>(ctx: &Ctx<'a>, n: Node<'_>) -> &'a str {
    operator(n).map(|o| ctx.text(o)).unwrap_or_default()
}

/// `node` without enclosing parentheses.
fn strip(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while n.kind() == "parenthesized_expression" {
        match named_children(n).first() {
            Some(c) => n = *c,
            None => break,
        }
    }
    n
}

/// `node` without parentheses and casts.
fn strip_casts(node: Node<'_>) -> Node<'_> {
    let mut n = strip(node);
    while n.kind() == "cast_expression" {
        match field(n, "value") {
            Some(v) => n = strip(v),
            None => break,
        }
    }
    n
}

fn arguments(call: Node<'_>) -> Vec<Node<'_>> {
    field(call, "arguments").map(named_children).unwrap_or_default().into_iter().filter(|n| n.kind() != "comment").collect()
}

fn single_arg<'a>(ctx: &Ctx<'a>, call: Node<'_>) -> Option<&'a str> {
    let args = arguments(call);
    match args.as_slice() {
        [a] => Some(ctx.text(*a)),
        _ => None,
    }
}

fn calls<'a>(ctx: &Ctx<'a>, names: &[&str]) -> Vec<Node<'a>> {
    ctx.nodes()
        .filter(|n| n.kind() == "call_expression")
        .filter(|n| field(*n, "function").is_some_and(|f| f.kind() == "identifier" && names.contains(&ctx.text(f))))
        .collect()
}

/// Expression statements consisting of one call to any of `names`.
fn call_statements<'a>(ctx: &Ctx<'a>, names: &[&str]) -> Vec<Node<'a>> {
    ctx.nodes()
        .filter(|n| n.kind() == "expression_statement")
        .filter(|n| {
            named_children(*n).first().is_some_and(|c| c.kind() == "call_expression" && field(*c, "function").is_some_and(|f| names.contains(&ctx.text(f))))
        })
        .collect()
}

/// `obj.axis` field expressions accepted by `pred(obj, axis)`.
fn fields<'a>(ctx: &Ctx<'a>, pred: impl Fn(&str, &str) -> bool) -> Vec<Node<'a>> {
    ctx.nodes()
        .filter(|n| n.kind() == "field_expression")
        .filter(|n| {
            let (Some(a), Some(f)) = (field(*n, "argument"), field(*n, "field")) else {
                return false;
            };
            a.kind() == "identifier" && pred(ctx.text(a), ctx.text(f))
        })
        .collect()
}

/// Stores `out[i] = v` to a global output pointer: (assignment, right-hand side).
fn stores<'a>(ctx: &Ctx<'a>) -> Vec<(Node<'a>, Node<'a>)> {
    ctx.nodes()
        .filter(|n| n.kind() == "assignment_expression" && op_text(ctx, *n) == "=")
        .filter_map(|n| {
            let left = field(n, "left")?;
            let right = field(n, "right")?;
            let target = field(left, "argument").filter(|_| left.kind() == "subscript_expression")?;
            ctx.info.outputs.contains(ctx.text(target)).then_some((n, right))
        })
        .collect()
}

fn binary_nodes<'a>(ctx: &Ctx<'a>, op: &str) -> Vec<Node<'a>> {
    ctx.nodes().filter(|n| n.kind() == "binary_expression" && op_text(ctx, *n) == op).collect()
}

fn is_relational(ctx: &Ctx<'_>, n: Node<'_>) -> bool {
    n.kind() == "binary_expression" && RELATIONAL.contains(&op_text(ctx, n))
}

fn float_compare(ctx: &Ctx<'_>, n: Node<'_>) -> bool {
    field(n, "left").is_some_and(|l| ctx.is_float(l)) || field(n, "right").is_some_and(|r| ctx.is_float(r))
}

/// A comparison that decides which candidate wins: it is (part of) an `if` condition whose
/// branch updates two or more variables (the best value and its index).
fn is_tie_break(_ctx: &Ctx<'_>, n: Node<'_>) -> bool {
    let mut p = n.parent();
    while let Some(q) = p {
        match q.kind() {
            "binary_expression" | "parenthesized_expression" | "condition_clause" => p = q.parent(),
            "if_statement" => {
                let Some(body) = field(q, "consequence") else {
                    return false;
                };
                let assigned = descendants(body).filter(|d| d.kind() == "assignment_expression").count();
                return assigned >= 2;
            }
            _ => return false,
        }
    }
    false
}

/// A bounds condition: comparisons of integer values, at least one thread-derived, joined by
/// `&&`/`||`.
fn is_guard_condition(ctx: &Ctx<'_>, cond: Node<'_>) -> bool {
    let n = strip(cond);
    if n.kind() != "binary_expression" {
        return false;
    }
    let op = op_text(ctx, n);
    if op == "&&" || op == "||" {
        return field(n, "left").is_some_and(|l| is_guard_condition(ctx, l)) && field(n, "right").is_some_and(|r| is_guard_condition(ctx, r));
    }
    RELATIONAL.contains(&op) && !float_compare(ctx, n) && ctx.is_thread_derived(n)
}

/// Guard `if`s without `else`: (statement, whether its branch is just `return`).
fn guard_ifs<'a>(ctx: &Ctx<'a>) -> Vec<(Node<'a>, bool)> {
    ctx.nodes()
        .filter(|n| n.kind() == "if_statement" && field(*n, "alternative").is_none())
        .filter(|n| field(*n, "condition").and_then(|c| field(c, "value")).is_some_and(|v| is_guard_condition(ctx, v)))
        .filter_map(|n| {
            let body = field(n, "consequence")?;
            let only_return = body.kind() == "return_statement"
                || (body.kind() == "compound_statement" && matches!(named_children(body).as_slice(), [r] if r.kind() == "return_statement"));
            Some((n, only_return))
        })
        .collect()
}

/// Every relational comparison inside guard conditions (of `if`s and conditional expressions).
fn guard_comparisons<'a>(ctx: &Ctx<'a>) -> Vec<Node<'a>> {
    let mut roots = Vec::new();
    for n in ctx.nodes() {
        let cond = match n.kind() {
            "if_statement" => field(n, "condition").and_then(|c| field(c, "value")),
            "conditional_expression" => field(n, "condition"),
            _ => None,
        };
        if let Some(c) = cond.filter(|c| is_guard_condition(ctx, *c)) {
            roots.push(c);
        }
    }
    roots.into_iter().flat_map(descendants).filter(|d| is_relational(ctx, *d)).collect()
}

fn shifted(text: &str, delta: i32) -> String {
    let sign = if delta > 0 { "+" } else { "-" };
    format!("({text} {sign} {})", delta.abs())
}

// --- arithmetic --------------------------------------------------------------------------------

fn binary(ctx: &Ctx<'_>, from: &str, to: &str, operands: Operands) -> Vec<Site> {
    binary_nodes(ctx, from)
        .into_iter()
        .filter(|n| match operands {
            Operands::Any => true,
            Operands::Integer => !float_compare(ctx, *n),
            Operands::FloatValue => float_compare(ctx, *n) && !is_tie_break(ctx, *n),
            Operands::TieBreak => float_compare(ctx, *n) && is_tie_break(ctx, *n),
        })
        .filter_map(|n| operator(n).map(|o| Site::replace(o, to)))
        .collect()
}

fn swap_subtraction(ctx: &Ctx<'_>) -> Vec<Site> {
    binary_nodes(ctx, "-")
        .into_iter()
        .filter_map(|n| {
            let (l, r) = (field(n, "left")?, field(n, "right")?);
            Some(Site::replace(n, format!("{} - {}", paren(ctx, r), paren(ctx, l))))
        })
        .collect()
}

/// The text of `n`, parenthesised unless it is atomic.
fn paren(ctx: &Ctx<'_>, n: Node<'_>) -> String {
    match n.kind() {
        "identifier" | "number_literal" | "field_expression" | "subscript_expression" | "call_expression" | "parenthesized_expression" => {
            ctx.text(n).to_owned()
        }
        _ => format!("({})", ctx.text(n)),
    }
}

fn is_accumulator_update(ctx: &Ctx<'_>, n: Node<'_>) -> bool {
    field(n, "left").is_some_and(|l| accumulator_variable(ctx, l).is_some()) && ctx.in_loop(n) && !is_loop_update(n)
}

/// The accumulator an update's left side names: a scalar accumulator, or an element of a local
/// array accumulator (`acc[i][j]`).
fn accumulator_variable<'t>(ctx: &Ctx<'_>, left: Node<'t>) -> Option<Node<'t>> {
    updated_variable(ctx.src, &ctx.info.local_arrays, left).filter(|v| ctx.info.accumulators.contains(ctx.text(*v)))
}

fn compound(ctx: &Ctx<'_>, from: &str, to: &str) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "assignment_expression" && op_text(ctx, *n) == from && !is_accumulator_update(ctx, *n))
        .filter(|n| !is_loop_update(*n))
        .filter_map(|n| operator(n).map(|o| Site::replace(o, to)))
        .collect()
}

fn increment_flip(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "update_expression")
        .filter_map(|n| {
            let o = operator(n)?;
            let to = if ctx.text(o) == "++" { "--" } else { "++" };
            Some(Site::replace(o, to))
        })
        .collect()
}

fn unary_drop(ctx: &Ctx<'_>, op: &str) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "unary_expression" && op_text(ctx, *n) == op)
        .filter_map(|n| {
            let arg = field(n, "argument")?;
            // `-1.0f` literals and sentinels belong to other rules.
            if op == "-" && (arg.kind() == "number_literal" || is_sentinel_name(ctx.text(arg))) {
                return None;
            }
            Some(Site::replace(n, ctx.text(arg)))
        })
        .collect()
}

// --- indexing ----------------------------------------------------------------------------------

/// Index expressions `x * S + y`: (whole, x, S, y).
fn strided_indices<'a>(ctx: &Ctx<'a>) -> Vec<(Node<'a>, Node<'a>, Node<'a>, Node<'a>)> {
    let simple = |n: Node<'_>| matches!(strip_casts(n).kind(), "identifier" | "field_expression");
    ctx.nodes()
        .filter(|n| n.kind() == "subscript_expression")
        .filter_map(|s| field(s, "indices").and_then(|i| named_children(i).first().copied()))
        .filter_map(|idx| {
            let e = strip(idx);
            if e.kind() != "binary_expression" || op_text(ctx, e) != "+" {
                return None;
            }
            let (mul, y) = (strip(field(e, "left")?), field(e, "right")?);
            if mul.kind() != "binary_expression" || op_text(ctx, mul) != "*" {
                return None;
            }
            let (x, s) = (field(mul, "left")?, field(mul, "right")?);
            (simple(x) && simple(y)).then_some((e, x, s, y))
        })
        .collect()
}

fn subscript_axis(ctx: &Ctx<'_>, stride: bool) -> Vec<Site> {
    let mut out = Vec::new();
    for (whole, x, s, y) in strided_indices(ctx) {
        if !stride {
            if ctx.text(x) != ctx.text(y) {
                out.push(Site::replace(whole, format!("{} * {} + {}", ctx.text(y), ctx.text(s), ctx.text(x))));
            }
            continue;
        }
        if s.kind() != "identifier" {
            continue;
        }
        let current = ctx.text(s);
        for other in ctx.info.int_params.iter().filter(|p| p.as_str() != current).take(3) {
            out.push(Site::replace(s, other.clone()));
        }
    }
    out
}

fn shared_index(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "subscript_expression")
        .filter(|n| field(*n, "argument").is_some_and(|a| ctx.info.shared.contains(ctx.text(a))))
        .filter_map(|n| field(n, "indices").and_then(|i| named_children(i).first().copied()))
        .filter(|i| i.kind() != "number_literal")
        .map(|i| Site::replace(i, format!("{} + 1", paren(ctx, i))))
        .collect()
}

fn loop_variable<'a>(ctx: &Ctx<'a>, for_stmt: Node<'_>) -> Option<&'a str> {
    let init = field(for_stmt, "initializer")?;
    let id = descendants(init).find(|n| n.kind() == "identifier")?;
    Some(ctx.text(id))
}

fn reduction_partner(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "subscript_expression")
        .filter_map(|n| {
            let idx = strip(field(n, "indices").and_then(|i| named_children(i).first().copied())?);
            if idx.kind() != "binary_expression" || op_text(ctx, idx) != "+" {
                return None;
            }
            let right = field(idx, "right")?;
            let var = loop_variable(ctx, ctx.enclosing_for(n)?)?;
            (right.kind() == "identifier" && ctx.text(right) == var).then(|| Site::replace(right, format!("({var} / 2)")))
        })
        .collect()
}

fn int64_cast(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "cast_expression")
        .filter(|n| {
            field(*n, "type").is_some_and(|t| {
                let t = ctx.text(t);
                t.contains("long long") || t.contains("int64_t") || t.contains("size_t")
            })
        })
        .filter_map(|n| field(n, "value").map(|v| Site::replace(n, ctx.text(v))))
        .collect()
}

fn narrow_long_long(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "declaration")
        .filter_map(|d| field(d, "type"))
        .filter(|t| t.kind() == "sized_type_specifier" && ctx.text(*t).split_whitespace().collect::<Vec<_>>() == ["long", "long"])
        .map(|t| Site::replace(t, "int"))
        .collect()
}

// --- boundary ----------------------------------------------------------------------------------

fn ceil_to_floor(ctx: &Ctx<'_>) -> Vec<Site> {
    let mut out = Vec::new();
    for n in binary_nodes(ctx, "/") {
        let (Some(left), Some(div)) = (field(n, "left"), field(n, "right")) else {
            continue;
        };
        let num = strip(left);
        if num.kind() != "binary_expression" {
            continue;
        }
        let div_text = ctx.text(strip(div));
        // (a + b - 1) / b
        if op_text(ctx, num) == "-" {
            let (Some(sum), Some(one)) = (field(num, "left").map(strip), field(num, "right")) else {
                continue;
            };
            if ctx.text(one) != "1" || sum.kind() != "binary_expression" || op_text(ctx, sum) != "+" {
                continue;
            }
            let (Some(a), Some(b)) = (field(sum, "left"), field(sum, "right")) else {
                continue;
            };
            if ctx.text(strip(b)) == div_text {
                out.push(Site::replace(n, format!("{} / {}", paren(ctx, a), ctx.text(div))));
            }
        } else if op_text(ctx, num) == "+" {
            // (a + (B - 1)) / B with literal B
            let (Some(a), Some(c)) = (field(num, "left"), field(num, "right")) else {
                continue;
            };
            let (Ok(c), Ok(d)) = (ctx.text(strip(c)).parse::<i64>(), div_text.parse::<i64>()) else {
                continue;
            };
            if d > 1 && c == d - 1 {
                out.push(Site::replace(n, format!("{} / {}", paren(ctx, a), ctx.text(div))));
            }
        }
    }
    out
}

fn guard_bounds(ctx: &Ctx<'_>, delta: i32) -> Vec<Site> {
    guard_comparisons(ctx)
        .into_iter()
        .filter_map(|c| {
            let (l, r) = (field(c, "left")?, field(c, "right")?);
            // The bound is the side not derived from the thread index (the right when unclear).
            let bound = if !ctx.is_thread_derived(l) && ctx.is_thread_derived(r) { l } else { r };
            Some(Site::replace(bound, shifted(ctx.text(bound), delta)))
        })
        .collect()
}

fn guard_clauses(ctx: &Ctx<'_>) -> Vec<Site> {
    let mut out = Vec::new();
    for n in ctx.nodes() {
        let cond = match n.kind() {
            "if_statement" => field(n, "condition").and_then(|c| field(c, "value")),
            "conditional_expression" => field(n, "condition"),
            _ => None,
        };
        let Some(c) = cond.filter(|c| is_guard_condition(ctx, *c)) else {
            continue;
        };
        for b in descendants(c).filter(|d| d.kind() == "binary_expression" && matches!(op_text(ctx, *d), "&&" | "||")) {
            if let (Some(l), Some(r)) = (field(b, "left"), field(b, "right")) {
                out.push(Site::replace(b, ctx.text(l)));
                out.push(Site::replace(b, ctx.text(r)));
            }
        }
    }
    out
}

fn loop_bounds(ctx: &Ctx<'_>, extra: bool) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "for_statement")
        .filter_map(|f| {
            let var = loop_variable(ctx, f)?;
            let cond = strip(field(f, "condition")?);
            if !is_relational(ctx, cond) {
                return None;
            }
            let (l, r) = (field(cond, "left")?, field(cond, "right")?);
            let (bound, var_left) = if ctx.text(strip(l)) == var { (r, true) } else { (l, false) };
            let op = op_text(ctx, cond);
            // With the variable on the left, `<`/`<=` loops count up: the last iteration is
            // lost by lowering the bound; `>`/`>=` loops count down: by raising it.
            let up = matches!(op, "<" | "<=") == var_left;
            let delta = match (up, extra) {
                (true, false) | (false, true) => -1,
                (true, true) | (false, false) => 1,
            };
            Some(Site::replace(bound, shifted(ctx.text(bound), delta)))
        })
        .collect()
}

fn loop_start(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "for_statement")
        .filter_map(|f| field(f, "initializer"))
        .filter_map(|init| {
            let value = descendants(init)
                .find(|n| n.kind() == "init_declarator")
                .and_then(|d| field(d, "value"))
                .or_else(|| (init.kind() == "assignment_expression").then(|| field(init, "right")).flatten())?;
            (value.kind() == "number_literal" && ctx.text(value) == "0").then(|| Site::replace(value, "1"))
        })
        .collect()
}

fn loop_step(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "for_statement")
        .filter_map(|f| field(f, "update"))
        .filter_map(|u| match u.kind() {
            "update_expression" => {
                let arg = field(u, "argument")?;
                let op = if ctx.text(operator(u)?) == "++" { "+=" } else { "-=" };
                Some(Site::replace(u, format!("{} {op} 2", ctx.text(arg))))
            }
            "assignment_expression" => {
                let (op, right) = (op_text(ctx, u), field(u, "right")?);
                match op {
                    "+=" | "-=" => Some(Site::replace(right, format!("2 * {}", paren(ctx, right)))),
                    ">>=" | "/=" if ctx.text(right) == "1" || ctx.text(right) == "2" => Some(Site::replace(right, if op == ">>=" { "2" } else { "4" })),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

fn reduce_start(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "for_statement")
        .filter_map(|f| field(f, "initializer"))
        .flat_map(descendants)
        .filter(|n| n.kind() == "binary_expression")
        .filter_map(|n| {
            let r = field(n, "right")?;
            match (op_text(ctx, n), ctx.text(r)) {
                ("/", "2") => Some(Site::replace(r, "4")),
                (">>", "1") => Some(Site::replace(r, "2")),
                _ => None,
            }
        })
        .collect()
}

// --- semantic ----------------------------------------------------------------------------------

fn accumulator(ctx: &Ctx<'_>, fault: AccFault) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "assignment_expression" && is_accumulator_update(ctx, *n))
        .filter_map(|n| {
            let (left, right, op) = (field(n, "left")?, field(n, "right")?, op_text(ctx, n));
            let name = ctx.text(left);
            // Normalise `acc = acc + e` to (`+`, e).
            let (sign, term) = match op {
                "+=" => ("+", ctx.text(right).to_owned()),
                "-=" => ("-", ctx.text(right).to_owned()),
                "=" => {
                    let r = strip(right);
                    let o = op_text(ctx, r);
                    if !matches!(o, "+" | "-") {
                        return None;
                    }
                    (if o == "+" { "+" } else { "-" }, ctx.text(field(r, "right")?).to_owned())
                }
                _ => return None,
            };
            match fault {
                AccFault::Overwrite => Some(Site::replace(n, format!("{name} = {term}"))),
                AccFault::Negate => {
                    let flipped = if sign == "+" { "-" } else { "+" };
                    Some(Site::replace(n, format!("{name} {flipped}= {term}")))
                }
                AccFault::Round(format) => {
                    // The variable's declared type: `acc[i][j]` is a float where `acc` is declared so.
                    let variable = accumulator_variable(ctx, left)?;
                    let declared_float = ctx.info.types.get(ctx.text(variable)).is_some_and(|t| is_float_type(t));
                    if !(ctx.is_float(left) || variable.id() != left.id() && declared_float) {
                        return None;
                    }
                    Some(Site::replace(n, format!("{name} = {}", format.round(&format!("{name} {sign} ({term})")))).with_include(format.header()))
                }
            }
        })
        .collect()
}

fn accumulator_init(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "init_declarator")
        .filter_map(|d| {
            let name = descendants(field(d, "declarator")?).find(|n| n.kind() == "identifier")?;
            if !ctx.info.accumulators.contains(ctx.text(name)) {
                return None;
            }
            let value = field(d, "value")?;
            let v = ctx.text(value);
            if value.kind() != "number_literal" || v.trim_end_matches(['f', 'F']).parse::<f64>().ok()? != 0.0 {
                return None;
            }
            Some(Site::replace(value, if is_float_literal(v) { "1.0f" } else { "1" }))
        })
        .collect()
}

fn is_sentinel_name(t: &str) -> bool {
    matches!(t, "FLT_MAX" | "INFINITY" | "HUGE_VALF" | "DBL_MAX" | "CUDART_INF_F")
}

fn is_huge_literal(t: &str) -> bool {
    is_float_literal(t) && t.trim_end_matches(['f', 'F']).parse::<f64>().is_ok_and(|v| v.abs() >= 1e30)
}

fn sentinel(ctx: &Ctx<'_>) -> Vec<Site> {
    let mut out = Vec::new();
    for n in ctx.nodes() {
        let t = ctx.text(n);
        let hit = match n.kind() {
            "unary_expression" => op_text(ctx, n) == "-" && field(n, "argument").is_some_and(|a| is_sentinel_name(ctx.text(a)) || is_huge_literal(ctx.text(a))),
            "identifier" => is_sentinel_name(t) && n.parent().is_none_or(|p| p.kind() != "unary_expression"),
            "number_literal" => is_huge_literal(t) && n.parent().is_none_or(|p| p.kind() != "unary_expression"),
            _ => false,
        };
        if hit {
            out.push(Site::replace(n, "0.0f"));
        }
    }
    out
}

fn threshold(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| is_relational(ctx, *n) && float_compare(ctx, *n))
        .flat_map(|n| [field(n, "left"), field(n, "right")])
        .flatten()
        .filter(|o| o.kind() == "number_literal" && is_float_literal(ctx.text(*o)))
        .filter_map(|o| {
            let t = ctx.text(o);
            let v: f64 = t.trim_end_matches(['f', 'F']).parse().ok()?;
            Some(Site::replace(o, format_literal(v + 0.1, t)))
        })
        .collect()
}

fn ternary_swap(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "conditional_expression")
        .filter_map(|n| {
            let (c, a, b) = (field(n, "condition")?, field(n, "consequence")?, field(n, "alternative")?);
            Some(Site::replace(n, format!("{} ? {} : {}", ctx.text(c), ctx.text(b), ctx.text(a))))
        })
        .collect()
}

fn clamp_literal(ctx: &Ctx<'_>) -> Vec<Site> {
    calls(ctx, &["fmaxf", "fminf", "fmax", "fmin", "max", "min"])
        .into_iter()
        .filter_map(|c| {
            let args = arguments(c);
            let [a, b] = args.as_slice() else { return None };
            let literal = |n: Node<'_>| {
                strip(n).kind() == "number_literal"
                    || (strip(n).kind() == "unary_expression" && ctx.text(strip(n)).starts_with('-') && descendants(n).any(|d| d.kind() == "number_literal"))
            };
            match (literal(*a), literal(*b)) {
                (false, true) => Some(Site::replace(c, format!("({})", ctx.text(*a)))),
                (true, false) => Some(Site::replace(c, format!("({})", ctx.text(*b)))),
                _ => None,
            }
        })
        .collect()
}

/// Format `v` like the literal `like`: keep an `f` suffix and a decimal point.
fn format_literal(v: f64, like: &str) -> String {
    let single = like.ends_with(['f', 'F']);
    let mut s = if single { format!("{}", v as f32) } else { format!("{v}") };
    if !s.contains(['.', 'e', 'E']) && !s.contains("inf") && !s.contains("NaN") {
        s.push_str(".0");
    }
    if single {
        s.push('f');
    }
    s
}

fn literal_scale(ctx: &Ctx<'_>, factor: f64) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "number_literal" && is_float_literal(ctx.text(*n)))
        .filter_map(|n| {
            let t = ctx.text(n);
            let v: f64 = t.trim_end_matches(['f', 'F', 'l', 'L']).parse().ok()?;
            if [0.0, 1.0, 2.0, 0.5].contains(&v) || is_huge_literal(t) {
                return None;
            }
            Some(Site::replace(n, format_literal(v * factor, t)))
        })
        .collect()
}

// --- precision ---------------------------------------------------------------------------------

fn store_round(ctx: &Ctx<'_>, format: Format) -> Vec<Site> {
    stores(ctx)
        .into_iter()
        .filter(|(n, _)| field(*n, "left").is_some_and(|l| ctx.is_float(l)))
        .map(|(_, right)| Site::replace(right, format.round(ctx.text(right))).with_include(format.header()))
        .collect()
}

fn fast_divide(ctx: &Ctx<'_>) -> Vec<Site> {
    binary_nodes(ctx, "/")
        .into_iter()
        .filter(|n| float_compare(ctx, *n))
        .filter_map(|n| {
            let (l, r) = (field(n, "left")?, field(n, "right")?);
            Some(Site::replace(n, format!("__fdividef({}, {})", ctx.text(l), ctx.text(r))))
        })
        .collect()
}

fn exp_shift(ctx: &Ctx<'_>) -> Vec<Site> {
    calls(ctx, &["expf", "exp", "__expf"])
        .into_iter()
        .filter_map(|c| {
            let args = arguments(c);
            let [a] = args.as_slice() else { return None };
            let e = strip(*a);
            (e.kind() == "binary_expression" && op_text(ctx, e) == "-").then(|| field(e, "left").map(|l| Site::replace(*a, ctx.text(l))))?
        })
        .collect()
}

fn sqrt_epsilon(ctx: &Ctx<'_>) -> Vec<Site> {
    calls(ctx, &["sqrtf", "rsqrtf", "sqrt", "rsqrt"])
        .into_iter()
        .filter_map(|c| {
            let args = arguments(c);
            let [a] = args.as_slice() else { return None };
            let e = strip(*a);
            (e.kind() == "binary_expression" && op_text(ctx, e) == "+").then(|| field(e, "left").map(|l| Site::replace(*a, ctx.text(l))))?
        })
        .collect()
}

fn epsilon_literal(ctx: &Ctx<'_>) -> Vec<Site> {
    let small = |n: Node<'_>| {
        n.kind() == "number_literal"
            && is_float_literal(ctx.text(n))
            && ctx.text(n).trim_end_matches(['f', 'F']).parse::<f64>().is_ok_and(|v| v > 0.0 && v < 1e-2)
    };
    ["+", "-"]
        .into_iter()
        .flat_map(|op| binary_nodes(ctx, op))
        .filter_map(|n| {
            let (l, r) = (field(n, "left")?, field(n, "right")?);
            if small(r) {
                Some(Site::replace(n, ctx.text(l)))
            } else if small(l) && op_text(ctx, n) == "+" {
                Some(Site::replace(n, ctx.text(r)))
            } else {
                None
            }
        })
        .collect()
}

fn count_minus_one(ctx: &Ctx<'_>) -> Vec<Site> {
    binary_nodes(ctx, "/")
        .into_iter()
        .filter_map(|n| {
            let (l, r) = (field(n, "left")?, field(n, "right")?);
            let divisor = strip_casts(r);
            let int_count = divisor.kind() == "identifier" && ctx.info.types.get(ctx.text(divisor)).is_some_and(|t| !crate::context::is_float_type(t));
            (ctx.is_float(l) && int_count).then(|| Site::replace(divisor, format!("({} - 1)", ctx.text(divisor))))
        })
        .collect()
}

// --- synchronization ---------------------------------------------------------------------------

fn barrier_move_up(ctx: &Ctx<'_>) -> Vec<Site> {
    call_statements(ctx, &["__syncthreads"])
        .into_iter()
        .filter_map(|b| {
            let prev = b.prev_named_sibling()?;
            if prev.kind() != "expression_statement" || ctx.text(prev).contains("__sync") {
                return None;
            }
            let gap = &ctx.src.text[prev.end_byte()..b.start_byte()];
            Some(Site::span(prev.start_byte(), b.end_byte(), format!("{}{gap}{}", ctx.text(b), ctx.text(prev))))
        })
        .collect()
}

fn qualifier_drop(ctx: &Ctx<'_>, qualifier: &str) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "type_qualifier" && ctx.text(*n) == qualifier)
        .map(|q| {
            // Take the following space with the qualifier.
            let end = if ctx.src.text[q.end_byte()..].starts_with(' ') { q.end_byte() + 1 } else { q.end_byte() };
            Site::span(q.start_byte(), end, "")
        })
        .collect()
}

fn atomic_drop(ctx: &Ctx<'_>) -> Vec<Site> {
    calls(ctx, &["atomicAdd", "atomicSub", "atomicMax", "atomicMin"])
        .into_iter()
        .filter_map(|c| {
            let args = arguments(c);
            let [p, v] = args.as_slice() else { return None };
            let f = ctx.text(field(c, "function")?);
            let target = if p.kind() == "pointer_expression" && ctx.text(*p).starts_with('&') {
                field(*p, "argument").map(|a| ctx.text(a).to_owned())?
            } else {
                format!("*({})", ctx.text(*p))
            };
            let v = ctx.text(*v);
            let text = match f {
                "atomicAdd" => format!("({target} += {v})"),
                "atomicSub" => format!("({target} -= {v})"),
                "atomicMax" => format!("({target} = max({target}, {v}))"),
                _ => format!("({target} = min({target}, {v}))"),
            };
            Some(Site::replace(c, text))
        })
        .collect()
}

fn shuffle_mask(ctx: &Ctx<'_>) -> Vec<Site> {
    ctx.nodes()
        .filter(|n| n.kind() == "call_expression")
        .filter(|n| {
            field(*n, "function").is_some_and(|f| {
                let t = ctx.text(f);
                t.starts_with("__shfl") && t.ends_with("_sync")
            })
        })
        .filter_map(|c| arguments(c).first().copied())
        .filter(|m| ctx.text(*m).eq_ignore_ascii_case("0xffffffff") || ctx.text(*m).eq_ignore_ascii_case("0xffffffffu"))
        .map(|m| Site::replace(m, "0x0000ffff"))
        .collect()
}
