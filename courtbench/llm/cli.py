"""Command-line options of an LLM endpoint, shared by every runner (generate, predict, judge)."""

from __future__ import annotations

import argparse
import json
import os
import urllib.parse
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.llm.core import EndpointConfig, endpoint_host

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
#: Sampling parameters outside the OpenAI API that vLLM, llama.cpp, TGI and other
#: OpenAI-compatible servers accept as extra body fields; sent through ``extra_body``.
SERVER_SAMPLING_PARAMETERS = ("top_k", "repetition_penalty")
#: Hosted APIs that refuse those parameters (HTTP 400): they are dropped there, and the
#: manifest says so.
REFUSING_HOSTS = ("api.openai.com", "api.anthropic.com", "api.deepseek.com")


def add_endpoint_arguments(parser: argparse.ArgumentParser, *, concurrency: int = 8,
                           timeout: float = 120.0, max_retries: int = 6,
                           required: bool = True) -> None:
    """Add ``--base-url --model --api-key-env --concurrency --timeout --max-retries --cache
    --dry-run`` to ``parser`` (the defaults given here are the runner's). ``required=False``:
    ``--base-url`` / ``--model`` may be left out (a command that can also run a local model
    checks them itself)."""
    group = parser.add_argument_group("endpoint (any OpenAI-compatible chat-completions API)")
    group.add_argument("--base-url", required=required, metavar="URL",
                       help="e.g. http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 "
                            "(Ollama), https://api.openai.com/v1")
    group.add_argument("--model", required=required, metavar="NAME", help="model name at the endpoint")
    group.add_argument("--api-key-env", metavar="VAR", default=None,
                       help=f"environment variable holding the API key (default {DEFAULT_API_KEY_ENV}"
                            " if set, else no key); the key is never written anywhere")
    group.add_argument("--concurrency", type=int, default=concurrency, metavar="N",
                       help=f"requests in flight at once (default {concurrency})")
    group.add_argument("--timeout", type=float, default=timeout, metavar="SECONDS",
                       help=f"seconds per request attempt (default {timeout:g})")
    group.add_argument("--max-retries", type=int, default=max_retries, metavar="N",
                       help="retries on 429 / 5xx / timeouts / dropped connections, with "
                            f"exponential backoff and Retry-After (default {max_retries})")
    group.add_argument("--cache", type=Path, metavar="FILE",
                       help="SQLite response cache (default: beside --out); a rerun sends "
                            "nothing, a killed run resumes with the remainder")
    group.add_argument("--dry-run", action="store_true",
                       help="print the first rendered request and the number of requests; "
                            "send nothing")


def endpoint_from_args(args: argparse.Namespace, *, default_cache: Path | None = None,
                       prefix: str = "") -> EndpointConfig:
    """The :class:`EndpointConfig` of parsed endpoint options.

    ``--cache`` defaults to ``default_cache``. An explicitly named ``--api-key-env`` that is
    unset is an error; the default variable may be unset (local servers need no key).
    ``prefix`` reads options added under a prefix (``"judge_"``: ``args.judge_base_url`` …,
    named ``--judge-base-url`` … in messages).

    Raises:
        CourtbenchError: a bad option value, naming the option.
    """
    def value(name: str):
        return getattr(args, prefix + name)

    flag = "--" + prefix.replace("_", "-")
    api_key_env = value("api_key_env")
    if api_key_env is not None and not os.environ.get(api_key_env):
        raise CourtbenchError(f"{flag}api-key-env {api_key_env}: the environment variable is not "
                              "set or empty")
    cache = value("cache") if value("cache") is not None else default_cache
    if cache is not None and cache.is_dir():
        raise CourtbenchError(f"{flag}cache {cache}: is a directory; expected an SQLite file")
    try:
        return EndpointConfig(base_url=value("base_url"), model=value("model"),
                              api_key_env=api_key_env or DEFAULT_API_KEY_ENV,
                              concurrency=value("concurrency"), timeout=value("timeout"),
                              max_retries=value("max_retries"), cache_path=cache)
    except ValueError as error:
        option = str(error).split(" ", 1)[0].replace("_", "-")
        raise CourtbenchError(f"{flag}{option}: {error}") from None


def manifest_endpoint(config: EndpointConfig) -> dict:
    """What a manifest records about the endpoint: model, host without credentials,
    timeout, retries, concurrency (never the key, never the full URL)."""
    return {"model": config.model, "endpoint_host": endpoint_host(config.base_url),
            "timeout_seconds": config.timeout, "max_retries": config.max_retries,
            "concurrency": config.concurrency}


