//! The run worker's line protocol, typed: the requests the engine sends and the events it hears
//! (`python/kmut/_run_worker.py` documents the same protocol from the worker's side).
//!
//! One JSON object per line each way. Reading is lenient where the worker is: JSON has no
//! infinity, so numbers may come as `"inf"`/`"nan"` strings; a missing flag is `false`. A line
//! that is not JSON, or a known event whose fields cannot be read, is `Noise` (shown, never
//! dropped); an event this engine does not know is `Other` (ignored).

use std::collections::BTreeMap;
use std::path::Path;

use kmut_model::LaunchTransform;
use serde::Serialize;
use serde_json::Value;

/// What the engine asks a worker.
#[derive(Debug, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request<'a> {
    /// Make `(suite, seed)` of `substrate` the worker's current column.
    Column {
        substrate: SubstrateRef<'a>,
        suite: &'a str,
        seed: u64,
        /// The witness search's validity gate: generated columns are checked against fp64
        /// within this margin.
        margin: Option<f64>,
        /// Capture each pipeline step's output on this column (`kmut depth`'s rows): the
        /// protocol's own columns, not a witness search's (`SubstratePlan::search_from`).
        steps: bool,
        /// The original's figures on this column from a stored baseline of the same original
        /// image on the same backend: the worker does not run the original again unless the
        /// column's mutants need its outputs (a pipeline's kept steps).
        known: Option<KnownOriginal>,
        /// Where nothing is known of this column but a sibling of the same suite (the same
        /// sizes) was measured: the worker defers the original's run to the column's first
        /// kill (`DeferredOriginal`).
        defer: Option<DeferredOriginal>,
    },
    /// Run one mutant on the current column.
    Eval {
        eval: usize,
        mutant: &'a str,
        image: Option<&'a Path>,
        scope: &'a [String],
        transform: Option<&'a LaunchTransform>,
        variant: Option<&'a str>,
        orders: &'a [u32],
    },
    /// Drop the column and free its device memory.
    Release,
    Quit,
}

/// The original's figures on a column as an earlier preparation measured them (`Baseline`):
/// all finite, the sizes as the worker drew them (a substrate whose sizes changed while its
/// CUDA did not runs the original again), and the validity gate's verdict where one was asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnownOriginal {
    pub sizes: Value,
    pub tau: f64,
    pub max_abs: f64,
    pub kernel_ms: f64,
    pub valid: Option<bool>,
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
}

impl KnownOriginal {
    /// From a stored baseline, when it holds every figure a preparation reports (`margin`:
    /// the validity gate's too) and each is finite (JSON has no infinity).
    #[must_use]
    pub fn from_baseline(b: &kmut_store::Baseline, margin: bool) -> Option<KnownOriginal> {
        let (tau, max_abs, kernel_ms) = (b.tau?, b.max_abs?, b.kernel_ms?);
        let gate = if margin { (Some(b.valid?), Some(b.tau64_ref?), Some(b.tau64_orig?)) } else { (None, None, None) };
        let finite = [Some(tau), Some(max_abs), Some(kernel_ms), gate.1, gate.2].into_iter().flatten().all(f64::is_finite);
        let sizes = serde_json::from_str(&b.sizes).ok()?;
        finite.then_some(KnownOriginal { sizes, tau, max_abs, kernel_ms, valid: gate.0, tau64_ref: gate.1, tau64_orig: gate.2 })
    }
}

/// A column whose original need not run until a verdict reads it (`EngineConfig::
/// defer_original`). A column's original figures decide two things: its kernel time scales the
/// watchdog, and its tau\* says whether the column can decide anything (a kill where the
/// original fails too means nothing). The first comes from a sibling column of the same suite,
/// so of the same sizes, measured in this run; the second is read only by a kill. So the worker
/// skips the original's run when it prepares the column, and runs it right after the first
/// evaluation there that fails the comparison at `tolerance`, reporting its figures with that
/// evaluation (`EvalReport::original`). A crash is a kill whatever the original's numbers, and
/// a column no evaluation fails decides nothing the original's run could change: `kmut score`
/// counts a column without a baseline as decisive, as it does every column the original
/// passes. Only where the column's mutants do not read the original's outputs (no kept
/// steps), and never on a witness search's generated columns (their validity gate compares
/// the original's outputs with float64).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeferredOriginal {
    /// The sibling's drawn sizes: a worker that draws other sizes runs the original.
    pub sizes: Value,
    /// The sibling's original kernel time: the watchdog's scale.
    pub kernel_ms: f64,
    /// The run's tolerance: an evaluation whose tau\* is above it (or not finite, or of the
    /// wrong shape) runs the original.
    pub tolerance: f64,
}

