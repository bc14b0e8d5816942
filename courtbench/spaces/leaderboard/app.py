"""courtbench leaderboard: verified results of the benchmarks courtbench hosts (Gradio Space).

Records come from the results dataset repository named in ``results_repo.txt`` (or the
``RESULTS_REPO`` variable), or from a local folder given as ``RESULTS_DIR`` (tests, previews).
At every load each record is recomputed: ``record_check.Checker`` — the check ``courtbench
leaderboard check`` runs — recomputes every metric, interval, breakdown, per-item value and
paired test from the record's predictions against the gold values the results dataset holds
for its data (``gold/``, pinned in its card), with the benchmark's verifier
(``verifier_<benchmark>.py`` beside this file). A record whose numbers do not come out the
same, or that cannot be read, is not shown: it is listed under "Refused files" with the
field and both values; no record can stop the page. "Reload results" reads the results again
(a new download of the repository), recomputes only files that changed and says what changed.

Per benchmark the page has a ranked table (rank, ↑/↓ per metric, search, column chooser,
numeric sorting better-first, model links from the record, dates) of the records scored with
the protocol's options, below it a separate, labelled table "Unofficial: non-protocol options
or incomplete runs" (records submitted with ``--unofficial``, each with what differs), the
grid of a two-dimensional breakdown (axis names from ``grid_axes`` of this folder's
README.md), and a paired bootstrap verdict for two different systems scored on the same data.
Numbers a model would be needed to recompute (an LLM judge) are marked "as submitted". Tabs
"Submit" and "About" say how rows get here and what the protocol is. The page names no
benchmark: columns, grids and directions all come from the records (axis names from the
README).
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import os
import re
import sys
import threading
from pathlib import Path

import gradio as gr
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling validator, also when imported as a package module

from record_check import Checker  # noqa: E402
from results_schema import paired_bootstrap, primary_metric  # noqa: E402

#: Longest wait for the results repository's download (seconds).
DOWNLOAD_SECONDS = 120.0
IDENTITY = ["rank", "system", "family", "model", "link", "size (B)", "selection", "data", "date"]
ORDERS = ["better first", "worse first"]
UNOFFICIAL_LABEL = "Unofficial: non-protocol options or incomplete runs"
REASON_COLUMN = "why unofficial (what differs)"
FINGERPRINT_COLUMN = "data fingerprint"
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}$")
_URL = re.compile(r"^https://[A-Za-z0-9.\-]{1,253}(/[A-Za-z0-9._~/\-]{0,300})?$")
SUBMIT = """
## Submit a system

1. Build the benchmark's data and run your system to get a predictions file
   (`courtbench predict …` / `courtbench generate …`, or your own runner).
2. Score it: `courtbench evaluate BENCHMARK --data BUILT_DATA --predictions PREDS --out report/`.
3. Check what would be sent: `courtbench submit report/ --repo-id RESULTS_REPO --dry-run`.
4. Open the pull request: `courtbench submit report/ --repo-id RESULTS_REPO
   [--system NAME] [--family NAME]`. `submit` re-scores the report from its predictions and
   refuses it when the data fingerprint, a prediction file's hash, the metric signature or any
   number differs. The record carries your predictions; this page recomputes every number from
   them at each load. Data the results dataset does not accept is refused; a report scored off
   the protocol's options, or an incomplete or fallback-filled run, is refused too unless
   `--unofficial` sends it to the benchmark's labelled "Unofficial" table (never ranked with
   the main table). A system may not use a reference baseline's name.
5. Once the pull request is merged into the results dataset, press **Reload results** here.

