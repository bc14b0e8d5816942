"""What an LLM endpoint URL may be, for every client that sends requests: the toolkit's model
runners and the LLM-judge metric module's client, which links this file. Standard library
only."""

import urllib.parse


def endpoint_host(base_url):
    """``scheme://host[:port]`` of an http(s) URL: no path, no credentials, no query (what a
    manifest may record of an endpoint).

    >>> endpoint_host("https://user:secret@api.example.org:8443/v1?key=x")
    'https://api.example.org:8443'

    Raises:
        ValueError: not an http(s) URL with a host.
    """
    parts = urllib.parse.urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, "
                         f"got {base_url!r:.200}")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


def check_endpoint_url(base_url, key_hint="pass the key as api_key"):
    """The URL's host (:func:`endpoint_host`); ValueError for a URL that carries credentials
    (``user:password@host``), whose message ends with ``key_hint`` (where the key belongs)."""
    host = endpoint_host(base_url)
    parts = urllib.parse.urlsplit(base_url)
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"base_url must not carry credentials (user:password@host); {key_hint}")
    return host
