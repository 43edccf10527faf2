//! The schema, as an ordered list of migrations. Never edit a migration that has shipped:
//! append a new one. `PRAGMA user_version` holds the number applied.

/// The schema version this kmut writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: runs, substrates, mutants, compilation outcomes and classes.
    r"
    CREATE TABLE runs (
        id            INTEGER PRIMARY KEY,
        command       TEXT NOT NULL,
        kmut_version  TEXT NOT NULL,
        host          TEXT NOT NULL,
        nvrtc_version TEXT NOT NULL,
        options       TEXT NOT NULL,
        started_at    TEXT NOT NULL,
        finished_at   TEXT,
        status        TEXT NOT NULL
    );
    CREATE TABLE substrates (
        name        TEXT PRIMARY KEY,
        path        TEXT NOT NULL,
        level       INTEGER NOT NULL,
        cuda        TEXT NOT NULL,
        cuda_hash   TEXT NOT NULL,
        description TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    );
    CREATE TABLE mutants (
        id        TEXT PRIMARY KEY,
        substrate TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        rule      TEXT NOT NULL,
        family    TEXT NOT NULL,
        kernel    TEXT NOT NULL,
        layer     INTEGER,
        depth     REAL NOT NULL,
        line      INTEGER NOT NULL,
        kind      TEXT NOT NULL,
        body      TEXT NOT NULL
    );
    CREATE INDEX mutants_by_substrate ON mutants(substrate);
    CREATE TABLE originals (
        substrate   TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        target      TEXT NOT NULL,
        scope       TEXT NOT NULL,
        source_hash TEXT NOT NULL,
        image_hash  TEXT,
        log         TEXT NOT NULL,
        compile_ms  REAL NOT NULL,
        run         INTEGER REFERENCES runs(id),
        PRIMARY KEY (substrate, target, scope)
    );
    CREATE TABLE compilations (
        mutant      TEXT NOT NULL REFERENCES mutants(id) ON DELETE CASCADE,
        target      TEXT NOT NULL,
        scope       TEXT NOT NULL,
        source_hash TEXT NOT NULL,
        image_hash  TEXT,
        log         TEXT NOT NULL,
        compile_ms  REAL NOT NULL,
        cached      INTEGER NOT NULL,
        run         INTEGER REFERENCES runs(id),
        PRIMARY KEY (mutant, target)
    );
    CREATE TABLE classes (
        mutant       TEXT NOT NULL REFERENCES mutants(id) ON DELETE CASCADE,
        target       TEXT NOT NULL,
        class        TEXT NOT NULL CHECK (class IN ('stillborn', 'equivalent', 'duplicate', 'live')),
        duplicate_of TEXT,
        PRIMARY KEY (mutant, target)
    );
    ",
    // 2: the execution engine: one row per (mutant, input) evaluation and per (substrate, input)
    // run of the original. `tau` is KernelBench's smallest passing tolerance, so any protocol
    // tolerance is scored from it without running again.
    r"
    CREATE TABLE evaluations (
        mutant          TEXT NOT NULL REFERENCES mutants(id) ON DELETE CASCADE,
        target          TEXT NOT NULL,
        suite           TEXT NOT NULL,
        seed            INTEGER NOT NULL,
        image           TEXT NOT NULL,
        backend         TEXT NOT NULL,
        outcome         TEXT NOT NULL CHECK (outcome IN ('completed', 'crash', 'timeout')),
        crash           TEXT,
        detail          TEXT,
        tau             REAL,
        max_abs         REAL,
        max_rel         REAL,
        nonfinite       INTEGER NOT NULL DEFAULT 0,
        shape_ok        INTEGER NOT NULL DEFAULT 1,
        canary          INTEGER NOT NULL DEFAULT 0,
        inputs_restored INTEGER NOT NULL DEFAULT 0,
        kernel_ms       REAL,
        wall_ms         REAL NOT NULL,
        run             INTEGER REFERENCES runs(id),
        PRIMARY KEY (mutant, target, suite, seed)
    );
    CREATE TABLE baselines (
        substrate TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        target    TEXT NOT NULL,
        suite     TEXT NOT NULL,
        seed      INTEGER NOT NULL,
        backend   TEXT NOT NULL,
        sizes     TEXT NOT NULL,
        tau       REAL,
        max_abs   REAL,
        kernel_ms REAL,
        prep_s    REAL,
        run       INTEGER REFERENCES runs(id),
        PRIMARY KEY (substrate, target, suite, seed)
    );
    ",
    // 3: the CPU backend runs racy-on-CPU mutants in several thread orders; `orders` holds each
    // order's tau* as JSON `[[order, tau], ...]` (null: that order crashed or gave NaN).
    r"
    ALTER TABLE evaluations ADD COLUMN orders TEXT;
    ",
    // 4: nothing is deleted behind the user's back, and no stale result is scored.
    // `stale`: the mutant is no longer generated from its substrate's current source (an edit
    // moved or removed its site); it keeps its results until `kmut store prune`.
    // `baselines.image`: the original image the column was measured with, so a baseline of an
    // earlier original is not taken for the current one. `peak_bytes`: the column's measured
    // device-memory footprint (inputs, reference, one run of the original), which budgets GPU
    // memory across workers.
    r"
    ALTER TABLE mutants ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE baselines ADD COLUMN image TEXT;
    ALTER TABLE baselines ADD COLUMN peak_bytes INTEGER;
    ",
    // 5: the witness search's validity gate, per generated column: `valid` (1: the original
    // kernel and the fp32 reference both within the margin of the fp64 reference; NULL: not
    // checked, as for a substrate's own suites), and the two distances to fp64.
    r"
    ALTER TABLE baselines ADD COLUMN valid INTEGER;
    ALTER TABLE baselines ADD COLUMN tau64_ref REAL;
    ALTER TABLE baselines ADD COLUMN tau64_orig REAL;
    ",
    // 6: the legitimate-variance ceiling (`kmut ceiling`): per (substrate, generator, sizes),
    // every probed scale and seed with its validity verdict and distances to fp64
    // (`ceiling_points`), and the search's result (`ceilings`): the largest scale at which every
    // seed stayed valid and the smallest at which one did not, each NULL where the search never
    // found one. `image` is the original measured: points of an earlier original are not reused.
    r"
    CREATE TABLE ceiling_points (
        substrate  TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        target     TEXT NOT NULL,
        generator  TEXT NOT NULL,
        sizes      TEXT NOT NULL,
        scale      REAL NOT NULL,
        seed       INTEGER NOT NULL,
        image      TEXT NOT NULL,
        backend    TEXT NOT NULL,
        valid      INTEGER NOT NULL,
        tau64_ref  REAL,
        tau64_orig REAL,
        run        INTEGER REFERENCES runs(id),
        PRIMARY KEY (substrate, target, generator, sizes, scale, seed)
    );
    CREATE TABLE ceilings (
        substrate     TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        target        TEXT NOT NULL,
        generator     TEXT NOT NULL,
        sizes         TEXT NOT NULL,
        image         TEXT NOT NULL,
        backend       TEXT NOT NULL,
        lowest        REAL NOT NULL,
        highest       REAL NOT NULL,
        ceiling       REAL,
        first_invalid REAL,
        run           INTEGER REFERENCES runs(id),
        PRIMARY KEY (substrate, target, generator, sizes)
    );
    ",
    // 7: the depth analysis's per-step capture (`kmut depth`, docs/depth.md). `step_layouts`:
    // per column of a pipeline, each step's kernel, layer kind and the earlier steps it reads
    // (JSON lists), and where the original's step outputs were kept (`device`, or `host` when
    // they did not fit). `step_errors`: per evaluation and step, the mutant's step output against
    // the original's: tau*, the relative L2 error and the fraction of elements off by more than
    // the substrate's tolerance. Rows belong to their evaluation and go with it.
    r"
    CREATE TABLE step_layouts (
        substrate TEXT NOT NULL REFERENCES substrates(name) ON DELETE CASCADE,
        target    TEXT NOT NULL,
        suite     TEXT NOT NULL,
        seed      INTEGER NOT NULL,
        kernels   TEXT NOT NULL,
        kinds     TEXT NOT NULL,
        reads     TEXT NOT NULL,
        keep      TEXT NOT NULL CHECK (keep IN ('device', 'host')),
        run       INTEGER REFERENCES runs(id),
        PRIMARY KEY (substrate, target, suite, seed)
    );
    CREATE TABLE step_errors (
        mutant   TEXT NOT NULL,
        target   TEXT NOT NULL,
        suite    TEXT NOT NULL,
        seed     INTEGER NOT NULL,
        step     INTEGER NOT NULL,
        tau      REAL,
        rel_l2   REAL,
        frac_off REAL,
        PRIMARY KEY (mutant, target, suite, seed, step),
        FOREIGN KEY (mutant, target, suite, seed) REFERENCES evaluations(mutant, target, suite, seed) ON DELETE CASCADE
    ) WITHOUT ROWID;
    ",
];
