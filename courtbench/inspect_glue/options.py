"""The options of every runner that calls a model (``courtbench predict|generate|judge``).

:func:`add_model_arguments` adds them to a parser; :meth:`ModelOptions.from_args` checks them
(one-line errors naming the option) and :meth:`ModelOptions.generate_config` turns the
decoding options into Inspect's ``GenerateConfig`` fields.

The model: with ``--base-url`` any OpenAI-compatible server (vLLM, llama.cpp, Ollama, TGI, a
hosted API), run through Inspect's ``openai-api/courtbench/<--model>`` provider; without it
``--model`` is any Inspect model name (``openai/gpt-4o``, ``anthropic/…``, ``vllm/…``,
``hf/…``), whose provider reads its own key variable as Inspect documents.

Fields courtbench owns never come from ``--extra-body``: the request's model, messages, tools
and the published settings each have their own option (:data:`OWNED_FIELDS` are refused).
``--top-k`` and ``--repetition-penalty`` go in the request body for servers that read them
(top-k as the provider's own setting where it has one) and are dropped for model families
whose APIs refuse them, by the model's name whatever the host (:func:`refused_parameters`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtbench import option_checks
from courtbench.boundary import BoundaryError, check_count, check_number, loads_bounded
from courtbench.errors import CourtbenchError
from courtbench.inspect_glue.endpoints import check_endpoint_url, endpoint_host

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
SERVICE = "courtbench"  # openai-api/<SERVICE>/<model>: Inspect's OpenAI-compatible provider
DEFAULT_MAX_ANSWER_CHARS = 1_000_000
MAX_CONCURRENCY = 1024
MAX_RETRIES = 100
MAX_EXTRA_BODY_CHARS = 100_000
#: Request fields courtbench sets itself (never through ``--extra-body``).
OWNED_FIELDS = frozenset({"model", "messages", "tools", "tool_choice", "functions",
                          "function_call", "n", "stream", "stream_options", "temperature",
                          "seed", "max_tokens", "max_completion_tokens", "top_p", "stop",
                          "response_format", "logprobs", "top_logprobs"})
#: Model families (by the model name's last part) whose APIs refuse server sampling
#: parameters, as the published evaluation drops them: GPT / o-series, DeepSeek and Claude
#: names lose top-k and the repetition penalty through any host ...
_REFUSING = re.compile(r"^(gpt-|o\d|chatgpt|deepseek|claude)", re.I)
#: ... except Anthropic's own API (Inspect's ``anthropic/`` provider), which takes top-k.
_KEEPS_TOP_K = ("anthropic",)
#: Inspect providers that take top-k as their own setting (the rest get it in the body).
NATIVE_TOP_K = ("anthropic", "hf", "google", "bedrock", "together")
SAMPLING = ("top_k", "repetition_penalty")


def refused_parameters(model: str) -> tuple[str, ...]:
    """Server sampling parameters that are not sent to ``model`` (an Inspect model name,
    ``provider/.../name``): by the family of its last part, whatever the host."""
    provider, name = model.split("/", 1)[0].lower(), model.rsplit("/", 1)[-1]
    if not _REFUSING.match(name):
        return ()
    return ("repetition_penalty",) if provider in _KEEPS_TOP_K else SAMPLING


def sampling_config(model: str, top_k: int | None, repetition_penalty: float | None,
                    body: dict[str, Any] | None = None) -> dict[str, Any]:
    """``GenerateConfig`` fields carrying ``top_k`` / ``repetition_penalty`` to ``model``
    (an Inspect model name): none refused by its family; top-k native for the providers of
    :data:`NATIVE_TOP_K`, else in ``extra_body`` (with ``body``'s fields)."""
    refused = refused_parameters(model)
    body = dict(body or {})
    config: dict[str, Any] = {}
    for name, value in (("top_k", top_k), ("repetition_penalty", repetition_penalty)):
        if value is None or name in refused:
            continue
        if name == "top_k" and model.split("/", 1)[0].lower() in NATIVE_TOP_K:
            config["top_k"] = value
        else:
            body[name] = value
    if body:
        config["extra_body"] = body
    return config


#: Option types, checked by the boundary validator while parsing (see option_checks).
TIMEOUT = option_checks.number(0.0, option_checks.MAX_SECONDS, low_open=True,
                               what="a timeout in seconds")
RETRIES = option_checks.count(option_checks.MAX_RETRIES, low=0, what="a number of retries")
CONCURRENCY = option_checks.count(option_checks.MAX_PARALLEL, what="a number of requests")
LIMIT = option_checks.count(option_checks.MAX_ROWS, what="a number of samples")
ANSWER_CHARS = option_checks.count(option_checks.MAX_ANSWER_CHARS, what="a number of characters")
TOP_K = option_checks.count(option_checks.MAX_LENGTH, what="a top-k")
REPETITION_PENALTY = option_checks.number(0.0, 10.0, low_open=True,
                                          what="a repetition penalty")


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name) \
            or any(c in value for c in "\r\n\x00"):
        raise argparse.ArgumentTypeError(f"expected 'Name: value' (a valid header name and a "
                                         f"value without line breaks), got {text!r}")
    if name.lower() in ("authorization", "proxy-authorization", "api-key", "x-api-key"):
        raise argparse.ArgumentTypeError(f"{name}: give the key in the variable named by "
                                         "--api-key-env, not as a header")
    return name, value