def add_decoding_arguments(parser: argparse.ArgumentParser, *,
                           top_k_option: str = "--top-k") -> None:
    """Add ``--stop --top-k --repetition-penalty --extra-body`` (sent with every request).

    ``top_k_option`` names the sampling top-k option where a command already uses
    ``--top-k`` for something else (``predict``: the agent's retrieved references); its
    value is ``args.sampling_top_k`` either way.

    ``--stop`` is an OpenAI parameter; ``--top-k`` and ``--repetition-penalty`` are sent in
    ``extra_body`` (merged into the request JSON, as vLLM and other OpenAI-compatible servers
    read them) and dropped for hosted APIs that refuse them (:data:`REFUSING_HOSTS`);
    ``--extra-body JSON`` adds any other server-specific fields.
    """
    group = parser.add_argument_group("decoding (sent with every request)")
    group.add_argument("--stop", action="append", metavar="TEXT",
                       help="stop sequence (repeatable), e.g. --stop '</s>'")
    group.add_argument(top_k_option, type=int, metavar="K", dest="sampling_top_k",
                       help="top-k sampling, sent in extra_body (dropped for OpenAI, Anthropic "
                            "and DeepSeek APIs, which refuse it)")
    group.add_argument("--repetition-penalty", type=float, metavar="X",
                       help="repetition penalty, sent in extra_body (dropped like --top-k)")
    group.add_argument("--extra-body", metavar="JSON",
                       help="a JSON object merged into every request body (server-specific "
                            "fields, e.g. '{\"min_p\": 0.05}')")


def refuses_server_parameters(base_url: str) -> bool:
    """Whether ``base_url`` is a hosted API that refuses top_k / repetition_penalty."""
    host = (urllib.parse.urlsplit(base_url).hostname or "").lower()
    return any(host == name or host.endswith("." + name) for name in REFUSING_HOSTS)


def _extra_body(text: str | None) -> dict:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CourtbenchError(f"--extra-body {text!r}: not valid JSON ({error.msg}); expected a "
                              "JSON object such as '{\"min_p\": 0.05}'") from None
    if not isinstance(value, dict):
        raise CourtbenchError(f"--extra-body {text!r}: expected a JSON object, got "
                              f"{type(value).__name__}")
    return value


def decoding_params(params: dict, base_url: str, *, stop: list[str] | None = None,
                    top_k: int | None = None, repetition_penalty: float | None = None,
                    extra_body: str | None = None) -> tuple[dict, list[str]]:
    """The request parameters: ``params`` plus the decoding options.

    Returns:
        ``(parameters, dropped)``: ``stop`` as an OpenAI parameter, top_k /
        repetition_penalty and ``extra_body``'s fields under ``"extra_body"`` (the OpenAI
        client merges them into the JSON body); ``dropped`` names the parameters left out
        because ``base_url`` is an API that refuses them.

    Raises:
        CourtbenchError: a bad option value, naming the option.
    """
    if top_k is not None and top_k < 1:
        raise CourtbenchError(f"--top-k {top_k}: expected an integer >= 1")
    if repetition_penalty is not None and not repetition_penalty > 0:
        raise CourtbenchError(f"--repetition-penalty {repetition_penalty}: expected a number > 0")
    if stop is not None and (not stop or any(not text for text in stop)):
        raise CourtbenchError(f"--stop {stop!r}: expected non-empty stop sequences")
    result = dict(params)
    if stop:
        result["stop"] = list(stop)
    extra = {name: value for name, value in (("top_k", top_k),
                                              ("repetition_penalty", repetition_penalty))
             if value is not None}
    dropped = []
    if refuses_server_parameters(base_url):
        dropped = [name for name in SERVER_SAMPLING_PARAMETERS if name in extra]
        extra = {k: v for k, v in extra.items() if k not in SERVER_SAMPLING_PARAMETERS}
    extra.update(_extra_body(extra_body))
    if extra:
        result["extra_body"] = extra
    return result, dropped


def decoding_from_args(args: argparse.Namespace, params: dict) -> tuple[dict, list[str]]:
    """:func:`decoding_params` of the options added by :func:`add_decoding_arguments`."""
    return decoding_params(params, args.base_url, stop=getattr(args, "stop", None),
                           top_k=getattr(args, "sampling_top_k", None),
                           repetition_penalty=getattr(args, "repetition_penalty", None),
                           extra_body=getattr(args, "extra_body", None))
