"""WebArena's task-config template, read and written as WebArena writes it (Zhou et al., 2024).

A task is one JSON object::

    {"sites": ["shop"], "task_id": 3, "require_login": false, "storage_state": null,
     "start_url": "__SHOP__/#/", "geolocation": null,
     "intent_template": "What is the price of {{product}}?", "instantiation_dict": {"product": "Red Mug"},
     "intent": "What is the price of Red Mug?", "require_reset": false, "intent_template_id": 0,
     "eval": {"eval_types": ["string_match"], "reference_answers": {"must_include": ["$12.50"]},
              "reference_url": "", "program_html": [], "string_note": "", "reference_answer_raw_annotation": "$12.50"}}

vcoder's sites stand in for WebArena's (``sites`` and the URL placeholders name them: :data:`vcoder.browse.sites.SITES`).
Two keys are vcoder's own, and WebArena's harness ignores them: ``site_seed`` (which generated instance of the site;
default 0) and ``solution`` (the scripted solver's plan, :mod:`vcoder.browse.solver`; absent on written tasks).
Every other key is kept as it was read (``extra``) and written back, so a WebArena file round-trips.
A task written by the curriculum's task writer (:mod:`vcoder.pipelines.web_agent.writer`) has no evaluator: its
``eval`` is ``null`` (the key present, so a file that forgot it is still refused) and the outcome reward model judges
its episodes, as WebRL's ORM judges its generated tasks (:mod:`vcoder.orm.trajectory`).
``storage_state`` is a Playwright storage-state file (``{"origins": [{"localStorage": [{"name", "value"}]}]}``)
whose localStorage entries the episode loads before the first step: a logged-in or pre-filled site.

Example:
    >>> task = WebTask.from_dict({"sites": ["shop"], "task_id": 1, "start_url": "__SHOP__/#/cart",
    ...     "intent": "Empty the cart", "eval": {"eval_types": ["url_match"], "reference_url": "__SHOP__/#/cart"}})
    >>> WebTask.from_dict(task.to_dict()) == task
    True
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.browse.sites import SITES, check_site

EVAL_TYPES = ("string_match", "url_match", "program_html")
STRING_APPROACHES = ("exact_match", "must_include", "fuzzy_match")


@dataclass(frozen=True)
class TaskEval:
    """A task's ``eval`` block: which evaluators run (their scores multiply) and what they compare against.

    Attributes:
        eval_types: a subset of ``EVAL_TYPES``.
        reference_answers: for ``string_match``: ``{"exact_match": str}``, ``{"must_include": [str]}`` and/or
            ``{"fuzzy_match": [str] | "N/A"}``.
        reference_url: for ``url_match``: one URL or several joined by ``" |OR| "``.
        program_html: for ``program_html``: ``[{"url": "last" | URL, "locator": JS expression or "",
            "required_contents": {"exact_match": str} | {"must_include": [str]}}]``.
        string_note: the reason an unachievable task is so (fuzzy ``N/A`` answers are judged against it).
        url_note: the URL rule (WebArena's only one, ``GOLD in PRED``; "" means it and is not written).
    """

    eval_types: tuple[str, ...]
    reference_answers: dict[str, Any] | None = None
    reference_url: str = ""
    program_html: tuple[dict[str, Any], ...] = ()
    string_note: str = ""
    reference_answer_raw_annotation: str = ""
    url_note: str = ""

    def __post_init__(self) -> None:
        bad = [t for t in self.eval_types if t not in EVAL_TYPES]
        if not self.eval_types or bad:
            raise ValueError(f"eval_types={list(self.eval_types)!r}: use one or more of {', '.join(EVAL_TYPES)}")
        if "string_match" in self.eval_types:
            answers = self.reference_answers or {}
            unknown = [k for k in answers if k not in STRING_APPROACHES]
            if not answers or unknown:
                raise ValueError(
                    f"string_match needs reference_answers with {', '.join(STRING_APPROACHES)}; got {answers!r}"
                )
        if "url_match" in self.eval_types and not self.reference_url:
            raise ValueError("url_match needs a reference_url")
        if "program_html" in self.eval_types:
            for target in self.program_html or ({},):
                if "url" not in target or "locator" not in target or not target.get("required_contents"):
                    raise ValueError(
                        f"program_html needs url, locator and required_contents per check, got {target!r}"
                    )
        if self.url_note not in ("", "GOLD in PRED"):
            raise ValueError(f"url_note={self.url_note!r}: WebArena's only rule is 'GOLD in PRED'")


@dataclass(frozen=True)
class WebTask:
    """One task in WebArena's template (see the module docstring)."""

    sites: tuple[str, ...]
    task_id: int | str
    start_url: str
    intent: str
    eval: TaskEval | None
    require_login: bool = False
    storage_state: str | None = None
    geolocation: Any = None
    intent_template: str = ""
    instantiation_dict: dict[str, Any] = field(default_factory=dict)
    intent_template_id: int | None = None
    require_reset: bool = False
    site_seed: int = 0
    solution: tuple[dict[str, Any], ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.sites) != 1:
            raise ValueError(f"sites={list(self.sites)!r}: vcoder's episodes run on one site per task")
        check_site(self.sites[0])
        if not self.start_url.startswith(SITES[self.sites[0]]):
            raise ValueError(f"start_url={self.start_url!r} must start with {SITES[self.sites[0]]} (the task's site)")

    @property
    def site(self) -> str:
        return self.sites[0]

    @property
    def judged_by_orm(self) -> bool:
        """True for a task without an evaluator (``eval: null``): the ORM judges its episodes."""
        return self.eval is None

    @property
    def eval_types(self) -> tuple[str, ...]:
        """The evaluators that judge it, ``("orm",)`` for a task without one."""
        return ("orm",) if self.eval is None else self.eval.eval_types

    @property
    def route(self) -> str:
        """The start page's route inside the site (``"/"``, ``"/cart"``)."""
        return route_of(self.start_url, self.site)

    def to_dict(self) -> dict[str, Any]:
        """WebArena's JSON form (tuples as lists; ``solution`` only when there is one; ``eval`` null without an
        evaluator)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("extra", "eval")}
        out["eval"] = None
        if self.eval is not None:
            out["eval"] = {
                **dataclasses.asdict(self.eval),
                "eval_types": list(self.eval.eval_types),
                "program_html": [dict(t) for t in self.eval.program_html],
            }
            if not self.eval.url_note:
                del out["eval"]["url_note"]
        if out["solution"] is None:
            del out["solution"]
        out = {**self.extra, **out}
        return json.loads(json.dumps(out))

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> WebTask:
        """A task from WebArena's JSON form (unknown keys kept in ``extra``, to be written back; ``"eval": null``: a
        task without an evaluator, judged by the ORM)."""
        known = {f.name for f in dataclasses.fields(WebTask)} - {"extra"}
        missing = [k for k in ("sites", "task_id", "start_url", "intent", "eval") if k not in data]
        if missing:
            raise ValueError(f"task {data.get('task_id', '?')}: missing {', '.join(missing)} (WebArena's template)")
        task_eval = None
        if data["eval"] is not None:
            ev = dict(data["eval"])
            ev_known = {f.name for f in dataclasses.fields(TaskEval)}
            task_eval = TaskEval(
                **{k: v for k, v in ev.items() if k in ev_known and k not in ("eval_types", "program_html")},
                eval_types=tuple(ev["eval_types"]),
                program_html=tuple(ev.get("program_html") or ()),
            )
        values = {k: v for k, v in data.items() if k in known and k not in ("eval", "sites", "solution")}
        solution = data.get("solution")
        return WebTask(
            **values,
            sites=tuple(data["sites"]),
            eval=task_eval,
            solution=None if solution is None else tuple(solution),
            extra={k: v for k, v in data.items() if k not in known},
        )


def route_of(url: str, site: str) -> str:
    """The route of a site URL (``__SHOP__/#/cart?x=1`` -> ``/cart?x=1``; no fragment -> ``/``)."""
    rest = url[len(SITES[site]) :] if url.startswith(SITES[site]) else url
    return rest.split("#", 1)[1] or "/" if "#" in rest else "/"


def read_tasks(path: str | Path) -> list[WebTask]:
    """Tasks from a JSON file (one task or a list, WebArena's ``test.raw.json``), a JSONL file, or a folder of
    ``<task_id>.json`` files (WebArena's ``config_files/``)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
        return [WebTask.from_dict(json.loads(p.read_text(encoding="utf-8"))) for p in files]
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [WebTask.from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    return [WebTask.from_dict(d) for d in (data if isinstance(data, list) else [data])]


def write_tasks(tasks: Iterable[WebTask], path: str | Path) -> Path:
    """Write tasks as WebArena does: a folder gets one ``<task_id>.json`` each; a ``.json`` file a list."""
    path = Path(path)
    tasks = list(tasks)
    if path.suffix == ".json":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([t.to_dict() for t in tasks], indent=2), encoding="utf-8")
        return path
    path.mkdir(parents=True, exist_ok=True)
    for t in tasks:
        (path / f"{t.task_id}.json").write_text(json.dumps(t.to_dict(), indent=2), encoding="utf-8")
    return path