`courtbench leaderboard check RESULTS_DIR` runs the check this page runs on every record.
"""


def _within(seconds: float, call, *args, **kwargs):
    """``call(*args, **kwargs)`` abandoned after ``seconds`` (a Hub that never answers must
    not hold the page): TimeoutError then."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"no complete answer from the Hub within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def results_folder() -> Path:
    """The local folder of result files: ``RESULTS_DIR``, else a fresh download of the repo
    (within :data:`DOWNLOAD_SECONDS`)."""
    if os.environ.get("RESULTS_DIR"):
        return Path(os.environ["RESULTS_DIR"])
    repo = os.environ.get("RESULTS_REPO")
    if not repo and (HERE / "results_repo.txt").is_file():
        repo = (HERE / "results_repo.txt").read_text(encoding="utf-8").strip()
    if not repo:
        raise RuntimeError("no results: set RESULTS_DIR or RESULTS_REPO, or add results_repo.txt")
    from huggingface_hub import snapshot_download

    return Path(_within(DOWNLOAD_SECONDS, snapshot_download, repo, repo_type="dataset",
                        allow_patterns=["results/**", "gold/**", "README.md"], etag_timeout=20))


def card_metadata(folder: Path) -> dict:
    """The results folder card's YAML front matter (``{}`` when there is none or it cannot
    be read: every record is then refused for want of accepted data)."""
    from huggingface_hub import metadata_load

    card = Path(folder) / "README.md"
    try:
        metadata = metadata_load(card) if card.is_file() else None
    except Exception:  # noqa: BLE001 - an unreadable card declares nothing; the page starts
        return {}
    return metadata if isinstance(metadata, dict) else {}


def _load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verifiers() -> tuple[dict, list[list[str]]]:
    """``({benchmark: verifier module}, [[file, reason]] of verifiers that failed to load)``:
    the ``verifier_*.py`` files beside this app (a Space folder written by ``courtbench
    leaderboard space``). Without them no record can be recomputed, so none is shown."""
    found, failed = {}, []
    for path in sorted(HERE.glob("verifier_*.py")):
        try:
            module = _load_module(path)
            found[module.BENCHMARK] = module
        except Exception as error:  # noqa: BLE001 - the page starts; the failure is listed
            failed.append([path.name, f"verifier failed to load: {type(error).__name__}: "
                                      f"{str(error)[:300]}"])
    return found, failed


VERIFIERS, VERIFIER_PROBLEMS = verifiers()
CHECKER = Checker(VERIFIERS)


def load_records(folder: Path | None = None) -> tuple[list[dict], list[list[str]]]:
    """Records whose every number comes out the same when recomputed (reference baselines
    first) and ``[file, reason]`` per refused file; a folder that cannot be read at all is
    one refused line, never an exception."""
    try:
        folder = results_folder() if folder is None else folder
        records, refused = CHECKER.check_folder(folder, card_metadata(folder))
    except Exception as error:  # the page shows what went wrong instead of not starting
        return [], [["(results)", f"cannot read the results: {type(error).__name__}: "
                                  f"{str(error)[:300]}"]] + VERIFIER_PROBLEMS
    records.sort(key=lambda r: (not r["reference"], r["benchmark"], r["system"]))
    return records, [[name, reason] for name, reason in refused] + VERIFIER_PROBLEMS


def record_key(record: dict) -> str:
    """A record's identity on the page: benchmark and system."""
    return f"{record['benchmark']}/{record['system']}"


