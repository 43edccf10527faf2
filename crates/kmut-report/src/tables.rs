//! The report's tables, as CSV and Parquet with the same columns (`docs/store.md` documents
//! each): `mutants` (one row per current mutant, its verdict under each protocol), `kill_matrix`
//! (one row per current cell) and `columns` (one row per input column the original ran on).
//!
//! Every column is nullable. In CSV a null is an empty field, booleans are `true`/`false`, and
//! non-finite numbers are `inf`, `-inf` and `NaN` (pandas and `DuckDB` read all three); Parquet
//! holds them as IEEE doubles.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use kmut_model::{Class, CpuFidelity, MutantKind};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::{ReportData, ReportError};

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Float,
    Bool,
}

/// One cell of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
}

impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Cell {
        v.map_or(Cell::Null, Cell::Text)
    }
}

impl From<Option<f64>> for Cell {
    fn from(v: Option<f64>) -> Cell {
        v.map_or(Cell::Null, Cell::Float)
    }
}

impl From<Option<bool>> for Cell {
    fn from(v: Option<bool>) -> Cell {
        v.map_or(Cell::Null, Cell::Bool)
    }
}

fn text(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

fn int(n: usize) -> Cell {
    Cell::Int(n as i64)
}

/// A table: named, typed columns and rows of cells in column order.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(String, Kind)>,
    pub rows: Vec<Vec<Cell>>,
}

