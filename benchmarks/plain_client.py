"""The reference the Inspect runner is measured against: the chat client a researcher writes
by hand in a few lines — the ``openai`` package's async client, a semaphore for concurrency and
an SQLite table of answers keyed by the request body's hash.

It is what courtbench's own transport was before model runs moved onto Inspect AI (the same
client library, fan-out and cache design, without the retry and bookkeeping layers), so a
ratio against it says what the harness costs per request. Benchmarks only: nothing of
courtbench imports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass
class PlainRun:
    """Counts of one :func:`run_plain` call: answers received from the server, answers read
    from the cache."""

    sent: int
    cached: int


def _key(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


async def _run(bodies: list[dict], url: str, concurrency: int, cache: Path | None) -> PlainRun:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url, api_key="no-key", max_retries=0)
    database = sqlite3.connect(cache) if cache else None
    if database:
        database.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, text TEXT)")
    gate = asyncio.Semaphore(concurrency)
    counts = PlainRun(0, 0)

    async def one(body: dict) -> None:
        key = _key(body)
        if database and database.execute("SELECT 1 FROM answers WHERE key = ?",
                                          (key,)).fetchone():
            counts.cached += 1
            return
        async with gate:
            answer = await client.chat.completions.create(**body)
        counts.sent += 1
        if database:
            database.execute("INSERT OR REPLACE INTO answers VALUES (?, ?)",
                             (key, answer.choices[0].message.content))

    try:
        await asyncio.gather(*(one(body) for body in bodies))
        if database:
            database.commit()
    finally:
        await client.close()
        if database:
            database.close()
    return counts


def run_plain(messages: list[list[dict]], settings: dict, url: str, *, model: str = "m",
              concurrency: int = 8, cache: Path | None = None) -> PlainRun:
    """Send one chat request per message list to the OpenAI-compatible server at ``url``
    (``settings``: temperature, seed … in the request body), at most ``concurrency`` at a
    time; answers found in the SQLite file ``cache`` are not sent again."""
    bodies = [{"model": model, "messages": list(m), **settings} for m in messages]
    return asyncio.run(_run(bodies, url, concurrency, cache))