def _digest(record: dict) -> str:
    text = json.dumps(record, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def changes(old: list[dict], new: list[dict], old_refused: list, new_refused: list) -> dict:
    """What a reload changed: records ``added``, ``removed``, ``changed`` (same system, other
    content), files ``refused`` now and ``newly_refused`` (not refused before)."""
    before = {record_key(r): _digest(r) for r in old}
    after = {record_key(r): _digest(r) for r in new}
    refused_before = {row[0] for row in old_refused}
    return {"added": sorted(set(after) - set(before)),
            "removed": sorted(set(before) - set(after)),
            "changed": sorted(k for k in set(after) & set(before) if after[k] != before[k]),
            "refused": len(new_refused),
            "newly_refused": sorted(row[0] for row in new_refused
                                    if row[0] not in refused_before)}


def change_text(change: dict) -> str:
    """One line saying what a reload changed."""
    def listed(names):
        return (": " + ", ".join(names[:5]) + (" …" if len(names) > 5 else "")) if names else ""

    return (f"Reloaded: {len(change['added'])} record(s) added{listed(change['added'])}; "
            f"{len(change['removed'])} removed{listed(change['removed'])}; "
            f"{len(change['changed'])} changed{listed(change['changed'])}; "
            f"{change['refused']} file(s) refused ({len(change['newly_refused'])} newly"
            f"{listed(change['newly_refused'])}).")


def table_of(record: dict) -> str:
    """``main`` or ``unofficial``: where the page shows ``record``."""
    return record["leaderboard_table"]


def grid_axes() -> dict[str, tuple[str, str]]:
    """``{benchmark: (row axis, column axis)}`` from ``grid_axes:`` of README.md's front
    matter (lines ``  NAME: ROWS | COLUMNS``)."""
    readme = HERE / "README.md"
    axes, inside = {}, False
    lines = readme.read_text(encoding="utf-8").splitlines() if readme.is_file() else []
    for line in lines:
        if line.startswith("grid_axes:"):
            inside = True
        elif inside and line.startswith("  ") and ":" in line and "|" in line:
            name, _, value = line.strip().partition(":")
            rows, _, columns = value.partition("|")
            axes[name.strip()] = (rows.strip(), columns.strip())
        elif inside:
            inside = False
    return axes


def _is_flat(record: dict, table: str) -> bool:
    """A breakdown table with one column (views) becomes table columns; grids do not."""
    return len({b["column"] for b in record["breakdowns"] if b["table"] == table}) == 1


def _rounded(value: float | None) -> float | None:
    """Numbers as a person reads them: whole units from 100 up, else three decimals; always
    a float (a whole number beyond 64 bits never becomes a Python int the table refuses)."""
    if value is None:
        return None
    return float(round(value)) if abs(value) >= 100 else round(float(value), 3)


def _arrow(lower_is_better: bool) -> str:
    return "↓" if lower_is_better else "↑"


def model_link(name: str | None) -> str:
    """Markdown link of a model named by its Hub id (``org/name``) or an https URL; empty
    for anything else (record text never becomes markup)."""
    if not name:
        return ""
    if _HUB_ID.match(name):
        return f"[{name}](https://huggingface.co/{name})"
    if _URL.match(name):
        return f"[link]({name})"
    return ""


def _identity(record: dict) -> dict:
    return {"system": ("★ " if record["reference"] else "") + record["system"],
            "family": record["family"], "model": record["model_name"] or "",
            "link": model_link(record["model_name"]), "size (B)": record["model_size_b"],
            "selection": record["selection"] or "", "data": record["data_kind"],
            "date": record["date"]}


def metric_header(metric: dict) -> str:
    """``<name> ↓`` / ``<name> ↑``, with ``(as submitted)`` for a number the page cannot
    recompute (it needs a model)."""
    return (f"{metric['name']} {_arrow(metric['lower_is_better'])}"
            + (" (as submitted)" if metric["as_submitted"] is not None else ""))


def metric_columns(records: list[dict], benchmark: str) -> dict[str, bool]:
    """``{column header: lower_is_better}`` of every number column of ``benchmark``: metrics
    as ``<name> ↓`` / ``<name> ↑`` with ``… CI low`` / ``… CI high``, flat breakdowns."""
    columns = {}
    for record in (r for r in records if r["benchmark"] == benchmark):
        for metric in record["metrics"]:
            header = metric_header(metric)
            columns.setdefault(header, metric["lower_is_better"])
            if metric["ci_low"] is not None:
                columns.setdefault(f"{header} CI low", metric["lower_is_better"])
                columns.setdefault(f"{header} CI high", metric["lower_is_better"])
        lower = primary_metric(record)["lower_is_better"]
        for item in record["breakdowns"]:
            if _is_flat(record, item["table"]):
                columns.setdefault(f"{item['row']} {item['column']} {_arrow(lower)}", lower)
    return columns


def leaderboard_rows(records: list[dict], benchmark: str, table: str = "main") -> pd.DataFrame:
    """One row per system of ``benchmark`` shown in ``table`` (``main`` or ``unofficial``,
    see :func:`table_of`): identity, date, every metric with its interval bounds (numbers),
    flat breakdowns. Metric headers carry ↓ (lower is better) or ↑. Unofficial rows also
    say why they are unofficial and their data fingerprint (first 16 hex digits)."""
    rows = []
    for record in (r for r in records if r["benchmark"] == benchmark and table_of(r) == table):
        row = _identity(record)
        if table != "main":
            row[REASON_COLUMN] = record["unofficial_reason"] or ""
            row[FINGERPRINT_COLUMN] = record["data_fingerprint"][:16] + "…"
        lower = primary_metric(record)["lower_is_better"]
        for metric in record["metrics"]:
            header = metric_header(metric)
            row[header] = _rounded(metric["value"])
            if metric["ci_low"] is not None:
                row[f"{header} CI low"] = _rounded(metric["ci_low"])
                row[f"{header} CI high"] = _rounded(metric["ci_high"])
        for item in record["breakdowns"]:
            if _is_flat(record, item["table"]):
                row[f"{item['row']} {item['column']} {_arrow(lower)}"] = _rounded(item["value"])
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else IDENTITY[1:])