impl DeferredOriginal {
    /// From the run's baseline of a sibling column: its original passed at `tolerance` with a
    /// finite kernel time. A sibling the original fails says the substrate's original is not
    /// to be trusted on this suite, so its columns are measured.
    #[must_use]
    pub fn from_sibling(b: &kmut_store::Baseline, tolerance: f64) -> Option<DeferredOriginal> {
        let passed = matches!(b.tau, Some(t) if t <= tolerance);
        let kernel_ms = b.kernel_ms.filter(|k| k.is_finite())?;
        let sizes = serde_json::from_str(&b.sizes).ok()?;
        (passed && b.valid != Some(false)).then_some(DeferredOriginal { sizes, kernel_ms, tolerance })
    }
}

/// The original's run on a column whose preparation deferred it (`DeferredOriginal`), as the
/// worker reported it with the evaluation that triggered it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OriginalRun {
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
    pub kernel_ms: Option<f64>,
    /// The original crashed on the column (its CUDA error or launch failure).
    pub crash: Option<String>,
}

/// The substrate part of a `column` request.
#[derive(Debug, Serialize)]
pub struct SubstrateRef<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub original_image: &'a Path,
    pub symbols: &'a BTreeMap<String, String>,
    pub original_variant: Option<&'a str>,
}

impl Request<'_> {
    pub fn line(&self) -> String {
        serde_json::to_string(self).expect("requests serialise")
    }
}

/// What a worker said.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Started: its backend (CPU) or GPU name, and the device's memory.
    Ready {
        backend: Option<String>,
        name: Option<String>,
        memory_total: Option<u64>,
    },
    Column(ColumnReport),
    /// Just before the first launch of an evaluation (once per thread order on the CPU).
    Begin,
    /// The last kernel of a run completed.
    End,
    Result(Box<EvalReport>),
    Released,
    Error {
        detail: String,
        fatal: bool,
        environment: bool,
        /// A machine failure that the device to itself could cure (the default); false when the
        /// worker knows it cannot (a column too large for the machine, found before drawing).
        retry_alone: bool,
    },
    /// A line that is not a readable event: the worker's bug, shown to the user.
    Noise(String),
    /// An event this engine does not act on.
    Other,
}

/// A prepared column: the original's run on it and what the column costs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnReport {
    /// The drawn sizes, as JSON text.
    pub sizes: String,
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
    pub kernel_ms: Option<f64>,
    pub prep_s: Option<f64>,
    /// The preparation's peak device memory (the draw, the reference's activations, the
    /// validity gate's float64 copies): what preparing the same sizes is budgeted at.
    pub peak_bytes: Option<u64>,
    /// What the worker keeps while it evaluates on the column (its live tensors and one run's
    /// buffers, measured after the preparation's transient memory went back to the device):
    /// what the budget counts for it until it drops the column. Never above `peak_bytes`.
    pub held_bytes: Option<u64>,
    /// The witness search's validity gate, on generated columns.
    pub valid: Option<bool>,
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
    /// A pipeline's step layout for the depth study (`kmut depth`), as the worker sent it.
    pub steps: Option<Value>,
    /// The worker took the original's figures from the request's `known` instead of running it.
    pub original_stored: bool,
    /// The worker deferred the original's run (the request's `defer`): `tau` and `max_abs` are
    /// unknown, `kernel_ms` is the sibling's.
    pub original_deferred: bool,
}

/// One evaluation's result (its flags are the worker's independent observations, each stored).
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EvalReport {
    /// The machine failed (out of memory, ...): no verdict, the engine retries it.
    pub environment: Option<String>,
    /// The worker's context did not survive; it exits after this line.
    pub fatal: bool,
    pub crash: Option<String>,
    pub detail: Option<String>,
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
    pub max_rel: Option<f64>,
    pub nonfinite: bool,
    pub shape_ok: bool,
    pub canary: bool,
    pub inputs_restored: bool,
    pub kernel_ms: Option<f64>,
    pub wall_ms: Option<f64>,
    /// `(order, tau*)` per thread order on the CPU backend; a non-finite tau* is `None`.
    pub orders: Vec<(u32, Option<f64>)>,
    /// A pipeline's per-step errors (`[[tau, rel_l2, frac_off], ...]`), as the worker sent them.
    pub steps: Option<Value>,
    /// A pipeline's steps in this run, and how many leading ones the worker replayed from the
    /// original's kept outputs instead of launching (the steps before the first it changed,
    /// and those after the last it changed where its run left the original's state), and of
    /// those the ones after the last changed step.
    pub steps_total: u64,
    pub skipped_steps: u64,
    pub tail_steps: u64,
    /// Where the evaluation's wall time went, by part, in milliseconds (`phases_ms`).
    pub phases_ms: Vec<(String, f64)>,
    /// The original's run on a deferred column, made right after this evaluation failed the
    /// comparison (`DeferredOriginal`).
    pub original: Option<OriginalRun>,
}

