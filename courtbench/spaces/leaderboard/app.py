"""courtbench leaderboard: verified results of the benchmarks courtbench hosts (Gradio Space).

Records come from the results dataset repository named in ``results_repo.txt`` (or the
``RESULTS_REPO`` variable), or from a local folder given as ``RESULTS_DIR`` (tests, previews).
Each record is validated with ``results_schema.py`` — the same validator ``courtbench submit``
runs — and invalid files are listed, never shown. Per benchmark the page has a sortable,
filterable table (reference baselines marked ★), the grid of a two-dimensional breakdown
(e.g. source × target language) for a chosen system, and a paired bootstrap verdict for a
chosen pair of systems scored on the same data. The page names no benchmark: columns, grids
and directions all come from the records.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import gradio as gr
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling validator, also when imported as a package module

from results_schema import paired_bootstrap, primary_metric, validate_result  # noqa: E402


def results_folder() -> Path:
    """The local folder of result files: ``RESULTS_DIR``, else a download of the repo."""
    if os.environ.get("RESULTS_DIR"):
        return Path(os.environ["RESULTS_DIR"])
    repo = os.environ.get("RESULTS_REPO")
    if not repo and (HERE / "results_repo.txt").is_file():
        repo = (HERE / "results_repo.txt").read_text(encoding="utf-8").strip()
    if not repo:
        raise RuntimeError("no results: set RESULTS_DIR or RESULTS_REPO, or add results_repo.txt")
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo, repo_type="dataset", allow_patterns=["results/**"]))


def load_records(folder: Path) -> tuple[list[dict], list[str]]:
    """Valid records (reference baselines first) and one line per refused file."""
    records, refused = [], []
    for path in sorted(Path(folder).glob("results/**/*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            refused.append(f"{path.name}: not valid JSON ({error})")
            continue
        problems = validate_result(record)
        if problems:
            refused.append(f"{path.name}: {'; '.join(problems[:3])}")
        else:
            records.append(record)
    records.sort(key=lambda r: (not r["reference"], r["benchmark"], r["system"]))
    return records, refused


def _is_flat(record: dict, table: str) -> bool:
    """A breakdown table with one column (views) becomes table columns; grids do not."""
    return len({b["column"] for b in record["breakdowns"] if b["table"] == table}) == 1


def _format(metric: dict) -> str:
    if metric["value"] is None:
        return "—"
    text = f"{metric['value']:,.4g}" if abs(metric["value"]) < 100 else f"{metric['value']:,.0f}"
    if metric["ci_low"] is not None:
        low, high = metric["ci_low"], metric["ci_high"]
        text += (f" [{low:,.4g}, {high:,.4g}]" if abs(metric["value"]) < 100
                 else f" [{low:,.0f}, {high:,.0f}]")
    return text


def _rounded(value: float | None) -> float | None:
    """Numbers as a person reads them: whole units from 100 up, else three decimals."""
    if value is None:
        return None
    return round(value) if abs(value) >= 100 else round(value, 3)


def leaderboard_rows(records: list[dict], benchmark: str) -> pd.DataFrame:
    """One row per system of ``benchmark``: identity, every metric, flat breakdowns.

    Metric cells hold numbers; the column ``<metric> 95% CI`` holds the interval text.
    """
    rows = []
    for record in (r for r in records if r["benchmark"] == benchmark):
        row = {"system": ("★ " if record["reference"] else "") + record["system"],
               "family": record["family"], "model": record["model_name"] or "",
               "size (B)": record["model_size_b"], "selection": record["selection"] or "",
               "data": record["data_kind"]}
        for metric in record["metrics"]:
            row[metric["name"]] = _rounded(metric["value"])
            if metric["ci_low"] is not None:
                row[f"{metric['name']} 95% CI"] = _format(metric)
        for item in record["breakdowns"]:
            if _is_flat(record, item["table"]):
                row[f"{item['row']} {item['column']}"] = _rounded(item["value"])
        rows.append(row)
    return pd.DataFrame(rows)


def filtered_table(records: list[dict], benchmark: str, sort_by: str | None, descending: bool,
                   families: list[str] | None, data_kind: str, selection: str,
                   max_size_b: float | None) -> pd.DataFrame:
    """The table after filters (family, data kind, selection, model size) and sorting.

    Sorting defaults to the primary metric in its better-first direction; rows without a
    value sort last.
    """
    frame = leaderboard_rows(records, benchmark)
    if frame.empty:
        return frame
    if families:
        frame = frame[frame["family"].isin(families)]
    if data_kind and data_kind != "all":
        frame = frame[frame["data"] == data_kind]
    if selection and selection != "all":
        frame = frame[frame["selection"] == selection]
    if max_size_b:
        frame = frame[frame["size (B)"].isna() | (frame["size (B)"] <= max_size_b)]
    if not sort_by:
        primary = primary_metric(next(r for r in records if r["benchmark"] == benchmark))
        sort_by, descending = primary["name"], not primary["lower_is_better"]
    if sort_by in frame.columns:
        frame = frame.sort_values(sort_by, ascending=not descending, na_position="last",
                                  kind="stable")
    return frame.reset_index(drop=True)


def grid(records: list[dict], benchmark: str, system: str, table: str) -> pd.DataFrame:
    """A two-dimensional breakdown (rows × columns) of one system."""
    record = _record(records, benchmark, system)
    cells = [b for b in record["breakdowns"] if b["table"] == table]
    frame = pd.DataFrame(cells)
    if frame.empty:
        return frame
    pivot = frame.pivot(index="row", columns="column", values="value")
    return pivot.reset_index().rename(columns={"row": f"{table}: row ↓ / column →"})


def _record(records: list[dict], benchmark: str, system: str) -> dict:
    name = system.removeprefix("★ ")
    for record in records:
        if record["benchmark"] == benchmark and record["system"] == name:
            return record
    raise gr.Error(f"no system {name!r} in {benchmark}")


def compare(records: list[dict], benchmark: str, system_a: str, system_b: str) -> dict:
    """Paired bootstrap of two systems' per-item values; the verdict and its numbers."""
    a, b = _record(records, benchmark, system_a), _record(records, benchmark, system_b)
    if a["data_fingerprint"] != b["data_fingerprint"]:
        raise gr.Error(f"{a['system']} and {b['system']} were scored on different data "
                       "(data fingerprints differ): not comparable")
    if not a["per_item"] or len(a["per_item"]) != len(b["per_item"]):
        raise gr.Error("per-item values missing or of different lengths: not comparable")
    result = paired_bootstrap(a["per_item"], b["per_item"],
                              lower_is_better=a["per_item_lower_is_better"])
    verdict = {"A better": f"{a['system']} is better",
               "B better": f"{b['system']} is better"}.get(result["verdict"], result["verdict"])
    return {"system_a": a["system"], "system_b": b["system"], "per_item": a["per_item_name"],
            **result, "verdict": verdict}


