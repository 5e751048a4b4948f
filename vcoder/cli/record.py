"""Result files of the learning loops: ``VCODER_RECORD=1 <the README's command>`` writes one per run.

    VCODER_RECORD=1 vcoder quickstart --agent --seed 1
    -> experiments/results/agent_quickstart/seed1.json

``VCODER_RECORD=1`` writes under ``experiments/results/`` of the working folder; ``VCODER_RECORD=DIR`` under ``DIR``.
Only a finished run (exit 0) is recorded, and only the learning loops: ``quickstart`` (one-shot SFT -> GRPO),
``agent_quickstart`` (``quickstart --agent``), ``curriculum_grpo`` / ``curriculum_webrl`` (``curriculum run`` with a
``trainer: grpo`` recipe) and ``web_agent`` / ``web_agent_webrl`` (``curriculum run`` with ``trainer: web_agent``).
A start a loop needs (``quickstart --sft-only``, ``curriculum web-sft``) writes ``command.json`` in its output folder,
which the loop's result file then cites under ``start``. ``VCODER_RECORD_CHOICES`` (free text) is stored as
``chosen``: what was chosen on which split ("lr 2e-3 on validation, pilots of issue 35").

A result file (``schema`` 1)::

    {"schema": 1, "loop": "agent_quickstart", "seed": 1, "command": "vcoder quickstart --agent --seed 1",
     "start": null, "recorded_at": "2026-11-27T23:01:00Z",
     "versions": {"vcoder": "<git commit>[+dirty]", "python": "3.11.9", "torch": ..., "transformers": ..., "trl": ...},
     "machine": {"cpus": 2, "load_avg_1m": 3.9, "device": "cpu"},
     "measured_on": "test", "chosen": "",
     "splits": {"test": {"digest": "9f1c...", "n": 32, "basis": "content"}},
     "wall_s": 562.0, "figures": {...the loop's per-seed figures...}, "output": "outputs/quickstart-agent"}

A run measured on the validation split (a pilot) is written to ``<loop>/validation/seed<S>.json`` instead, which no
table reads. ``scripts/results_tables.py`` renders the README's and ``docs/results.md``'s tables from these files.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

SCHEMA = 1
LOOPS = ("quickstart", "agent_quickstart", "curriculum_grpo", "curriculum_webrl", "web_agent", "web_agent_webrl")
DEFAULT_DIR = "experiments/results"


def target_dir(value: str | None) -> Path | None:
    """The results folder ``VCODER_RECORD`` names (None: recording is off)."""
    if not value or value.lower() in ("0", "false", "no"):
        return None
    return Path(DEFAULT_DIR if value.lower() in ("1", "true", "yes") else value)


def versions() -> dict[str, str | None]:
    """vcoder's git commit (``+dirty`` with uncommitted changes to the code or recipes) and the versions of Python, torch, transformers, trl."""
    from importlib.metadata import PackageNotFoundError, version

    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        dirty = subprocess.run(
            # the code and recipes that ran; the result files a run writes (experiments/) do not make it dirty
            ["git", "-C", str(root), "status", "--porcelain", "--", "vcoder", "configs", "scripts", "pyproject.toml"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        sha = commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "") if commit.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        sha = None
    out: dict[str, str | None] = {"vcoder": sha, "python": platform.python_version()}
    for name in ("torch", "transformers", "trl"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _machine() -> dict[str, Any]:
    import sys

    device, torch = "cpu", sys.modules.get("torch")  # the loop has imported it; a bare import costs seconds
    if torch is not None and torch.cuda.is_available():
        device = torch.cuda.get_device_name(0)
    return {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 1), "device": device}


def _read(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _digest(items: Any) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True, default=str).encode()).hexdigest()[:16]


def output_of(args) -> Path | None:
    """The output folder of a parsed ``vcoder`` command."""
    if args.command == "quickstart":
        return Path(args.out or ("outputs/quickstart-agent" if args.agent else "outputs/quickstart"))
    if args.command == "curriculum":
        return Path(args.out)
    return None


def loop_of(args, out: Path) -> str | None:
    """The learning loop a finished command ran (None: a start, or not a learning loop)."""
    if args.command == "quickstart":
        if args.sft_only or args.fast:
            return None
        if not args.agent:
            return "quickstart"
        fmt = getattr(args, "agent_format", "vcoder")
        return "agent_quickstart" if fmt == "vcoder" else f"agent_quickstart_{fmt}"
    if args.command == "curriculum" and args.action == "run":
        config = (_read(out / "curriculum.json") or {}).get("config", {})
        webrl = config.get("algorithm") == "webrl"
        if config.get("trainer") == "web_agent":
            return "web_agent_webrl" if webrl else "web_agent"
        return "curriculum_webrl" if webrl else "curriculum_grpo"
    return None