impl Event {
    /// Read one line of a worker's stdout.
    pub fn parse(line: &str) -> Event {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => Event::from_value(&v).unwrap_or_else(|| Event::Noise(line.to_owned())),
            Err(_) => Event::Noise(line.to_owned()),
        }
    }

    /// `None` for an object that is not an event, or a known event that cannot be read.
    fn from_value(v: &Value) -> Option<Event> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        let num = |k: &str| number(v.get(k));
        Some(match v.get("event")?.as_str()? {
            "ready" => Event::Ready { backend: text("backend"), name: text("name"), memory_total: v.get("memory_total").and_then(Value::as_u64) },
            "column" => Event::Column(ColumnReport {
                sizes: v.get("sizes").map_or_else(|| "{}".to_owned(), Value::to_string),
                tau: num("tau"),
                max_abs: num("max_abs"),
                kernel_ms: num("kernel_ms"),
                prep_s: num("prep_s"),
                peak_bytes: v.get("peak_bytes").and_then(Value::as_u64),
                held_bytes: v.get("held_bytes").and_then(Value::as_u64),
                valid: v.get("valid").and_then(Value::as_bool),
                tau64_ref: num("tau64_ref"),
                tau64_orig: num("tau64_orig"),
                steps: v.get("steps").cloned(),
                original_stored: flag("original_stored"),
                original_deferred: flag("original_deferred"),
            }),
            "begin" => Event::Begin,
            "end" => Event::End,
            "result" => Event::Result(Box::new(EvalReport {
                environment: text("environment"),
                fatal: flag("fatal"),
                crash: text("crash"),
                // A shape mismatch explains itself in `shape`.
                detail: text("detail").or_else(|| text("shape")),
                tau: num("tau"),
                max_abs: num("max_abs"),
                max_rel: num("max_rel"),
                nonfinite: flag("nonfinite"),
                shape_ok: v.get("shape_ok").and_then(Value::as_bool).unwrap_or(true),
                canary: flag("canary"),
                inputs_restored: flag("inputs_restored"),
                kernel_ms: num("kernel_ms"),
                wall_ms: num("wall_ms"),
                orders: v.get("orders").and_then(Value::as_array).map_or_else(Vec::new, |a| a.iter().filter_map(order_tau).collect()),
                steps: v.get("steps").cloned(),
                steps_total: v.get("steps_total").and_then(Value::as_u64).unwrap_or(0),
                skipped_steps: v.get("skipped_steps").and_then(Value::as_u64).unwrap_or(0),
                tail_steps: v.get("tail_steps").and_then(Value::as_u64).unwrap_or(0),
                phases_ms: v
                    .get("phases_ms")
                    .and_then(Value::as_object)
                    .map_or_else(Vec::new, |o| o.iter().filter_map(|(k, ms)| Some((k.clone(), ms.as_f64()?))).collect()),
                original: v.get("original").filter(|o| o.is_object()).map(|o| OriginalRun {
                    tau: number(o.get("tau")),
                    max_abs: number(o.get("max_abs")),
                    kernel_ms: number(o.get("kernel_ms")),
                    crash: o.get("crash").and_then(Value::as_str).map(str::to_owned),
                }),
            })),
            "released" => Event::Released,
            "error" => Event::Error {
                detail: text("detail").unwrap_or_else(|| "no detail".to_owned()),
                fatal: flag("fatal"),
                environment: flag("environment"),
                retry_alone: v.get("retry_alone").and_then(Value::as_bool).unwrap_or(true),
            },
            "noise" => Event::Noise(text("line").unwrap_or_default()),
            _ => Event::Other,
        })
    }
}

/// One `[order, tau]` pair of a multi-order evaluation; a missing or non-finite tau is `None`.
fn order_tau(v: &Value) -> Option<(u32, Option<f64>)> {
    let pair = v.as_array()?;
    let order = u32::try_from(pair.first()?.as_u64()?).ok()?;
    Some((order, number(pair.get(1)).filter(|t| t.is_finite())))
}

