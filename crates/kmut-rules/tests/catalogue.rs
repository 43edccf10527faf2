//! The catalogue itself: every rule's example is a test, examples compile, the table is sound,
//! and `docs/rules.md` matches it.

use kmut_model::{Family, MutantKind, SubstrateDescription};
use kmut_rules::{mutate, Rule, RULES};

const HEAD: &str = "extern \"C\" __global__ void example(const float* x, float* out, int n, int K) {\n";

fn wrap(body: &str) -> String {
    format!("{HEAD}{body}\n}}\n")
}

fn describe(cuda: String) -> SubstrateDescription {
    SubstrateDescription {
        name: "example".into(),
        level: 1,
        path: String::new(),
        cuda,
        cuda_line: 0,
        kernels: vec!["example".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 0,
        suites: Vec::new(),
        generated: vec![],
    }
}

/// Every source the rule makes from its own `before` example.
fn outcomes(rule: &'static Rule) -> Vec<String> {
    let desc = describe(wrap(rule.before));
    let m = mutate(&desc, &[rule]).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
    m.mutants.iter().filter_map(|x| x.apply(&desc.cuda)).collect()
}

fn expected(rule: &Rule) -> String {
    let after = wrap(rule.after);
    for header in ["cuda_fp16.h", "cuda_bf16.h"] {
        let stem = header.trim_end_matches(".h").trim_start_matches("cuda_");
        if rule.after.contains(&format!("__float2{}", if stem == "fp16" { "half" } else { "bfloat16" })) {
            return format!("#include <{header}>\n{after}");
        }
    }
    after
}

#[test]
fn every_source_rule_turns_its_before_example_into_its_after_example() {
    let mut failures = Vec::new();
    for rule in RULES.iter().filter(|r| !r.is_launch_rule()) {
        let got = outcomes(rule);
        let want = expected(rule);
        if !got.contains(&want) {
            failures.push(format!("{}: expected\n{want}\ngot {} mutant(s):\n{}", rule.id, got.len(), got.join("\n----\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n=======\n"));
}

#[test]
fn no_rule_reproduces_the_original_text() {
    for rule in RULES.iter().filter(|r| !r.is_launch_rule()) {
        let original = wrap(rule.before);
        for got in outcomes(rule) {
            assert_ne!(got, original, "{} produced an unchanged source", rule.id);
        }
    }
}

#[test]
fn the_catalogue_has_at_least_80_rules_and_6_per_family() {
    assert!(RULES.len() >= 80, "{} rules", RULES.len());
    for f in Family::ALL {
        let n = RULES.iter().filter(|r| r.family == f).count();
        assert!(n >= 6, "{f} has {n} rules");
    }
}

#[test]
fn rule_ids_are_unique_kebab_case_and_name_their_family() {
    let mut seen = std::collections::HashSet::new();
    for r in RULES {
        assert!(seen.insert(r.id), "{} is listed twice", r.id);
        assert!(r.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{} is not kebab-case", r.id);
        let prefix = match r.family {
            _ if r.is_launch_rule() => "launch-",
            Family::Arithmetic => "arith-",
            Family::Indexing => "index-",
            Family::Semantic => "semantic-",
            Family::Boundary => "boundary-",
            Family::Synchronization => "sync-",
            Family::Precision => "precision-",
        };
        assert!(r.id.starts_with(prefix), "{} should start with {prefix}", r.id);
        assert!(!r.description.is_empty() && !r.rationale.is_empty());
    }
}

#[test]
fn the_required_fault_kinds_are_covered() {
    for id in [
        "sync-shared-qualifier-remove",
        "index-thread-to-block",
        "index-block-to-thread",
        "index-thread-plus-one",
        "index-thread-minus-one",
        "sync-barrier-remove",
        "sync-atomic-remove",
        "boundary-ceil-to-floor",
        "boundary-guard-return-drop",
        "boundary-lt-to-le",
        "boundary-loop-last-iteration-drop",
        "precision-acc-fp16",
        "precision-store-fp16",
        "precision-expf-fast",
        "precision-softmax-shift-drop",
        "precision-sqrt-epsilon-drop",
        "semantic-constant-scale-10pct",
        "semantic-threshold-shift",
        "sync-barrier-to-syncwarp",
        "index-subscript-axis-swap",
        "index-stride-confusion",
        "semantic-fmaxf-to-fminf",
        "semantic-sentinel-zero",
        "semantic-tie-break-to-last",
        "launch-swap-grid-block",
        "launch-grid-plus-one",
        "launch-block-minus-one",
        "launch-cdiv-floor",
    ] {
        assert!(kmut_rules::rule(id).is_some(), "missing {id}");
    }
}

#[test]
fn docs_rules_md_is_generated_from_the_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md");
    let generated = kmut_rules::docs::markdown();
    if std::env::var_os("KMUT_UPDATE_DOCS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(on_disk == generated, "docs/rules.md is stale: run `KMUT_UPDATE_DOCS=1 cargo test -p kmut-rules` (or `kmut rules --markdown > docs/rules.md`)");
}

#[test]
fn source_mutants_carry_one_fault_edit_plus_at_most_an_include() {
    for rule in RULES.iter().filter(|r| !r.is_launch_rule()) {
        let desc = describe(wrap(rule.before));
        for m in mutate(&desc, &[rule]).unwrap().mutants {
            let MutantKind::Source { edits } = &m.mutation else { panic!("{} made a launch mutant", rule.id) };
            assert!(!edits.is_empty() && edits.len() <= 2);
            assert_eq!(edits[0].start, m.span[0]);
            if edits.len() == 2 {
                assert!(edits[1].text.starts_with("#include <"));
            }
        }
    }
}

#[test]
fn a_for_statements_own_step_is_no_accumulator() {
    // `j += blockDim.x` steps a strided loop; overwriting or negating it makes a hang, not the
    // lost or mis-signed sum the accumulator rules model. The sum in the body is one.
    let body = "    float acc = 0.0f;\n    for (int j = threadIdx.x; j < n; j += blockDim.x) acc += x[j];\n    out[threadIdx.x] = acc;";
    let desc = describe(wrap(body));
    for id in ["semantic-acc-overwrite", "semantic-acc-negate", "semantic-acc-init-one"] {
        let rule = RULES.iter().find(|r| r.id == id).unwrap();
        let m = mutate(&desc, &[rule]).unwrap();
        let sources: Vec<String> = m.mutants.iter().filter_map(|x| x.apply(&desc.cuda)).collect();
        assert_eq!(sources.len(), 1, "{id}: only the sum is an accumulator, got {sources:#?}");
        assert!(sources[0].contains("j += blockDim.x"), "{id} left the loop's step alone: {}", sources[0]);
    }
    // A counter stepped in the body of a while loop is still read as an accumulator: only the
    // for-statement's update clause is told apart.
    let body = "    int j = 0;\n    while (j < n) { out[j] = x[j]; j += 4; }";
    let rule = RULES.iter().find(|r| r.id == "semantic-acc-negate").unwrap();
    assert_eq!(mutate(&describe(wrap(body)), &[rule]).unwrap().mutants.len(), 1);
}

#[test]
fn an_element_of_a_local_array_updated_in_a_loop_is_an_accumulator_and_a_shared_one_is_not() {
    // A tiled kernel's micro-tile: each thread accumulates acc[i][j] in registers. The fp16
    // accumulator (the paper's most escaping fault) must reach it as it reaches a scalar sum; a
    // `__shared__` array updated in a loop (a tree reduction's partials) is not an accumulator.
    let body = "    __shared__ float red[64];\n    float acc[2][2];\n    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) acc[i][j] = 0.0f;\n    \
                for (int k = 0; k < K; ++k) for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) acc[i][j] += x[k + i] * x[k + j];\n    \
                for (int s = 1; s < 64; s *= 2) red[threadIdx.x] += red[threadIdx.x + s];\n    out[threadIdx.x] = acc[0][0] + acc[1][1] + red[0];";
    let desc = describe(wrap(body));
    let made = |id: &str| -> Vec<String> {
        let rule = RULES.iter().find(|r| r.id == id).unwrap();
        mutate(&desc, &[rule]).unwrap().mutants.iter().filter_map(|m| m.apply(&desc.cuda)).collect()
    };
    let fp16 = made("precision-acc-fp16");
    assert_eq!(fp16.len(), 1, "{fp16:#?}");
    assert!(fp16[0].contains("acc[i][j] = __half2float(__float2half(acc[i][j] + (x[k + i] * x[k + j])))"), "{}", fp16[0]);
    let overwrite = made("semantic-acc-overwrite");
    assert_eq!(overwrite.len(), 1, "{overwrite:#?}");
    assert!(overwrite[0].contains("acc[i][j] = x[k + i] * x[k + j];") && overwrite[0].contains("acc[i][j] = 0.0f"));
    // The update left the compound-assignment rule for the accumulator rules; the shared array's
    // update stays the compound rule's.
    let compound = made("arith-compound-plus-to-minus");
    assert_eq!(compound.len(), 1, "{compound:#?}");
    assert!(compound[0].contains("acc[i][j] += x") && compound[0].contains("red[threadIdx.x] -= red"), "{}", compound[0]);
}
