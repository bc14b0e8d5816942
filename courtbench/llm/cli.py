"""Command-line options of an LLM endpoint, shared by every runner (generate, predict, judge)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.llm.core import EndpointConfig, endpoint_host

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"


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
