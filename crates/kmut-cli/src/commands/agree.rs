//! `kmut agree`: the CPU backend's verdicts against a GPU's, per family.

use kmut_model::Protocol;
use kmut_score::{Agreement, AgreementRow};
use kmut_store::Store;

use crate::args::AgreeArgs;
use crate::commands::compile::store_path;
use crate::ExitStatus;

pub fn run(args: &AgreeArgs) -> anyhow::Result<ExitStatus> {
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let tolerance = args.tolerance.unwrap_or_else(|| protocol.tolerance());
    let gpu_path = store_path(args.store.as_deref());
    anyhow::ensure!(gpu_path.is_file(), "no store at `{}`; run `kmut run` on a GPU first (or pass --store)", gpu_path.display());
    let gpu = Store::open(&gpu_path)?;
    let cpu = match &args.cpu_store {
        Some(p) => {
            anyhow::ensure!(p.is_file(), "no store at `{}` (--cpu-store)", p.display());
            Some(Store::open(p)?)
        }
        None => None,
    };
    let a = kmut_score::agreement(&gpu, cpu.as_ref().unwrap_or(&gpu), tolerance)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&a)?);
        return Ok(ExitStatus::Success);
    }
    anyhow::ensure!(
        a.comparable.mutants + a.racy_on_cpu.mutants > 0,
        "no (mutant, input) cell was evaluated on both backends; run the same sample with `kmut run --backend cpu` and, on a GPU, `kmut run --suites small`"
    );
    print(&a);
    Ok(ExitStatus::Success)
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn row(r: &AgreementRow) -> Vec<String> {
    vec![
        r.name.clone(),
        r.mutants.to_string(),
        r.rate().map_or_else(|| "-".into(), |x| format!("{:.1}%", 100.0 * x)),
        r.cpu_only.to_string(),
        r.gpu_only.to_string(),
        r.cells.to_string(),
        percent(r.cells_agree, r.cells),
    ]
}

fn print(a: &Agreement) {
    println!(
        "CPU backend ({}) against GPU ({}): kills at tolerance {:e} on the inputs both ran",
        a.cpu_backends.join(", "),
        a.gpu_backends.join(", "),
        a.tolerance
    );
    let header = ["", "mutants", "agree", "killed on CPU only", "killed on GPU only", "cells", "cells agree"];
    let mut rows: Vec<Vec<String>> = a.by_family.iter().map(row).collect();
    rows.push(row(&a.comparable));
    rows.push(row(&a.racy_on_cpu));
    let mut first = header;
    first[0] = "family";
    print!("\n{}", crate::table::render(&first, &rows));
    println!("\nGPU-comparable: every family but the racy-on-CPU mutants (synchronisation and warp), which the CPU runs in three thread orders.");
}
