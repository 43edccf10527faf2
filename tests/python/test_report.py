"""`kmut report` end to end on a real CPU-backend store (the witness demo: compiled with every
rule, a witness search over three rules, the rest of the live mutants left not run): the HTML
folder in headless Chromium (no console message, no network request, the filters work), the JSON
against the vendored Stryker schema, and the tables read back by pandas and DuckDB."""

from __future__ import annotations

import base64
import fcntl
import html.parser
import json
import os
import re
import select
import shutil
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from .conftest import REPORTS, ROOT, kmut_command

DEMO = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
PIPELINE = ROOT / "tests" / "fixtures" / "L3p1_depth_demo.py"
SCHEMA = ROOT / "crates" / "kmut-report" / "schema" / "mutation-testing-report-schema.json"
ARTIFACTS = ROOT / "target" / "test-artifacts" / "report"
RULES = ["--rules", "arith-*", "--rules", "launch-cdiv-floor", "--rules", "semantic-float-gt-to-ge"]


def kmut(*args, timeout=900):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=timeout, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    store, cache = str(tmp / "s.sqlite"), str(tmp / "cache")
    kmut("compile", str(DEMO), "--store", store, "--cache", cache)
    kmut("witness", str(DEMO), "--backend", "cpu", "--store", store, "--cache", cache, "--cpu-workers", "2", *RULES)
    out = kmut("report", "--store", store, "--out", str(tmp / "rep"), "--open", "--scope", "all", timeout=300)
    return tmp / "s.sqlite", tmp / "rep", out


def rows(store, sql, *args):
    with sqlite3.connect(store) as db:
        return db.execute(sql, args).fetchall()


def score(store, protocol):
    out = kmut("score", "--store", str(store), "--json", "--backend", "cpu", "--protocol", protocol, timeout=120)
    return json.loads(out.stdout)


def test_the_folder_holds_every_page_report_and_table_and_the_summary_says_so(report):
    store, rep, out = report
    assert (rep / ".kmut-report").is_file()
    for p in ["index.html", "substrates/L1p19_witness_demo.html", "json/mutation-testing-report.official.json", "json/mutation-testing-report.head.json"]:
        assert (rep / p).is_file(), p
    for t in ["mutants", "kill_matrix", "columns"]:
        assert (rep / "tables" / f"{t}.csv").is_file() and (rep / "tables" / f"{t}.parquet").is_file(), t
    line = out.stdout.splitlines()[0]
    assert line.startswith("report: 1 substrates, 32 mutants; official miss rate "), line
    assert "2 pages, 2 JSON reports, 6 tables" in line and line.endswith("; not measured yet: Depth and propagation"), line
    assert out.stdout.splitlines()[1] == f"open file://{(rep / 'index.html').resolve()}"
    index = (rep / "index.html").read_text()
    assert index.count('class="not-measured"') == 1, "only the depth section (no pipeline substrate in the demo) is not measured"
    assert "no pipeline substrate" in section(rep, "depth") and "`kmut run`" in section(rep, "depth")


