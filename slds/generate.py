"""``courtbench generate slds``: headnotes from any OpenAI-compatible model, as the SLDS paper ran it.

Per sample of a split: a system message (``slds/prompts/headnote_system.txt``, courtbench's own
wording, not the published evaluation's; ``--system-prompt FILE`` sends another file byte for
byte), with ``--shots 1`` the pair's ``one_shot_examples`` row as a user/assistant exchange,
then the user message "Leading decision:\\n```{decision}```\\n\\nGenerate a headnote in
{language} for the leading decision above." Decoding (:data:`PRESETS`): ``--preset courtbench``
(default) temperature 0.7, top-p 0.8, seed 2025, 1,024 new tokens; ``--preset published`` the
published evaluation's temperature 0.7, top-p 0.8, top-k 20, repetition penalty 1.05, seed
2025, 512 new tokens (× 10 with ``--reasoning``), stop ``</s>`` — top-k and the repetition
penalty go in ``extra_body`` and are dropped for the OpenAI, Anthropic and DeepSeek APIs, which
refuse them. An explicit option (``--temperature``, ``--top-k`` …) overrides the preset.

Output: ``--out preds.jsonl``, one line per sample (``sample_id``, ``config``,
``prediction``, ``finish_reason``, ``usage``, ``error``, ``reasoning``), failed and empty
generations included and counted, plus ``preds.jsonl.manifest.json`` (model, endpoint host,
parameters, template sha256, counts, usage, ``llm_run`` — failures by kind, truncated answers,
repairs, ``complete`` — and courtbench version). The file goes straight into
``courtbench evaluate slds --predictions``. Exit status 1 when the share of failed samples
exceeds ``--max-failure-share`` (default 0: any failure).

``--limit N`` generates for the first N samples only; ``--tokenizer PATH --max-input-tokens N``
cuts decisions by the model's own tokens (at a paragraph boundary inside the first N tokens).
``--local-model PATH`` generates with transformers instead of an endpoint, into the same file
and manifest (:mod:`slds.local_generation`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from courtbench import __version__, option_checks
from courtbench.errors import CourtbenchError
from courtbench.llm import (
    ChatRequest,
    EndpointConfig,
    decoding_params,
    dry_run_text,
    endpoint_from_args,
    manifest_endpoint,
    run_chat,
    run_record,
    run_summary_line,
)
from courtbench.llm.core import ResponseCache, sha256_text
from courtbench.llm.tokens import LocalTokenizer, load_tokenizer
from courtbench.output_files import check_output_file, write_output_file
from courtbench.resources import package_path
from slds.data import read_split
from slds.schema import PAIRS, pair_name

OUTPUT_KIND = "slds-generation"
LANGUAGE_NAMES = {"de": "German", "fr": "French", "it": "Italian"}
CONFIG_NAMES = tuple(pair_name(d, h) for d, h in PAIRS)
ONE_SHOT_SPLIT = "one_shot_examples"
_PLACEHOLDER = re.compile(r"\{(decision|language)\}")
#: Decoding of each ``--preset``: ``courtbench`` (the default) and ``published`` (paper
#: Appendix F.3 and the published evaluation code). ``reasoning_factor`` multiplies
#: ``max_tokens`` with ``--reasoning`` (room for the thinking of reasoning models).
PRESETS: dict[str, dict] = {
    "courtbench": {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 1024,
                   "top_k": None, "repetition_penalty": None, "stop": None,
                   "reasoning_factor": 10},
    "published": {"temperature": 0.7, "top_p": 0.8, "seed": 2025, "max_tokens": 512,
                  "top_k": 20, "repetition_penalty": 1.05, "stop": ["</s>"],
                  "reasoning_factor": 10},
}


@dataclass(frozen=True)
class Prompts:
    """The system message and the user template (placeholders ``{decision}``, ``{language}``)."""

    system: str
    user: str

    def hashes(self) -> dict:
        return {"system_prompt_sha256": sha256_text(self.system),
                "user_prompt_sha256": sha256_text(self.user)}


def _read_prompt(path: Path | None, default: str, option: str) -> str:
    file = path if path is not None else package_path("slds", "prompts", default)
    try:
        text = file.read_bytes().decode("utf-8")  # byte for byte: no newline translation
    except (OSError, UnicodeDecodeError) as error:
        raise CourtbenchError(f"{option} {file}: cannot read it as UTF-8 text: {error}") from None
    if not text.strip():
        raise CourtbenchError(f"{option} {file}: the prompt is empty")
    return text


def load_prompts(system_file: Path | None = None, user_file: Path | None = None) -> Prompts:
    """The packaged prompts, or the given files; the user template must contain ``{decision}``."""
    prompts = Prompts(_read_prompt(system_file, "headnote_system.txt", "--system-prompt"),
                      _read_prompt(user_file, "headnote_user.txt", "--user-prompt"))
    if "{decision}" not in prompts.user:
        raise CourtbenchError(f"--user-prompt {user_file}: the template never uses {{decision}}; "
                              "the model would not see the decision")
    return prompts


def render_user(template: str, decision: str, headnote_language: str) -> str:
    """Fill ``{decision}`` and ``{language}`` in one pass (text inside the decision that looks
    like a placeholder stays as it is)."""
    values = {"decision": decision,
              "language": LANGUAGE_NAMES.get(headnote_language, headnote_language)}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def cut_decision_tokens(text: str, tokenizer: LocalTokenizer | None,
                        max_tokens: int | None) -> tuple[str, bool]:
    """``text`` cut to at most ``max_tokens`` tokens of ``tokenizer``, at the last paragraph
    boundary inside them (as :func:`cut_decision`); unchanged without a tokenizer."""
    if tokenizer is None or max_tokens is None:
        return text, False
    end = tokenizer.end_of_tokens(text, max_tokens)
    if end is None:
        return text, False
    return cut_decision(text, end)[0], True


def cut_decision(text: str, max_chars: int | None) -> tuple[str, bool]:
    """``text`` cut to at most ``max_chars`` characters at the last paragraph boundary.

    A boundary is a line break; without one in reach, the last whitespace, else a hard cut.
    Returns ``(text, was_cut)``.

    >>> cut_decision("First.\\n\\nSecond paragraph.", 12)
    ('First.', True)
    """
    if max_chars is None or len(text) <= max_chars:
        return text, False
    head = text[:max_chars + 1]
    for boundary in ("\n", " "):
        position = head.rfind(boundary)
        if position > 0:
            return head[:position].rstrip(), True
    return text[:max_chars], True


def build_messages(prompts: Prompts, decision: str, headnote_language: str,
                   one_shot: tuple[str, str] | None = None) -> tuple[dict, ...]:
    """system, [user (one-shot decision), assistant (its headnote)], user (the decision)."""
    messages = [{"role": "system", "content": prompts.system}]
    if one_shot is not None:
        messages += [{"role": "user", "content": render_user(prompts.user, one_shot[0],
                                                             headnote_language)},
                     {"role": "assistant", "content": one_shot[1]}]
    messages.append({"role": "user", "content": render_user(prompts.user, decision,
                                                            headnote_language)})
    return tuple(messages)


# --------------------------------------------------------------------------------------------
# Options, data, requests


def _check_limits(args: argparse.Namespace) -> None:
    """--config, the length limits and --data, each in one line when wrong."""
    if args.config != "all" and args.config not in CONFIG_NAMES:
        raise CourtbenchError(f"--config {args.config!r}: expected one of "
                              f"{', '.join(CONFIG_NAMES)} or all")
    if args.max_input_chars is not None and args.max_input_chars < 1:
        raise CourtbenchError(f"--max-input-chars {args.max_input_chars}: expected a positive "
                              "number of characters")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise CourtbenchError(f"--max-tokens {args.max_tokens}: expected a positive integer")
    if (args.tokenizer is None) != (args.max_input_tokens is None):
        raise CourtbenchError("--tokenizer and --max-input-tokens go together: give both to cut "
                              "decisions by tokens, or neither")
    if not args.data.is_dir():
        raise CourtbenchError(f"--data {args.data}: not a folder")


def _check_endpoint(args: argparse.Namespace) -> EndpointConfig:
    """The endpoint of --base-url / --model (and its response cache, opened once to check)."""
    if args.base_url is None or args.model is None:
        raise CourtbenchError("--base-url and --model are required (or --local-model PATH for "
                              "a local transformers model)")
    config = endpoint_from_args(args, default_cache=args.out.with_name(args.out.stem + ".llm-cache.sqlite"))
    if config.cache_path is not None and not args.dry_run:
        try:
            ResponseCache(config.cache_path).close()
        except (ValueError, OSError) as error:
            raise CourtbenchError(f"--cache: {error}") from None
    return config


def check_options(args: argparse.Namespace) -> tuple[list[str], Prompts, EndpointConfig | None]:
    """Everything that can be checked before loading data; returns configs, prompts, endpoint
    (``None`` with ``--local-model``)."""
    _check_limits(args)
    if not args.dry_run:
        check_output_file(args.out, kind=OUTPUT_KIND, overwrite=args.overwrite,
                          suffixes=(".jsonl",))
    prompts = load_prompts(args.system_prompt, args.user_prompt)
    configs = list(CONFIG_NAMES) if args.config == "all" else [args.config]
    if args.local_model is not None:
        if args.base_url is not None or args.model is not None:
            raise CourtbenchError("--local-model runs the model here: give it without "
                                  "--base-url / --model (those name an endpoint)")
        return configs, prompts, None
    return configs, prompts, _check_endpoint(args)


def _one_shot(data: Path, config: str) -> tuple[str, str] | None:
    """(decision, headnote) of the config's one_shot_examples row; None when it has none."""
    import datasets

    from courtbench.hub.offline import hub_offline

    try:
        with hub_offline():
            rows = datasets.load_dataset(str(data), config, split=ONE_SHOT_SPLIT)
    except (ValueError, FileNotFoundError, KeyError):
        return None
    return (rows[0]["decision"], rows[0]["headnote"]) if rows.num_rows else None


