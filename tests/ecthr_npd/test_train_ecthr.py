"""``courtbench train ecthr_npd`` on CPU with tiny encoders built here (no download): the loss
falls, the predictions file passes ``evaluate``, late fusion reads the structured features,
and a killed run resumes to bit-identical weights. Skipped without the ``train`` extra."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import MODEL_TIER_SKIP as MODEL_TIER

pytest.importorskip("transformers", reason=MODEL_TIER)
pytest.importorskip("accelerate", reason=MODEL_TIER)
torch = pytest.importorskip("torch", reason=MODEL_TIER)

from training_helpers import tiny_encoder, write_facts  # noqa: E402

from courtbench.cli import build_parser, main  # noqa: E402
from courtbench.training import run_folder  # noqa: E402
from ecthr_npd.build import build_synthetic  # noqa: E402
from ecthr_npd.training.examples import Standardiser, chunk_tokens  # noqa: E402

torch.set_num_threads(1)
REPO = Path(__file__).resolve().parents[2]
STEPS = 40


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("train_ecthr")
    build_synthetic(root / "ecthr", n=60, seed=1)
    texts = write_facts(root / "ecthr")
    corpus = [text for split in texts.values() for text in split]
    return {"data": root / "ecthr", "modernbert": tiny_encoder(corpus, root / "mbert",
                                                               kind="modernbert"),
            "bert": tiny_encoder(corpus, root / "bert"), "root": root}


def _args(built, out: Path, *extra: str) -> list[str]:
    return ["train", "ecthr_npd", "--data", str(built["data"]), "--text-model",
            str(built["modernbert"]), "--arch", "modernbert", "--max-length", "48",
            "--effective-batch", "4", "--per-device-batch", "2", "--learning-rate", "2e-3",
            "--max-steps", str(STEPS), "--eval-steps", "5", "--logging-steps", "5",
            "--save-total-limit", "3", "--threads", "1", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def full_run(built) -> Path:
    out = built["root"] / "full"
    assert main(_args(built, out)) == 0
    return out


def test_loss_falls_and_predictions_pass_evaluate(built, full_run, capsys):
    manifest = json.loads((full_run / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    losses = [entry["loss"] for entry in manifest["log_history"] if "loss" in entry]
    assert np.mean(losses[-2:]) < np.mean(losses[:2])
    assert manifest["selected_checkpoint"].startswith("checkpoints/checkpoint-")
    assert (full_run / manifest["selected_checkpoint"]).is_dir()
    assert manifest["resolved"] == {"precision": "fp32", "optimizer": "adamw_torch",
                                    "gradient_accumulation_steps": 2, "max_length": 48,
                                    "chunks": 1}
    assert manifest["options"]["weight_decay"] == 0.01 and manifest["options"]["warmup"] == 0.06
    assert len(manifest["text_model"]["sha256"]) == 64 and manifest["seed"] == 42
    assert {"torch", "transformers", "accelerate"} <= set(manifest["versions"])
    assert manifest["target_standardisation"]["std"] > 0
    capsys.readouterr()
    code = main(["evaluate", "ecthr_npd", "--data", str(built["data"]), "--splits",
                 "validation,test", "--predictions", str(full_run / "predictions" / "modernbert.csv"),
                 "--out", str(built["root"] / "report"), "--resamples", "20", "--no-figures"])
    assert code == 0, capsys.readouterr().err
    report = json.loads((built["root"] / "report" / "report.json").read_text())
    assert "modernbert" in json.dumps(report["scores"])


def _late_fusion(built, out: Path):
    """A short late-fusion run through the recipe's functions (to reach its Trainer)."""
    from ecthr_npd.training import recipe, run

    args = build_parser("train").parse_args([
        "train", "ecthr_npd", "--data", str(built["data"]), "--text-model", str(built["bert"]),
        "--arch", "longformer", "--max-length", "16", "--late-fusion", "--effective-batch",
        "4", "--per-device-batch", "4", "--learning-rate", "5e-3", "--max-steps", "6",
        "--eval-steps", "3", "--threads", "1", "--fusion-out", "16", "--out", str(out)])
    run._check(args)
    run_folder.prepare(args.out, resume=False)
    prepared = recipe.prepare(args)
    trainer = recipe.make_trainer(args, prepared, [])
    recipe.fit(trainer, args.out, resume=False)
    return prepared, trainer