def test_a_folder_that_is_not_a_report_is_never_overwritten(report, tmp_path):
    store, _, _ = report
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    out = subprocess.run([*kmut_command(), "report", "--store", str(store), "--out", str(mine)], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 2 and "is not a kmut report" in out.stderr, out.stderr
    assert (mine / "notes.txt").read_text() == "keep me" and sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_by_default_only_the_mutants_run_are_listed_and_every_count_stays(report, tmp_path):
    store, full, _ = report
    out = kmut("report", "--store", str(store), "--out", str(tmp_path / "run"), timeout=300)
    run = {m for (m,) in rows(store, "SELECT DISTINCT mutant FROM evaluations")}
    assert 0 < len(run) < 32, "the fixture leaves some live mutants not run"
    line = out.stdout.splitlines()[0]
    assert line.startswith(f"report: 1 substrates, 32 mutants ({len(run)} run and listed; --scope all lists every one); "), line
    assert set(page_mutants(tmp_path / "run")) == run
    page = (tmp_path / "run" / "substrates" / "L1p19_witness_demo.html").read_text()
    assert f"{32 - len(run)} mutants never run are counted above but not listed below" in page
    # The class counts and the scores are the full report's.
    counts = re.compile(r"<li>mutants: [^<]*</li>")
    assert counts.findall(page) == counts.findall((full / "substrates" / "L1p19_witness_demo.html").read_text())
    for protocol in ["official", "head"]:
        r = json.loads((tmp_path / "run" / "json" / f"mutation-testing-report.{protocol}.json").read_text())
        listed = [m for f in r["files"].values() for m in f["mutants"]]
        assert len(listed) == len(run) and all(m["status"] != "NoCoverage" for m in listed)
    import pandas as pd

    assert set(pd.read_csv(tmp_path / "run" / "tables" / "mutants.csv")["mutant"]) == run


class Mutants(html.parser.HTMLParser):
    """The mutant groups of a substrate page: id -> data-* attributes."""

    def __init__(self):
        super().__init__()
        self.found: dict[str, dict[str, str]] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tbody" and a.get("class") == "mutant":
            self.found[a["id"].removeprefix("m-")] = a


def page_mutants(rep):
    p = Mutants()
    p.feed((rep / "substrates" / "L1p19_witness_demo.html").read_text())
    return p.found


def test_the_substrate_page_lists_every_mutant_with_the_verdicts_of_the_score(report):
    store, rep, _ = report
    found = page_mutants(rep)
    ids = {i for (i,) in rows(store, "SELECT id FROM mutants WHERE stale = 0")}
    assert set(found) == ids and len(ids) == 32
    for k, protocol in enumerate(["official", "head"]):
        o = score(store, protocol)["overall"]
        words = Counter(a[f"data-v{k}"] for a in found.values())
        assert words["survived"] == o["survived"] and words["killed"] + words["crashed"] == o["killed"], (protocol, words, o)
        assert (words["not-run"], words["possibly-equivalent"], words["undecided"]) == (o["not_run"], o["possibly_equivalent"], o["undecided"])
        assert words["duplicate"] == score(store, protocol)["classes"]["duplicate"]
    assert {a["data-family"] for a in found.values()} == {f for (f,) in rows(store, "SELECT DISTINCT family FROM mutants")}


def test_the_json_is_valid_against_the_vendored_schema_and_maps_every_verdict(report):
    import jsonschema

    store, rep, _ = report
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema)
    for protocol in ["official", "head"]:
        r = json.loads((rep / "json" / f"mutation-testing-report.{protocol}.json").read_text())
        validator.validate(r)
        mutants = [m for f in r["files"].values() for m in f["mutants"]]
        assert len(mutants) == 32 and set(r["files"]) == {"L1p19_witness_demo.cu", "L1p19_witness_demo.launch"}
        s = score(store, protocol)
        o = s["overall"]
        status = Counter(m["status"] for m in mutants)
        assert status["Survived"] == o["survived"] and status["Killed"] + status["RuntimeError"] + status["Timeout"] == o["killed"]
        assert status["NoCoverage"] == o["not_run"] and status["Pending"] == o["undecided"]
        assert status["Ignored"] == o["possibly_equivalent"] + s["classes"]["duplicate"] + s["classes"]["equivalent"]
        assert r["config"]["kmut"]["score"]["overall"]["miss"] == o["miss"]
        # The survivor the protocol misses is witnessed by a boundary size, said in both places.
        floor = next(m for m in mutants if m["mutatorName"] == "launch-cdiv-floor")
        assert floor["status"] == "Survived" and floor["kmut"]["witness"]["suite"].startswith("W:boundary:"), floor["kmut"]["witness"]
        assert "W:boundary:" in floor["statusReason"] and floor["killedBy"] == [], "the protocol's own inputs do not kill it"
        # Source mutants point at exactly the text they replace in the CUDA source.
        cuda = r["files"]["L1p19_witness_demo.cu"]
        lines = cuda["source"].split("\n")

        def offset(p):
            return sum(len(line) + 1 for line in lines[:p["line"] - 1]) + p["column"] - 1

        for m in cuda["mutants"]:
            start, end = offset(m["location"]["start"]), offset(m["location"]["end"])
            assert cuda["source"][start:end] == m["kmut"]["original"], m["id"]
    # The validator rejects what the schema does not admit (so a pass above means something).
    r["files"]["L1p19_witness_demo.cu"]["mutants"][0]["status"] = "Exploded"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(r)


