"""Step-GRPO's tasks as training rows: generated interactive site tasks, generated site kinds (one split),
WebGen-Instruct (WebGen-RL's training requests, no cases: a writer LLM adds the test while training), WebGen-Bench,
or a local JSONL file.

Rows: ``{"prompt", "instruction", "id", "test_cases", "reference"}`` (``test_cases`` a JSON string, ``reference``
a page's HTML or ""); ``prompt`` is the site agent's first request (TRL needs the column; the episode builds the
conversation itself from ``instruction``). Every row is validated as a ``SiteTask`` when it is loaded, so a bad test
case fails before a model is loaded, with its line named.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

COLUMNS = ("prompt", "instruction", "id", "test_cases", "reference")
TASK_SOURCES = ("site_tasks", "site_kinds", "webgen_bench", "webgen_instruct")


def check_task_source(args: Any) -> str:
    """Check the task settings of Step-GRPO's arguments (``dataset``, ``dataset_source``, ``allow_test_split``,
    ``site_task_split``, ``site_task_samples``) before anything is loaded.

    Returns:
        ``site_task_split`` in its checked form.

    Raises:
        ValueError: naming the bad value and the fix.
    """
    if args.dataset not in TASK_SOURCES and not os.path.isfile(args.dataset):
        raise ValueError(
            f"dataset={args.dataset!r} is neither one of {TASK_SOURCES} nor an existing JSONL file; fix the name "
            "or the path"
        )
    if args.dataset == "webgen_bench" and not args.allow_test_split:
        raise ValueError(
            "dataset=webgen_bench trains on WebGen-Bench's TEST split; use dataset=webgen_instruct (WebGen-RL's "
            "training requests) or set allow_test_split: true"
        )
    if args.dataset == "webgen_instruct" and not (args.dataset_source and os.path.isfile(args.dataset_source)):
        raise ValueError(
            f"dataset=webgen_instruct needs dataset_source, the path of WebGen-RL's "
            f"webgen-agent_train_step-grpo.jsonl; got {args.dataset_source!r}"
        )
    split = args.site_task_split
    if args.dataset == "site_kinds":
        from vcoder.data.splits import SPLITS, check_split

        if split not in (*SPLITS, "heldout"):
            raise ValueError(f"site_task_split={split!r} is not a split; choose among {list(SPLITS)}")
        split = check_split(split, where="site_task_split")
    if args.dataset in ("site_tasks", "site_kinds") and args.site_task_samples < 1:
        raise ValueError(f"site_task_samples={args.site_task_samples} must be at least 1")
    return split


def local_tasks(path: str | Path) -> list[dict[str, Any]]:
    """Rows from a JSONL file of ``{instruction, test_cases[, id, reference]}`` (cases a list or a JSON string).

    Raises:
        ValueError: a line that is not JSON or not a valid task (its number is named).
    """
    from vcoder.data.prompts import make_site_conversation
    from vcoder.sites.records import SiteTask

    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{Path(path).name} line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where} is not valid JSON ({exc})") from exc
            if not isinstance(record, dict):
                raise ValueError(f"{where}: expected an object with 'instruction' and 'test_cases'")
            try:
                SiteTask.from_dict(record)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from exc
            cases = record.get("test_cases") or []
            rows.append(
                {
                    "prompt": make_site_conversation(record["instruction"]),
                    "instruction": record["instruction"].strip(),
                    "id": str(record.get("id") or f"task-{number}"),
                    "test_cases": cases if isinstance(cases, str) else json.dumps(cases, ensure_ascii=False),
                    "reference": record.get("reference") or "",
                }
            )
    if not rows:
        raise ValueError(f"{path} holds no tasks; write one JSON object per line")
    return rows


def task_rows(script_args) -> list[dict[str, Any]]:
    """The tasks ``StepGRPOScriptArguments`` describe, as rows with the columns in ``COLUMNS``.

    Raises:
        ValueError: no tasks, or an invalid one; ``BenchTestSplitError``: WebGen-Bench's test tasks (from any file)
            and not ``allow_test_split``.
    """
    from vcoder.data import load_webgen_bench, load_webgen_instruct, site_tasks
    from vcoder.data.bench_guard import refuse_test_split
    from vcoder.data.site_kinds import kind_tasks
    from vcoder.data.site_kinds.pages import KINDS
    from vcoder.data.webgen_bench import HUB_ID
    from vcoder.sites.records import SiteTask

    if script_args.dataset == "site_tasks":
        kinds = tuple(script_args.site_task_kinds or KINDS)
        rows = site_tasks(script_args.site_task_samples, script_args.dataset_seed, kinds=kinds)
    elif script_args.dataset == "site_kinds":
        split, n, seed = script_args.site_task_split, script_args.site_task_samples, script_args.dataset_seed
        rows = kind_tasks(n, seed, split=split, kinds=script_args.site_task_kinds or None)
    elif script_args.dataset == "webgen_instruct":
        rows = load_webgen_instruct(script_args.dataset_source)
    elif script_args.dataset == "webgen_bench":
        rows = load_webgen_bench(script_args.dataset_source or HUB_ID)
    else:
        rows = local_tasks(script_args.dataset)
    # a copy of the benchmark under any name or shape: recognised by its tasks, not by the dataset's name
    refuse_test_split(rows, allow=script_args.allow_test_split, where=f"dataset={script_args.dataset!r}")
    if script_args.max_samples is not None and script_args.max_samples < len(rows):
        keep = sorted(random.Random(script_args.dataset_seed).sample(range(len(rows)), script_args.max_samples))
        rows = [rows[i] for i in keep]
    out = []
    seed_system = None
    if getattr(script_args, "agent_format", "vcoder") == "webgen_agent":  # the conversation the seed loop opens
        from vcoder.sites.seed_prompts import seed_system_prompt

        seed_system = script_args.system_prompt or seed_system_prompt()
    for row in rows:
        SiteTask.from_dict(row)  # the cases parse: fail here, not in the middle of a rollout
        out.append({name: row.get(name) or "" for name in COLUMNS})
        if seed_system is not None:
            out[-1]["prompt"] = [
                {"role": "system", "content": seed_system},
                {"role": "user", "content": out[-1]["instruction"]},
            ]
    if not out:
        raise ValueError(f"dataset={script_args.dataset!r} gave no tasks")
    return out
