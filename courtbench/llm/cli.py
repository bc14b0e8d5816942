"""Command-line options of an LLM endpoint, shared by every runner (generate, predict, judge)."""

from __future__ import annotations

import argparse
import json
import math
import os
import urllib.parse
from pathlib import Path

from courtbench import option_checks
from courtbench.errors import CourtbenchError
from courtbench.llm.core import EndpointConfig, RunSummary, check_headers, endpoint_host

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
    group.add_argument("--concurrency", type=option_checks.count(
                       option_checks.MAX_PARALLEL, what="a number of requests"), default=concurrency, metavar="N",
                       help=f"requests in flight at once (default {concurrency})")
    group.add_argument("--timeout", type=TIMEOUT, default=timeout, metavar="SECONDS",
                       help=f"seconds per request attempt (default {timeout:g})")
    group.add_argument("--max-retries", type=RETRIES, default=max_retries, metavar="N",
                       help="retries on 429 / 5xx / timeouts / dropped connections, with "
                            f"exponential backoff and Retry-After (default {max_retries})")
    group.add_argument("--cache", type=Path, metavar="FILE",
                       help="SQLite response cache (default: beside --out); a rerun sends "
                            "nothing, a killed run resumes with the remainder")
    group.add_argument("--dry-run", action="store_true",
                       help="print the first rendered request and the number of requests; "
                            "send nothing")
    add_run_control_arguments(group)


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
                              max_retries=value("max_retries"), cache_path=cache,
                              **run_control_endpoint_fields(args, prefix))
    except ValueError as error:
        option = str(error).split(" ", 1)[0].replace("_", "-")
        raise CourtbenchError(f"{flag}{option}: {error}") from None


