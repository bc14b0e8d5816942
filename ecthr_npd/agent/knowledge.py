"""The knowledge base: Markdown modules loaded on demand (``search_modules``, ``load_module``).

A module is one Markdown file that starts with a short YAML header::

    ---
    family: normative        # normative | empirical | routing | policy
    articles: ["3", "P1-1"]  # article codes it covers, or "all"
    title: One line          # optional (default: the file name)
    data_fingerprint: ...    # empirical modules only: the built folder's fingerprint
    ---
    Text of the module.

Sources: the small policy set courtbench ships (``ecthr_npd/agent/policy/*.md``: protocol,
output schema, redaction contract, in courtbench's own words), the user's folder
(``--knowledge-base DIR``, every ``*.md`` below it, in path order; module name = path relative
to DIR without ``.md``), and the empirical modules courtbench computes from the training split
(``empirical/article-<code>``, one per article, rendered from :mod:`ecthr_npd.agent.priors`).
A user's empirical module must name the data fingerprint it was computed from: one computed
from other data is refused. Names are unique across sources.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from courtbench.errors import CourtbenchError
from courtbench.resources import package_path
from ecthr_npd import schema
from ecthr_npd.agent.priors import EmpiricalPriors

FAMILIES = ("normative", "empirical", "routing", "policy")
ALL = "all"
MAX_MODULE_CHARS = 12_000
POLICY_PACKAGE = "ecthr_npd.agent"


@dataclass(frozen=True)
class Module:
    """One module: ``name``, ``family``, ``articles`` (codes, or ``("all",)``), ``title``,
    ``text`` (the body) and ``source`` (``policy``, ``user`` or ``computed``)."""

    name: str
    family: str
    articles: tuple[str, ...]
    title: str
    text: str
    source: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def covers(self, articles: list[str]) -> bool:
        return ALL in self.articles or bool(set(self.articles) & set(articles))

    def entry(self) -> dict[str, Any]:
        """What ``search_modules`` shows of it."""
        return {"name": self.name, "family": self.family, "title": self.title,
                "articles": list(self.articles)}


def _articles(value: Any, where: str) -> tuple[str, ...]:
    if value == ALL:
        return (ALL,)
    items = value if isinstance(value, list) else None
    codes = [str(v) for v in items or ()]
    bad = [c for c in codes if not schema.ARTICLE_PATTERN.fullmatch(c)]
    if not codes or bad:
        raise CourtbenchError(f"{where}: header 'articles' must be \"all\" or a list of article "
                              f"codes such as [\"3\", \"P1-1\"]; got {value!r}")
    return tuple(sorted(set(codes)))


def parse_module(text: str, *, name: str, source: str, where: str,
                 fingerprint: str | None = None) -> Module:
    """One module file's text → :class:`Module`; CourtbenchError naming ``where`` otherwise."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in (s.strip() for s in lines[1:]):
        raise CourtbenchError(f"{where}: expected a YAML header between '---' lines at the top")
    end = 1 + [s.strip() for s in lines[1:]].index("---")
    try:
        header = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as error:
        raise CourtbenchError(f"{where}: the YAML header is not valid YAML "
                              f"({' '.join(str(error).split())})") from None
    if not isinstance(header, dict):
        raise CourtbenchError(f"{where}: the YAML header must be a mapping")
    family = header.get("family")
    if family not in FAMILIES:
        raise CourtbenchError(f"{where}: header 'family' must be one of {', '.join(FAMILIES)}; "
                              f"got {family!r}")
    if family == "empirical" and source == "user" and header.get("data_fingerprint") != fingerprint:
        raise CourtbenchError(f"{where}: an empirical module must name the data it was computed "
                              f"from (data_fingerprint: {fingerprint}); it names "
                              f"{header.get('data_fingerprint')!r}")
    body = "\n".join(lines[end + 1:]).strip()
    if not body:
        raise CourtbenchError(f"{where}: the module has no text after its header")
    return Module(name, family, _articles(header.get("articles"), where),
                  str(header.get("title") or name), body, source)


def _read(path: Path, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CourtbenchError(f"{where}: cannot read the module ({error})") from None


def policy_modules() -> list[Module]:
    """The policy set courtbench ships, in name order."""
    folder = package_path(POLICY_PACKAGE, "policy")
    return [parse_module(path.read_text(encoding="utf-8"), name=f"policy/{path.stem}",
                         source="policy", where=str(path))
            for path in sorted(Path(str(folder)).glob("*.md"))]


def user_modules(folder: Path, fingerprint: str) -> list[Module]:
    """Every ``*.md`` module below ``folder`` (path order)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CourtbenchError(f"--knowledge-base {folder}: not a directory")
    paths = sorted(folder.rglob("*.md"))
    if not paths:
        raise CourtbenchError(f"--knowledge-base {folder}: holds no *.md module")
    return [parse_module(_read(p, f"--knowledge-base {p}"),
                         name=p.relative_to(folder).with_suffix("").as_posix(), source="user",
                         where=f"--knowledge-base {p}", fingerprint=fingerprint)
            for p in paths]


def empirical_module(priors: EmpiricalPriors, article: str) -> Module:
    """The computed empirical module of one article: its prior and its country cells."""
    cells = {key: stats for key, stats in priors.tables["article_country"].items()
             if key.split("|")[0] == article}
    body = json.dumps({"article": article, "prior": priors.tables["article"].get(article),
                       "by_country": cells, **priors.binding()},
                      sort_keys=True, indent=1)
    return Module(f"empirical/article-{article}", "empirical", (article,),
                  f"Training-split award statistics for article {article}", body, "computed")


class KnowledgeBase:
    """All modules of a run: shipped policy, the user's, and the computed empirical ones."""

    def __init__(self, priors: EmpiricalPriors, folder: Path | None = None) -> None:
        modules = policy_modules()
        if folder is not None:
            modules += user_modules(folder, priors.data_fingerprint)
        modules += [empirical_module(priors, a) for a in sorted(priors.tables["article"])]
        self.modules: dict[str, Module] = {}
        for module in modules:
            if module.name in self.modules:
                raise CourtbenchError(f"--knowledge-base: two modules are named {module.name!r}")
            self.modules[module.name] = module
        self.folder = folder

    def search(self, articles: list[str], *, query: str = "", family: str | None = None
               ) -> list[Module]:
        """Modules covering ``articles`` (or all of them), of ``family`` when given, whose
        name or title holds every word of ``query`` (case-insensitive); name order."""
        words = query.lower().split()
        found = []
        for module in self.modules.values():
            haystack = f"{module.name} {module.title}".lower()
            if module.covers(articles) and (family is None or module.family == family) \
                    and all(word in haystack for word in words):
                found.append(module)
        return found

    def manifest(self) -> dict[str, Any]:
        """Names and sha256 of the shipped and user modules (computed ones are in the
        priors' sha256)."""
        return {"folder": str(self.folder) if self.folder else None,
                "modules": {m.name: m.sha256 for m in self.modules.values()
                            if m.source != "computed"}}
