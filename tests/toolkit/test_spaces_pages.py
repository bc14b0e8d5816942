"""Every metric module's Space page, served by its own app.py in a subprocess and used through
gradio_client: the card's example and an uploaded predictions file give exactly what the plain
metric function gives; bad input gives the module's own message in the page.

One server per module, all started together once (start-up dominates the runtime).
"""

from __future__ import annotations

import json

import pytest
from fake_chat_server import FakeChatServer, Reply, judgement
from spaces_helpers import gradio_client, judge_port, ok, page_error, page_logs, pages, table

from courtbench.metric_modules import load_metric_module

pytestmark = pytest.mark.slow
handle_file = gradio_client.handle_file
__all__ = ["judge_port", "page_logs", "pages"]  # fixtures


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return handle_file(str(path))


def _jsonl(path, records):
    return _write(path, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))


def _message_of(function, **arguments) -> str:
    with pytest.raises(ValueError) as error:
        function(**arguments)
    return str(error.value)


def test_npd_regression_page(pages, tmp_path):
    npd = load_metric_module("npd_regression").npd_regression
    columns = ["prediction", "reference", "groups"]
    example = [[0, 0, "Art. 3"], [1000, 1500, "Art. 6"], [5000, 5000, "Art. 3; Art. 6"],
               [40000, 60000, ""]]
    expected = npd(predictions=[0, 1000, 5000, 40000], references=[0, 1500, 5000, 60000],
                   groups=["Art. 3", "Art. 6", ["Art. 3", "Art. 6"], []])
    predictions = _write(tmp_path / "p.csv", "case_id,prediction\n3,5000\n1,0\n2,1000.0\n")
    references = _jsonl(tmp_path / "r.jsonl", [
        {"case_id": 1, "reference": 0, "groups": ["A"]},
        {"case_id": 2, "reference": 1500, "groups": []},
        {"case_id": 3, "reference": 4000, "groups": ["A", "B"]}])
    too_few = _write(tmp_path / "few.csv", "case_id,prediction\n1,0\n")
    client = pages["npd_regression"]
    rows, result, scatter, buckets = ok(client, table(columns, example), 0.5,
                                                    api_name="/from_table")
    assert result == expected
    assert ["mae", "5,125"] in rows["data"] and ["groups.Art. 6.mae", "250"] in rows["data"]
    assert scatter["type"] == buckets["type"] == "matplotlib" and scatter["plot"]

    _, result, _, _ = ok(client, predictions, references, 150, api_name="/from_files")
    assert result == npd(predictions=[0, 1000, 5000], references=[0, 1500, 4000],
                         groups=[["A"], [], ["A", "B"]], zero_threshold=150)

    bad = table(columns, [[1, 1, ""], [-5, 2, ""]])
    assert page_error(client, bad, 0.5, api_name="/from_table") == _message_of(
        npd, predictions=[1.0, -5.0], references=[1.0, 2.0]) + " (table row 2)"
    message = page_error(client, too_few, references, 0.5, api_name="/from_files")
    assert "2 of 3 id(s) of the references file without a prediction: '2', '3'" in message


def test_metric_page_errors_name_the_file_line_and_clear_the_previous_result(pages, tmp_path):
    """A NaN in an uploaded file is reported at its file line (1-based), the message is one
    line in the status box, and the outputs of the failed call are cleared: the previous
    result would read as the answer to the failed input."""
    client = pages["npd_regression"]
    predictions = _write(tmp_path / "p.csv", "case_id,prediction\n1,0\n2,nan\n")
    references = _write(tmp_path / "r.csv", "case_id,reference\n1,0\n2,10\n")
    *outputs, status = client.predict(predictions, references, 0.5, api_name="/from_files")
    assert status.startswith("Error: predictions[1]") and "\n" not in status
    assert status.endswith("(predictions file p.csv line 3, column 'prediction')")
    rows, result, scatter, buckets = outputs
    assert rows["data"] == [] and result is None and scatter is None and buckets is None