@dataclass(frozen=True)
class Sample:
    sample_id: object
    config: str
    cut: bool
    decision: str = ""  # the decision as sent (a local model may cut it further, in tokens)


@dataclass(frozen=True)
class InputCut:
    """How decisions are cut: characters and/or tokens of a local tokenizer."""

    max_chars: int | None = None
    tokenizer: LocalTokenizer | None = None
    max_tokens: int | None = None

    def __call__(self, text: str) -> tuple[str, bool]:
        text, by_tokens = cut_decision_tokens(text, self.tokenizer, self.max_tokens)
        text, by_chars = cut_decision(text, self.max_chars)
        return text, by_tokens or by_chars


def build_requests(data: Path, configs: list[str], split: str, shots: int, prompts: Prompts,
                   params: dict, max_input_chars: int | InputCut | None) -> tuple[list, list, dict]:
    """One ChatRequest per sample of ``split`` in ``configs`` (in config order, then by
    sample_id). Returns ``(samples, requests, counts)`` with the cut decisions counted.
    ``max_input_chars`` is a character limit or an :class:`InputCut`."""
    cut_text = (max_input_chars if isinstance(max_input_chars, InputCut)
                else InputCut(max_chars=max_input_chars))
    by_config: dict[str, list] = {config: [] for config in configs}
    rows = read_split(data, split, columns=("decision", "decision_language", "headnote_language"))
    for row in rows:  # one pass over the split, in sample_id order
        config = pair_name(row["decision_language"], row["headnote_language"])
        if config in by_config:
            by_config[config].append((row["sample_id"], row["decision"]))
    counts = {"cut_decisions": 0, "cut_one_shot_decisions": 0, "configs_without_one_shot": []}
    samples, requests = [], []
    for config, rows in by_config.items():
        headnote_language = config.split("_")[1]
        example = _one_shot(data, config) if shots and rows else None
        if shots and rows and example is None:
            counts["configs_without_one_shot"].append(config)
        if example is not None:
            decision, cut = cut_text(example[0])
            counts["cut_one_shot_decisions"] += cut
            example = (decision, example[1])
        for sample_id, text in rows:
            decision, cut = cut_text(text)
            counts["cut_decisions"] += cut
            samples.append(Sample(sample_id, config, cut, decision))
            requests.append(ChatRequest(str(sample_id), build_messages(
                prompts, decision, headnote_language, example), dict(params)))
    return samples, requests, counts