def _primary_header(records: list[dict], benchmark: str) -> str | None:
    record = next((r for r in records if r["benchmark"] == benchmark), None)
    if record is None:
        return None
    metric = primary_metric(record)
    return f"{metric['name']} {_arrow(metric['lower_is_better'])}"


def _filtered(frame: pd.DataFrame, search: str, families, data_kind: str, selection: str,
              max_size_b) -> pd.DataFrame:
    if search and search.strip():
        needle = search.strip().lower()
        text = frame["system"] + " " + frame["model"] + " " + frame["family"]
        frame = frame[text.str.lower().str.contains(needle, regex=False)]
    if families:
        frame = frame[frame["family"].isin(families)]
    if data_kind and data_kind != "all":
        frame = frame[frame["data"] == data_kind]
    if selection and selection != "all":
        frame = frame[frame["selection"] == selection]
    if max_size_b:
        frame = frame[frame["size (B)"].isna() | (frame["size (B)"] <= max_size_b)]
    return frame


def filtered_table(records: list[dict], benchmark: str, sort_by: str | None, order: str,
                   search: str, families: list[str] | None, data_kind: str, selection: str,
                   max_size_b: float | None, columns: list[str] | None = None) -> pd.DataFrame:
    """The ranked table after search and filters, sorted by ``sort_by`` (default: the primary
    metric) with ``order`` "better first" (each metric's own direction; text columns A→Z) or
    "worse first"; rank 1 is the first row. ``columns``: the columns to show (rank and system
    always)."""
    frame = leaderboard_rows(records, benchmark)
    if frame.empty:
        return frame.assign(rank=pd.Series(dtype="int64"))[["rank", *frame.columns]]
    frame = _filtered(frame, search, families, data_kind, selection, max_size_b)
    sort_by = sort_by or _primary_header(records, benchmark)
    if sort_by in frame.columns:
        lower = metric_columns(records, benchmark).get(sort_by, True)
        ascending = lower if order != "worse first" else not lower
        frame = frame.sort_values(sort_by, ascending=ascending, na_position="last",
                                  kind="stable")
    frame = frame.reset_index(drop=True)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    if columns:
        keep = ["rank", "system", *[c for c in frame.columns if c in columns
                                    and c not in ("rank", "system")]]
        frame = frame[keep]
    return frame


def unofficial_table(records: list[dict], benchmark: str) -> pd.DataFrame:
    """The unofficial rows (non-protocol options, incomplete runs) of ``benchmark``: not ranked, sorted
    by the primary metric (better first) then system; why each is unofficial comes first."""
    frame = leaderboard_rows(records, benchmark, "unofficial")
    if frame.empty:
        return pd.DataFrame(columns=["system", REASON_COLUMN, FINGERPRINT_COLUMN])
    primary = _primary_header(records, benchmark)
    if primary in frame.columns:
        lower = metric_columns(records, benchmark).get(primary, True)
        frame = frame.sort_values([primary, "system"], ascending=[lower, True],
                                  na_position="last", kind="stable")
    first = ["system", REASON_COLUMN, FINGERPRINT_COLUMN]
    return frame[first + [c for c in frame.columns if c not in first]].reset_index(drop=True)


