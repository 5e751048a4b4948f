"""Whether a model name is a local folder that can load, checked before any time is spent: a name meant as a local
folder that is missing (or holds no ``config.json``) is a ``ModelFolderError`` whose one-line message names the
folder and, when a recipe's header says so, the command that makes it; hub ids pass. :mod:`vcoder.models.loading`
checks every policy it loads with :func:`check_model_folder`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MISSING, NO_CONFIG = "missing", "no config.json"


class ModelFolderError(ValueError):
    """A model name meant as a local folder that is not a model folder; the message says which and how to make it.

    Attributes:
        name: the name as given.
        path: its absolute path here.
        problem: ``"missing"`` (no such folder) or ``"no config.json"`` (a folder, but not one ``save_pretrained``
            wrote).
        command: the command that makes it (from a recipe's header), or None.
    """

    def __init__(self, message: str, *, name: str, path: str, problem: str, command: str | None) -> None:
        super().__init__(message)
        self.name, self.path, self.problem, self.command = name, path, problem, command


def is_local_name(name: str) -> bool:
    """Whether ``name`` is meant as a local folder rather than a hub id (``org/model``).

    Local: it exists, starts like a path (``/``, ``.``, ``~``), has more than one ``/``, or its first component is a
    folder here (``outputs/run``).
    """
    name = str(name)
    if os.path.exists(os.path.expanduser(name)) or name.startswith(("/", ".", "~")) or name.count("/") > 1:
        return True
    return "/" in name and os.path.isdir(name.split("/", 1)[0])


def making_command(name: str, recipe: str | None) -> str | None:
    """The command in ``recipe``'s header comments that writes the folder ``name`` (or None).

    A header line ``# vcoder ... --out OUT`` makes ``name`` when ``name`` is OUT or lies inside it (``vcoder quickstart
    --sft-only --out outputs/quickstart-sft`` makes ``outputs/quickstart-sft/sft``). When the recipe's own
    ``model_name_or_path`` was moved elsewhere, the same command is returned writing where ``name`` would be.
    """
    if not recipe or not os.path.isfile(recipe):
        return None
    text = Path(recipe).read_text(encoding="utf-8")
    header = re.findall(r"^#\s*(vcoder\s.*--out\s+(\S+).*)$", text, flags=re.M)
    found = re.search(r"^model_name_or_path:\s*(\S+)", text, flags=re.M)
    default = found.group(1) if found else None

    def makes(out: str, path: str) -> bool:  # the command writes the folder itself or a folder holding it
        out, path = os.path.normpath(out), os.path.normpath(path)
        return path == out or path.startswith(out + os.sep)

    command = None
    for line, out in header:
        if makes(out, name):
            command = line.strip()
        elif command is None and default and makes(out, default):
            inner = os.path.relpath(os.path.normpath(default), os.path.normpath(out))
            where = os.path.normpath(name)
            if inner != "." and where.endswith(os.sep + inner):
                where = where[: -len(inner) - 1]
            command = line.strip().replace(out, where)
    return command


def check_model_folder(
    name: str, *, recipe: str | None = None, what: str = "model_name_or_path", need_config: bool = True
) -> None:
    """Refuse a name meant as a local folder that cannot load, before any time is spent; hub ids pass.

    A name that names no folder here but that ``recipe``'s header makes counts as local even when it looks like a
    hub id.

    Args:
        name: a local folder or a hub id.
        recipe: a YAML recipe whose header comments name the command that makes the folder.
        what: how the message names the setting.
        need_config: also refuse a folder without ``config.json`` (or a PEFT adapter's ``adapter_config.json``).

    Raises:
        ModelFolderError: the folder is missing (the message names the command that makes it, when known) or, with
            ``need_config``, holds no ``config.json``.
    """
    path = os.path.expanduser(str(name))
    where = os.path.abspath(path)
    if os.path.isdir(path):
        saved = any(os.path.isfile(os.path.join(path, f)) for f in ("config.json", "adapter_config.json"))
        if need_config and not saved:
            raise ModelFolderError(
                f"{what}={name!r} has no config.json; point it at a folder written by save_pretrained (a run's "
                "output_dir or a checkpoint-N folder)",
                name=str(name),
                path=where,
                problem=NO_CONFIG,
                command=None,
            )
        return
    command = making_command(str(name), recipe)
    if command is None and not is_local_name(str(name)):
        return  # a hub id: from_pretrained finds it (or says why not)
    how = (
        f"make it first: {command}" if command else "build or download it there first (`vcoder models tiny --out DIR`)"
    )
    raise ModelFolderError(
        f"{what}={name!r} is not a folder here ({where}); {how}",
        name=str(name),
        path=where,
        problem=MISSING,
        command=command,
    )