/// A protocol name as part of a column name: lower case letters, digits and `_`.
pub fn column_suffix(protocol: &str) -> String {
    protocol.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// Every table of the report.
pub fn tables(data: &ReportData) -> Vec<Table> {
    vec![mutants(data), kill_matrix(data), columns(data)]
}

fn mutants(data: &ReportData) -> Table {
    let mut columns: Vec<(String, Kind)> = [
        ("substrate", Kind::Text),
        ("level", Kind::Int),
        ("mutant", Kind::Text),
        ("rule", Kind::Text),
        ("family", Kind::Text),
        ("kernel", Kind::Text),
        ("layer", Kind::Int),
        ("depth", Kind::Float),
        ("line", Kind::Int),
        ("col", Kind::Int),
        ("kind", Kind::Text),
        ("class", Kind::Text),
        ("duplicate_of", Kind::Text),
        ("cpu_fidelity", Kind::Text),
        ("cells", Kind::Int),
    ]
    .iter()
    .map(|(n, k)| ((*n).to_owned(), *k))
    .collect();
    for p in &data.scores {
        let sfx = column_suffix(&p.name);
        columns.extend([(format!("verdict_{sfx}"), Kind::Text), (format!("witness_suite_{sfx}"), Kind::Text), (format!("witness_seed_{sfx}"), Kind::Int)]);
    }
    let mut rows = Vec::new();
    for s in &data.substrates {
        for m in &s.mutants {
            let mu = &m.mutant;
            let mut row = vec![
                text(&s.name),
                Cell::Int(i64::from(s.level)),
                text(&mu.id),
                text(&mu.rule),
                text(mu.family.name()),
                text(&mu.kernel),
                mu.layer.map_or(Cell::Null, int),
                Cell::Float(mu.depth),
                int(mu.line),
                int(mu.col),
                text(match mu.mutation {
                    MutantKind::Source { .. } => "source",
                    MutantKind::Launch { .. } => "launch",
                }),
                m.class.map_or(Cell::Null, |c| text(c.name())),
                m.duplicate_of.clone().into(),
                text(match m.fidelity {
                    CpuFidelity::Comparable => "comparable",
                    CpuFidelity::RacyOnCpu => "racy-on-cpu",
                    CpuFidelity::EquivalentOnCpu => "equivalent-on-cpu",
                }),
                int(m.cells.len()),
            ];
            for v in &m.verdicts {
                let w = v.as_ref().and_then(|v| v.witness.as_ref());
                row.extend([
                    v.as_ref().map_or(Cell::Null, |v| text(v.word)),
                    w.map_or(Cell::Null, |w| text(&w.suite)),
                    w.map_or(Cell::Null, |w| Cell::Int(w.seed as i64)),
                ]);
            }
            rows.push(row);
        }
    }
    Table { name: "mutants", columns, rows }
}

fn kill_matrix(data: &ReportData) -> Table {
    let mut columns: Vec<(String, Kind)> = [
        ("substrate", Kind::Text),
        ("mutant", Kind::Text),
        ("rule", Kind::Text),
        ("family", Kind::Text),
        ("level", Kind::Int),
        ("layer", Kind::Int),
        ("target", Kind::Text),
        ("backend", Kind::Text),
        ("suite", Kind::Text),
        ("seed", Kind::Int),
        ("generated", Kind::Bool),
        ("valid", Kind::Bool),
        ("image", Kind::Text),
        ("outcome", Kind::Text),
        ("crash", Kind::Text),
        ("tau", Kind::Float),
        ("max_abs", Kind::Float),
        ("max_rel", Kind::Float),
        ("nonfinite", Kind::Bool),
        ("shape_ok", Kind::Bool),
        ("canary", Kind::Bool),
        ("inputs_restored", Kind::Bool),
        ("kernel_ms", Kind::Float),
        ("wall_ms", Kind::Float),
    ]
    .iter()
    .map(|(n, k)| ((*n).to_owned(), *k))
    .collect();
    for p in &data.scores {
        columns.push((format!("fails_{}", column_suffix(&p.name)), Kind::Bool));
    }
    let mut rows = Vec::new();
    for s in &data.substrates {
        for m in &s.mutants {
            for e in &m.cells {
                let valid = s.columns.iter().find(|c| c.suite == e.suite && c.seed == e.seed).and_then(|c| c.valid);
                let mut row = vec![
                    text(&s.name),
                    text(&m.mutant.id),
                    text(&m.mutant.rule),
                    text(m.mutant.family.name()),
                    Cell::Int(i64::from(s.level)),
                    m.mutant.layer.map_or(Cell::Null, int),
                    text(&e.target),
                    text(&e.backend),
                    text(&e.suite),
                    Cell::Int(e.seed as i64),
                    Cell::Bool(e.suite.starts_with("W:")),
                    valid.into(),
                    text(&e.image),
                    text(e.outcome.name()),
                    e.crash.clone().into(),
                    e.tau.into(),
                    e.max_abs.into(),
                    e.max_rel.into(),
                    Cell::Bool(e.nonfinite),
                    Cell::Bool(e.shape_ok),
                    Cell::Bool(e.canary),
                    Cell::Bool(e.inputs_restored),
                    e.kernel_ms.into(),
                    Cell::Float(e.wall_ms),
                ];
                row.extend(data.scores.iter().map(|p| Cell::Bool(e.kills_at(p.tolerance))));
                rows.push(row);
            }
        }
    }
    Table { name: "kill_matrix", columns, rows }
}

fn columns(data: &ReportData) -> Table {
    let columns = [
        ("substrate", Kind::Text),
        ("suite", Kind::Text),
        ("seed", Kind::Int),
        ("generated", Kind::Bool),
        ("sizes", Kind::Text),
        ("tau", Kind::Float),
        ("valid", Kind::Bool),
        ("tau64_ref", Kind::Float),
        ("tau64_orig", Kind::Float),
        ("current", Kind::Bool),
        ("live_mutants_run", Kind::Int),
    ]
    .iter()
    .map(|(n, k)| ((*n).to_owned(), *k))
    .collect();
    let mut rows = Vec::new();
    for s in &data.substrates {
        for c in &s.columns {
            let run = s.mutants.iter().filter(|m| m.class == Some(Class::Live) && m.cells.iter().any(|e| e.suite == c.suite && e.seed == c.seed)).count();
            rows.push(vec![
                text(&s.name),
                text(&c.suite),
                Cell::Int(c.seed as i64),
                Cell::Bool(c.generated),
                text(&c.sizes),
                c.tau.into(),
                c.valid.into(),
                c.tau64_ref.into(),
                c.tau64_orig.into(),
                Cell::Bool(c.current),
                int(run),
            ]);
        }
    }
    Table { name: "columns", columns, rows }
}

fn table_error(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::Table { path: path.to_path_buf(), message: e.to_string() }
}

/// Write `table` as CSV (a header row, then one line per row).
pub fn write_csv(table: &Table, path: &Path) -> Result<(), ReportError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| table_error(path, e))?;
    w.write_record(table.columns.iter().map(|(n, _)| n.as_str())).map_err(|e| table_error(path, e))?;
    for row in &table.rows {
        let fields = row.iter().map(|c| match c {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            // Rust's shortest round-trip form, always with a `.` or an exponent (`1.0`, `4.5e21`),
            // so readers never take a column of whole numbers for integers; `inf`, `-inf`, `NaN`.
            Cell::Float(x) => format!("{x:?}"),
            Cell::Bool(b) => b.to_string(),
            Cell::Null => String::new(),
        });
        w.write_record(fields).map_err(|e| table_error(path, e))?;
    }
    w.flush().map_err(|e| table_error(path, e))
}

/// Rows per Parquet row group: a kill matrix of a campaign is millions of cells.
const ROW_GROUP: usize = 100_000;