def unofficial_view(records, benchmark):
    """The unofficial table component's new value and the line under it."""
    frame = unofficial_table(records, benchmark)
    note = (f"{len(frame)} system(s), not ranked with the table above." if len(frame) else
            "No unofficial records.")
    return gr.Dataframe(value=frame, datatype=_datatypes(frame)), note


def _datatypes(frame: pd.DataFrame) -> list[str]:
    return ["markdown" if column == "link" else
            "number" if pd.api.types.is_numeric_dtype(frame[column]) or column == "size (B)"
            else "str" for column in frame.columns]


def table_view(records, benchmark, sort_by, order, search, families, data_kind, selection,
               max_size_b, columns):
    """The table component's new value and the line under it ("no rows" when empty)."""
    frame = filtered_table(records, benchmark, sort_by, order, search, families, data_kind,
                           selection, max_size_b, columns)
    return gr.Dataframe(value=frame, datatype=_datatypes(frame)), table_note(
        len(frame), ranked_count(records, benchmark))


def ranked_count(records: list[dict], benchmark: str) -> int:
    """Records of ``benchmark`` in its ranked (main) table."""
    return sum(r["benchmark"] == benchmark and table_of(r) == "main" for r in records)


def table_note(shown: int, ranked: int) -> str:
    """The line under a ranked table: how many of the benchmark's ranked records it shows
    (the header counts the same records)."""
    if not shown:
        return ("**No rows match the search and filters.** Clear the search or widen the "
                f"filters ({ranked} ranked system(s) in all)." if ranked else
                "No ranked records yet.")
    hidden = ranked - shown
    return (f"{shown} system(s)." if not hidden else
            f"{shown} of {ranked} ranked system(s) shown; the search and filters hide {hidden}.")


def grid(records: list[dict], benchmark: str, system: str, table: str) -> pd.DataFrame:
    """A two-dimensional breakdown (rows × columns) of one system, rounded to 2 decimals; the
    corner cell names the axes (from README.md's ``grid_axes``)."""
    record = _record(records, benchmark, system)
    cells = [b for b in record["breakdowns"] if b["table"] == table]
    frame = pd.DataFrame(cells)
    if frame.empty:
        return frame
    rows, columns = grid_axes().get(benchmark, ("row", "column"))
    pivot = frame.pivot(index="row", columns="column", values="value").round(2)
    pivot.columns = [f"{columns}: {name}" for name in pivot.columns]
    return pivot.reset_index().rename(columns={"row": f"{table} — rows: {rows} ↓"})


def _record(records: list[dict], benchmark: str, system: str) -> dict:
    name = (system or "").removeprefix("★ ")
    for record in records:
        if record["benchmark"] == benchmark and record["system"] == name:
            return record
    raise gr.Error(f"no system {name[:100]!r} in {benchmark}", print_exception=False)


def compare(records: list[dict], benchmark: str, system_a: str, system_b: str) -> dict:
    """Paired bootstrap of two different systems' per-item values; the verdict and numbers."""
    a, b = _record(records, benchmark, system_a), _record(records, benchmark, system_b)
    if a["system"] == b["system"]:
        raise gr.Error(f"{a['system']} against itself: pick two different systems",
                       print_exception=False)
    if a["data_fingerprint"] != b["data_fingerprint"]:
        raise gr.Error(f"{a['system']} and {b['system']} were scored on different data "
                       "(data fingerprints differ): not comparable", print_exception=False)
    if not a["per_item"] or len(a["per_item"]) != len(b["per_item"]):
        raise gr.Error("per-item values missing or of different lengths: not comparable",
                       print_exception=False)
    result = paired_bootstrap(a["per_item"], b["per_item"],
                              lower_is_better=a["per_item_lower_is_better"])
    verdict = {"A better": f"{a['system']} is better",
               "B better": f"{b['system']} is better"}.get(result["verdict"], result["verdict"])
    return {"system_a": a["system"], "system_b": b["system"], "per_item": a["per_item_name"],
            **result, "verdict": verdict}