def manifest_endpoint(config: EndpointConfig) -> dict:
    """What a manifest records about the endpoint: model, host without credentials,
    timeout, retries, concurrency (never the key, never the full URL)."""
    return {"model": config.model, "endpoint_host": endpoint_host(config.base_url),
            "timeout_seconds": config.timeout, "max_retries": config.max_retries,
            "concurrency": config.concurrency,
            "header_names": [name for name, _ in config.headers]}


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
    group.add_argument(top_k_option, type=option_checks.count(
                       option_checks.MAX_LENGTH, what="a top-k"), metavar="K", dest="sampling_top_k",
                       help="top-k sampling, sent in extra_body (dropped for OpenAI, Anthropic "
                            "and DeepSeek APIs, which refuse it)")
    group.add_argument("--repetition-penalty", type=option_checks.number(
                       0.0, 10.0, low_open=True, what="a repetition penalty"), metavar="X",
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


def _check_decoding_options(stop: list[str] | None, top_k: int | None,
                            repetition_penalty: float | None) -> None:
    """CourtbenchError naming the first decoding option whose value is out of range."""
    if top_k is not None and top_k < 1:
        raise CourtbenchError(f"--top-k {top_k}: expected an integer >= 1")
    if repetition_penalty is not None and not repetition_penalty > 0:
        raise CourtbenchError(f"--repetition-penalty {repetition_penalty}: expected a number > 0")
    if stop is not None and (not stop or any(not text for text in stop)):
        raise CourtbenchError(f"--stop {stop!r}: expected non-empty stop sequences")


def _server_sampling(base_url: str, top_k: int | None,
                     repetition_penalty: float | None) -> tuple[dict, list[str]]:
    """``(extra_body fields, dropped names)`` of top_k / repetition_penalty: the ones given,
    minus those ``base_url``'s API refuses (named in ``dropped``)."""
    extra = {name: value for name, value in (("top_k", top_k),
                                              ("repetition_penalty", repetition_penalty))
             if value is not None}
    if not refuses_server_parameters(base_url):
        return extra, []
    dropped = [name for name in SERVER_SAMPLING_PARAMETERS if name in extra]
    return {k: v for k, v in extra.items() if k not in SERVER_SAMPLING_PARAMETERS}, dropped


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
    _check_decoding_options(stop, top_k, repetition_penalty)
    result = dict(params)
    if stop:
        result["stop"] = list(stop)
    extra, dropped = _server_sampling(base_url, top_k, repetition_penalty)
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


# ============================================================================================
# Run controls (limit, headers, failure share, answer cap, redirects, auth fail-fast, finite
# numbers). Kept apart from the endpoint options above so that other option sets merge
# beside them: every runner gets these through add_endpoint_arguments.
# ============================================================================================

DEFAULT_MAX_ANSWER_CHARS = 1_000_000
DEFAULT_MAX_AUTH_FAILURES = 3
MAX_AUTH_FAILURES = 1_000
#: --timeout / --judge-timeout and --max-retries / --judge-max-retries (checked while parsing).
TIMEOUT = option_checks.number(0.0, option_checks.MAX_SECONDS, low_open=True,
                               what="a timeout in seconds")
RETRIES = option_checks.count(option_checks.MAX_RETRIES, low=0, what="a number of retries")


def finite_float(text: str) -> float:
    """argparse type: a finite number (``nan`` / ``inf`` refused in one line)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def parse_header(text: str) -> tuple[str, str]:
    """argparse type of ``--header 'Name: value'`` -> ``(name, value)``."""
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    try:
        check_headers([(name, value)])
    except ValueError:
        name = ""
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected 'Name: value' (a valid header name and a "
                                         f"value without line breaks), got {text!r}")
    if name.lower() in ("authorization", "proxy-authorization"):
        raise argparse.ArgumentTypeError(f"{name}: give the key in the variable named by "
                                         "--api-key-env, not as a header")
    return name, value


def add_run_control_arguments(parser, *, prefix: str = "") -> None:
    """Add ``--limit --header --max-failure-share --max-answer-chars --follow-redirects
    --max-auth-failures`` (with ``prefix``: ``--judge-limit`` …) to ``parser`` (or a group)."""
    flag = "--" + prefix.replace("_", "-")
    parser.add_argument(f"{flag}limit", type=option_checks.count(option_checks.MAX_ROWS,
                                                                    what="a number of samples"), metavar="N",
                        help="only the first N samples (a quick check; recorded in the manifest)")
    parser.add_argument(f"{flag}header", type=parse_header, action="append", default=[],
                        metavar="'NAME: VALUE'",
                        help="extra HTTP header for every request (repeatable; values never "
                             "written anywhere, names recorded)")
    parser.add_argument(f"{flag}max-failure-share", type=option_checks.SHARE, default=0.0, metavar="SHARE",
                        help="largest share of failed samples (request errors, unusable "
                             "answers) for a complete run with exit status 0 (default 0)")
    parser.add_argument(f"{flag}max-answer-chars", type=option_checks.count(
                            option_checks.MAX_ANSWER_CHARS, what="a number of characters"),
                        default=DEFAULT_MAX_ANSWER_CHARS, metavar="N",
                        help="longer answers (content + reasoning) are failures, never stored "
                             f"(default {DEFAULT_MAX_ANSWER_CHARS:,})")
    parser.add_argument(f"{flag}follow-redirects", action="store_true",
                        help="follow HTTP redirects of the endpoint (recorded per answer); "
                             "refused by default")
    parser.add_argument(f"{flag}max-auth-failures", type=option_checks.count(
                            MAX_AUTH_FAILURES, what="a number of failures"),
                        default=DEFAULT_MAX_AUTH_FAILURES, metavar="N",
                        help="stop sending after N consecutive authentication / quota errors "
                             f"(401, 402, 403, 429 quota; default {DEFAULT_MAX_AUTH_FAILURES})")


def run_control_endpoint_fields(args: argparse.Namespace, prefix: str = "") -> dict:
    """The :class:`EndpointConfig` fields of the run controls (defaults when a parser has
    none of them)."""
    def value(name: str, default):
        return getattr(args, prefix + name, default)

    return {"headers": tuple(value("header", []) or ()),
            "max_answer_chars": value("max_answer_chars", DEFAULT_MAX_ANSWER_CHARS),
            "follow_redirects": bool(value("follow_redirects", False)),
            "max_auth_failures": value("max_auth_failures", DEFAULT_MAX_AUTH_FAILURES)}


def failure_share(failed: int, total: int) -> float:
    """``failed / total`` (0 for an empty run)."""
    return failed / total if total else 0.0


def run_record(summary: RunSummary, *, failed: int, total: int, max_failure_share: float,
               limit: int | None, config: EndpointConfig) -> dict:
    """What a manifest records of a run's truth (key ``llm_run``): ``samples``,
    ``failed`` (samples without a usable answer), ``failure_share``, ``max_failure_share``,
    ``complete`` (share within the threshold), ``failures_by_kind``, ``truncated_answers``
    (finish_reason ``length``), ``surrogates_replaced``, ``usage_ignored``, ``redirects``,
    ``limit``, ``header_names``, ``max_answer_chars``, ``follow_redirects``."""
    share = failure_share(failed, total)
    return {"samples": total, "failed": failed, "failure_share": share,
            "max_failure_share": max_failure_share, "complete": share <= max_failure_share,
            "failures_by_kind": summary.failures_by_kind,
            "truncated_answers": summary.truncated,
            "surrogates_replaced": summary.surrogates_replaced,
            "usage_ignored": summary.usage_ignored, "redirects": summary.redirects,
            "limit": limit, "header_names": [name for name, _ in config.headers],
            "max_answer_chars": config.max_answer_chars,
            "follow_redirects": config.follow_redirects}


def run_summary_line(record: dict) -> str:
    """One line for stderr: failures by kind, truncated answers, boundary repairs."""
    kinds = ", ".join(f"{k} {n}" for k, n in record["failures_by_kind"].items()) or "none"
    return (f"{record['failed']:,} of {record['samples']:,} failed "
            f"({record['failure_share']:.1%}; allowed {record['max_failure_share']:.1%}; "
            f"request failures by kind: {kinds}); {record['truncated_answers']:,} answer(s) cut "
            f"at max_tokens (finish_reason length); {record['surrogates_replaced']:,} lone "
            f"surrogate(s) replaced, {record['usage_ignored']:,} usage number(s) ignored, "
            f"{record['redirects']:,} redirected")