def test_late_fusion_predictions_follow_the_structured_features(built, tmp_path):
    from ecthr_npd.training import recipe

    prepared, trainer = _late_fusion(built, tmp_path / "fusion")
    test = prepared.examples["test"]
    assert max(len(c) for c in test.chunks) == 2  # longformer: two chunks of 16 tokens
    base = recipe.predict_eur(trainer, test, prepared.standardiser)
    changed = test.with_features(np.flip(test.features, axis=0).copy())
    moved = recipe.predict_eur(trainer, changed, prepared.standardiser)
    assert np.all(base >= 0) and np.abs(base - moved).max() > 1e-6
    again = recipe.predict_eur(trainer, test, prepared.standardiser)
    assert np.array_equal(base, again)


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_weights(built, full_run, tmp_path):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "courtbench", *_args(built, out)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    marker = out / "checkpoints" / "checkpoint-10" / "trainer_state.json"
    deadline = time.monotonic() + 120
    while not marker.is_file() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    assert main(_args(built, out, "--resume", "--learning-rate", "1e-3")) == 1  # other options
    assert main(_args(built, out, "--resume")) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    # checkpoint-10 itself when the kill came after its trainer_state.json was complete
    assert manifest["resumed_from"] in ("checkpoint-5", "checkpoint-10", "checkpoint-15")
    last = f"checkpoints/checkpoint-{STEPS}/model.safetensors"
    assert (out / last).read_bytes() == (full_run / last).read_bytes()
    name = "predictions/modernbert.csv"
    assert (out / name).read_bytes() == (full_run / name).read_bytes()


def test_bad_inputs_are_one_line_errors(built, tmp_path, capsys):
    no_facts = tmp_path / "no_facts"
    shutil.copytree(built["data"], no_facts)
    shutil.rmtree(no_facts / "data" / "facts")
    base = _args(built, tmp_path / "run")
    cases = [
        ([*base[:3], str(no_facts), *base[4:]], "no Facts text"),
        ([*base, "--effective-batch", "3"], "--effective-batch 3: not a multiple"),
        ([*_args(built, tmp_path / "never_started"), "--resume"], "--resume: --out"),
    ]
    for argv, message in cases:
        assert main(argv) == 1
        assert not (tmp_path / "run").exists()
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, err
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("x")
    assert main(_args(built, foreign)) == 1
    assert "refusing to replace it" in capsys.readouterr().err


def test_missing_extra_is_one_line():
    from courtbench.errors import CourtbenchError
    from courtbench.training.extra import require

    with pytest.raises(CourtbenchError, match=r"needs no_such_module_x .*pip install -e '\.\[train\]'"):
        require(("torch", "no_such_module_x"))


def test_standardiser_and_chunks(built):
    from transformers import AutoTokenizer

    scale = Standardiser.fit(np.array([0.0, 100.0, 10_000.0]))
    amounts = np.array([0.0, 5.0, 12_345.0])
    assert np.allclose(scale.inverse(scale.forward(amounts)), amounts, rtol=1e-5, atol=1e-3)
    assert scale.inverse(np.array([-50.0]))[0] == 0.0
    tokenizer = AutoTokenizer.from_pretrained(built["bert"])
    windows = chunk_tokens(tokenizer, ["the court " * 20, "the"], 8, 2)
    assert [len(w) for w in windows[0]] == [8, 8] and len(windows[1]) == 1
    assert all(w[0] == tokenizer.cls_token_id and w[-1] == tokenizer.sep_token_id
               for w in windows[0])