def compare_view(records, benchmark, system_a, system_b):
    """The verdict and a status line; an error keeps the previous verdict on the page."""
    try:
        return compare(records, benchmark, system_a, system_b), "Done."
    except gr.Error as error:
        return gr.skip(), f"Error: {error.message}"


def grid_view(records, benchmark, system, table):
    try:
        return grid(records, benchmark, system, table), "Done."
    except gr.Error as error:
        return gr.skip(), f"Error: {error.message}"


def header_text(records: list[dict], refused: list[list[str]], change: str = "") -> str:
    """The headline: what the rows are, per benchmark how many are ranked and unofficial
    (the tables show exactly these), when they were loaded, the newest record's date, the
    refused files, what the last reload changed and, when any row was computed on synthetic
    data, a banner (only counts, names of files refused and dates: no record text is turned
    into markup here)."""
    loaded = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    newest = max((r["date"] for r in records), default="—")
    per_benchmark = "; ".join(
        f"{benchmark}: {ranked_count(records, benchmark)} ranked"
        + (f", {unofficial} unofficial" if (unofficial := sum(
            r["benchmark"] == benchmark and table_of(r) != "main" for r in records)) else "")
        for benchmark in sorted({r["benchmark"] for r in records}))
    lines = ["# courtbench leaderboard",
             "Verified results: every number of every row was recomputed from the row's "
             "predictions against the accepted data's gold values when the results were "
             "loaded (columns marked *as submitted* need a model to recompute and are shown as "
             "submitted). ★ = reference baseline; ↓ = lower is better, ↑ = higher is better.",
             f"**{len(records)} record(s)**" + (f" ({per_benchmark})" if per_benchmark else "")
             + f", newest record {newest}; results loaded {loaded}."
             + (f" **{len(refused)} file(s) refused** (listed at the bottom with the reason)."
                if refused else "")]
    if change:
        lines.append(change)
    synthetic = sum(r["data_kind"] == "synthetic" for r in records)
    if synthetic:
        lines.append(f"> ⚠️ **Synthetic data:** {synthetic} row(s) were computed on courtbench's "
                     "synthetic stand-in, not on the real release (column *data*). Their "
                     "numbers say nothing about real performance; compare rows only within one "
                     "data kind.")
    return "\n\n".join(lines)


def as_submitted_text(records: list[dict], benchmark: str) -> str:
    """Plain text: per as-submitted metric of ``benchmark``, each system's protocol."""
    lines = [f"{m['name']} — {r['system']}: {m['as_submitted']}"
             for r in records if r["benchmark"] == benchmark for m in r["metrics"]
             if m["as_submitted"] is not None]
    return "\n".join(lines) or "No as-submitted numbers."


def _table_controls(own: list[dict], columns: list[str], primary: str | None):
    with gr.Row():
        search = gr.Textbox(label="search system / model / family", scale=2)
        sort_by = gr.Dropdown([""] + columns, value="", label="sort by (empty: primary "
                              f"metric{', ' + primary if primary else ''})")
        order = gr.Radio(ORDERS, value=ORDERS[0], label="order (per metric's direction)")
    with gr.Row():
        families = gr.Dropdown(sorted({r["family"] for r in own}), multiselect=True,
                               label="system family")
        data_kind = gr.Dropdown(["all", "real", "synthetic"], value="all", label="data")
        selection = gr.Dropdown(["all"] + sorted({r["selection"] for r in own if r["selection"]}),
                                value="all", label="selection protocol")
        max_size = gr.Number(None, label="max model size (B; empty or 0 = any)")
    return [sort_by, order, search, families, data_kind, selection, max_size]


