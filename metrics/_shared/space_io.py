"""Inputs and outputs of a metric module's Space page (``app.py`` beside this file).

- :func:`load_metric` imports the metric script of this folder (as a package, so that its
  relative imports resolve), so the page computes with exactly the code the Space ships;
- :func:`card_header` / :func:`card_body` give the card's one-paragraph description (the
  ``description`` of its YAML front matter), a link to the full card, and the card itself;
- :func:`table_columns` reads a pasted table (a ``gr.Dataframe`` of ``type="array"``),
  :func:`read_aligned` reads an uploaded predictions file and a references file (CSV or JSON
  Lines, as ``courtbench evaluate`` accepts them) and pairs them by sample id;
- :func:`compute` runs a plain metric function and turns its ``ValueError`` into a
  ``gr.Error`` (a one-line message in the page, not a stack trace);
- :func:`result_rows` flattens a result into ``[key, value]`` rows for a table.

One source (``metrics/_shared/space_io.py``) linked into every metric folder; the wheel,
``courtbench metrics export`` and ``courtbench publish`` turn the link into a real file. It
imports only the standard library and gradio.
"""

import csv
import importlib
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import sys
from pathlib import Path

import gradio as gr

# Not resolved: in a checkout this file is a link, and FOLDER is the metric folder holding it.
FOLDER = Path(os.path.abspath(__file__)).parent
CSV_SUFFIXES = (".csv",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
MAX_LISTED = 10


def page_error(message):
    """A ``gr.Error`` for bad input: the page shows ``message``; no traceback is logged."""
    return gr.Error(message, print_exception=False)


def load_metric(name):
    """Import ``<name>.py`` of this folder and return it.

    The folder is imported as a package (named after the folder, registered in
    ``sys.modules``) so that the script's ``from .<sibling> import`` lines work as they do
    under ``evaluate.load``.
    """
    package = f"_metric_page_{name}"
    if package not in sys.modules:
        spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
        spec.submodule_search_locations = [str(FOLDER)]
        sys.modules[package] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{package}.{name}")


# --------------------------------------------------------------------------- the card


def _card_parts():
    """(front matter lines, body text) of README.md beside this file."""
    text = (FOLDER / "README.md").read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return [], text
    front, _, body = text[4:].partition("\n---\n")
    return front.splitlines(), body


def card_description():
    """The card's one-paragraph ``description`` (a YAML folded block ``>-`` or one line)."""
    lines, _ = _card_parts()
    for index, line in enumerate(lines):
        if line.startswith("description:"):
            value = line[len("description:"):].strip()
            if value not in (">", ">-", "|", "|-"):
                return value.strip("'\"")
            block = []
            for following in lines[index + 1:]:
                if following and not following.startswith((" ", "\t")):
                    break
                block.append(following.strip())
            return " ".join(part for part in block if part)
    return ""


def card_link():
    """URL of the full card: the Space's README.md on the Hub, or the card section below."""
    space = os.environ.get("SPACE_ID")
    if space:
        return f"https://huggingface.co/spaces/{space}/blob/main/README.md"
    return "#metric-card"


def card_header(title):
    """Markdown: the title, the card's description and a link to the full card."""
    return (f"# {title}\n\n{card_description()}\n\n"
            f"[Read the full metric card]({card_link()}) — what every number means, its "
            "range and direction, and the module's limitations.")


UPLOAD_TYPES = [".csv", ".jsonl", ".ndjson"]


def upload_file(label):
    """A file input for a predictions or references file (CSV or JSON Lines)."""
    return gr.File(label=label, file_types=UPLOAD_TYPES)


def card_accordion(title="Metric card"):
    """The full card, folded, under the results (``elem_id`` lets screenshots find it)."""
    with gr.Accordion(title, open=False, elem_id="metric-card"):
        gr.Markdown(card_body())


def card_body():
    """The card without its YAML front matter (Markdown)."""
    return _card_parts()[1].strip()


# --------------------------------------------------------------------------- pasted tables


def _blank(value):
    return value is None or (isinstance(value, str) and not value.strip()) or (
        isinstance(value, float) and math.isnan(value))


def table_columns(rows, names):
    """Columns of a pasted table: ``{name: [cell, ...]}`` for the first ``len(names)`` columns.

    Rows whose cells are all blank are skipped; cells are returned as given (str, number or
    None). Raises ``gr.Error`` when no row is left.
    """
    rows = [] if rows is None else rows
    if hasattr(rows, "values") and hasattr(rows, "columns"):  # a DataFrame (type="pandas")
        rows = rows.values.tolist()
    kept = [list(row)[:len(names)] + [None] * (len(names) - len(row)) for row in rows
            if not all(_blank(cell) for cell in list(row)[:len(names)])]
    if not kept:
        raise page_error("the table is empty: paste one row per case")
    return {name: [row[i] for row in kept] for i, name in enumerate(names)}


def number(value, where):
    """A table or file cell as a float (numbers and numeric text; NaN and ±inf are passed on
    for the metric to reject). Raises ``gr.Error`` naming ``where`` for anything else."""
    if isinstance(value, bool) or value is None:
        raise page_error(f"{where} = {value!r}: expected a number")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.strip() and "_" not in value:  # float() takes 1_000
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise page_error(f"{where} = {value!r}: expected a number")


def text(value, where):
    """A table or file cell as text (None in a table is an empty string)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise page_error(f"{where} = {value!r}: expected text")


def labels(value, where):
    """Group labels of one case: a list of strings, or ``"a; b"`` text split on ";"."""
    if _blank(value):
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    if isinstance(value, str):
        return [part.strip() for part in value.split(";") if part.strip()]
    raise page_error(f"{where} = {value!r}: expected labels separated by ';' (or a JSON list)")


# --------------------------------------------------------------------------- uploaded files


def _path(file):
    """The local path of an uploaded file (gradio gives a str path or an object with .name)."""
    return Path(file if isinstance(file, (str, os.PathLike)) else file.name)


def _decoded(path, name):
    """The text of ``path`` (UTF-8, a leading BOM dropped); ``gr.Error`` naming the line of
    the first byte that is not UTF-8."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise page_error(f"{name} line {line}: byte 0x{data[error.start]:02x} is not UTF-8") from None


def _csv_records(content, name):
    """``[(line, {column: text})]`` of CSV text with a header row."""
    records = []
    reader = csv.reader(io.StringIO(content, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise page_error(f"{name}: the file is empty; expected a header row")
        start = reader.line_num + 1
        for row in reader:
            if row and len(row) != len(header):
                raise page_error(f"{name} line {start}: {len(row)} fields, the header has "
                               f"{len(header)}")
            if row:
                records.append((start, dict(zip(header, row, strict=True))))
            start = reader.line_num + 1
    except csv.Error as error:
        raise page_error(f"{name} line {reader.line_num}: malformed CSV ({error})") from None
    return records


def _jsonl_records(content, name):
    """``[(line, object)]`` of JSON Lines text, blank lines ignored."""
    records = []
    for line, raw in enumerate(content.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            raise page_error(f"{name} line {line}: invalid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise page_error(f"{name} line {line}: expected a JSON object, got "
                           f"{type(record).__name__}")
        records.append((line, record))
    return records


def read_records(file, what, required):
    """Records ``[(line, {column: value})]`` of an uploaded CSV or JSON Lines file.

    CSV: UTF-8 with a header row, RFC 4180 quoting, values are text. JSON Lines: one JSON
    object per line, blank lines ignored. Raises ``gr.Error`` naming the file (``what``), the
    line and the column for an unknown format, bad encoding, malformed line or missing field.
    """
    if file is None:
        raise page_error(f"{what}: no file uploaded")
    path = _path(file)
    name = f"{what} {path.name}"
    suffix = path.suffix.lower()
    if suffix not in CSV_SUFFIXES + JSONL_SUFFIXES:
        raise page_error(f"{name}: unknown format {suffix or '(no suffix)'!r}; expected CSV (.csv) "
                       "or JSON Lines (.jsonl, .ndjson)")
    content = _decoded(path, name)
    records = (_csv_records if suffix in CSV_SUFFIXES else _jsonl_records)(content, name)
    if not records:
        raise page_error(f"{name}: no records")
    for line, record in records:
        missing = [column for column in required if column not in record]
        if missing:
            raise page_error(f"{name} line {line}, column {missing[0]!r}: field missing "
                           f"(fields: {', '.join(map(str, record))})")
    return [(f"{name} line {line}", record) for line, record in records]


def _listing(items):
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f", ... ({len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else "")


def read_aligned(predictions_file, references_file, id_column, prediction_columns,
                 reference_columns, *, what="predictions file",
                 reference_what="references file"):
    """Pair an uploaded predictions file with a references file by ``id_column``.

    Args:
        predictions_file, references_file: uploaded CSV / JSON Lines files.
        id_column: the sample-id field of both (ids match by their text, so CSV "17" is 17).
        prediction_columns: fields read from the predictions file (e.g. ``["prediction"]``).
        reference_columns: ``{field: required}`` read from the references file.
        what, reference_what: how the two files are named in messages.

    Returns:
        ``(ids, predictions, references)`` in the order of the references file:
        ``predictions[column]`` and ``references[column]`` are lists of ``(where, value)``
        (``where`` names file, line and column for messages; an absent optional field gives
        ``None``).

    Raises:
        gr.Error: any file problem; unknown, duplicate and missing ids are listed together.
    """
    required = [column for column, needed in reference_columns.items() if needed]
    reference_records = read_records(references_file, reference_what, [id_column, *required])
    prediction_records = read_records(predictions_file, what, [id_column, *prediction_columns])
    order = {}
    for where, record in reference_records:
        key = str(record[id_column])
        if key in order:
            raise page_error(f"{where}, column {id_column!r}: sample id {key!r} appears twice")
        order[key] = (where, record)
    found = {}
    unknown = []
    duplicate = []
    for where, record in prediction_records:
        key = str(record[id_column])
        if key not in order:
            unknown.append(f"{key!r} ({where})")
        elif key in found:
            duplicate.append(f"{key!r} ({where})")
        else:
            found[key] = (where, record)
    missing = [repr(key) for key in order if key not in found]
    if unknown or duplicate or missing:
        parts = []
        if unknown:
            parts.append(f"{len(unknown)} id(s) not in the {reference_what}: {_listing(unknown)}")
        if duplicate:
            parts.append(f"{len(duplicate)} duplicate id(s): {_listing(duplicate)}")
        if missing:
            parts.append(f"{len(missing)} of {len(order)} id(s) of the {reference_what} without "
                         "a prediction: "
                         f"{_listing(missing)}")
        raise page_error(f"{what} does not match the {reference_what} by {id_column!r}: "
                       + "; ".join(parts))
    ids = list(order)
    predictions = {column: [(f"{found[key][0]}, column {column!r}", found[key][1][column])
                            for key in ids] for column in prediction_columns}
    references = {column: [(f"{order[key][0]}, column {column!r}", order[key][1].get(column))
                           for key in ids] for column in reference_columns}
    return ids, predictions, references


# --------------------------------------------------------------------------- results


def compute(function, **arguments):
    """``function(**arguments)``; a ``ValueError`` or ``ImportError`` becomes ``gr.Error``
    carrying the module's own message."""
    try:
        return function(**arguments)
    except (ValueError, ImportError) as error:
        raise page_error(str(error)) from None


def _cell(value):
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".") if math.isfinite(value) else str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "null" if value is None else str(value)


def result_rows(result, skip=(), prefix=""):
    """``[[key, value], ...]`` of a result dict: nested dicts flattened to dotted keys, keys in
    ``skip`` (top level) left out, numbers shown rounded to 4 decimals (the JSON is exact)."""
    rows = []
    for key, value in result.items():
        if not prefix and key in skip:
            continue
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(result_rows(value, prefix=f"{name}."))
        else:
            rows.append([name, _cell(value)])
    return rows