def _summary_splits(summary: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """Splits a loop wrote itself: ``{"splits": {name: {"digest", ...}}}`` or ``{"split", "split_digest"}``."""
    if isinstance(summary.get("splits"), dict):
        return {k: {**v, "basis": v.get("basis", "content")} for k, v in summary["splits"].items()}
    out = {}
    if summary.get("split_digest"):  # the quickstarts (issue 35): the scored split's digest and the training one's
        out[summary.get("split", "heldout")] = {"digest": summary["split_digest"], "basis": "content"}
    if summary.get("train_digest"):
        out["train"] = {"digest": summary["train_digest"], "basis": "content"}
    return out or None


def figures_of(loop: str, out: Path) -> tuple[dict[str, Any], dict[str, Any], str]:
    """``(figures, splits, measured_on)`` of a finished loop, read from its output folder."""
    if loop == "quickstart" or loop.startswith("agent_quickstart"):
        summary = _read(out / "summary.json")
        if summary is None:
            raise ValueError(f"{out}/summary.json not found: the run did not finish")
        measured_on = summary.get("split", "heldout")
        if loop == "quickstart":
            figures = {"heldout": summary["holdout"], "probe_reward": summary.get("grpo_reward", {}).get("delta")}
            basis = {"n": summary.get("n_holdout"), "generator_seed": summary["seed"] + 7919}
        else:
            figures = {"heldout": summary["heldout"], "heldout_by_kind": summary.get("heldout_by_kind")}
            scored = _read(out / "eval" / "sft.json") or {}
            basis = sorted(t.get("id", "") for t in scored.get("tasks", []))
        splits = _summary_splits(summary) or {
            measured_on: {"digest": _digest(basis), "n": summary.get("n_holdout", summary.get("n_heldout")),
                          "basis": "definition" if loop == "quickstart" else "ids"}
        }  # fmt: skip
        figures["wall_s"] = summary.get("wall_s")
        return figures, splits, measured_on
    summary = _read(out / "curriculum.json")
    if summary is None or not summary.get("phases"):
        raise ValueError(f"{out}/curriculum.json has no phase: the run did not finish")
    phases = summary["phases"]
    figures = {
        "heldout_success_before": phases[0]["heldout_success_before"],
        "heldout_success": [p["heldout_success"] for p in phases],
        "rollout_success": [p.get("success_rate") for p in phases],
        "complete": summary.get("complete"),
    }
    config = summary["config"]
    if loop.startswith("web_agent"):
        measured_on = summary.get("heldout_split", "heldout")
        figures["n"] = phases[-1]["heldout"]["n"]
        splits = {}
        for name in ("train", "validation", "test"):
            path = out / "tasks" / f"{name}.json"
            if path.is_file():
                from vcoder.browse import read_tasks
                from vcoder.browse.splits import split_digest

                tasks = read_tasks(path)
                splits[name] = {"digest": split_digest(tasks), "n": len(tasks), "basis": "content"}
    else:  # the curricula's phase reports name their held-out split and its digest (issue 35)
        last = phases[-1]
        measured_on = last.get("heldout_split") or summary.get("split", "heldout")
        splits = (
            {measured_on: {"digest": last["heldout_digest"], "basis": "content"}} if last.get("heldout_digest") else {}
        )
        if not splits and config.get("heldout_size"):
            from vcoder.pipelines.curriculum.heldout import heldout_tasks

            tasks = heldout_tasks(config["kinds"], config["heldout_size"], seed=config["heldout_seed"])
            splits = {measured_on: {"digest": _digest(tasks), "n": len(tasks), "basis": "content"}}
    figures["wall_s"] = sum(p.get("wall_s") or 0 for p in phases) or None
    return figures, splits, measured_on


def _start(loop: str, out: Path) -> dict[str, Any] | None:
    """The recorded command that made the loop's start model (``command.json`` in its folder or one above)."""
    if not loop.startswith(("curriculum", "web_agent")):
        return None
    model = (_read(out / "curriculum.json") or {}).get("config", {}).get("model_name_or_path")
    for folder in [Path(model), Path(model).parent] if model else []:
        found = _read(folder / "command.json")
        if found:
            return {k: found.get(k) for k in ("command", "wall_s", "versions")}
    return None


def record_run(args, argv: list[str], *, wall_s: float, root: Path) -> Path | None:
    """Write ``<out>/command.json`` and, for a learning loop, ``root/<loop>/seed<S>.json``; returns the result file."""
    out = output_of(args)
    if out is None:
        logger.warning("VCODER_RECORD: `vcoder %s` is not a learning loop; nothing recorded", args.command)
        return None
    command = "vcoder " + " ".join(shlex.quote(a) for a in argv)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    info = {"command": command, "wall_s": round(wall_s, 1), "recorded_at": stamp, "versions": versions()}
    if out.is_dir():
        (out / "command.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    loop = loop_of(args, out)
    if loop is None:
        return None
    figures, splits, measured_on = figures_of(loop, out)
    config = (_read(out / "curriculum.json") or {}).get("config", {})
    seed = args.seed if getattr(args, "seed", None) is not None else config.get("seed") or 0
    record = {
        "schema": SCHEMA,
        "loop": loop,
        "seed": seed,
        "command": command,
        "start": _start(loop, out),
        "recorded_at": stamp,
        "versions": info["versions"],
        "machine": _machine(),
        "measured_on": measured_on,
        "chosen": os.environ.get("VCODER_RECORD_CHOICES", ""),
        "splits": splits,
        "wall_s": round(wall_s, 1),
        "figures": figures,
        "output": str(out),
    }
    # a pilot's figures (validation) never land where the tables read the reported (test) ones
    path = root / loop / ("validation" if measured_on == "validation" else "") / f"seed{seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    logger.warning("VCODER_RECORD: %s", path)
    return path