def test_zero_f1_page(pages, tmp_path):
    zero_f1 = load_metric_module("zero_f1").zero_f1
    columns = ["prediction", "reference"]
    client = pages["zero_f1"]
    rows, result, confusion = ok(client,
        table(columns, [[0, 0], [0.2, 1200], [800, 0], [3000, 3000]]), 0.5,
        api_name="/from_table")
    assert result == zero_f1(predictions=[0, 0.2, 800, 3000], references=[0, 1200, 0, 3000])
    assert ["zero_f1", "0.5"] in rows["data"]
    assert confusion["data"] == [["predicted zero", 1, 1], ["predicted non-zero", 1, 1]]

    predictions = _jsonl(tmp_path / "p.jsonl", [{"case_id": "b", "prediction": 400},
                                                 {"case_id": "a", "prediction": 90}])
    references = _write(tmp_path / "r.csv", "case_id,reference\na,100\nb,300\n")
    _, result, _ = ok(client, predictions, references, 150, api_name="/from_files")
    assert result == zero_f1(predictions=[90, 400], references=[100, 300], zero_threshold=150)

    # the table of cases by class counts as the metric does: at or below is zero
    _, result, confusion = ok(client, table(columns, [[0.5, 0.5], [0.5, 1000], [1000, 0.5],
                                                      [1000, 1000]]), 0.5, api_name="/from_table")
    assert result["support"] == result["predicted_zeros"] == 2
    assert confusion["data"] == [["predicted zero", 1, 1], ["predicted non-zero", 1, 1]]

    assert page_error(client, table(columns, [[0, 0]]), 0, api_name="/from_table") == \
        _message_of(zero_f1, predictions=[0.0], references=[0.0], zero_threshold=0.0)
    message = page_error(client, table(columns, [[0, 0], ["abc", 1]]), 0.5,
                         api_name="/from_table")
    assert message == "table row 2, column 'prediction' = 'abc': expected a number"


def test_bootstrap_mae_page(pages, tmp_path):
    module = load_metric_module("bootstrap_mae")
    columns = ["system 1", "system 2", "reference"]
    system1 = [0, 900, 5200, 48000, 0, 12000]
    system2 = [3200] * 6
    references = [0, 1000, 5000, 50000, 0, 10000]
    rows = [list(values) for values in zip(system1, system2, references, strict=True)]
    client = pages["bootstrap_mae"]
    summary, result, figure = ok(client, table(columns, rows), "paired (default)", 0.05,
                                             1000, 12345, api_name="/from_table")
    assert result == module.bootstrap_mae(predictions1=system1, predictions2=system2,
                                          references=references)
    assert ["verdict", "1 better"] in summary["data"] and figure["type"] == "matplotlib"
    _, result, _ = ok(client, table(columns, rows), "single", 0.1, 200, 1,
                                  api_name="/from_table")
    assert result == module.bootstrap_mae_single(predictions=system1, references=references,
                                                 alpha=0.1, n_resamples=200, seed=1)

    first = _write(tmp_path / "one.csv", "case_id,prediction\n" + "".join(
        f"{i},{v}\n" for i, v in reversed(list(enumerate(system1)))))
    second = _jsonl(tmp_path / "two.jsonl", [{"case_id": i, "prediction": v}
                                              for i, v in enumerate(system2)])
    truth = _write(tmp_path / "ref.csv", "case_id,reference\n" + "".join(
        f"{i},{v}\n" for i, v in enumerate(references)))
    _, result, _ = ok(client, first, second, truth, "paired (default)", 0.05, 500, 7,
                                  api_name="/from_files")
    assert result == module.bootstrap_mae(predictions1=system1, predictions2=system2,
                                          references=references, n_resamples=500, seed=7)

    same = [[1, 1, 2], [2, 2, 2], [3, 3, 2]]
    summary, result, _ = ok(client, table(columns, same), "paired (default)", 0.05, 1000, 1,
                            api_name="/from_table")
    assert result["verdict"] == "not significant" and result["prob_1_better"] == 0.0
    message = page_error(client, table(columns, rows), "paired (default)", 0.05, 10_000_000, 1,
                         api_name="/from_table")
    assert message == "n_resamples = 10000000: expected a number of resamples (this page's " \
                      "cap; run the module locally for more) in [2, 100,000]"
    # typed into the page's number box, 1.5 reaches the handler as 1.5 and is refused (it
    # used to be rounded to 2 by the box)
    assert page_error(client, table(columns, rows), "paired (default)", 0.05, 1000, 1.5,
                      api_name="/from_table").startswith("seed = 1.5: expected an integer seed")
    huge = [list(row) for row in rows]
    huge[0][0] = 1e308
    *outputs, status = client.predict(table(columns, huge), "paired (default)", 0.05, 1000, 1,
                                      api_name="/from_table")
    assert status == ("Error: predictions1[0] = 1e+308: expected an amount of money >= 0 and "
                      "<= 1,000,000,000,000 (table row 1)")
    assert outputs[1] is None and outputs[2] is None
    assert page_error(client, table(columns, rows), "paired (default)", 1.5, 1000, 1,
                      api_name="/from_table") == _message_of(
        module.bootstrap_mae, predictions1=system1, predictions2=system2,
        references=references, alpha=1.5)