def add_model_arguments(parser: argparse.ArgumentParser, *, concurrency: int = 8,
                        timeout: float = 120.0, max_retries: int = 6, required: bool = True,
                        top_k_option: str = "--top-k") -> None:
    """Add the model, run-control and decoding options (see the module docstring).
    ``required=False`` leaves ``--model`` optional (a command that can run a local model
    checks it itself); ``top_k_option`` renames the sampling top-k option where a command uses
    ``--top-k`` for something else (its value is ``args.sampling_top_k`` either way)."""
    group = parser.add_argument_group("model (run through Inspect AI)")
    group.add_argument("--model", required=required, metavar="NAME",
                       help="the model: its name at --base-url, or (no --base-url) an "
                            "Inspect model (openai/gpt-4o-mini, anthropic/..., vllm/..., hf/...)")
    group.add_argument("--base-url", metavar="URL",
                       help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1 "
                            "(vLLM), http://127.0.0.1:11434/v1 (Ollama)")
    group.add_argument("--api-key-env", metavar="VAR",
                       help=f"with --base-url: the variable holding the key (default "
                            f"{DEFAULT_API_KEY_ENV} if set, else none); never written anywhere")
    group.add_argument("--concurrency", type=CONCURRENCY, default=concurrency, metavar="N",
                       help=f"requests in flight at once (default {concurrency})")
    group.add_argument("--timeout", type=TIMEOUT, default=timeout, metavar="SECONDS",
                       help=f"seconds per request (default {timeout:g})")
    group.add_argument("--max-retries", type=RETRIES, default=max_retries, metavar="N",
                       help=f"retries of a failed request (Inspect's backoff; default {max_retries})")
    group.add_argument("--cache", type=Path, metavar="DIR",
                       help="Inspect's response cache (default: beside --out); a rerun sends "
                            "nothing, a killed run sends only the remainder")
    group.add_argument("--log-dir", type=Path, metavar="DIR",
                       help="where the Inspect log goes (default: beside --out); open it with "
                            "`inspect view`")
    group.add_argument("--dry-run", action="store_true",
                       help="print the first sample's messages and the count; send nothing")
    group.add_argument("--limit", type=LIMIT, metavar="N",
                       help="only the first N samples (recorded in the manifest)")
    group.add_argument("--header", type=_header, action="append", default=[],
                       metavar="'NAME: VALUE'",
                       help="extra HTTP header (repeatable; values never written, names recorded)")
    group.add_argument("--max-failure-share", type=option_checks.SHARE, default=0.0, metavar="SHARE",
                       help="largest share of failed samples for a complete run with exit "
                            "status 0 (default 0)")
    group.add_argument("--max-answer-chars", type=ANSWER_CHARS, default=DEFAULT_MAX_ANSWER_CHARS,
                       metavar="N", help="longer answers are failed samples (default "
                                         f"{DEFAULT_MAX_ANSWER_CHARS:,})")
    decoding = parser.add_argument_group("decoding (sent with every request)")
    decoding.add_argument("--stop", action="append", metavar="TEXT", help="stop sequence (repeatable)")
    decoding.add_argument(top_k_option, type=TOP_K, metavar="K", dest="sampling_top_k",
                          help="top-k sampling, in the request body (dropped for model "
                               "families whose APIs refuse it)")
    decoding.add_argument("--repetition-penalty", type=REPETITION_PENALTY, metavar="X",
                          help="repetition penalty, in the request body (dropped likewise)")
    decoding.add_argument("--extra-body", metavar="JSON",
                          help="a JSON object of server-specific request fields, e.g. "
                               "'{\"min_p\": 0.05}' (never model, messages or the published "
                               "settings)")