def _short(built, out: Path, *extra: str) -> list[str]:
    """A 4-step run with a checkpoint every 2 steps."""
    return _args(built, out, "--max-steps", "4", "--eval-steps", "2", *extra)


def test_rerunning_a_finished_run_replaces_it(built, tmp_path, capsys):
    out = tmp_path / "again"
    assert main(_short(built, out)) == 0
    first = (out / "predictions" / "modernbert.csv").read_bytes()
    assert main(_short(built, out)) == 0, capsys.readouterr().err  # as the README says
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert (out / "predictions" / "modernbert.csv").read_bytes() == first


@pytest.mark.parametrize("option, value, message", [
    ("--smooth-l1-beta", "-1", "expected a SmoothL1 beta >= 0"),
    ("--learning-rate", "nan", "expected a finite learning rate (> 0 and <= 1), got 'nan'"),
    ("--max-steps", "0", "expected a number of steps in [1, 1,000,000], or -1"),
    ("--max-steps", "1000000000", "in [1, 1,000,000]"),
    ("--epochs", "0", "expected a number of epochs > 0"),
    ("--seed", "1.5", "integer seed"),
    ("--warmup", "1.5", "a warm-up ratio in [0, 1) or whole warm-up steps"),
    ("--effective-batch", "0", "expected a batch size in [1, 65,536]"),
])
def test_bad_options_are_refused_before_any_folder(built, tmp_path, capsys, option, value,
                                                   message):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as exit_info:
        main(_short(built, out, option, value))
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1
    assert f"argument {option}: " in err and message in err, err
    assert not out.exists()


def _failing_save(monkeypatch, fail_at: int) -> None:
    """The Trainer's weight save fails like a full disk at its ``fail_at``-th call."""
    import safetensors.torch

    real, calls = safetensors.torch.save_file, []

    def save_file(tensors, filename, metadata=None):
        calls.append(filename)
        if len(calls) == fail_at:
            raise OSError(errno.ENOSPC, "No space left on device", filename)
        return real(tensors, filename, metadata=metadata)

    monkeypatch.setattr(safetensors.torch, "save_file", save_file)


def test_a_full_disk_while_saving_a_checkpoint_is_one_line_and_resumable(built, tmp_path,
                                                                         capsys, monkeypatch):
    out = tmp_path / "full"
    _failing_save(monkeypatch, fail_at=2)  # checkpoint-2 is written, checkpoint-4 is not
    assert main(_short(built, out)) == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and "SafetensorError" not in err
    assert last.startswith(f"courtbench train: error: --out {out}: writing the run failed: "
                           "the disk is full (")
    assert "(last: checkpoints/checkpoint-2); continue with the same command plus --resume" in last
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["checkpoint-2"]
    monkeypatch.undo()
    assert main(_short(built, out)) == 1  # a new run would throw the checkpoint away
    assert "holds an unfinished training run" in capsys.readouterr().err
    assert main(_short(built, out, "--resume")) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["resumed_from"] == "checkpoint-2"


def test_a_failure_before_the_first_checkpoint_leaves_no_folder(built, tmp_path, capsys,
                                                                monkeypatch):
    out = tmp_path / "first"
    _failing_save(monkeypatch, fail_at=1)
    assert main(_short(built, out)) == 1
    err = capsys.readouterr().err
    assert "the run had no checkpoint yet, so its folder" in err and "Traceback" not in err
    assert not out.exists()


def test_epochs_that_come_to_too_many_steps_are_refused_before_any_folder(built, tmp_path,
                                                                          capsys, monkeypatch):
    from courtbench.training import options

    monkeypatch.setattr(options, "MAX_STEPS", 100)
    out = tmp_path / "long"
    assert main(_args(built, out, "--max-steps", "-1", "--epochs", "40")) == 1
    err = capsys.readouterr().err
    assert "--epochs 40 of" in err and "more than the ceiling of 100 steps" in err, err
    assert not out.exists()
