"""Multi-turn agent trajectories as chat messages: the training rows of agent SFT (WebGen-RL's first stage).

A trajectory is one conversation: the system prompt, the task (a user turn), then the model's turns (``assistant``)
alternating with the environment's feedback (``user`` turns, as WebGen-Agent writes them). Agent SFT trains on the
assistant turns only (TRL's ``assistant_only_loss``); everything else is context.

Files read by :func:`read_trajectories`:

- JSONL, one ``{"messages": [...]}`` per line (what ``vcoder`` writes, and the shape of WebGen-Agent's released SFT
  data ``webgen-agent_train_sft``); other keys of a line are ignored;
- a JSON file holding one such object or a list of them;
- a WebGen-Agent log folder (``step0.json``, ``step1.json``, ... each holding the whole conversation so far, with an
  ``info`` dict on every message) or a folder of such folders: the latest step of each is one trajectory.

Messages keep ``role`` and ``content`` only (WebGen-Agent's ``info`` dicts hold grades and logs, not text the model
saw). Feedback after the last assistant turn is dropped: nothing is trained on it. A content given as a list of
text parts is joined; an image part is refused (agent SFT here is text-only).

Example:
    >>> rows = trajectory_rows([{"messages": [{"role": "system", "content": "Build sites."},
    ...     {"role": "user", "content": "A counter"}, {"role": "assistant", "content": "<finish/>"},
    ...     {"role": "user", "content": "Done."}]}])
    >>> [m["role"] for m in rows[0]["messages"]]
    ['system', 'user', 'assistant']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROLES = ("system", "user", "assistant")
_STEP_FILE = re.compile(r"^step(\d+)\.json$")


def _content(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind != "text" or not isinstance(part.get("text"), str):
                raise ValueError(f"{where}: only text content is supported in agent SFT, got a {kind!r} part")
            texts.append(part["text"])
        return "".join(texts)
    raise ValueError(f"{where}: 'content' must be a string, got {type(value).__name__}")


def trajectory_messages(messages: Any, *, where: str = "trajectory") -> list[dict[str, str]]:
    """One trajectory's messages, validated and reduced to ``{"role", "content"}``.

    Raises:
        ValueError: not a list of messages, an unknown role, a non-text content, no assistant turn, or a
            conversation that does not start with the system prompt or the task (``where`` is named).
    """
    if not isinstance(messages, list) or not messages:
        raise ValueError(f"{where}: 'messages' must be a non-empty list of {{role, content}} objects")
    out = []
    for i, message in enumerate(messages):
        at = f"{where} message {i}"
        if not isinstance(message, Mapping):
            raise ValueError(f"{at}: expected an object with 'role' and 'content', got {message!r:.80}")
        role = message.get("role")
        if role not in ROLES:
            raise ValueError(f"{at}: role {role!r} is not one of {ROLES} (feedback is a 'user' turn)")
        out.append({"role": role, "content": _content(message.get("content"), at)})
    if out[0]["role"] == "assistant":
        raise ValueError(f"{where}: the conversation starts with an assistant turn; it needs the task first")
    last = max((i for i, m in enumerate(out) if m["role"] == "assistant"), default=None)
    if last is None:
        raise ValueError(f"{where}: no assistant turn, so nothing to train on")
    if any(not m["content"].strip() for m in out if m["role"] == "assistant"):
        raise ValueError(f"{where}: an assistant turn is empty")
    return out[: last + 1]


def trajectory_rows(records: Iterable[Any], *, where: str = "trajectories") -> list[dict[str, Any]]:
    """``{"messages": [...]}`` rows from trajectory records (objects with ``messages``, or message lists)."""
    rows = []
    for i, record in enumerate(records):
        messages = record.get("messages") if isinstance(record, Mapping) else record
        rows.append({"messages": trajectory_messages(messages, where=f"{where} #{i}")})
    return rows


def _latest_step(folder: Path) -> Path | None:
    steps = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _STEP_FILE.match(p.name))]
    return max(steps)[1] if steps else None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc})") from exc


def read_trajectories(path: str | Path, *, max_samples: int | None = None) -> list[dict[str, Any]]:
    """Read trajectory files (see the module docstring) into ``{"messages": [...]}`` rows.

    Args:
        path: a ``.jsonl`` or ``.json`` file, a WebGen-Agent log folder, or a folder of them.
        max_samples: keep the first N trajectories.

    Returns:
        The rows, in file (or sorted folder) order.

    Raises:
        FileNotFoundError: no such path, or a folder with no trajectory in it.
        ValueError: a malformed line or trajectory (the file and line or index are named).
    """
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"trajectory file {str(path)!r} does not exist; give a JSONL of {{'messages': [...]}}")
    if source.is_dir():
        folders = [source] if _latest_step(source) else sorted(p for p in source.iterdir() if p.is_dir())
        steps = [step for step in map(_latest_step, folders) if step is not None]
        if not steps:
            raise FileNotFoundError(f"{source} holds no WebGen-Agent log (stepN.json files) in it or its sub-folders")
        rows = [trajectory_rows([_read_json(step)], where=str(step))[0] for step in steps]
    elif source.suffix == ".json":
        data = _read_json(source)
        rows = trajectory_rows(data if isinstance(data, list) else [data], where=source.name)
    else:
        rows = []
        with source.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{source.name} line {number}"
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where} is not valid JSON ({exc})") from exc
                if not isinstance(record, Mapping) or "messages" not in record:
                    raise ValueError(f"{where}: expected an object with 'messages'")
                rows.append({"messages": trajectory_messages(record["messages"], where=where)})
    if not rows:
        raise ValueError(f"{source} holds no trajectories")
    return rows[:max_samples] if max_samples is not None else rows
