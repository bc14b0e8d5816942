"""The LLM client shared by the runners: any OpenAI-compatible chat-completions endpoint.

``run_chat`` sends :class:`ChatRequest` s with bounded concurrency, retries (backoff, jitter,
``Retry-After``), an SQLite cache keyed by model, messages and parameters (a rerun sends
nothing; a killed run resumes with the remainder), reasoning kept apart from the answer,
summed token usage and a tqdm progress bar. The machinery lives in :mod:`courtbench.llm.core`
(one self-contained file that LLM-calling metric modules copy); the command-line
helpers in :mod:`courtbench.llm.cli`.

A caller writes its outputs and a manifest itself (``llm_run``: :func:`run_record`) and exits
non-zero when the share of failed samples exceeds ``--max-failure-share`` (default 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from courtbench.errors import CourtbenchError
from courtbench.llm.cli import (
    add_decoding_arguments,
    add_endpoint_arguments,
    decoding_from_args,
    decoding_params,
    endpoint_from_args,
    finite_float,
    manifest_endpoint,
    run_record,
    run_summary_line,
)
from courtbench.llm.core import (
    CacheWriteError,
    ChatRequest,
    ChatResult,
    EndpointConfig,
    RunSummary,
    dry_run_text,
    endpoint_host,
    request_key,
    run_requests,
    split_reasoning,
)

__all__ = [
    "ChatRequest", "ChatResult", "EndpointConfig", "RunSummary", "add_decoding_arguments",
    "add_endpoint_arguments", "decoding_from_args", "decoding_params",
    "dry_run_text", "endpoint_from_args", "endpoint_host", "manifest_endpoint", "request_key",
    "finite_float", "run_chat", "run_record", "run_summary_line", "split_reasoning",
]


def run_chat(requests: Sequence[ChatRequest], config: EndpointConfig, *,
             desc: str = "requests", progress: bool = True,
             api_key: str | None = None) -> RunSummary:
    """Obtain every request (cache first, then the endpoint) with a tqdm progress bar.

    Args:
        requests: the requests; identical ones are sent once.
        config: endpoint, model, concurrency, timeout, retries and cache.
        desc: progress-bar label.
        progress: show the bar (on stderr).
        api_key: overrides the key read from ``config.api_key_env``.

    Returns:
        RunSummary: results in request order, counts sent / cached / failed, summed usage.

    Raises:
        CourtbenchError: the cache could not store an answer (disk full): one line naming
            the file; the answers stored before are kept and a rerun continues.
    """
    from tqdm import tqdm

    bar = tqdm(total=len(requests), desc=desc, unit="req", disable=not progress,
               dynamic_ncols=True)
    try:
        return run_requests(requests, config, api_key=api_key,
                            on_start=lambda cached: bar.update(cached), on_done=bar.update)
    except CacheWriteError as error:
        raise CourtbenchError(str(error)) from None
    finally:
        bar.close()