def test_the_tables_read_back_in_pandas_and_duckdb_with_the_stores_cells(report):
    import duckdb
    import pandas as pd

    store, rep, _ = report
    t = rep / "tables"
    # Nullable dtypes, so a null reads the same from both files (no NaN-for-None in bool columns).
    csv = pd.read_csv(t / "kill_matrix.csv", dtype_backend="numpy_nullable")
    pq = pd.read_parquet(t / "kill_matrix.parquet", dtype_backend="numpy_nullable")
    assert len(csv) == len(pq) == rows(store, "SELECT count(*) FROM evaluations")[0][0] > 20
    assert list(csv.columns) == list(pq.columns)
    pd.testing.assert_frame_equal(csv.sort_values(["mutant", "suite", "seed"]).reset_index(drop=True),
                                  pq.sort_values(["mutant", "suite", "seed"]).reset_index(drop=True), check_dtype=False)
    assert (str(pq["tau"].dtype), str(pq["seed"].dtype), str(pq["fails_official"].dtype), str(pq["valid"].dtype)) == ("Float64", "Int64", "boolean", "boolean")
    kills = rows(store, "SELECT count(*) FROM evaluations WHERE outcome != 'completed' OR shape_ok = 0 OR tau IS NULL OR tau > 1e-2")[0][0]
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM '{t / 'kill_matrix.parquet'}' WHERE fails_official").fetchone()[0] == kills
    assert con.execute(f"SELECT count(*) FROM read_csv_auto('{t / 'kill_matrix.csv'}') WHERE fails_official").fetchone()[0] == kills
    m = pd.read_parquet(t / "mutants.parquet")
    assert len(m) == 32 and m["mutant"].is_unique
    o = score(store, "official")["overall"]
    assert (m["verdict_official"] == "survived").sum() == o["survived"] and (m["verdict_official"] == "not-run").sum() == o["not_run"]
    assert m["verdict_official"].isna().sum() == 32 - o["live"], "mutants that are not live have no verdict"
    floor = m[m["rule"] == "launch-cdiv-floor"].iloc[0]
    assert floor["witness_suite_official"].startswith("W:boundary:") and floor["witness_seed_official"] in (1, 2)
    cols = pd.read_parquet(t / "columns.parquet")
    assert len(cols) == rows(store, "SELECT count(*) FROM baselines")[0][0]
    assert cols[cols["generated"]]["valid"].notna().all() and cols[~cols["generated"]]["valid"].isna().all()


def test_docs_store_md_documents_every_column_of_every_table(report):
    _, rep, _ = report
    doc = (ROOT / "docs" / "store.md").read_text()
    for t in ["mutants", "kill_matrix", "columns"]:
        header = (rep / "tables" / f"{t}.csv").read_text().splitlines()[0].split(",")
        for col in header:
            generic = col.replace("_official", "_<protocol>").replace("_head", "_<protocol>")
            assert f"`{generic}`" in doc, f"docs/store.md does not document `{generic}` of the {t} table"


# --- headless Chromium, through the DevTools protocol on a pipe --------------------------------


