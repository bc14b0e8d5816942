"""Hub repository ids from the command line: ``ORG/NAME`` and nothing else."""

from __future__ import annotations

from huggingface_hub.utils import HFValidationError, validate_repo_id

from courtbench.errors import CourtbenchError


def check_repo_id(repo_id: str, *, option: str = "--repo-id") -> str:
    """Return ``repo_id`` if it is a valid ``ORG/NAME``; raise CourtbenchError (one line
    naming ``option``) otherwise: exactly one ``/``, no ``..`` or ``--``, no path tricks."""
    if not isinstance(repo_id, str) or repo_id.count("/") != 1:
        raise CourtbenchError(f"{option} {repo_id!r}: expected ORG/NAME (one '/')")
    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CourtbenchError(f"{option} {repo_id!r} is not a valid Hub repo id: "
                              f"{detail}") from None
    if any(part in (".", "..") or part.startswith(".") for part in repo_id.split("/")):
        raise CourtbenchError(f"{option} {repo_id!r}: expected ORG/NAME without '.' or '..' "
                              "parts")
    return repo_id
