"""courtbench leaderboard: verified results of the benchmarks courtbench hosts (Gradio Space).

Records come from the results dataset repository named in ``results_repo.txt`` (or the
``RESULTS_REPO`` variable), or from a local folder given as ``RESULTS_DIR`` (tests, previews).
They are read with ``results_schema.read_record_folder`` — the same reader
``courtbench leaderboard check`` runs — so a record the check refuses is skipped here too and
listed (as text) under "Refused files"; no record can stop the page. "Reload results" reads
the results again (a new download of the repository).

Per benchmark the page has a ranked table (rank, ↑/↓ per metric, search, column chooser,
numeric sorting better-first, model links from the record, dates) of the records scored with
the protocol's options on the accepted data, below it a separate, labelled table "Unofficial
data / non-protocol options" (records submitted with ``--unofficial``, and any record whose
data fingerprint the results dataset's card does not accept, each with what differs), the grid of a
two-dimensional breakdown (axis names from ``grid_axes`` of this folder's README.md), and a
paired bootstrap verdict for two different systems scored on the same data. Tabs "Submit" and
"About" say how rows get here and what the protocol is. The page names no benchmark: columns,
grids and directions all come from the records (axis names from the README).
"""

from __future__ import annotations

import datetime
import os
import re
import sys
from pathlib import Path

import gradio as gr
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling validator, also when imported as a package module

from results_schema import (  # noqa: E402
    ACCEPTED_KEY,
    page_table,
    paired_bootstrap,
    primary_metric,
    read_record_folder,
)

IDENTITY = ["rank", "system", "family", "model", "link", "size (B)", "selection", "data", "date"]
ORDERS = ["better first", "worse first"]
UNOFFICIAL_LABEL = "Unofficial data / non-protocol options"
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
   number differs. A report scored off the protocol's options or on data the results dataset
   does not accept is refused too, unless `--unofficial` sends it to the benchmark's labelled
   "Unofficial data / non-protocol options" table (never ranked with the main table).
5. Once the pull request is merged into the results dataset, press **Reload results** here.