def test_headnote_similarity_page(pages, tmp_path):
    similarity = load_metric_module("headnote_similarity").headnote_similarity
    columns = ["generated headnote", "gold headnote"]
    generated = "Art. 6 VG; Genugtuung für den Ehemann."
    gold = "Art. 6 VG; Genugtuungsanspruch des Ehemanns."
    client = pages["headnote_similarity"]
    summary, groups, pairs, result = ok(client,
        table(columns, [[generated, gold]]), "de", "(not given: group by headnote language)",
        "unicode", "13a", 1000, 0, api_name="/from_table")
    expected = similarity([generated], [gold], ["de"], return_per_item=True)
    assert result == expected and round(result["rouge1"], 2) == 46.15
    assert summary["data"][0][:2] == ["rouge1", round(expected["rouge1"], 4)]
    assert [row[0] for row in groups["data"]] == ["de"] and len(pairs["data"]) == 1

    predictions = _jsonl(tmp_path / "p.jsonl", [
        {"sample_id": "it1", "prediction": "Il ricorso è respinto."},
        {"sample_id": "fr1", "prediction": "Le recours est rejeté."}])
    references = _write(tmp_path / "r.csv",
                        "sample_id,reference,headnote_language,decision_language\n"
                        "fr1,Le Tribunal rejette le recours.,fr,de\n"
                        "it1,Il ricorso è respinto.,it,it\n")
    _, groups, _, result = ok(client, predictions, references, "unicode", "intl", 100, 0,
                                          api_name="/from_files")
    assert result == similarity(
        ["Le recours est rejeté.", "Il ricorso è respinto."],
        ["Le Tribunal rejette le recours.", "Il ricorso è respinto."], ["fr", "it"],
        ["de", "it"], bleu_tokenize="intl", bootstrap_resamples=100, return_per_item=True)
    assert [row[0] for row in groups["data"]] == ["de_fr", "it_it"]

    assert page_error(client, table(columns, [[generated, " "]]), "de", "de", "unicode", "13a",
                      10, 0, api_name="/from_table") == _message_of(
        similarity, predictions=[generated], references=[" "], prediction_languages=["de"]) \
        + " (table row 1)"
    # tokenizers the page cannot honour (missing MeCab) are not offered; asked for anyway,
    # the page answers with one line, not an "Error" pill without a message
    with pytest.raises(gradio_client.exceptions.AppError) as error:
        client.predict(table(columns, [[generated, generated]]), "de", "de", "unicode",
                       "ja-mecab", 10, 0, api_name="/from_table")
    assert "ja-mecab" in str(error.value) and "\n" not in str(error.value)