/// A number from the worker: JSON has no infinity, so the worker sends `"inf"` or `"nan"`.
pub(crate) fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "inf" | "Infinity" => Some(f64::INFINITY),
            "-inf" | "-Infinity" => Some(f64::NEG_INFINITY),
            "nan" | "NaN" => Some(f64::NAN),
            other => other.parse().ok(),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_the_lines_the_worker_reads() {
        let scope = vec!["k".to_owned()];
        let eval = Request::Eval { eval: 3, mutant: "m1", image: Some(Path::new("/c/x.cubin")), scope: &scope, transform: None, variant: None, orders: &[] };
        let v: Value = serde_json::from_str(&eval.line()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"op": "eval", "eval": 3, "mutant": "m1", "image": "/c/x.cubin", "scope": ["k"], "transform": null, "variant": null, "orders": []})
        );
        assert_eq!(Request::Release.line(), r#"{"op":"release"}"#);
        assert_eq!(Request::Quit.line(), r#"{"op":"quit"}"#);
        let symbols = BTreeMap::from([("k".to_owned(), "k".to_owned())]);
        let substrate = SubstrateRef { name: "s", path: "s.py", original_image: Path::new("o.cubin"), symbols: &symbols, original_variant: None };
        let v: Value =
            serde_json::from_str(&Request::Column { substrate, suite: "T0_original", seed: 2, margin: None, steps: true, known: None, defer: None }.line())
                .unwrap();
        assert_eq!(v["op"], "column");
        assert_eq!(v["substrate"]["original_image"], "o.cubin");
        assert_eq!((v["suite"].as_str(), v["seed"].as_u64()), (Some("T0_original"), Some(2)));
    }

    fn baseline() -> kmut_store::Baseline {
        kmut_store::Baseline {
            substrate: "s".into(),
            target: "sm_90".into(),
            suite: "W:dense:1:official".into(),
            seed: 1,
            backend: "cuda:H".into(),
            sizes: r#"{"N": 8}"#.into(),
            tau: Some(1e-7),
            max_abs: Some(2e-7),
            kernel_ms: Some(3.5),
            prep_s: Some(1.0),
            image: Some("orig".into()),
            peak_bytes: None,
            valid: Some(true),
            tau64_ref: Some(1e-8),
            tau64_orig: Some(2e-8),
        }
    }

    #[test]
    fn known_figures_come_only_from_a_baseline_that_holds_them_all() {
        let k = KnownOriginal::from_baseline(&baseline(), true).unwrap();
        assert_eq!((k.tau, k.kernel_ms, k.valid, k.sizes.clone()), (1e-7, 3.5, Some(true), serde_json::json!({"N": 8})));
        let line = serde_json::to_value(&k).unwrap();
        assert_eq!(line["tau64_orig"], 2e-8, "the worker echoes the validity gate's figures");
        // Without the validity gate asked, its figures are not sent.
        assert_eq!(KnownOriginal::from_baseline(&baseline(), false).unwrap().valid, None);
        // A figure missing, or not finite (JSON would carry it as null), and nothing is known.
        for broken in [
            kmut_store::Baseline { kernel_ms: None, ..baseline() },
            kmut_store::Baseline { tau: Some(f64::INFINITY), ..baseline() },
            kmut_store::Baseline { sizes: "not json".into(), ..baseline() },
        ] {
            assert_eq!(KnownOriginal::from_baseline(&broken, false), None, "{broken:?}");
        }
        // The gate's verdict is needed only where the gate is asked.
        let ungated = kmut_store::Baseline { valid: None, ..baseline() };
        assert!(KnownOriginal::from_baseline(&ungated, false).is_some());
        assert_eq!(KnownOriginal::from_baseline(&ungated, true), None);
        assert_eq!(KnownOriginal::from_baseline(&kmut_store::Baseline { tau64_ref: Some(f64::NAN), ..baseline() }, true), None);
    }

    #[test]
    fn a_sibling_defers_the_original_only_where_it_passed_with_a_finite_time() {
        let d = DeferredOriginal::from_sibling(&baseline(), 1e-2).unwrap();
        assert_eq!((d.kernel_ms, d.tolerance, d.sizes.clone()), (3.5, 1e-2, serde_json::json!({"N": 8})));
        for unfit in [
            kmut_store::Baseline { tau: Some(0.5), ..baseline() },
            kmut_store::Baseline { tau: None, ..baseline() },
            kmut_store::Baseline { tau: Some(f64::NAN), ..baseline() },
            kmut_store::Baseline { kernel_ms: Some(f64::INFINITY), ..baseline() },
            kmut_store::Baseline { valid: Some(false), ..baseline() },
            kmut_store::Baseline { sizes: "[".into(), ..baseline() },
        ] {
            assert_eq!(DeferredOriginal::from_sibling(&unfit, 1e-2), None, "{unfit:?}");
        }
        // The deferred run's figures come back with the evaluation that made it.
        let Event::Result(r) = Event::parse(r#"{"event":"result","eval":4,"tau":0.5,"original":{"tau":1e-7,"max_abs":2e-7,"kernel_ms":3.0}}"#) else {
            panic!("a result")
        };
        assert_eq!(r.original, Some(OriginalRun { tau: Some(1e-7), max_abs: Some(2e-7), kernel_ms: Some(3.0), crash: None }));
        let Event::Result(r) = Event::parse(r#"{"event":"result","eval":4,"tau":0.5,"original":{"crash":"CUDA_ERROR_LAUNCH_FAILED"}}"#) else {
            panic!("a result")
        };
        assert_eq!(r.original.and_then(|o| o.crash).as_deref(), Some("CUDA_ERROR_LAUNCH_FAILED"));
        let Event::Column(c) = Event::parse(r#"{"event":"column","kernel_ms":3.0,"original_deferred":true}"#) else { panic!("a column") };
        assert!(c.original_deferred && c.tau.is_none());
    }

    #[test]
    fn events_read_leniently_and_never_drop_a_line() {
        let Event::Result(r) = Event::parse(
            r#"{"event":"result","eval":1,"tau":"inf","max_abs":"nan","orders":[[0,1e-6],[1,"inf"]],"shape":"(2,) vs ref (3,)","shape_ok":false}"#,
        ) else {
            panic!("a result")
        };
        assert_eq!(r.tau, Some(f64::INFINITY));
        assert!(r.max_abs.unwrap().is_nan());
        assert_eq!(r.orders, [(0, Some(1e-6)), (1, None)]);
        assert_eq!(r.detail.as_deref(), Some("(2,) vs ref (3,)"));
        assert!(!r.shape_ok && !r.fatal && !r.canary && r.environment.is_none());
        assert_eq!((r.steps_total, r.skipped_steps, r.tail_steps), (0, 0, 0), "a worker that says nothing of steps replayed none");
        let Event::Result(r) = Event::parse(r#"{"event":"result","eval":2,"steps_total":9,"skipped_steps":5,"tail_steps":3}"#) else { panic!("a result") };
        assert_eq!((r.steps_total, r.skipped_steps, r.tail_steps), (9, 5, 3));
        let Event::Result(r) = Event::parse(r#"{"event":"result","eval":3,"phases_ms":{"kernels":12.5,"compare":"x","check":1}}"#) else { panic!("a result") };
        assert_eq!(r.phases_ms, [("check".to_owned(), 1.0), ("kernels".to_owned(), 12.5)], "a part that is not a number is dropped");
        assert_eq!(Event::parse("Traceback (most recent call last):"), Event::Noise("Traceback (most recent call last):".into()));
        assert_eq!(Event::parse(r#"{"event":"heartbeat"}"#), Event::Other);
        assert_eq!(Event::parse(r#"{"no":"event"}"#), Event::Noise(r#"{"no":"event"}"#.into()));
        assert_eq!(
            Event::parse(r#"{"event":"error","detail":"oom","environment":true}"#),
            Event::Error { detail: "oom".into(), fatal: false, environment: true, retry_alone: true }
        );
        assert_eq!(
            Event::parse(r#"{"event":"error","detail":"too large","environment":true,"retry_alone":false}"#),
            Event::Error { detail: "too large".into(), fatal: false, environment: true, retry_alone: false }
        );
        assert_eq!(Event::parse(r#"{"event":"ready","memory_total":5}"#), Event::Ready { backend: None, name: None, memory_total: Some(5) });
        let Event::Column(c) = Event::parse(r#"{"event":"column","tau":0.0,"original_stored":true}"#) else { panic!("a column") };
        assert!(c.original_stored);
        let Event::Column(c) = Event::parse(r#"{"event":"column","tau":0.0}"#) else { panic!("a column") };
        assert!(!c.original_stored, "a worker that says nothing ran the original");
    }
}
