"""How settings are named, once: one prefix convention for value objects flattened into recipes, one spelling per
command-line flag, and the old names still accepted (with a warning) while they are retired.

A value object (a served model's ``Endpoint``, a ``RenderSpec``, a GUI test's ``CaseLimits``) is declared once as a
frozen dataclass; a recipe or a CLI that needs one carries its fields flat, each named ``<prefix>_<field>``
(``judge_base_url``, ``judge_timeout_ms``), with the field's type and help and the recipe's own defaults
(:func:`flat_fields`), and rebuilds the object whole from them (:func:`from_flat`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from vcoder.suggest import unknown_names

logger = logging.getLogger(__name__)

#: settings renamed to their declared name, old -> new; an old name still works in recipes and flags, with a warning.
#: An old name that meant several settings at once (Step-GRPO's ``endpoint_timeout_ms`` was the budget of a judge,
#: GUI-agent and test-writer request; WebGen-Bench's ``agent_timeout_ms`` the GUI agent's and the judge's) maps to a
#: tuple: it sets each of them that the reader declares, so an old recipe keeps its meaning.
RENAMED: dict[str, str | tuple[str, ...]] = {
    "site_width": "render_width",
    "site_height": "render_height",
    "load_timeout_ms": "render_timeout_ms",
    "gui_agent_base_url": "gui_base_url",
    "gui_agent_model": "gui_model",
    "agent_base_url": "gui_base_url",
    "agent_model": "gui_model",
    "agent_max_tokens": "gui_max_tokens",
    "agent_timeout_ms": ("gui_timeout_ms", "judge_timeout_ms"),
    "endpoint_timeout_ms": ("judge_timeout_ms", "gui_timeout_ms", "test_writer_timeout_ms"),
    "case_step_limit": "gui_step_limit",
    "max_actions": "gui_step_limit",
    "case_deadline_ms": "gui_deadline_ms",
    "case_timeout_ms": "gui_deadline_ms",
    "action_timeout_ms": "gui_action_timeout_ms",
    "judge_url": "judge_base_url",
    "gui_url": "gui_base_url",
    "retries": "max_retries",
    "concurrency": "max_concurrency",
}


def new_names(old: str, known: Iterable[str] | None = None) -> tuple[str, ...]:
    """The declared name(s) that replace ``old`` (``()`` when it was not renamed), keeping those ``known`` accepts.

    Example:
        >>> new_names("endpoint_timeout_ms", known={"judge_timeout_ms", "gui_timeout_ms"})
        ('judge_timeout_ms', 'gui_timeout_ms')
    """
    new = RENAMED.get(old, ())
    names = (new,) if isinstance(new, str) else new
    if known is None:
        return names
    accepted = set(known)
    return tuple(n for n in names if n in accepted)


def flat_name(prefix: str, name: str) -> str:
    """The one prefix convention: ``flat_name("judge", "base_url") == "judge_base_url"``; the empty prefix is a
    recipe's own, unprefixed object (WebGen-Bench's builder: ``flat_name("", "model") == "model"``)."""
    return f"{prefix}_{name}" if prefix else name


def flat_fields(
    prefix: str,
    value_type: type,
    *,
    only: Iterable[str] | None = None,
    skip: Iterable[str] = (),
    about: str | None = None,
    **defaults: Any,
) -> list[tuple]:
    """``value_type``'s fields as ``(flat name, type, dataclasses.field)`` triples for ``dataclasses.make_dataclass``
    or a recipe decorator (:func:`carries`): same types and help, named with :func:`flat_name`, defaults overridden
    by ``defaults``.

    Args:
        prefix: what the value configures in the recipe (``judge``, ``gui``, ``render``, ``case``; ``""``: the
            recipe's own object, its fields bare).
        value_type: a dataclass whose fields carry ``metadata={"help": ...}``.
        only: the fields the recipe carries (default: all but ``skip``), in the value type's order.
        skip: fields the recipe does not carry (they keep the value type's defaults in :func:`from_flat`).
        about: what the value is in this recipe, put before each help text (``"the screenshot judge"``).
        **defaults: the recipe's own defaults, by field name.
    """
    fields = {f.name: f for f in dataclasses.fields(value_type)}
    kept = set(fields if only is None else only) - set(skip)
    unknown = [k for k in (*defaults, *skip, *(only or ())) if k not in fields]
    if unknown:
        raise TypeError(f"{value_type.__name__} has no field(s) {unknown_names(unknown, sorted(fields))}")
    dropped = [k for k in defaults if k not in kept]
    if dropped:
        raise TypeError(f"defaults for {dropped}, which the recipe does not carry (see only= / skip=)")
    out = []
    for name, f in fields.items():
        if name not in kept:
            continue
        metadata = f.metadata
        if about and "help" in metadata:
            metadata = {**metadata, "help": f"{about}: {metadata['help']}"}
        default = defaults.get(name, f.default)
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            spec = dataclasses.field(default_factory=f.default_factory, metadata=metadata)
        else:
            spec = dataclasses.field(default=default, metadata=metadata)
        out.append((flat_name(prefix, name), f.type, spec))
    return out


def carries(prefix: str, value_type: type, **options: Any):
    """Class decorator (put it under ``@dataclass``): the recipe carries ``value_type`` flat, its fields generated by
    :func:`flat_fields` (same arguments) after the class's own, so a value object's settings are declared once.

    Example:
        >>> from dataclasses import dataclass
        >>> from vcoder.rendering.spec import RenderSpec
        >>> @dataclass
        ... @carries("render", RenderSpec, timeout_ms=10_000)
        ... class Recipe:
        ...     steps: int = 1
        >>> Recipe().render_timeout_ms
        10000
    """
    generated = flat_fields(prefix, value_type, **options)

    def decorate(cls: type) -> type:
        annotations = dict(inspect.get_annotations(cls))
        for name, type_, spec in generated:
            if name in annotations:
                raise TypeError(f"{cls.__name__}.{name} is generated from {value_type.__name__}; do not declare it")
            annotations[name] = type_
            setattr(cls, name, spec)
        cls.__annotations__ = annotations
        # which fields came from which declaration (tests/test_vocabulary.py checks every recipe's)
        cls.__generated__ = {**generated_fields(cls), **{name: value_type.__name__ for name, _, _ in generated}}
        return cls

    return decorate


def generated_fields(cls: type) -> dict[str, str]:
    """``{field: value type name}`` of the fields :func:`carries` generated in ``cls`` (a recipe class).

    Example:
        >>> from vcoder.sites.records import EpisodeOptions
        >>> generated_fields(EpisodeOptions)["render_width"]
        'RenderSpec'
    """
    return dict(cls.__dict__.get("__generated__", {}))


def from_flat(prefix: str, value_type: type, source: Any, **overrides: Any) -> Any:
    """The value object rebuilt from a recipe's flat ``<prefix>_<field>`` attributes (fields it lacks keep their
    defaults; ``overrides`` win)."""
    values = {}
    for f in dataclasses.fields(value_type):
        flat = flat_name(prefix, f.name)
        if hasattr(source, flat):
            values[f.name] = getattr(source, flat)
    values.update(overrides)
    return value_type(**values)


def rename_keys(mapping: Mapping[str, Any], *, where: str, known: Iterable[str] | None = None) -> dict[str, Any]:
    """``mapping`` with every old name of :data:`RENAMED` replaced by its new one (a warning each).

    Args:
        mapping: a recipe's keys and values.
        where: what the mapping is, for the messages (a file, "command line").
        known: the names the reader accepts; an old name whose new one it does not know is left alone.

    Raises:
        ValueError: a setting given under both its old and its new name.
    """
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        news = new_names(key, known)
        if not news:
            out[key] = value
            continue
        for new in news:
            if new in mapping:
                raise ValueError(f"{where}: {key!r} and {new!r} name one setting; keep {new!r}")
            out[new] = value
        called = " and ".join(repr(n) for n in news)
        logger.warning("%s: %r is now called %s; the old name still works, with this warning", where, key, called)
    return out


def accepts_old_names(**own: str):
    """Class decorator (put it above ``@dataclass``): the class's old keyword names still work, each with a
    ``DeprecationWarning`` naming the new one; an old attribute read does too. The old names are those of
    :data:`RENAMED` whose new names the class declares, plus ``own`` (old -> new, the class's own renames).

    Example:
        >>> import warnings
        >>> from vcoder.sites.records import EpisodeOptions
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     EpisodeOptions(width=640).render_width
        640
        >>> str(caught[0].message)
        'EpisodeOptions(width=...) is now EpisodeOptions(render_width=...); the old name still works, with this warning'
    """

    def decorate(cls: type) -> type:
        fields = {f.name for f in dataclasses.fields(cls)}
        old = {name: new_names(name, fields) for name in RENAMED if name not in fields}
        old = {name: news for name, news in old.items() if news} | {name: (new,) for name, new in own.items()}
        init = cls.__init__

        @functools.wraps(init)
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **renamed_keywords(cls, kwargs))

        cls.__init__, cls.__old_names__ = __init__, old
        for name, news in old.items():
            if len(news) == 1 and not hasattr(cls, name):
                setattr(cls, name, property(functools.partial(_old_attribute, name=name, new=news[0])))
        return cls

    return decorate


def renamed_keywords(cls: type, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the old names :func:`accepts_old_names` gave ``cls`` replaced by their new ones (a
    ``DeprecationWarning`` each); a setting given under both names is a ``TypeError``."""
    out = dict(kwargs)
    for name, news in getattr(cls, "__old_names__", {}).items():
        if name not in out:
            continue
        value = out.pop(name)
        for new in news:
            if new in kwargs:
                raise TypeError(f"{cls.__name__}: {name!r} and {new!r} name one setting; keep {new!r}")
            out[new] = value
        called = " and ".join(f"{cls.__name__}({n}=...)" for n in news)
        message = f"{cls.__name__}({name}=...) is now {called}; the old name still works, with this warning"
        warnings.warn(message, DeprecationWarning, stacklevel=3)
    return out


def _old_attribute(self: Any, *, name: str, new: str) -> Any:
    cls = type(self).__name__
    warnings.warn(f"{cls}.{name} is now {cls}.{new}", DeprecationWarning, stacklevel=2)
    return getattr(self, new)