def test_summarization_properties_page(pages, tmp_path):
    properties = load_metric_module("summarization_properties").summarization_properties
    columns = ["decision (source)", "headnote (summary)"]
    source = "Der Entscheid wird aufgehoben. Die Sache wird zurückgewiesen."
    summary = "Entscheid aufgehoben und zurückgewiesen."
    client = pages["summarization_properties"]
    aggregates, formulaic, pairs, histogram, result = ok(client,
        table(columns, [[source, summary]]), "de", "de", 100, 10, 0, api_name="/from_table")
    expected = properties([source], [summary], ["de"], ["de"], return_per_pair=True)
    assert result == expected
    assert result["per_pair"]["coverage"] == [0.8] and result["per_pair"]["density"] == [1.2]
    assert pairs["data"][0][:5] == [1, "de→de", round(expected["per_pair"]["compression_ratio"][0], 4),
                                    0.8, 1.2]
    assert aggregates["data"][1][0] == "coverage" and histogram["type"] == "matplotlib"
    assert [row[0] for row in formulaic["data"]] == ["de"]

    headnotes = _write(tmp_path / "h.csv", "sample_id,prediction\n"
                       "2,Le recours est rejeté.\n1,Entscheid aufgehoben.\n")
    decisions = _jsonl(tmp_path / "d.jsonl", [
        {"sample_id": 1, "source": source, "source_language": "de", "summary_language": "de"},
        {"sample_id": 2, "source": source, "source_language": "de",
         "summary_language": "fr"}])
    *_, result = ok(client, headnotes, decisions, 2, 3, 5, api_name="/from_files")
    assert result == properties([source, source],
                                ["Entscheid aufgehoben.", "Le recours est rejeté."],
                                ["de", "de"], ["de", "fr"], formulaicness_subset_size=2,
                                formulaicness_subsets=3, seed=5, return_per_pair=True)
    assert result["per_pair"]["coverage"][1] is None  # cross-lingual pair

    message = page_error(client, table(columns, [[source, summary], [" ", summary]]), "de", "de",
                         100, 10, 0, api_name="/from_table")
    assert message.startswith("table row 2, column 'decision (source)': the decision is empty")
    several = [[f"Der Entscheid {i} wird aufgehoben.", f"Entscheid {i} aufgehoben."]
               for i in range(4)]
    _, formulaic, *_ = ok(client, table(columns, several), "de", "de", 100, 10, 0,
                          api_name="/from_table")
    assert formulaic["data"][0][0] == "de" and formulaic["data"][0][1] is not None
    *_, status = client.predict(table(columns, [[source, summary]]), "de", "de", 100, 10, 0,
                                api_name="/from_table")
    assert "Formulaicness is blank" in status

    assert page_error(client, table(columns, [[source, summary]]), "de", "de", 1, 10, 0,
                      api_name="/from_table") == _message_of(
        properties, sources=[source], summaries=[summary], source_languages=["de"],
        summary_languages=["de"], formulaicness_subset_size=1)


def test_headnote_judge_page(pages, page_logs, judge_port):
    headnote_judge = load_metric_module("headnote_judge").headnote_judge
    columns = ["generated headnote", "gold headnote"]
    secret = "sk-page-test-secret"
    generated = "Art. 8 ZGB; Beweislast für den Bestand einer Forderung."
    gold = "Art. 8 ZGB; Verteilung der Beweislast bei bestrittenen Forderungen (E. 3)."
    options = ["m", secret, 256, 0, 2, 0, 10, False]
    client = pages["headnote_judge"]
    with FakeChatServer(lambda request, attempt: Reply(judgement([3, 3, 3, 2, 2])),
                        port=judge_port) as server:
        summary, samples, result = ok(client, table(columns, [[generated, gold]]), "de", "fr",
                                                  server.url, *options, api_name="/from_table")
        assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
        expected = headnote_judge([generated], [gold], ["de"], ["fr"], base_url=server.url,
                                  model="m", api_key=secret, max_tokens=256, seed=0,
                                  concurrency=2, max_retries=0, timeout=10, progress=False)
        assert result == expected and result["score"] == 80.0
        assert samples["data"][0][:6] == [1, 0, "fr_de", "scored", "", 80.0]
        assert secret not in json.dumps([summary, samples, result])

        assert page_error(client, table(columns, [[generated, ""]]), "de", "fr", server.url,
                          *options, api_name="/from_table") == _message_of(
            headnote_judge, predictions=[generated], references=[""], headnote_languages=["de"],
            decision_languages=["fr"], base_url=server.url, model="m") + " (table row 1)"
        before = len(server.requests)
        elsewhere = "http://127.0.0.1:9/v1"
        # the endpoint is a choice among the owner's endpoints: another URL is refused
        # before the handler runs (the handler refuses it too, see test_judge_endpoint_rules)
        with pytest.raises(gradio_client.exceptions.AppError) as error:
            client.predict(table(columns, [[generated, gold]]), "de", "fr", elsewhere, *options,
                           api_name="/from_table")
        assert "not in the list of choices" in str(error.value)
        flood = ["m", secret, 256, 0, 10000, 0, 10, False]
        assert page_error(client, table(columns, [[generated, gold]]), "de", "fr", server.url,
                          *flood, api_name="/from_table") == \
            "concurrency = 10000: expected an integer concurrency (this page's cap) in [1, 8]"
        requests = len(server.requests)
    assert requests == before  # refused calls never reach an endpoint
    assert secret not in (page_logs / "headnote_judge.log").read_text(errors="replace")


def test_every_page_has_run_history_off(pages):
    """Gradio's run history would keep every input (an API key too) in the browser."""
    import urllib.request

    for name, client in pages.items():
        with urllib.request.urlopen(client.src.rstrip("/") + "/config", timeout=30) as answer:
            config = json.loads(answer.read())
        assert config["run_history"] is False, name
        assert "runs" not in config.get("footer_links", []), name