def _default_columns(columns: list[str], primary: str | None) -> list[str]:
    """Shown at first: identity, date, the primary metric with its interval, other metrics."""
    return [c for c in columns if c in IDENTITY or (primary and c.startswith(primary))
            or not (" CI " in c or c.count(" ") > 1)]


def _benchmark_tab(state: gr.State, records: list[dict], benchmark: str) -> dict:
    """One benchmark's tab; returns its components that a reload refreshes: ``inputs`` (of
    the table), ``table``, ``note``, ``unofficial`` (table, note), ``systems`` (the system
    pickers) and ``protocols``."""
    own = [r for r in records if r["benchmark"] == benchmark]
    primary = _primary_header(records, benchmark)
    columns = [c for c in leaderboard_rows(records, benchmark).columns]
    systems = [r["system"] for r in own]
    grids = sorted({b["table"] for r in own for b in r["breakdowns"] if not _is_flat(r, b["table"])})
    bench = gr.State(benchmark)
    with gr.Tab(benchmark):
        controls = _table_controls(own, columns, primary)
        shown_columns = gr.CheckboxGroup(columns, value=_default_columns(columns, primary),
                                         label="columns (rank and system are always shown)")
        first = filtered_table(records, benchmark, None, ORDERS[0], "", None, "all", "all", None,
                               _default_columns(columns, primary))
        table = gr.Dataframe(first, datatype=_datatypes(first), interactive=False,
                             label=f"{benchmark} (click a header to sort; numbers sort as "
                                   "numbers)", max_height=600)
        note = gr.Markdown(table_note(len(first), ranked_count(records, benchmark)))
        inputs = [state, bench, *controls, shown_columns]
        gr.Button("apply filters", size="sm").click(table_view, inputs, [table, note],
                                                    api_name=f"table_{benchmark}")
        for control in inputs[2:]:
            control.change(table_view, inputs, [table, note], api_name=False)
        protocols = gr.Textbox(as_submitted_text(records, benchmark), interactive=False,
                               label="as submitted (needs a model to recompute): protocol per "
                                     "system", lines=2)
        unofficial = _unofficial_section(records, benchmark)
        pickers = _grid_section(state, bench, benchmark, systems, grids)
        with gr.Row():
            system_a = gr.Dropdown(systems, value=systems[0] if systems else None,
                                   label="system A")
            system_b = gr.Dropdown(systems, value=systems[-1] if systems else None,
                                   label="system B (a different system)")
        compare_status = gr.Textbox(label="comparison status", interactive=False)
        verdict = gr.JSON(label="paired bootstrap (1,000 resamples, seed 12345; ties count "
                                "for neither system)")
        gr.Button("compare").click(compare_view, [state, bench, system_a, system_b],
                                   [verdict, compare_status], api_name=f"compare_{benchmark}")
    return {"inputs": inputs, "table": table, "note": note, "unofficial": unofficial,
            "systems": [system_a, system_b, *pickers], "protocols": protocols}


def _unofficial_section(records: list[dict], benchmark: str) -> tuple:
    """The labelled table of the benchmark's unofficial records; returns (table, note)."""
    gr.Markdown(f"### {UNOFFICIAL_LABEL}\n\nNot part of the ranking above: records "
                "submitted with `courtbench submit --unofficial`, scored off the protocol's "
                "options or from a run that was incomplete or filled cases with a fallback. "
                f"Their numbers are recomputed like every other. The column *{REASON_COLUMN}* "
                "names what differs.")
    frame = unofficial_table(records, benchmark)
    table = gr.Dataframe(frame, datatype=_datatypes(frame), interactive=False, wrap=True,
                         label=f"{benchmark}: {UNOFFICIAL_LABEL}", max_height=400)
    note = gr.Markdown(unofficial_view(records, benchmark)[1])
    return table, note


