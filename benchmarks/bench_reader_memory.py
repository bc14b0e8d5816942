"""What a 1 MB and a 100 MB input cost each reader of user files: peak RSS growth and seconds.

Each reading runs in a fresh interpreter so that its peak RSS is that reading's (plus the
imports). Inputs: the ECtHR-NPD release reader on a valid-shaped release (synthetic rows
repeated under new case ids) and on a file whose quote is never closed; the prediction-file
reader (CSV and JSON Lines); the SLDS long-row reader (JSON Lines, with validation) and the
entscheidsuche search-response reader. The figures to read are ``peak_rss_mib`` and
``rss_per_input_byte``: the growth of peak RSS beyond what the imports reached, divided by
the input size (0 when the reading stayed below the import peak). The release reader refuses
files above ``ecthr_npd.reader.MAX_SOURCE_BYTES`` (64 MiB) before reading them, so its
100 MB case reports that refusal.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SIZES = {"1MB": 1_000_000, "100MB": 100_000_000}

_RUN = """
import json, resource, sys, time
from pathlib import Path
from courtbench.errors import CourtbenchError
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
reader, path = sys.argv[1], Path(sys.argv[2])
if reader == "ecthr":
    from ecthr_npd.reader import read_case_level as read
elif reader == "predictions":
    from courtbench.predictions import read_predictions
    n = int(sys.argv[3])
    read = lambda p: read_predictions(p, "case_id", "prediction", [str(i) for i in range(n)], str)
else:
    from slds.readers import read_source
    from slds.validate import validate_rows
    read = lambda p: validate_rows(read_source(p).rows, detector=lambda text: ("de", 1.0))
before = rss()
start = time.perf_counter()
try:
    read(path)
    outcome = "read"
except CourtbenchError as error:
    outcome = "refused: " + str(error)[:160]
print(json.dumps({"seconds": time.perf_counter() - start, "before": before, "after": rss(),
                  "outcome": outcome}))
"""


def _ecthr_release(path: Path, size: int) -> int:
    from ecthr_npd.synthetic import write_synthetic

    seed_file = write_synthetic(path.with_name("seed.csv"), n=2_000)
    header, *rows = list(csv.reader(io.StringIO(seed_file.read_text(encoding="utf-8"),
                                                newline="")))
    block = io.StringIO()
    csv.writer(block, lineterminator="\n").writerows(row[1:] for row in rows)
    tails = block.getvalue().splitlines(keepends=True)
    per_copy = sum(len(t) + 14 for t in tails)
    copies = max(1, size // per_copy)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(header) + "\n")
        for copy in range(copies):
            handle.write("".join(f"{copy:03d}-{number:09d},{tail}"
                                 for number, tail in enumerate(tails)))
    return copies * len(rows)


def _unclosed_quote(path: Path, size: int) -> None:
    from ecthr_npd import schema

    with open(path, "w", encoding="utf-8") as handle:
        handle.write(",".join(schema.HEADER) + '\n"')
        chunk = "x" * 1_000_000
        for _ in range(size // len(chunk)):
            handle.write(chunk)


def _predictions(path: Path, size: int) -> int:
    """Generated-headnote predictions (~1.6 KB each, as SLDS's), ids 0..n-1: the realistic
    way a predictions file reaches 100 MB."""
    jsonl = path.suffix == ".jsonl"
    text = "Art. 8 BV; Anspruch auf Achtung des Privatlebens. Erwägung 2.1 ist massgebend. " * 20
    count = size // (len(text) + 20)
    lines = [json.dumps({"case_id": str(i), "prediction": text}, ensure_ascii=False) if jsonl
             else f'{i},"{text}"' for i in range(count)]
    path.write_text(("" if jsonl else "case_id,prediction\n") + "\n".join(lines) + "\n",
                    encoding="utf-8")
    return count


def _slds_rows(path: Path, size: int) -> None:
    decision = ("Sachverhalt. A. Die Beschwerdeführerin rügt eine Verletzung von Art. 8 BV. "
                * 600)  # ~48 KB, a typical decision
    with open(path, "w", encoding="utf-8") as handle:
        number = 0
        while handle.tell() < size:
            for language in ("de", "fr", "it"):
                handle.write(json.dumps({
                    "decision_id": f"d{number}", "decision": decision, "decision_language": "de",
                    "headnote": f"Regeste {number} {language}.", "headnote_language": language,
                    "year": 1960 + number % 60, "volume": "II",
                    "url": f"https://example.org/{number}"}, ensure_ascii=False) + "\n")
            number += 1


def _search_response(path: Path, size: int) -> None:
    content = "Sachverhalt\nA. Der Text des Entscheids. " * 1_200  # ~48 KB
    hits = []
    total = 0
    while total < size:
        hit = {"_id": f"x{len(hits)}", "_index": "ch_bge", "_source": {
            "hierarchy": ["CH_BGE"], "reference": [f"BGE {100 + len(hits) % 50} II 1"],
            "date": f"{1974 + len(hits) % 50}-01-01", "language": "de",
            "abstract": {"de": f"Regeste {len(hits)}", "fr": f"Régeste {len(hits)}",
                         "it": f"Regesto {len(hits)}"},
            "attachment": {"content": content, "content_url": f"https://x.ch/{len(hits)}"}}}
        hits.append(hit)
        total += len(content) + 400
    path.write_text(json.dumps({"hits": {"hits": hits}}, ensure_ascii=False), encoding="utf-8")


def _measure(reader: str, path: Path, *extra: str) -> dict:
    process = subprocess.run([sys.executable, "-c", _RUN, reader, str(path), *extra],
                             capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parent.parent)
    run = json.loads(process.stdout.strip().splitlines()[-1])
    size = path.stat().st_size
    growth = run["after"] - run["before"]
    # growth beyond the peak the imports reached; 0 means the reading stayed below it
    return {"input_mib": size / 2**20, "seconds": run["seconds"],
            "peak_rss_mib": run["after"] / 2**20, "peak_rss_after_imports_mib":
            run["before"] / 2**20, "rss_growth_mib": growth / 2**20,
            "rss_per_input_byte": growth / size, "outcome": run["outcome"]}


def main() -> dict:
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-readers-") as tmp:
        folder = Path(tmp)
        for label, size in SIZES.items():
            print(f"  inputs of {label}", file=sys.stderr, flush=True)
            path = folder / f"release_{label}.csv"
            _ecthr_release(path, size)
            figures[f"ecthr_release_{label}"] = _measure("ecthr", path)
            path.unlink()
            path = folder / f"quote_{label}.csv"
            _unclosed_quote(path, size)
            figures[f"ecthr_unclosed_quote_{label}"] = _measure("ecthr", path)
            path.unlink()
            for suffix in (".csv", ".jsonl"):
                path = folder / f"predictions_{label}{suffix}"
                count = _predictions(path, size)
                figures[f"predictions{suffix.replace('.', '_')}_{label}"] = _measure(
                    "predictions", path, str(count))
                path.unlink()
            path = folder / f"slds_{label}.jsonl"
            _slds_rows(path, size)
            figures[f"slds_rows_jsonl_{label}"] = _measure("slds", path)
            path.unlink()
            path = folder / f"search_{label}.json"
            _search_response(path, size)
            figures[f"entscheidsuche_{label}"] = _measure("slds", path)
            path.unlink()
    return figures


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
