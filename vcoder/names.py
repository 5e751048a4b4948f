"""How settings are named, once: one prefix convention for value objects flattened into recipes, one spelling per
command-line flag, and the old names still accepted (with a warning) while they are retired.

A value object (a served model's ``Endpoint``, a ``RenderSpec``, a GUI test's ``CaseLimits``) is declared once as a
frozen dataclass; a recipe or a CLI that needs one carries its fields flat, each named ``<prefix>_<field>``
(``judge_base_url``, ``judge_timeout_ms``), with the field's type and help and the recipe's own defaults
(:func:`flat_fields`), and rebuilds the object whole from them (:func:`from_flat`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vcoder.suggest import unknown_names

logger = logging.getLogger(__name__)

#: settings renamed to their declared name, old -> new; an old name still works in recipes and flags, with a warning
RENAMED = {
    "site_width": "render_width",
    "site_height": "render_height",
    "load_timeout_ms": "render_timeout_ms",
    "gui_agent_base_url": "gui_base_url",
    "gui_agent_model": "gui_model",
    "case_step_limit": "gui_step_limit",
    "action_timeout_ms": "gui_action_timeout_ms",
    "judge_url": "judge_base_url",
    "gui_url": "gui_base_url",
}


def flat_name(prefix: str, name: str) -> str:
    """The one prefix convention: ``flat_name("judge", "base_url") == "judge_base_url"``."""
    return f"{prefix}_{name}"


def flat_fields(prefix: str, value_type: type, *, skip: Iterable[str] = (), **defaults: Any) -> list[tuple]:
    """``value_type``'s fields as ``(flat name, type, dataclasses.field)`` triples for ``dataclasses.make_dataclass``
    or a recipe decorator: same types and help, named with :func:`flat_name`, defaults overridden by ``defaults``.

    Args:
        prefix: what the value configures in the recipe (``judge``, ``gui``, ``render``, ``case``).
        value_type: a dataclass whose fields carry ``metadata={"help": ...}``.
        skip: fields the recipe does not carry (they keep the value type's defaults in :func:`from_flat`).
        **defaults: the recipe's own defaults, by field name.
    """
    fields = {f.name: f for f in dataclasses.fields(value_type)}
    unknown = [k for k in (*defaults, *skip) if k not in fields]
    if unknown:
        raise TypeError(f"{value_type.__name__} has no field(s) {unknown_names(unknown, fields)}")
    out = []
    for name, f in fields.items():
        if name in skip:
            continue
        default = defaults.get(name, f.default)
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            spec = dataclasses.field(default_factory=f.default_factory, metadata=f.metadata)
        else:
            spec = dataclasses.field(default=default, metadata=f.metadata)
        out.append((flat_name(prefix, name), f.type, spec))
    return out


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
    accepted = None if known is None else set(known)
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        new = RENAMED.get(key)
        if new is not None and (accepted is None or new in accepted):
            if new in mapping:
                raise ValueError(f"{where}: {key!r} and {new!r} name one setting; keep {new!r}")
            logger.warning("%s: %r is now called %r; the old name still works, with this warning", where, key, new)
            key = new
        out[key] = value
    return out


def rename_flags(argv: Sequence[str], *, known: Iterable[str] | None = None) -> list[str]:
    """Command-line ``--old`` / ``--old=value`` flags of :data:`RENAMED` as their new names (a warning each)."""
    accepted = None if known is None else set(known)
    out = []
    for item in argv:
        name, sep, value = item[2:].partition("=") if item.startswith("--") else ("", "", "")
        new = RENAMED.get(name)
        if new is not None and (accepted is None or new in accepted):
            logger.warning("command line: --%s is now --%s; the old flag still works, with this warning", name, new)
            item = f"--{new}{sep}{value}"
        out.append(item)
    return out


def cli_flag(name: str) -> str:
    """The one spelling of a setting's command-line flag: ``cli_flag("visual_weights") == "--visual-weights"``."""
    return "--" + name.replace("_", "-")


def respell_flags(argv: Sequence[str], known: Iterable[str]) -> list[str]:
    """``argv`` with every flag in its one spelling (:func:`cli_flag`): an underscore spelling (``--visual_weights``)
    or an old name of :data:`RENAMED` (``--judge-url``) whose new flag is in ``known`` and which is not itself in
    ``known`` is rewritten, with a warning; anything else is left to the parser."""
    accepted = set(known)
    out = []
    for item in argv:
        if item.startswith("--") and len(item) > 2:
            name, sep, value = item[2:].partition("=")
            key = name.replace("-", "_")
            new = cli_flag(RENAMED.get(key, key))
            # a spelling some parser declares as it is stays (agent test's --action-timeout-ms is its own flag)
            if new != f"--{name}" and new in accepted and f"--{name}" not in accepted:
                logger.warning("--%s is spelled %s; the old spelling still works, with this warning", name, new)
                item = f"{new}{sep}{value}"
        out.append(item)
    return out