/// Write `table` as Parquet: every column optional, text as UTF-8 strings, integers as INT64,
/// numbers as DOUBLE, booleans as BOOLEAN; uncompressed.
pub fn write_parquet(table: &Table, path: &Path) -> Result<(), ReportError> {
    let fields = table
        .columns
        .iter()
        .map(|(name, kind)| {
            let physical = match kind {
                Kind::Text => Physical::BYTE_ARRAY,
                Kind::Int => Physical::INT64,
                Kind::Float => Physical::DOUBLE,
                Kind::Bool => Physical::BOOLEAN,
            };
            let mut b = Type::primitive_type_builder(name, physical).with_repetition(Repetition::OPTIONAL);
            if *kind == Kind::Text {
                b = b.with_logical_type(Some(LogicalType::String));
            }
            b.build().map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| table_error(path, e))?;
    let schema = Arc::new(Type::group_type_builder(table.name).with_fields(fields).build().map_err(|e| table_error(path, e))?);
    let file = File::create(path).map_err(|source| ReportError::Write { path: path.to_path_buf(), source })?;
    let props = Arc::new(WriterProperties::builder().set_created_by(format!("kmut {}", env!("CARGO_PKG_VERSION"))).build());
    let mut writer = SerializedFileWriter::new(file, schema, props).map_err(|e| table_error(path, e))?;
    for chunk in table.rows.chunks(ROW_GROUP) {
        let mut group = writer.next_row_group().map_err(|e| table_error(path, e))?;
        let mut index = 0;
        while let Some(mut column) = group.next_column().map_err(|e| table_error(path, e))? {
            write_column(column.untyped(), chunk, index).map_err(|e| table_error(path, e))?;
            column.close().map_err(|e| table_error(path, e))?;
            index += 1;
        }
        group.close().map_err(|e| table_error(path, e))?;
    }
    writer.close().map_err(|e| table_error(path, e))?;
    Ok(())
}

/// Column `index` of `rows` into its writer: the present values, and a definition level per
/// row (1 present, 0 null).
fn write_column(writer: &mut ColumnWriter<'_>, rows: &[Vec<Cell>], index: usize) -> parquet::errors::Result<()> {
    let cells = rows.iter().map(|r| &r[index]);
    let levels: Vec<i16> = cells.clone().map(|c| i16::from(*c != Cell::Null)).collect();
    match writer {
        ColumnWriter::ByteArrayColumnWriter(w) => {
            let values: Vec<ByteArray> = cells.filter_map(|c| if let Cell::Text(s) = c { Some(ByteArray::from(s.as_str())) } else { None }).collect();
            w.write_batch(&values, Some(&levels), None)?;
        }
        ColumnWriter::Int64ColumnWriter(w) => {
            let values: Vec<i64> = cells.filter_map(|c| if let Cell::Int(n) = c { Some(*n) } else { None }).collect();
            w.write_batch(&values, Some(&levels), None)?;
        }
        ColumnWriter::DoubleColumnWriter(w) => {
            let values: Vec<f64> = cells.filter_map(|c| if let Cell::Float(x) = c { Some(*x) } else { None }).collect();
            w.write_batch(&values, Some(&levels), None)?;
        }
        ColumnWriter::BoolColumnWriter(w) => {
            let values: Vec<bool> = cells.filter_map(|c| if let Cell::Bool(b) = c { Some(*b) } else { None }).collect();
            w.write_batch(&values, Some(&levels), None)?;
        }
        _ => return Err(parquet::errors::ParquetError::General("a column type the report does not write".into())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    #[test]
    fn nulls_and_non_finite_numbers_are_written_as_documented() {
        let t = Table {
            name: "t",
            columns: vec![("a".into(), Kind::Text), ("x".into(), Kind::Float), ("b".into(), Kind::Bool), ("n".into(), Kind::Int)],
            rows: vec![
                vec![text("p,q"), Cell::Float(f64::INFINITY), Cell::Bool(true), Cell::Int(3)],
                vec![Cell::Null, Cell::Float(f64::NAN), Cell::Null, Cell::Null],
                vec![text("r"), Cell::Float(1.0), Cell::Bool(false), Cell::Int(-1)],
                vec![text("s"), Cell::Float(4.5e21), Cell::Null, Cell::Null],
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("t.csv");
        write_csv(&t, &csv).unwrap();
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), "a,x,b,n\n\"p,q\",inf,true,3\n,NaN,,\nr,1.0,false,-1\ns,4.5e21,,\n");
        let pq = dir.path().join("t.parquet");
        write_parquet(&t, &pq).unwrap();
        // Read back with the crate's own reader (pandas and DuckDB read it in tests/python/test_report.py).
        let reader = SerializedFileReader::new(File::open(&pq).unwrap()).unwrap();
        let rows: Vec<String> = reader.get_row_iter(None).unwrap().map(|r| r.unwrap().to_string()).collect();
        assert_eq!(
            rows,
            [
                "{a: \"p,q\", x: inf, b: true, n: 3}",
                "{a: null, x: NaN, b: null, n: null}",
                "{a: \"r\", x: 1.0, b: false, n: -1}",
                "{a: \"s\", x: 4.5E21, b: null, n: null}"
            ]
        );
    }
}
