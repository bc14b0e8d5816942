"""Inputs and outputs of a metric module's Space page (``app.py`` beside this file).

- :func:`load_metric` imports the metric script of this folder (as a package, so that its
  relative imports resolve), so the page computes with exactly the code the Space ships;
- :func:`card_header` / :func:`card_body` give the card's one-paragraph description (the
  ``description`` of its YAML front matter), a link to the full card, and the card itself;
- :func:`table_columns` reads a pasted table (a ``gr.Dataframe`` of ``type="array"``),
  :func:`table_values` parses its cells (:func:`number`, :func:`integer`, :func:`text`,
  :func:`labels`),
  :func:`read_aligned` reads an uploaded predictions file and a references file (CSV or JSON
  Lines, as ``courtbench evaluate`` accepts them) and pairs them by sample id;
- :func:`compute` runs a plain metric function and turns its ``ValueError`` into a
  ``gr.Error`` (a one-line message in the page, not a stack trace);
- page inputs pass the same validator as the modules (``boundary.py`` beside this file,
  :data:`boundary`): :func:`number` (a finite number), :func:`integer`, :func:`count` (a
  capped work parameter) and :func:`seed` (integers; 1.5 is refused, never rounded: the pages'
  number boxes keep what the visitor typed, ``precision=None``);
- :func:`result_rows` flattens a result into ``[key, value]`` rows for a table;
- :func:`status_box` and :func:`guarded`: every handler's outcome, including any error as one
  line, stays in a status box beside the result; an error clears the previous result, so
  nothing on the page is taken for the answer to the failed input; :func:`drawn` draws a
  figure without letting a plotting error turn a computed result into an error;
- :func:`page_inputs` lays out what every page has on top (title, card description and
  button, a paste tab with :func:`pasted_table`, an upload tab, a column of options), and
  :func:`summary_outputs` the result table with its JSON; a page adds only its own parts;
- :func:`launch`: serves the page with Gradio's run history off (the browser keeps no copy of
  what a visitor typed — an API key included); importing this module also turns it off.

One source (``metrics/_shared/space_io.py``) linked into every metric folder; the wheel,
``courtbench metrics export`` and ``courtbench publish`` turn the link into a real file. It
imports the standard library, gradio, the validator beside it (``boundary.py``) and
``evaluate_import.py`` (``evaluate`` without transformers' pipelines, for a faster start).
"""

import contextlib
import csv
import dataclasses
import functools
import importlib
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import re
import sys
import threading
from pathlib import Path

# Gradio's run history keeps every input of every run in the browser's storage (and shows them
# on /gradio_api/runs); no page of ours may keep a visitor's input, so it is off for all of
# them, whichever way the page is launched.
os.environ["GRADIO_RUN_HISTORY"] = "False"

import gradio as gr  # noqa: E402  (after the run-history switch)