def build_app(records: list[dict], refused: list[str]) -> gr.Blocks:
    """The page: one tab per benchmark."""
    benchmarks = sorted({r["benchmark"] for r in records})
    with gr.Blocks(title="courtbench leaderboard") as app:
        gr.Markdown("# courtbench leaderboard\nVerified results: every row was re-scored from "
                    "its predictions by `courtbench submit`. ★ = reference baseline; compare "
                    "rows only within one data kind (real release or synthetic stand-in).")
        if refused:
            gr.Markdown("**Refused files:**\n" + "\n".join(f"- {line}" for line in refused))
        for benchmark in benchmarks:
            _benchmark_tab(records, benchmark)
    return app


def _benchmark_tab(records: list[dict], benchmark: str) -> None:
    own = [r for r in records if r["benchmark"] == benchmark]
    first = leaderboard_rows(records, benchmark)
    systems = [r["system"] for r in own]
    grids = sorted({b["table"] for r in own for b in r["breakdowns"] if not _is_flat(r, b["table"])})
    state = gr.State(records)
    bench = gr.State(benchmark)
    with gr.Tab(benchmark):
        with gr.Row():
            sort_by = gr.Dropdown([""] + list(first.columns), value="", label="sort by "
                                  "(empty: primary metric)")
            descending = gr.Checkbox(False, label="descending")
            families = gr.Dropdown(sorted({r["family"] for r in own}), multiselect=True,
                                   label="system family")
            data_kind = gr.Dropdown(["all", "real", "synthetic"], value="all", label="data")
            selection = gr.Dropdown(["all"] + sorted({r["selection"] for r in own
                                                      if r["selection"]}), value="all",
                                    label="selection protocol")
            max_size = gr.Number(None, label="max model size (B; 0 = any)")
        table = gr.Dataframe(filtered_table(records, benchmark, None, False, None, "all", "all",
                                            None), interactive=False, label=benchmark)
        inputs = [state, bench, sort_by, descending, families, data_kind, selection, max_size]
        for control in inputs[2:]:
            control.change(filtered_table, inputs, table, api_name=False)
        gr.Button("refresh").click(filtered_table, inputs, table,
                                   api_name=f"table_{benchmark}")
        if grids:
            with gr.Row():
                grid_system = gr.Dropdown(systems, value=systems[0], label="system")
                grid_table = gr.Dropdown(grids, value=grids[0], label="grid")
            grid_out = gr.Dataframe(interactive=False)
            gr.Button("show grid").click(grid, [state, bench, grid_system, grid_table], grid_out,
                                         api_name=f"grid_{benchmark}")
        with gr.Row():
            system_a = gr.Dropdown(systems, value=systems[0], label="system A")
            system_b = gr.Dropdown(systems, value=systems[-1], label="system B")
        verdict = gr.JSON(label="paired bootstrap (1,000 resamples, seed 12345)")
        gr.Button("compare").click(compare, [state, bench, system_a, system_b], verdict,
                                   api_name=f"compare_{benchmark}")


if __name__ == "__main__":
    loaded, refused_files = load_records(results_folder())
    build_app(loaded, refused_files).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