def endpoint_host_name(base_url: str) -> str:
    from courtbench.llm import endpoint_host

    return endpoint_host(base_url)


# --------------------------------------------------------------------------------------------
# Output


def output_lines(samples: list[Sample], results: list) -> tuple[bytes, dict]:
    """The JSONL bytes and the counts ``ok`` / ``empty`` / ``failed`` (+ the failed ids)."""
    lines, counts, failed_ids = [], {"ok": 0, "empty": 0, "failed": 0}, []
    for sample, result in zip(samples, results, strict=True):
        if result.error is not None:
            prediction = None
            counts["failed"] += 1
            failed_ids.append(sample.sample_id)
        else:
            prediction = result.answer or ""
            counts["empty" if not prediction.strip() else "ok"] += 1
        record = {"sample_id": sample.sample_id, "config": sample.config, "prediction": prediction,
                  "finish_reason": result.finish_reason, "usage": result.usage,
                  "error": result.error, "decision_cut": sample.cut, "reasoning": result.reasoning}
        lines.append(json.dumps(record, ensure_ascii=False, allow_nan=False))
    counts["failed_sample_ids"] = failed_ids[:100]
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b"", counts


def manifest_document(args, configs, prompts, model: dict, params, counts, summary, *,
                      llm_run: dict | None = None) -> dict:
    """The manifest beside a generation file; ``model`` says what generated (endpoint model
    and host, or the local model folder and its hash); ``llm_run`` what an endpoint run
    records of its failures (:func:`courtbench.llm.run_record`)."""
    document = {
        "courtbench_version": __version__,
        "dataset": "slds", "data": str(args.data), "split": args.split, "configs": configs,
        "shots": args.shots, **model, "parameters": params,
        "max_input_chars": args.max_input_chars,
        "max_input_tokens": args.max_input_tokens,
        "tokenizer": str(args.tokenizer) if args.tokenizer else None,
        "prompts": {**prompts.hashes(),
                    "system_prompt_file": str(args.system_prompt) if args.system_prompt else "packaged",
                    "user_prompt_file": str(args.user_prompt) if args.user_prompt else "packaged"},
        "counts": {"samples": len(summary.results), **counts, "sent": summary.sent,
                   "cached": summary.cached},
        "usage": summary.usage,
    }
    if llm_run is not None:
        document["llm_run"] = llm_run
    return document