def _grid_section(state, bench, benchmark, systems, grids) -> list:
    """The grid picker of a benchmark with two-dimensional breakdowns; returns its system
    picker (in a list, empty without grids)."""
    if not grids:
        return []
    rows, columns = grid_axes().get(benchmark, ("row", "column"))
    gr.Markdown(f"**Grid of one system:** rows = {rows}, columns = {columns} (values rounded "
                "to 2 decimals).")
    with gr.Row():
        grid_system = gr.Dropdown(systems, value=systems[0], label="system")
        grid_table = gr.Dropdown(grids, value=grids[0], label="grid")
    grid_status = gr.Textbox(label="grid status", interactive=False, visible=True)
    grid_out = gr.Dataframe(interactive=False)
    gr.Button("show grid").click(grid_view, [state, bench, grid_system, grid_table],
                                 [grid_out, grid_status], api_name=f"grid_{benchmark}")
    return [grid_system]


def reload_outputs(fresh: list[dict], fresh_refused: list, previous: list[dict],
                   previous_refused: list, benchmarks: list[str], tabs: list[dict]) -> list:
    """The new values of everything a reload refreshes (state, refused state, header,
    refused table, then per tab its system pickers and protocols); the tables themselves
    follow in chained events that read the new state."""
    change = change_text(changes(previous, fresh, previous_refused, fresh_refused))
    outputs = [fresh, fresh_refused, header_text(fresh, fresh_refused, change),
               gr.Dataframe(value=fresh_refused or None, visible=bool(fresh_refused))]
    for benchmark, tab in zip(benchmarks, tabs, strict=True):
        systems = [r["system"] for r in fresh if r["benchmark"] == benchmark]
        outputs += [gr.Dropdown(choices=systems) for _ in tab["systems"]]
        outputs.append(as_submitted_text(fresh, benchmark))
    return outputs


def _about() -> str:
    readme = HERE / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    if text.startswith("---\n"):
        text = text[4:].partition("\n---\n")[2]
    return text.strip()


def page_benchmarks(records: list[dict]) -> list[str]:
    """The benchmarks with a tab: every one this page can verify (so a record added by a
    reload always has its tab) and any of the records."""
    return sorted(set(VERIFIERS) | {r["benchmark"] for r in records})


def build_app(records: list[dict], refused: list[list[str]], *, folder: Path | None = None
              ) -> gr.Blocks:
    """The page: a header, one tab per benchmark, Submit, About, and the refused files.

    ``folder``: where "Reload results" reads from (None: ``RESULTS_DIR`` or a new download).
    """
    benchmarks = page_benchmarks(records)
    with gr.Blocks(title="courtbench leaderboard") as app:
        state = gr.State(records)
        refused_state = gr.State(refused)
        header = gr.Markdown(header_text(records, refused))
        reload_button = gr.Button("Reload results", size="sm")
        tabs = [_benchmark_tab(state, records, benchmark) for benchmark in benchmarks]
        with gr.Tab("Submit"):
            gr.Markdown(SUBMIT)
        with gr.Tab("About"):
            gr.Markdown(_about())
        refused_table = gr.Dataframe(refused or None, headers=["refused file", "reason"],
                                     datatype=["str", "str"], interactive=False, wrap=True,
                                     label="Refused files (not shown above; text as found)",
                                     visible=bool(refused))

        def reload(previous, previous_refused):
            fresh, fresh_refused = load_records(folder)
            return reload_outputs(fresh, fresh_refused, previous, previous_refused,
                                  benchmarks, tabs)

        outputs = [state, refused_state, header, refused_table]
        for tab in tabs:
            outputs += [*tab["systems"], tab["protocols"]]
        event = reload_button.click(reload, [state, refused_state], outputs, api_name="reload")
        for benchmark, tab in zip(benchmarks, tabs, strict=True):
            event = event.then(table_view, tab["inputs"], [tab["table"], tab["note"]],
                               api_name=False)
            event = event.then(unofficial_view, tab["inputs"][:2], list(tab["unofficial"]),
                               api_name=f"unofficial_{benchmark}")
    return app


if __name__ == "__main__":
    loaded, refused_files = load_records()
    build_app(loaded, refused_files).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        run_history=False)