`courtbench leaderboard check RESULTS_DIR` runs the validation this page runs on every record.
"""


def results_folder() -> Path:
    """The local folder of result files: ``RESULTS_DIR``, else a fresh download of the repo."""
    if os.environ.get("RESULTS_DIR"):
        return Path(os.environ["RESULTS_DIR"])
    repo = os.environ.get("RESULTS_REPO")
    if not repo and (HERE / "results_repo.txt").is_file():
        repo = (HERE / "results_repo.txt").read_text(encoding="utf-8").strip()
    if not repo:
        raise RuntimeError("no results: set RESULTS_DIR or RESULTS_REPO, or add results_repo.txt")
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo, repo_type="dataset",
                                  allow_patterns=["results/**", "README.md"]))


def accepted_data(folder: Path) -> dict | None:
    """The accepted data ``{benchmark: {fingerprint: data_kind}}`` declared by the results
    folder's card (``README.md`` front matter, key ``courtbench_accepted_data``); ``None``
    when there is no card or it declares none in that shape."""
    from huggingface_hub import metadata_load

    card = Path(folder) / "README.md"
    try:
        metadata = metadata_load(card) if card.is_file() else None
    except Exception:  # noqa: BLE001 - an unreadable card declares nothing; the page starts
        return None
    declared = metadata.get(ACCEPTED_KEY) if isinstance(metadata, dict) else None
    if not isinstance(declared, dict) or not all(isinstance(v, dict) for v in declared.values()):
        return None
    return {str(benchmark): {str(f): str(k) for f, k in pinned.items()}
            for benchmark, pinned in declared.items()}


def load_records(folder: Path | None = None) -> tuple[list[dict], list[list[str]]]:
    """Valid records (reference baselines first) and ``[file, reason]`` per refused file;
    a folder that cannot be read at all is one refused line, never an exception. Each record
    gets ``_table`` / ``_reason``: the table it is shown in (:func:`results_schema.page_table`
    against the card's accepted data)."""
    try:
        folder = results_folder() if folder is None else folder
        records, refused = read_record_folder(folder)
    except Exception as error:  # the page shows what went wrong instead of not starting
        return [], [["(results)", f"cannot read the results: {type(error).__name__}: "
                                  f"{str(error)[:300]}"]]
    accepted = accepted_data(folder)
    for record in records:
        record["_table"], record["_reason"] = page_table(record, accepted)
    records.sort(key=lambda r: (not r["reference"], r["benchmark"], r["system"]))
    return records, [[name, reason] for name, reason in refused]


def table_of(record: dict) -> str:
    """``main`` or ``unofficial``: where the page shows ``record`` (its own
    ``leaderboard_table`` unless :func:`load_records` placed it)."""
    return record.get("_table", record["leaderboard_table"])


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
    """Numbers as a person reads them: whole units from 100 up, else three decimals."""
    if value is None:
        return None
    return round(value) if abs(value) >= 100 else round(value, 3)


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


def metric_columns(records: list[dict], benchmark: str) -> dict[str, bool]:
    """``{column header: lower_is_better}`` of every number column of ``benchmark``: metrics
    as ``<name> ↓`` / ``<name> ↑`` with ``… CI low`` / ``… CI high``, flat breakdowns."""
    columns = {}
    for record in (r for r in records if r["benchmark"] == benchmark):
        for metric in record["metrics"]:
            header = f"{metric['name']} {_arrow(metric['lower_is_better'])}"
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
            row[REASON_COLUMN] = record.get("_reason", record["unofficial_reason"]) or ""
            row[FINGERPRINT_COLUMN] = record["data_fingerprint"][:16] + "…"
        lower = primary_metric(record)["lower_is_better"]
        for metric in record["metrics"]:
            header = f"{metric['name']} {_arrow(metric['lower_is_better'])}"
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
    """The "unofficial data / non-protocol options" rows of ``benchmark``: not ranked, sorted
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
    note = (f"{len(frame)} system(s)." if len(frame) else
            "**No rows match the search and filters.** Clear the search or widen the filters.")
    return gr.Dataframe(value=frame, datatype=_datatypes(frame)), note


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


def header_text(records: list[dict], refused: list[list[str]]) -> str:
    """The headline: what the rows are, when they were loaded, the newest record's date and,
    when any row was computed on synthetic data, a banner (only counts and dates: no record
    text is turned into markup here)."""
    loaded = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    newest = max((r["date"] for r in records), default="—")
    unofficial = sum(table_of(r) != "main" for r in records)
    lines = ["# courtbench leaderboard",
             "Verified results: every row was re-scored from its predictions by "
             "`courtbench submit`. ★ = reference baseline; ↓ = lower is better, ↑ = higher is "
             "better.",
             f"**{len(records)} record(s)**, newest record {newest}; results loaded {loaded}."
             + (f" {unofficial} of them in the labelled *{UNOFFICIAL_LABEL}* tables, not "
                "ranked." if unofficial else "")
             + (f" **{len(refused)} file(s) refused** (listed at the bottom)." if refused
                else "")]
    synthetic = sum(r["data_kind"] == "synthetic" for r in records)
    if synthetic:
        lines.append(f"> ⚠️ **Synthetic data:** {synthetic} row(s) were computed on courtbench's "
                     "synthetic stand-in, not on the real release (column *data*). Their "
                     "numbers say nothing about real performance; compare rows only within one "
                     "data kind.")
    return "\n\n".join(lines)


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


def _benchmark_tab(state: gr.State, records: list[dict], benchmark: str):
    """One benchmark's tab; returns (its table-refresh inputs, table, note) for reloads."""
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
        note = gr.Markdown(f"{len(first)} system(s).")
        inputs = [state, bench, *controls, shown_columns]
        gr.Button("apply filters", size="sm").click(table_view, inputs, [table, note],
                                                    api_name=f"table_{benchmark}")
        for control in inputs[2:]:
            control.change(table_view, inputs, [table, note], api_name=False)
        unofficial = _unofficial_section(records, benchmark)
        _grid_section(state, bench, benchmark, systems, grids)
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
    return inputs, table, note, unofficial


def _unofficial_section(records: list[dict], benchmark: str) -> tuple:
    """The labelled table of the benchmark's unofficial records; returns (table, note)."""
    gr.Markdown(f"### {UNOFFICIAL_LABEL}\n\nNot part of the ranking above: records "
                "submitted with `courtbench submit --unofficial` (scored off the protocol's "
                "options or on data the results dataset does not accept) and records whose "
                "data fingerprint the results dataset does not accept. The column *"
                f"{REASON_COLUMN}* names the option or fingerprint that differs.")
    frame = unofficial_table(records, benchmark)
    table = gr.Dataframe(frame, datatype=_datatypes(frame), interactive=False, wrap=True,
                         label=f"{benchmark}: {UNOFFICIAL_LABEL}", max_height=400)
    note = gr.Markdown(unofficial_view(records, benchmark)[1])
    return table, note


def _grid_section(state, bench, benchmark, systems, grids):
    if not grids:
        return
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


def _about() -> str:
    readme = HERE / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    if text.startswith("---\n"):
        text = text[4:].partition("\n---\n")[2]
    return text.strip()


def build_app(records: list[dict], refused: list[list[str]], *, folder: Path | None = None
              ) -> gr.Blocks:
    """The page: a header, one tab per benchmark, Submit, About, and the refused files.

    ``folder``: where "Reload results" reads from (None: ``RESULTS_DIR`` or a new download).
    """
    benchmarks = sorted({r["benchmark"] for r in records})
    with gr.Blocks(title="courtbench leaderboard") as app:
        state = gr.State(records)
        header = gr.Markdown(header_text(records, refused))
        reload_button = gr.Button("Reload results", size="sm")
        tabs = []
        for benchmark in benchmarks:
            tabs.append(_benchmark_tab(state, records, benchmark))
        with gr.Tab("Submit"):
            gr.Markdown(SUBMIT)
        with gr.Tab("About"):
            gr.Markdown(_about())
        refused_table = gr.Dataframe(refused or None, headers=["refused file", "reason"],
                                     datatype=["str", "str"], interactive=False, wrap=True,
                                     label="Refused files (not shown above; text as found)",
                                     visible=bool(refused))

        def reload():
            fresh, fresh_refused = load_records(folder)
            outputs = [fresh, header_text(fresh, fresh_refused),
                       gr.Dataframe(value=fresh_refused or None, visible=bool(fresh_refused))]
            for _ in tabs:
                outputs.extend([gr.skip(), gr.skip()])
            return outputs

        reload_outputs = [state, header, refused_table]
        for _, table, note, _ in tabs:
            reload_outputs += [table, note]
        event = reload_button.click(reload, None, reload_outputs, api_name="reload")
        for benchmark, (inputs, table, note, unofficial) in zip(benchmarks, tabs, strict=True):
            event = event.then(table_view, inputs, [table, note], api_name=False)
            event = event.then(unofficial_view, inputs[:2], list(unofficial),  # state, bench
                               api_name=f"unofficial_{benchmark}")
    return app


if __name__ == "__main__":
    loaded, refused_files = load_records()
    build_app(loaded, refused_files).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        run_history=False)