def sampling_params(args: argparse.Namespace) -> dict:
    """temperature, top_p, seed and max_tokens: the ``--preset``'s, each overridden by an
    explicit option (the endpoint and the ``--local-model`` path sample alike)."""
    preset = PRESETS[args.preset]
    chosen = {name: preset[name] if getattr(args, name, None) is None else getattr(args, name)
              for name in ("temperature", "top_p", "seed")}
    max_tokens = args.max_tokens
    if max_tokens is None:
        max_tokens = preset["max_tokens"] * (preset["reasoning_factor"] if args.reasoning else 1)
    return {**chosen, "max_tokens": max_tokens}


def request_params(args: argparse.Namespace) -> tuple[dict, list[str]]:
    """The parameters sent with every request: the ``--preset``'s, each overridden by an
    explicit option; ``(params, dropped)`` as :func:`courtbench.llm.decoding_params`."""
    preset = PRESETS[args.preset]

    def chosen(name: str):
        value = getattr(args, name, None)
        return preset[name.removeprefix("sampling_")] if value is None else value

    return decoding_params(sampling_params(args), args.base_url, stop=chosen("stop"), top_k=chosen("sampling_top_k"),
                           repetition_penalty=chosen("repetition_penalty"),
                           extra_body=getattr(args, "extra_body", None))


def input_cut(args: argparse.Namespace) -> InputCut:
    tokenizer = load_tokenizer(args.tokenizer) if args.tokenizer is not None else None
    return InputCut(args.max_input_chars, tokenizer, args.max_input_tokens)


def generate(args: argparse.Namespace) -> int:
    """CLI entry point; returns 0 when every request completed, 1 otherwise."""
    configs, prompts, config = check_options(args)
    if config is None:  # the plugin sends --local-model runs to slds.local_generation
        raise CourtbenchError("--local-model: run through `courtbench generate slds`")
    params, dropped = request_params(args)
    if dropped:
        print(f"courtbench generate: {endpoint_host_name(args.base_url)} refuses "
              f"{', '.join(dropped)}: not sent (recorded in the manifest)", file=sys.stderr)
    samples, requests, cut_counts = build_requests(args.data, configs, args.split, args.shots,
                                                   prompts, params, input_cut(args))
    if args.limit is not None:
        samples, requests = samples[:args.limit], requests[:args.limit]
    if not requests:
        raise CourtbenchError(f"--data {args.data}: split {args.split!r} has no sample in "
                              f"{', '.join(configs)}")
    if args.dry_run:
        print(dry_run_text(requests, config))
        return 0
    summary = run_chat(requests, config, desc=f"slds generate ({args.config})")
    data, counts = output_lines(samples, summary.results)
    counts.update(cut_counts)
    llm_run = run_record(summary, failed=counts["failed"], total=len(summary.results),
                         max_failure_share=args.max_failure_share, limit=args.limit,
                         config=config)
    document = {**manifest_document(args, configs, prompts, manifest_endpoint(config), params,
                                    counts, summary, llm_run=llm_run),
                "preset": args.preset, "reasoning": args.reasoning, "parameters_dropped": dropped}
    manifest = write_output_file(args.out, data, document, kind=OUTPUT_KIND)
    _report(args, samples, counts, summary, manifest, document["llm_run"])
    return 0 if document["llm_run"]["complete"] else 1


