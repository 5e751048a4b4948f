"""MkDocs hook: every name the API reference shows must have a docstring.

mkdocstrings renders a name without a docstring as a bare signature and says nothing; this hook makes it a warning,
which ``mkdocs build --strict`` turns into a failed build. The names checked are those of each ``::: module`` line of
``docs/api/*.md``: the module's ``__all__`` when it has one, else the public functions and classes it defines.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.vcoder_docstrings")
TARGET = re.compile(r"^::: ([\w.]+)\s*$", re.M)


def public_names(module) -> list[str]:
    """The names the API page shows for ``module``: its ``__all__``, else what it defines without a leading ``_``."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def undocumented(module_name: str) -> list[str]:
    """``module_name`` itself and each of its public functions and classes that has no docstring of its own.

    Example:
        >>> undocumented("vcoder.suggest")
        []
    """
    module = importlib.import_module(module_name)
    # a package docstring that only repeats its name ("vcoder.eval.") says nothing either
    said = (module.__doc__ or "").strip().rstrip(".")
    missing = [] if said and said != module_name else [module_name]
    for name in public_names(module):
        obj = getattr(module, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue  # constants and type aliases carry no docstring of their own
        doc = (obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__) or ""
        # a dataclass without a docstring gets its signature as one: that is not documentation
        if not doc.strip() or (inspect.isclass(obj) and doc.startswith(f"{obj.__name__}(")):
            missing.append(f"{module_name}.{name}")
    return missing


def on_pre_build(config, **kwargs) -> None:
    api = Path(config["docs_dir"]) / "api"
    for page in sorted(api.glob("*.md")):
        for target in TARGET.findall(page.read_text()):
            for name in undocumented(target):
                log.warning("%s: %s has no docstring (the API reference shows it)", page.name, name)


class ExampleSections:
    """Griffe extension (``extensions`` in mkdocs.yml): read the house's ``Example:`` sections as Google style's
    ``Examples:``, so their doctests render as code instead of as Markdown (where ``[1, 2]`` is a link)."""

    pattern = re.compile(r"^(\s*)Example:\s*$", re.M)

    def __new__(cls, **options):
        import griffe

        class _Extension(griffe.Extension):
            def on_instance(self, *, obj, **kwargs) -> None:
                if obj.docstring is not None:
                    obj.docstring.value = cls.pattern.sub(r"\1Examples:", obj.docstring.value)

        return _Extension()
