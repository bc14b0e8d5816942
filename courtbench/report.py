"""Evaluation reports: the same tables as Markdown (to read), CSV (to load) and JSON (to diff).

A report is a folder written atomically::

    report.md          every table under its title, with the run's provenance
    report.json        {"provenance": ..., "tables": {name: {"title", "columns", "rows"}}, ...}
    <table>.csv        one CSV per table
    *.png              figures (when the plots extra is installed)

Cells are plain Python values; Markdown formats them with :func:`format_cell`, CSV and JSON
keep full precision so that numbers can be compared across runs.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtbench.hub.atomic import MARKER, REPORT_KIND, atomic_output_dir
from courtbench.jsonio import dumps_strict
from courtbench.tables import MISSING, markdown_table


@dataclass
class Table:
    """One report table.

    Attributes:
        name: file stem for the CSV and key in the JSON (``main``, ``mae_by_range`` …).
        title: heading in the Markdown report.
        columns: column titles.
        rows: cell values (str, int, float or None), one list per row.
        note: optional sentence printed under the table (definitions, units, direction).
        digits: decimals used for floats in Markdown.
    """

    name: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    note: str = ""
    digits: int = 2

    def markdown(self) -> str:
        """The table as GitHub-flavoured Markdown with formatted numbers."""
        body = markdown_table(self.columns,
                              [[format_cell(v, self.digits) for v in row] for row in self.rows])
        return body + (f"\n\n{self.note}" if self.note else "")


def format_cell(value: Any, digits: int = 2) -> str:
    """Human formatting: ints with thousands separators, floats with ``digits`` decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN/inf; None is the documented "undefined"
    return value


@dataclass
class Report:
    """A whole report: title, provenance (seeds, versions, models), tables, figures, extras."""

    title: str
    provenance: Mapping[str, Any]
    tables: list[Table]
    figures: Mapping[str, Callable[[Path], None]] = field(default_factory=dict)
    extra_json: Mapping[str, Any] = field(default_factory=dict)
    intro: str = ""

    def markdown(self, figure_names: Sequence[str] = ()) -> str:
        parts = [f"# {self.title}", ""]
        if self.intro:
            parts += [self.intro, ""]
        for table in self.tables:
            parts += [f"## {table.title}", "", table.markdown(), ""]
        for name in figure_names:
            parts += [f"![{name}]({name})", ""]
        parts += ["## Provenance", "", "```json",
                  json.dumps(self.provenance, indent=2, sort_keys=True, default=str), "```", ""]
        return "\n".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "provenance": self.provenance,
            "tables": {t.name: {"title": t.title, "columns": list(t.columns),
                                "rows": [[_json_value(v) for v in row] for row in t.rows],
                                "note": t.note} for t in self.tables},
            **self.extra_json,
        }


def write_report(report: Report, out_dir: Path, *, stem: str = "report") -> list[Path]:
    """Write ``report`` into ``out_dir`` (replaced atomically); returns the files written.

    The tables, CSVs and JSON are written first; the figures last. A figure that cannot be
    drawn (no matplotlib, or any error of the plotting library, e.g. on values it cannot
    scale) is skipped with a warning on stderr and a note in the Markdown report — the scores
    are never lost to a figure. A draw function may return a note (values it clipped), which
    the report shows too.
    """
    names = [t.name for t in report.tables]
    if len(set(names)) != len(names):
        raise ValueError(f"report tables have duplicate names: {names}")
    out_dir = Path(out_dir)
    with atomic_output_dir(out_dir, kind=REPORT_KIND) as tmp:
        for table in report.tables:
            with open(tmp / f"{table.name}.csv", "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow(table.columns)
                writer.writerows([["" if v is None else v for v in row] for row in table.rows])
        (tmp / f"{stem}.json").write_text(
            dumps_strict(report.to_json(), what=f"{stem}.json", indent=2, sort_keys=False,
                         default=str) + "\n",
            encoding="utf-8")
        drawn, notes = draw_report_figures(report.figures, tmp)
        text = report.markdown(drawn)
        if notes:
            text += "\n## Figure notes\n\n" + "".join(f"- {note}\n" for note in notes)
        (tmp / f"{stem}.md").write_text(text, encoding="utf-8")
    return sorted(p for p in out_dir.iterdir() if p.name != MARKER)


def draw_report_figures(figures: Mapping[str, Callable[[Path], Any]], folder: Path
                        ) -> tuple[list[str], list[str]]:
    """Draw each figure into ``folder``; returns ``(drawn file names, notes)``.

    A figure whose drawing raises (ImportError: no plots extra; anything else: the plotting
    library failed, e.g. an OverflowError formatting ticks for 1e308) is skipped, its partial
    file removed, a warning printed on stderr and a note returned; a string returned by a
    draw function (what it clipped) is returned as a note.
    """
    drawn: list[str] = []
    notes: list[str] = []
    for name, draw in figures.items():
        try:
            note = draw(folder / name)
        except ImportError as error:
            (folder / name).unlink(missing_ok=True)
            notes.append(f"{name} not drawn: {error} (install the 'plots' extra)")
        except Exception as error:  # noqa: BLE001 - a figure never costs the computed scores
            (folder / name).unlink(missing_ok=True)
            notes.append(f"{name} not drawn: the plotting library failed "
                         f"({type(error).__name__}: {str(error)[:200]})")
        else:
            drawn.append(name)
            if isinstance(note, str) and note:
                notes.append(f"{name}: {note}")
            continue
        print(f"courtbench: warning: {notes[-1]}; the scores and tables are complete",
              file=sys.stderr)
    return drawn, notes