def _checked(option: str, check, *args, **kwargs):
    """``check(*args, **kwargs)`` with a BoundaryError (which names ``option``) as a
    CourtbenchError."""
    try:
        return check(*args, **kwargs)
    except BoundaryError as error:
        raise CourtbenchError(str(error)) from None


def extra_body(text: str | None) -> dict[str, Any]:
    """``--extra-body`` as a dict; CourtbenchError for bad JSON, a non-object or an owned field."""
    if text is None:
        return {}
    value = _checked("--extra-body", loads_bounded, text, "--extra-body",
                     max_chars=MAX_EXTRA_BODY_CHARS)
    if not isinstance(value, dict):
        raise CourtbenchError(f"--extra-body {text[:80]!r}: expected a JSON object such as "
                              "'{\"min_p\": 0.05}'")
    owned = sorted(set(value) & OWNED_FIELDS)
    if owned:
        raise CourtbenchError(f"--extra-body: {', '.join(owned)} is set by courtbench (its "
                              "own option or the published settings); it cannot be overridden")
    return value


@dataclass(frozen=True)
class ModelOptions:
    """The checked model options of one run (see :func:`add_model_arguments`)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 6
    cache_dir: Path | None = None
    log_dir: Path | None = None
    dry_run: bool = False
    limit: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    max_failure_share: float = 0.0
    max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS
    stop: tuple[str, ...] = ()
    top_k: int | None = None
    repetition_penalty: float | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, default_dir: Path) -> ModelOptions:
        """The options of ``args``; ``--cache`` / ``--log-dir`` default to
        ``default_dir/cache`` and ``default_dir/logs``. CourtbenchError names a bad option."""
        return cls.from_values(vars(args), default_dir=default_dir)

    @classmethod
    def from_values(cls, args: dict[str, Any], *, default_dir: Path) -> ModelOptions:
        """:meth:`from_args` of option values by their ``dest`` names (``model``,
        ``base_url``, ``concurrency`` …; absent ones take their defaults)."""
        model = args.get("model", None)
        if not model:
            raise CourtbenchError("--model: required (a model name at --base-url, or an Inspect "
                                  "model such as openai/gpt-4o-mini)")
        base_url = args.get("base_url", None)
        key_env = args.get("api_key_env", None)
        _check_endpoint(base_url, key_env)
        options = cls(
            model=model, base_url=base_url, api_key_env=key_env,
            concurrency=_checked("--concurrency", check_count, args.get("concurrency", 8), "--concurrency",
                                 high=MAX_CONCURRENCY),
            timeout=_checked("--timeout", check_number, args.get("timeout", 120.0), "--timeout", low=0,
                             low_open=True, high=86_400, what="seconds"),
            max_retries=_checked("--max-retries", check_count, args.get("max_retries", 6),
                                 "--max-retries", low=0, high=MAX_RETRIES),
            cache_dir=Path(args["cache"]) if args.get("cache", None) else default_dir / "cache",
            log_dir=Path(args["log_dir"]) if args.get("log_dir", None) else default_dir / "logs",
            dry_run=bool(args.get("dry_run", False)),
            limit=None if args.get("limit", None) is None else _checked(
                "--limit", check_count, args["limit"], "--limit", high=2**31),
            headers=tuple(args.get("header", None) or ()),
            max_failure_share=_checked("--max-failure-share", check_number,
                                       args.get("max_failure_share", 0.0),
                                       "--max-failure-share", low=0, high=1, what="a share"),
            max_answer_chars=_checked("--max-answer-chars", check_count,
                                      args.get("max_answer_chars", DEFAULT_MAX_ANSWER_CHARS),
                                      "--max-answer-chars", high=10**9),
            stop=tuple(args.get("stop", None) or ()),
            top_k=args.get("sampling_top_k", None),
            repetition_penalty=args.get("repetition_penalty", None),
            extra_body=extra_body(args.get("extra_body", None)))
        options.check_decoding()
        for path, option in ((options.cache_dir, "--cache"), (options.log_dir, "--log-dir")):
            if path.exists() and not path.is_dir():
                raise CourtbenchError(f"{option} {path}: is a file; expected a folder")
        return options

    def check_decoding(self) -> None:
        """CourtbenchError naming the first decoding option out of range."""
        if self.top_k is not None and self.top_k < 1:
            raise CourtbenchError(f"--top-k {self.top_k}: expected an integer >= 1")
        if self.repetition_penalty is not None:
            _checked("--repetition-penalty", check_number, self.repetition_penalty,
                     "--repetition-penalty", low=0, low_open=True, high=100)
        if any(not text for text in self.stop):
            raise CourtbenchError(f"--stop {list(self.stop)!r}: expected non-empty stop sequences")

    @property
    def inspect_model(self) -> str:
        """The Inspect model name: ``openai-api/courtbench/<model>`` with a base URL."""
        return f"openai-api/{SERVICE}/{self.model}" if self.base_url else self.model

    def api_key(self) -> str | None:
        """The key (``--base-url`` runs only): from ``--api-key-env``, else
        ``OPENAI_API_KEY`` when set, else none."""
        if not self.base_url:
            return None
        return os.environ.get(self.api_key_env or DEFAULT_API_KEY_ENV) or None

    def dropped_parameters(self) -> list[str]:
        """The server sampling options given but dropped for this model's family."""
        refused = refused_parameters(self.inspect_model)
        return [name for name, value in (("top_k", self.top_k),
                                         ("repetition_penalty", self.repetition_penalty))
                if value is not None and name in refused]

    def generate_config(self, settings: dict[str, Any]) -> dict[str, Any]:
        """Inspect ``GenerateConfig`` fields: the dataset's ``settings`` (temperature, seed,
        max_tokens …), the run controls and the decoding options."""
        config = {**settings, "max_connections": self.concurrency,
                  "timeout": int(max(1, round(self.timeout))), "max_retries": self.max_retries,
                  **sampling_config(self.inspect_model, self.top_k, self.repetition_penalty,
                                    self.extra_body)}
        if self.stop:
            config["stop_seqs"] = list(self.stop)
        return config

    def record(self) -> dict[str, Any]:
        """What a manifest records of the endpoint: model, provider, host without
        credentials or path, timeout, retries, concurrency, header names (never values)."""
        return {"model": self.model, "inspect_model": self.inspect_model,
                "endpoint_host": endpoint_host(self.base_url) if self.base_url else None,
                "timeout_seconds": self.timeout, "max_retries": self.max_retries,
                "concurrency": self.concurrency,
                "header_names": [name for name, _ in self.headers]}


def _check_endpoint(base_url: str | None, key_env: str | None) -> None:
    if base_url is None:
        if key_env is not None:
            raise CourtbenchError("--api-key-env: goes with --base-url; an Inspect provider "
                                  "reads its own key variable (e.g. OPENAI_API_KEY)")
        return
    try:
        check_endpoint_url(base_url, key_hint="put the key in the variable named by "
                                              "--api-key-env")
    except ValueError as error:
        raise CourtbenchError(f"--base-url: {error}") from None
    if key_env is not None and not os.environ.get(key_env):
        raise CourtbenchError(f"--api-key-env {key_env}: the environment variable is not set "
                              "or empty")


def dumps(value: Any) -> str:
    """Compact strict JSON (for ``--dry-run``)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2)