def chromium() -> str | None:
    for name in [os.environ.get("KMUT_CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """Headless Chromium driven over `--remote-debugging-pipe` (NUL-separated JSON on fds 3/4)."""

    def __init__(self, exe: str, profile: Path):
        to_child, self._out = os.pipe()
        self._in, from_child = os.pipe()

        def fds():
            # Out of the way first, so neither lands on the other's target number.
            a, b = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # close_fds=False: the descriptors dup2 made must survive into Chromium (the pipes' own
        # descriptors are not inheritable and close on exec).
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
             "--disable-extensions", "--window-size=1280,2000", "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "Chromium did not answer in time"
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                assert chunk, "Chromium closed its pipe"
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, session: str | None = None, timeout: float = 60, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                assert "error" not in m, m
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except AssertionError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def open_page(b: Browser, url: str) -> tuple[str, list[dict]]:
    """Load `url` in a fresh tab; returns its session and every network request, console
    message, exception and log entry the page produced."""
    target = b.call("Target.createTarget", url="about:blank")["targetId"]
    session = b.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ["Network", "Runtime", "Log", "Page"]:
        b.call(f"{domain}.enable", session)
    b.events.clear()
    b.call("Page.navigate", session, url=url)
    b.wait_for("Page.loadEventFired")
    b.call("Runtime.evaluate", session, expression="1")  # let queued events arrive
    return session, list(b.events)


def complaints(root: str, events: list[dict]) -> list[str]:
    """Requests for anything but the page's own files, console messages, exceptions, log errors."""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent" and not p["request"]["url"].startswith("file://"):
            out.append(f"network request {p['request']['url']}")
        elif m == "Network.requestWillBeSent" and not p["request"]["url"].startswith(root + "/"):
            out.append(f"a file outside the report: {p['request']['url']}")
        elif m == "Runtime.consoleAPICalled":
            out.append(f"console.{p['type']}: {p['args']}")
        elif m == "Runtime.exceptionThrown":
            out.append(f"exception: {p['exceptionDetails']}")
        elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            out.append(f"log {p['entry']['level']}: {p['entry']['text']}")
        elif m == "Network.loadingFailed":
            out.append(f"failed to load: {p.get('errorText')}")
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = chromium()
    if exe is None:
        pytest.skip("headless Chromium is not installed (scripts/test installs Debian's `chromium` where apt-get can); "
                    "the HTML report was not rendered in a browser")
    b = Browser(exe, tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


def test_every_page_renders_in_headless_chromium_with_no_console_message_and_no_network(report, browser):
    _, rep, _ = report
    pages = [rep / "index.html", *sorted((rep / "substrates").glob("*.html"))]
    for page in pages:
        url = page.resolve().as_uri()
        session, events = open_page(browser, url)
        assert complaints(rep.resolve().as_uri(), events) == [], page
        if page.name == "index.html":
            svgs = browser.call("Runtime.evaluate", session, expression="document.querySelectorAll('figure.chart svg').length")["result"]["value"]
            assert svgs == 3, "the level and family charts and the budget curve are drawn"
            shot = browser.call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)["data"]
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / "overview.png").write_bytes(base64.b64decode(shot))
            REPORTS.append(f"screenshot of the report's overview: {ARTIFACTS / 'overview.png'}")


def test_the_filters_show_exactly_the_mutants_of_a_family_and_verdict(report, browser):
    _, rep, _ = report
    found = page_mutants(rep)
    session, _ = open_page(browser, (rep / "substrates" / "L1p19_witness_demo.html").resolve().as_uri())

    def shown(protocol: int, verdict: str, family: str) -> tuple[str, list[str]]:
        js = f"""(function () {{
            var set = function (id, v) {{ var s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change')); }};
            set('f-protocol', '{protocol}'); set('f-verdict', '{verdict}'); set('f-family', '{family}');
            var ids = Array.prototype.filter.call(document.querySelectorAll('tbody.mutant'), function (g) {{ return !g.hidden; }})
                .map(function (g) {{ return g.id.slice(2); }});
            return JSON.stringify([document.getElementById('shown').textContent, ids]);
        }})()"""
        return tuple(json.loads(browser.call("Runtime.evaluate", session, expression=js)["result"]["value"]))

    for protocol, verdict, family in [(0, "survived", ""), (0, "", "arithmetic"), (1, "killed", "arithmetic"), (0, "not-run", "indexing"), (0, "", "")]:
        text, ids = shown(protocol, verdict, family)
        want = {i for i, a in found.items() if (not verdict or a[f"data-v{protocol}"] == verdict) and (not family or a["data-family"] == family)}
        assert set(ids) == want and text == f"{len(want)} of 32 mutants shown", (protocol, verdict, family, text)


def section(rep, name):
    """The HTML inside the overview's `<section id=name>`."""
    text = (rep / "index.html").read_text()
    start = text.index(f'<section id="{name}">')
    return text[start:text.index("</section>", start)]


class TableRows(html.parser.HTMLParser):
    """The body rows of the `<table>` whose class list holds `cls`, as lists of cell texts."""

    def __init__(self, cls):
        super().__init__(convert_charrefs=True)
        self.cls, self.inside, self.row, self.cell, self.rows = cls, False, None, None, []

    def handle_starttag(self, tag, attrs):
        if tag == "table" and self.cls in (dict(attrs).get("class") or "").split():
            self.inside = True
        elif self.inside and tag == "tr":
            self.row = []
        elif self.inside and tag == "td" and self.row is not None:
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag == "td" and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr":
            if self.row:
                self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.inside = False


def table_rows(fragment, cls):
    p = TableRows(cls)
    p.feed(fragment)
    return p.rows


def text_of(fragment):
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def synth_rate(r):
    """A `kmut_synth` rate as the report (and `kmut synth`) prints it."""
    if r["rate"] is None:
        return "no witnessed mutant"
    p, u, (lo, hi) = 100 * r["rate"], 100 * r["upper"], r["interval"]
    if r["detected"]["known"] == r["detected"]["possible"]:
        return f"{p:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{p:.1f} to {u:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def synth_cv(c):
    """A cross-validated held-out rate as the report (and `kmut synth`) prints it."""
    d = c["pooled"]
    k, q = 100 * d["known"] / d["total"], 100 * d["possible"] / d["total"]
    text = f"{k:.1f}%" if d["known"] == d["possible"] else f"{k:.1f} to {q:.1f}%"
    folds = [f for f in c["folds"] if f is not None]
    return text + (f" (folds {100 * min(folds):.1f} to {100 * max(folds):.1f})" if folds else "")


def test_the_synthesis_section_shows_kmut_synths_budget_curve_as_a_table_and_a_plot(report):
    store, rep, _ = report
    s = json.loads(kmut("synth", "--store", str(store), "--backend", "cpu", "--json", timeout=300).stdout)
    assert s["totals"]["witnessed"] > 0 and s["budgets"] == [1, 2, 3, 4, 5, 6]
    sec = section(rep, "synthesis")
    assert 'class="not-measured"' not in sec and sec.count("<svg") == 1
    got = table_rows(sec, "budget-curve")
    want = [["official trials", synth_rate(s["official_full"]), synth_rate(s["official_held_out"])]]
    want += [[str(p["budget"]), synth_rate(p["full"]), synth_rate(p["held_out"])] for p in s["curve"]]
    assert [[r[0], r[1], r[3]] for r in got] == want
    assert [r[2] for r in got][1:] == [f"{p['full']['detected']['known']} / {p['full']['detected']['total']}" for p in s["curve"]]
    # The cross-validated column: five salted splits read both ways, each mutant held out once per split.
    assert s["splits"] == 5 and [c["budget"] for c in s["cross_validated"]] == s["budgets"]
    assert all(c["pooled"]["total"] == 5 * s["totals"]["witnessed"] and len(c["folds"]) == 10 for c in s["cross_validated"])
    assert [r[4] for r in got] == [""] + [synth_cv(c) for c in s["cross_validated"]]
    off = json.loads(kmut("synth", "--store", str(store), "--backend", "cpu", "--splits", "0", "--json", timeout=300).stdout)
    assert off["splits"] == 0 and off["cross_validated"] == [] and off["curve"] == s["curve"], "--splits 0 leaves the rest as it was"
    # The demo's witness search is first-kill: missing cells, said so in the section.
    assert s["totals"]["missing_cells"] > 0 and s["warnings"]
    for w in s["warnings"]:
        assert f"Warning: {w}" in text_of(sec), w


def audit_rate(r):
    if r["exact"]:
        return f"{100 * r['rate']:.1f}%"
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"


def test_the_audit_section_is_kmut_audit_no_run_of_the_reports_protocols(report, tmp_path):
    store, rep, _ = report
    a = json.loads(kmut("audit", "official", "head", "--no-run", "--backend", "cpu", "--store", str(store), "--json", timeout=300).stdout)
    assert a["population"]["unified"] > 0
    sec = section(rep, "audit")
    assert 'class="not-measured"' not in sec
    got = table_rows(sec, "audit-rates")
    want = [
        [r["protocol"], r["comparison"], f"{r['overall']['detected']} / {r['overall']['mutants']}", audit_rate(r["overall"]),
         f"{r['false_kill_columns']} / {r['false_kill_problems']}", str(r["dropped_columns"]),
         f"{r['blind_mutants']} / {r['blind_problems']}"]
        for r in a["rates"]
    ]
    assert got == want
    assert f"the {a['population']['unified']} mutants of 1 substrates" in text_of(sec)
    for w in a["warnings"]:
        assert f"Warning: {w}" in text_of(sec), w
    # With one protocol there is nothing to compare: not measured, and it says what to pass.
    kmut("report", "--store", str(store), "--out", str(tmp_path / "one"), "--protocol", "official", timeout=300)
    one = section(tmp_path / "one", "audit")
    assert 'class="not-measured"' in one and "pass `--protocol` twice or more" in one


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """The depth demo (a four-step network) run on the CPU backend with every step's error, and
    reported beside robust-kbench, whose inputs were never run there."""
    tmp = tmp_path_factory.mktemp("pipeline")
    store = tmp / "d.sqlite"
    kmut("run", str(PIPELINE), "--backend", "cpu", "--full-matrix", "--rules", "semantic-constant-scale-10pct", "--rules", "arith-negate-store",
         "--rules", "launch-*", "--store", str(store), "--cache", str(tmp / "cache"), "--cpu-workers", "2")
    out = kmut("report", "--store", str(store), "--out", str(tmp / "rep"), "--protocol", "official", "--protocol", "robust-kbench", timeout=300)
    return store, tmp / "rep", out


def test_the_depth_section_shows_kmut_depths_quartiles_and_propagation_curve(pipeline):
    store, rep, out = pipeline
    d = json.loads(kmut("depth", "--store", str(store), "--backend", "cpu", "--json", timeout=300).stdout)
    sec = section(rep, "depth")
    assert 'class="not-measured"' not in sec and sec.count("<svg") == 1
    quartiles = table_rows(sec, "depth-quartiles")
    assert [r[:5] for r in quartiles] == [[g["name"], str(g["live"]), str(g["evaluated"]), str(g["survived"]), str(g["undecided"])] for g in d["quartiles"]]
    assert sum(g["live"] for g in d["quartiles"]) > 0 and [r[0] for r in quartiles] == ["Q1", "Q2", "Q3", "Q4"]
    curve = table_rows(sec, "depth-propagation")
    assert d["curves_from"] > 0 and [int(r[0]) for r in curve] == [p["distance"] for p in d["propagation"]]
    assert [int(r[1]) for r in curve] == [p["n"] for p in d["propagation"]]
    assert [r[0] for r in table_rows(sec, "depth-gains")] == [k["kind"] for k in d["by_kind"]]
    assert f"{d['masking']['masked']} of {d['masking']['with_steps']} survivors" in text_of(sec)


def test_the_audit_is_not_measured_while_only_one_protocol_has_cells_and_says_what_to_run(pipeline):
    _, rep, out = pipeline
    assert out.stdout.splitlines()[0].endswith("; not measured yet: Protocol audit"), out.stdout
    sec = section(rep, "audit")
    assert 'class="not-measured"' in sec and "audit-rates" not in sec
    assert "No witnessed mutant is decided under every protocol" in text_of(sec) and "run `kmut audit official robust-kbench`" in text_of(sec)