def _report(args, samples, counts, summary, manifest, record) -> None:
    print(f"{len(samples)} headnotes → {args.out} ({counts['ok']} ok, {counts['empty']} empty, "
          f"{counts['failed']} failed; {summary.cached} from cache, {summary.sent} sent; "
          f"{counts['cut_decisions']} decisions cut"
          + (f" at {args.max_input_chars} characters" if args.max_input_chars else "")
          + (f" at {args.max_input_tokens} tokens" if args.max_input_tokens else "") + "; "
          f"{summary.usage['total_tokens']:,} tokens); manifest {manifest}")
    print(f"courtbench generate: {run_summary_line(record)}", file=sys.stderr)
    if counts["configs_without_one_shot"]:
        print(f"courtbench generate: no one_shot_examples row for "
              f"{', '.join(counts['configs_without_one_shot'])}: those ran zero-shot",
              file=sys.stderr)
    if not record["complete"]:
        print(f"courtbench generate: incomplete: {summary.failed} request(s) failed "
              f"({record['failure_share']:.1%} > --max-failure-share "
              f"{record['max_failure_share']:g}); their rows have \"error\" set and prediction "
              f"null in {args.out}; rerun with the same --cache to send only those",
              file=sys.stderr)


def add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``courtbench generate slds`` options (``--data``, ``--out``, endpoint options are
    added by the command)."""
    parser.add_argument("--config", required=True, metavar="PAIR|all",
                        help=f"language pair ({', '.join(CONFIG_NAMES)}) or all (nine pairs, "
                             "one run, one cache)")
    parser.add_argument("--split", default="test", help="split to generate for (default test)")
    parser.add_argument("--shots", type=int, choices=(0, 1), default=1,
                        help="1 (default): the pair's one_shot_examples row first, as the "
                             "published evaluation; 0: zero-shot")
    parser.add_argument("--preset", choices=tuple(PRESETS), default="courtbench",
                        help="decoding: courtbench (default: temperature 0.7, top-p 0.8, seed "
                             "2025, 1024 new tokens) or published (the published evaluation: "
                             "temperature 0.7, top-p 0.8, top-k 20, repetition penalty 1.05, "
                             "seed 2025, 512 new tokens, stop </s>); options below override it")
    parser.add_argument("--reasoning", action="store_true",
                        help="a reasoning model: the preset's new-token budget x 10")
    parser.add_argument("--temperature", type=option_checks.TEMPERATURE, help="default: the preset's (0.7)")
    parser.add_argument("--top-p", type=option_checks.TOP_P, help="default: the preset's (0.8)")
    parser.add_argument("--seed", type=option_checks.SEED, help="default: the preset's (2025)")
    parser.add_argument("--max-tokens", type=option_checks.LENGTH,
                        help="new tokens (default: the preset's, 1024 or 512, x 10 with "
                             "--reasoning)")
    parser.add_argument("--max-input-chars", type=option_checks.LENGTH, metavar="N",
                        help="cut longer decisions at a paragraph boundary (counted and "
                             "reported); default: never cut")
    parser.add_argument("--tokenizer", type=Path, metavar="PATH",
                        help="a local tokenizer (tokenizer.json or model folder) to cut "
                             "decisions by tokens (with --max-input-tokens)")
    parser.add_argument("--max-input-tokens", type=option_checks.LENGTH, metavar="N",
                        help="cut longer decisions at a paragraph boundary within the first N "
                             "tokens of --tokenizer (counted and reported)")
    parser.add_argument("--system-prompt", type=Path, metavar="FILE",
                        help="replace the packaged system prompt (courtbench's own wording) "
                             "with this file, sent byte for byte, e.g. the published one")
    parser.add_argument("--user-prompt", type=Path, metavar="FILE",
                        help="replace the packaged user template ({decision}, {language})")
    local = parser.add_argument_group("local model (instead of an endpoint; train extra)")
    local.add_argument("--local-model", type=Path, metavar="PATH",
                       help="generate with transformers from a local model folder (e.g. the "
                            "model/ of `courtbench train slds`) on CPU or GPU, no server")
    local.add_argument("--max-model-len", type=option_checks.LENGTH, default=8192, metavar="N",
                       help="--local-model: prompt + new tokens (default 8,192); longer "
                            "decisions are cut in tokens")