# Not resolved: in a checkout this file is a link, and FOLDER is the metric folder holding it.
FOLDER = Path(os.path.abspath(__file__)).parent
CSV_SUFFIXES = (".csv",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
MAX_LISTED = 10


def page_error(message):
    """A ``gr.Error`` for bad input: the page shows ``message``; no traceback is logged."""
    return gr.Error(message, print_exception=False)


def launch(demo):
    """Serve ``demo`` as a Space does, with run history off (no input kept in the browser)."""
    demo.launch(run_history=False)


# --------------------------------------------------------------------------- status


ERROR_PREFIX = "Error: "
MAX_MESSAGE_CHARS = 2000


def one_line(error):
    """A one-line message of any exception: ``gr.Error`` text as is, a ``ValueError`` (a
    module's or the validator's message about an input) as is, others prefixed with the
    exception's type; newlines folded and the text cut at ``MAX_MESSAGE_CHARS``."""
    if isinstance(error, gr.Error):
        message = str(error.message)
    elif isinstance(error, ValueError):  # a module's own message about its input
        message = str(error)
    else:
        message = f"{type(error).__name__}: {error}".rstrip(": ")
    message = " ".join(message.split())
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + " …"
    return message


def status_box(value="Showing the card's example: edit the inputs and press a button to "
                     "compute."):
    """The status box beside a result: what the last run did or why it failed (plain text)."""
    return gr.Textbox(value=value, label="Status", lines=2,
                      max_lines=6, interactive=False, elem_classes=["courtbench-status"])


def guarded(function, n_outputs, done="Done."):
    """``function`` as an event handler whose last output is the status box.

    On success the outputs of ``function`` are followed by ``done`` (text, or a callable of the
    outputs returning text). On any exception the ``n_outputs`` results are cleared (a
    previous result left on screen would read as the answer to the input that failed) and the
    status box says ``Error: <one line>``; nothing reaches the visitor as a traceback.
    """
    @functools.wraps(function)
    def handler(*args):
        _NOTES.items = []
        try:
            outputs = function(*args)
        except Exception as error:  # every failure becomes one line in the status box
            return (*[None] * n_outputs, ERROR_PREFIX + one_line(error))
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        text = done(outputs) if callable(done) else done
        notes = "; ".join(_NOTES.items)
        return (*outputs, f"{text} Note: {notes}." if notes else text)
    return handler


#: Notes of the running handler (a plot that could not be drawn), added to its status line.
_NOTES = threading.local()


def _folder_module(module):
    """Import ``<module>.py`` of this folder, the folder imported as a package (named after
    the folder, registered in ``sys.modules``) so that the script's ``from .<sibling> import``
    lines work as they do under ``evaluate.load``, and the script and the page share one copy
    of every sibling (one ``BoundaryError`` class)."""
    package = f"_metric_page_{FOLDER.name}"
    if package not in sys.modules:
        spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
        spec.submodule_search_locations = [str(FOLDER)]
        sys.modules[package] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{package}.{module}")


def load_metric(name):
    """Import ``<name>.py`` of this folder and return it (see :func:`_folder_module`);
    ``evaluate`` first, without the part no metric uses (``evaluate_import.py``)."""
    _folder_module("evaluate_import").import_evaluate()
    return _folder_module(name)


#: The one boundary validator (``boundary.py`` beside this file, as the metric script uses it).
boundary = _folder_module("boundary")


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
    """Markdown: the title, the card's description and where the full card is."""
    space = os.environ.get("SPACE_ID")
    where = (f"[the card on the Hub]({card_link()}) or the button below"
             if space else "the button below (it unfolds the card at the bottom)")
    return (f"# {title}\n\n{card_description()}\n\nThe full metric card — what every "
            f"number means, its range and direction, and the module's limitations: {where}.")


UPLOAD_TYPES = [".csv", ".jsonl", ".ndjson"]


def upload_file(label):
    """A file input for a predictions or references file (CSV or JSON Lines)."""
    return gr.File(label=label, file_types=UPLOAD_TYPES)


def card_button():
    """"Read the full metric card": opens the folded card (see :func:`card_accordion`)."""
    return gr.Button("Read the full metric card", size="sm", variant="secondary")


OPEN_CARD_JS = ("() => { setTimeout(() => document.getElementById('metric-card')"
                "?.scrollIntoView({behavior: 'smooth'}), 100); }")


def card_accordion(title="Metric card", button=None):
    """The full card, folded, under the results (``elem_id`` lets screenshots find it);
    ``button`` (:func:`card_button`) unfolds it and scrolls to it."""
    with gr.Accordion(title, open=False, elem_id="metric-card") as accordion:
        gr.Markdown(card_body())
    if button is not None:
        button.click(lambda: gr.Accordion(open=True), None, accordion, js=OPEN_CARD_JS,
                     api_name=False)
    return accordion


def card_body():
    """The card without its YAML front matter (Markdown)."""
    return _card_parts()[1].strip()


# --------------------------------------------------------------------------- the page frame


@dataclasses.dataclass
class PageInputs:
    """The inputs :func:`page_inputs` lays out (gradio components).

    ``table_options`` sit under the pasted table and apply to it only; ``options`` sit beside
    both tabs and apply to both; ``files`` are the uploads, in the order of their labels.
    """

    card_button: gr.Button
    table: gr.Dataframe
    table_options: list
    table_button: gr.Button
    files: list
    files_button: gr.Button
    options: list

    @property
    def table_inputs(self):
        """Inputs of the table's handler: the table, its own options, the shared options."""
        return [self.table, *self.table_options, *self.options]

    @property
    def files_inputs(self):
        """Inputs of the files' handler: the uploads, then the shared options."""
        return [*self.files, *self.options]

    def on_table(self, function, outputs, status, api_name, done="Done."):
        """The table's button runs ``function(*table_inputs)`` (see :func:`wire`)."""
        wire(self.table_button, function, self.table_inputs, outputs, status, api_name, done)

    def on_files(self, function, outputs, status, api_name, done="Done."):
        """The files' button runs ``function(*files_inputs)`` (see :func:`wire`)."""
        wire(self.files_button, function, self.files_inputs, outputs, status, api_name, done)


def pasted_table(example, columns, datatype, label, *, wrap=False):
    """The editable table of a page's paste tab: one case per row, the ``columns`` fixed,
    ``example`` (the card's example) as the first value, cells given to handlers as lists."""
    return gr.Dataframe(value=example, headers=columns, datatype=datatype, type="array",
                        column_count=(len(columns), "fixed"), interactive=True, wrap=wrap,
                        label=label)


def text_pairs_table(example, columns, label):
    """The ``table`` argument of :func:`page_inputs` for pairs of texts: a builder of a
    pasted table of two wrapped string columns."""
    return lambda: pasted_table(example, columns, ["str", "str"], label, wrap=True)


def page_inputs(title, *, table, files_help, file_labels, options, table_options=None,
                note=None, paste_tab="Paste values", action="Compute from", options_scale=1):
    """The top of a metric page, called inside its ``gr.Blocks``.

    Lays out, in this order: the title with the card's description (:func:`card_header`),
    the button that unfolds the card (:func:`card_button`), ``note`` (Markdown, optional),
    then a row of a "paste" tab (``paste_tab``: the table ``table()`` builds, the components
    ``table_options()`` builds in a row under it, a "<action> the table" button), an "Upload
    files" tab (``files_help`` Markdown, one upload per label of ``file_labels``, a
    "<action> the files" button) and, at ``options_scale`` (the tabs have 3), a column of
    the components ``options()`` builds. The builders are called where their components go.

    Returns:
        :class:`PageInputs`; pass its ``card_button`` to :func:`card_accordion`.
    """
    gr.Markdown(card_header(title))
    open_card = card_button()
    if note:
        gr.Markdown(note)
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Tab(paste_tab):
                pasted = table()
                below_table = []
                if table_options is not None:
                    with gr.Row():
                        below_table = list(table_options())
                table_button = gr.Button(f"{action} the table", variant="primary")
            with gr.Tab("Upload files"):
                gr.Markdown(files_help)
                uploads = [upload_file(label) for label in file_labels]
                files_button = gr.Button(f"{action} the files", variant="primary")
        with gr.Column(scale=options_scale):
            shared = list(options())
    return PageInputs(open_card, pasted, below_table, table_button, uploads, files_button,
                      shared)


def summary_outputs(rows, result):
    """A row of the result as ``[key, value]`` rows (``rows``, from :func:`result_rows`) and
    the full result as JSON (``result``, unfolded): ``(table, json)`` components."""
    with gr.Row():
        table = gr.Dataframe(value=rows, headers=["key", "value"], type="array",
                             interactive=False, label="Result (rounded; the JSON is exact)")
        full = gr.JSON(value=result, label="Full result (JSON)", open=True)
    return table, full


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


def table_values(rows, parsers):
    """The columns of a pasted table, every cell parsed: ``{name: [value, ...]}``.

    ``parsers`` is ``{column name: parse}`` in the table's column order; ``parse(cell,
    where)`` (e.g. :func:`number`, :func:`text`) gets ``where`` = ``table row <i>, column
    '<name>'`` (1-based). Blank rows are skipped as by :func:`table_columns`; cells are parsed
    column by column, so the first ``gr.Error`` names the first bad cell of the first column
    that has one.
    """
    columns = table_columns(rows, list(parsers))
    return {name: [parse(value, f"table row {index + 1}, column {name!r}")
                   for index, value in enumerate(columns[name])]
            for name, parse in parsers.items()}


def number(value, where):
    """A table or file cell as a float (numbers and numeric text; NaN and ±inf are passed on
    for the metric to refuse with its own message, naming the input's index). Raises
    ``gr.Error`` naming ``where`` for anything else."""
    if isinstance(value, bool) or value is None:
        raise page_error(f"{where} = {value!r}: expected a number")
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # beyond the float range: passed on for the metric to refuse
            return value
    if isinstance(value, str) and value.strip() and "_" not in value:  # float() takes 1_000
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise page_error(f"{where} = {boundary.shown(value)}: expected a number")


def _validated(check, value, where, **limits):
    """``check(value, where, **limits)`` of the validator; its refusal as a ``gr.Error``."""
    try:
        return check(value, where, **limits)
    except boundary.BoundaryError as error:
        raise page_error(str(error)) from None


def integer(value, where, *, low=boundary.INT64_MIN, high=boundary.INT64_MAX):
    """A cell or option as an int in ``[low, high]``: a whole number (2.0 is 2, 1.5 is
    refused, never rounded), numeric text read as :func:`number` reads it."""
    if isinstance(value, str):
        value = number(value, where)
    return _validated(boundary.check_integer, value, where, low=low, high=high)


def count(value, where, *, low, high, what="an integer"):
    """A work parameter as an int within the page's cap (``boundary.check_count``)."""
    return _validated(boundary.check_count, value, where, low=low, high=high, what=what)


def seed(value, where="seed"):
    """A seed: an integer in ``[0, 2**32 - 1]`` (``boundary.check_seed``)."""
    return _validated(boundary.check_seed, value, where)


def finite(value, where, *, low=-math.inf, high=math.inf, low_open=False, high_open=False,
           what="a number"):
    """An option as a finite float in its range (``boundary.check_number``)."""
    return _validated(boundary.check_number, value, where, low=low, high=high,
                      low_open=low_open, high_open=high_open, what=what)


def drawn(draw, *arguments):
    """``draw(*arguments)``, or ``None`` when drawing fails, the reason then added to the
    status line of the running handler (:func:`guarded`): a plot never turns a computed
    result into an error, the numbers are shown without it."""
    try:
        return draw(*arguments)
    except Exception as error:  # a plotting library's failure is the plot's, not the result's
        note = f"a plot could not be drawn ({one_line(error)}); the numbers are complete"
        getattr(_NOTES, "items", []).append(note)
        return None


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
    order = _records_by_id(reference_records, id_column)
    found, unknown, duplicate = _predictions_by_id(prediction_records, order, id_column)
    missing = [repr(key) for key in order if key not in found]
    if unknown or duplicate or missing:
        raise page_error(f"{what} does not match the {reference_what} by {id_column!r}: "
                         + _mismatch_parts(unknown, duplicate, missing, len(order),
                                           reference_what))
    ids = list(order)
    predictions = {column: [(f"{found[key][0]}, column {column!r}", found[key][1][column])
                            for key in ids] for column in prediction_columns}
    references = {column: [(f"{order[key][0]}, column {column!r}", order[key][1].get(column))
                           for key in ids] for column in reference_columns}
    return ids, predictions, references


def _records_by_id(records, id_column):
    """``{id text: (where, record)}`` of the references file in its order; ``gr.Error`` for an
    id given twice."""
    order = {}
    for where, record in records:
        key = str(record[id_column])
        if key in order:
            raise page_error(f"{where}, column {id_column!r}: sample id {key!r} appears twice")
        order[key] = (where, record)
    return order


def _predictions_by_id(records, order, id_column):
    """``(found, unknown, duplicate)``: ``{id text: (where, record)}`` of the predictions
    whose id is in ``order`` (the first of each), and the ``'id' (where)`` texts of ids not in
    ``order`` and of repeated ones."""
    found, unknown, duplicate = {}, [], []
    for where, record in records:
        key = str(record[id_column])
        if key not in order:
            unknown.append(f"{key!r} ({where})")
        elif key in found:
            duplicate.append(f"{key!r} ({where})")
        else:
            found[key] = (where, record)
    return found, unknown, duplicate


def _mismatch_parts(unknown, duplicate, missing, n_references, reference_what):
    """The id mismatches as one text: unknown, duplicate, then missing ids (each listed)."""
    parts = []
    if unknown:
        parts.append(f"{len(unknown)} id(s) not in the {reference_what}: {_listing(unknown)}")
    if duplicate:
        parts.append(f"{len(duplicate)} duplicate id(s): {_listing(duplicate)}")
    if missing:
        parts.append(f"{len(missing)} of {n_references} id(s) of the {reference_what} without "
                     f"a prediction: {_listing(missing)}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- results


_INDEXED = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\[(?P<index>\d+)\]")


def _located(message, where):
    """``message`` with the input row it names: a module message starting with
    ``argument[i]`` (0-based) gets `` (<where[argument][i]>)`` — a file line — or
    `` (table row i+1)`` when the caller gave no locations (1-based, as every message)."""
    match = _INDEXED.match(message)
    if not match:
        return message
    index = int(match["index"])
    places = (where or {}).get(match["name"])
    place = (places[index] if places is not None and index < len(places)
             else f"table row {index + 1}")
    return f"{message} ({place})"


_LOCATIONS = threading.local()


@contextlib.contextmanager
def located(where):
    """Within the block, :func:`compute` names the file line of the value a module's message
    points at: ``where`` is ``{argument: [location, ...]}`` (e.g. the ``where`` strings of
    :func:`read_aligned`)."""
    _LOCATIONS.where = where
    try:
        yield
    finally:
        _LOCATIONS.where = None


def places(pairs):
    """The locations (``where`` strings) of ``[(where, value), ...]`` from :func:`read_aligned`."""
    return [where for where, _ in pairs]


def wire(button, function, inputs, outputs, status, api_name, done="Done."):
    """``button.click`` of ``guarded(function)``: ``outputs`` then the ``status`` box."""
    button.click(guarded(function, len(outputs), done), inputs, [*outputs, status],
                 api_name=api_name)


def compute(function, where=None, **arguments):
    """``function(**arguments)``; any exception becomes ``gr.Error`` carrying the module's own
    message as one line, with the 1-based table row or file line of the value it names
    (``where``: ``{argument: [location, ...]}``, optional)."""
    where = where if where is not None else getattr(_LOCATIONS, "where", None)
    try:
        return function(**arguments)
    except Exception as error:  # ValueError of bad input, ImportError / RuntimeError of options
        raise page_error(_located(one_line(error), where)) from None


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
