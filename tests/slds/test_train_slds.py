"""``courtbench train slds`` on CPU with a tiny Qwen2-style model built here (no download):
the sweep picks the rate with the lowest validation loss, the loss falls, the model folder
loads in transformers, ``generate slds --local-model`` writes every row and ``evaluate slds``
scores it; the training prompt is the zero-shot prompt of ``generate slds``. Skipped without
the ``train`` extra."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MODEL_TIER_SKIP as MODEL_TIER

pytest.importorskip("peft", reason=MODEL_TIER)
pytest.importorskip("accelerate", reason=MODEL_TIER)
torch = pytest.importorskip("torch", reason=MODEL_TIER)

from training_helpers import tiny_causal_lm  # noqa: E402

from courtbench.cli import main  # noqa: E402
from courtbench.errors import CourtbenchError  # noqa: E402
from slds.build import build_synthetic  # noqa: E402
from slds.data import read_split  # noqa: E402
from slds.generate import build_messages, load_prompts  # noqa: E402
from slds.training.examples import IGNORE, encode  # noqa: E402
from slds.training.lora import choose_targets  # noqa: E402

torch.set_num_threads(1)


def _absent(name):
    raise CourtbenchError(f"metric module {name!r} not found (test: absent)")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("train_slds")
    build_synthetic(root / "slds", decisions=10, seed=1, properties_loader=_absent)
    rows = read_split(root / "slds", ["train", "validation", "test"],
                      columns=("decision", "headnote"))
    prompts = load_prompts()
    corpus = [text[:3000] for text in rows["decision"]] + list(rows["headnote"]) + [
        prompts.system, prompts.user]
    return {"data": root / "slds", "model": tiny_causal_lm(corpus, root / "qwen"), "root": root}


def _train(built, out: Path, *extra: str) -> int:
    return main(["train", "slds", "--data", str(built["data"]), "--base-model",
                 str(built["model"]), "--out", str(out), "--max-length", "480",
                 "--max-target-tokens", "48", "--effective-batch", "4", "--per-device-batch",
                 "2", "--warmup", "0", "--threads", "1", "--logging-steps", "2", *extra])


def test_sweep_train_generate_evaluate(built, capsys):
    out = built["root"] / "run"
    assert _train(built, out, "--lr-sweep", "1e-4,2e-2", "--sweep-steps", "3",
                  "--max-steps", "12", "--eval-steps", "6") == 0
    err = capsys.readouterr().err
    assert "falling back to AdamW" in err
    manifest = json.loads((out / "manifest.json").read_text())
    sweep = manifest["lr_sweep"]
    losses = {rate: result["eval_loss"] for rate, result in sweep["results"].items()}
    assert sweep["chosen"] == float(min(losses, key=losses.get)) == manifest["resolved"]["learning_rate"]
    assert manifest["lora"]["targets"] == ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                           "up_proj", "down_proj"]
    assert manifest["resolved"]["optimizer"] == "adamw_torch"
    assert manifest["selected_checkpoint"].startswith("final/checkpoints/checkpoint-")
    train_losses = [entry["loss"] for entry in manifest["log_history"] if "loss" in entry]
    assert train_losses[-1] < train_losses[0]
    assert len(manifest["base_model"]["sha256"]) == 64 and manifest["data"]["fingerprint"]

    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(out / "model")
    assert not any("lora" in name for name, _ in model.named_parameters())  # merged

    preds = built["root"] / "preds.jsonl"
    assert main(["generate", "slds", "--data", str(built["data"]), "--local-model",
                 str(out / "model"), "--config", "all", "--shots", "0", "--max-tokens", "8",
                 "--max-model-len", "480", "--out", str(preds)]) == 0
    lines = [json.loads(line) for line in preds.read_text().splitlines()]
    test_ids = sorted(read_split(built["data"], "test")["sample_id"])
    assert sorted(line["sample_id"] for line in lines) == test_ids
    assert all(line["error"] is None and line["prediction"] for line in lines)
    written = json.loads(preds.with_name(preds.name + ".manifest.json").read_text())
    assert written["backend"] == "transformers (local)" and written["shots"] == 0
    capsys.readouterr()
    assert main(["evaluate", "slds", "--data", str(built["data"]), "--predictions", str(preds),
                 "--out", str(built["root"] / "report"), "--resamples", "20"]) == 0, \
        capsys.readouterr().err

    # a resumed run reads the finished sweep and continues from the last final checkpoint
    assert _train(built, out, "--lr-sweep", "1e-4,2e-2", "--sweep-steps", "3",
                  "--max-steps", "12", "--eval-steps", "6", "--resume") == 0
    resumed = json.loads((out / "manifest.json").read_text())
    assert resumed["lr_sweep"] == sweep and resumed["resumed_from"] == "checkpoint-12"


def test_adapter_folder_generates_through_peft(built, tmp_path):
    out = tmp_path / "adapter_run"
    assert _train(built, out, "--lr-sweep", "none", "--max-steps", "2", "--save", "adapter",
                  "--no-gradient-checkpointing", "--lora-targets", "q_proj,v_proj") == 0
    assert (out / "model" / "adapter_config.json").is_file()
    preds = tmp_path / "a.jsonl"
    assert main(["generate", "slds", "--data", str(built["data"]), "--local-model",
                 str(out / "model"), "--config", "de_de", "--shots", "0", "--max-tokens", "4",
                 "--max-model-len", "480", "--out", str(preds)]) == 0
    assert preds.read_text().count("\n") == 1


def test_training_prompt_is_the_zero_shot_generation_prompt(built):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(built["model"])
    prompts = load_prompts()
    decision, headnote = "the court decided " * 3, "Art. 8 ZGB"
    example = encode(tokenizer, prompts, decision, headnote, "fr", max_length=480,
                     max_target_tokens=48)
    rendered = tokenizer.apply_chat_template(list(build_messages(prompts, decision, "fr")),
                                             add_generation_prompt=True, tokenize=False)
    prompt = tokenizer(rendered, add_special_tokens=False)["input_ids"]
    assert example.input_ids[:len(prompt)] == prompt and not example.decision_cut
    assert example.labels[:len(prompt)] == [IGNORE] * len(prompt)
    assert example.labels[-1] == tokenizer.eos_token_id
    long = encode(tokenizer, prompts, "the court decided " * 400, headnote, "fr",
                  max_length=480, max_target_tokens=48)
    assert long.decision_cut and len(long.input_ids) <= 480
    target = len(tokenizer(headnote, add_special_tokens=False)["input_ids"]) + 1
    assert long.labels[-target:] == long.input_ids[-target:]
    assert long.labels[:-target] == [IGNORE] * (len(long.labels) - target)


def test_lora_targets_and_bad_options(built, tmp_path, capsys):
    assert choose_targets(("q_proj", "gate_proj", "down_proj"),
                          {"qkv_proj", "gate_up_proj", "down_proj"}) == (
        ["gate_up_proj", "qkv_proj", "down_proj"], ["q_proj", "gate_proj"])
    for extra, message in [(["--lora-targets", "nothing_proj"], "has none of these"),
                           (["--max-target-tokens", "480"], "must leave room")]:
        code = _train(built, tmp_path / "bad", *extra)
        err = capsys.readouterr().err
        assert code == 1 and message in err and "Traceback" not in err, err
        assert not (tmp_path / "bad").exists()  # refused before the run folder
    generate = ["generate", "slds", "--data", str(built["data"]), "--config", "de_de",
                "--out", str(tmp_path / "g.jsonl")]
    for extra, message in [([], "--model is required (a model name at --base-url, or an Inspect model"),
                           (["--local-model", str(built["model"]), "--model", "m"],
                            "give it without --base-url / --model")]:
        assert main([*generate, *extra]) == 1
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--lr-sweep", ""], "argument --lr-sweep: expected learning rates separated by commas, "
                         "or none, got ''"),
    (["--lr-sweep", "fast"], "item 1 of 'fast': expected a finite learning rate"),
    (["--lr-sweep", "1e-4,1e-5,0.0001"], "got '1e-4' and '0.0001', the same value"),
    (["--configs", "de_xx"], "item 1 of 'de_xx': expected one of 'de_de'"),
    (["--configs", "de_fr,it_it,de_fr"], "expected distinct language pairs, got 'de_fr' twice"),
    (["--configs", ""], "expected language pairs separated by commas, got ''"),
    (["--lora-targets", "q_proj,q_proj"], "expected distinct module names"),
    (["--max-steps", "1000000000"], "argument --max-steps: expected a number of steps in "
                                    "[1, 1,000,000], or -1"),
    (["--sweep-steps", "0"], "argument --sweep-steps: expected a number of steps in [1, "),
    (["--lora-dropout", "1"], "expected a dropout >= 0 and < 1, got '1'"),
])
def test_sweep_and_pair_options_are_refused_while_parsing(built, tmp_path, capsys, extra,
                                                          message):
    with pytest.raises(SystemExit) as exit_info:
        _train(built, tmp_path / "bad", *extra)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "bad").exists()


def test_a_sweep_counts_toward_the_steps_ceiling(built, tmp_path, capsys, monkeypatch):
    from courtbench.training import options

    monkeypatch.setattr(options, "MAX_STEPS", 20)
    code = _train(built, tmp_path / "long", "--lr-sweep", "1e-4,2e-2", "--sweep-steps", "8",
                  "--max-steps", "6")
    err = capsys.readouterr().err
    assert code == 1 and "--max-steps 6 come to 6 optimizer steps (plus 2 sweep run(s) of " \
        "--sweep-steps 8): more than the ceiling of 20 steps" in err, err
    assert not (tmp_path / "long").exists()
