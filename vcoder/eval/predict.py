"""Predictions for a Design2Code-layout testset from any OpenAI-compatible server (vLLM, transformers serve).

For each ``<id>.png`` in the testset the screenshot goes to the server as an image message with the chosen prompt;
the reply is kept whole in ``OUT/<id>.raw.json`` (response, timing, attempts) and the HTML extracted from it in
``OUT/<id>.html`` (the raw text when no HTML was found, so evaluation scores it as a failed page instead of losing
the sample). ``<id>.html`` is written last and atomically, so its presence means "done": a rerun skips it (resume).
``OUT/predictions.jsonl`` lists every sample's state after each run. The testset is only read.

Example:
    >>> summary = asyncio.run(predict_testset("testset", "preds", connect(Endpoint(url, model))))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vcoder.chat import ChatClient, ChatError, user_message
from vcoder.data.design2code import list_samples

logger = logging.getLogger(__name__)

PROMPT_STYLES = ("design2code", "training")

# Design2Code's direct prompt (Si et al., 2024, NoviScl/Design2Code prompting/gpt4v.py), in our own words with the
# same instructions: one self-contained HTML+CSS file, rick.jpg for every image (blue boxes too), no external files
# or JavaScript, attention to size, text, position, colour and layout. Sent as one user turn, text then image.
DESIGN2CODE_PROMPT = (
    "You are a skilled web developer and an expert in HTML and CSS.\n"
    "You are given a screenshot of a web page.\n"
    "Write one HTML file, using HTML and CSS, that reproduces this web page.\n"
    "Put all of the CSS inside the HTML file.\n"
    'Use "rick.jpg" as the source of every image.\n'
    'Some images in the screenshot are shown as blue rectangles standing in for images; use "rick.jpg" for those '
    "as well.\n"
    "Do not refer to any external files or dependencies. JavaScript for dynamic behaviour is not needed.\n"
    "Pay attention to the size, text, position and colour of every element, and to the overall layout.\n"
    "Reply with the content of the HTML+CSS file:\n"
)
# the benchmark's decoding settings: greedy, 4096 new tokens, seed 2024
DESIGN2CODE_SAMPLING = {"temperature": 0.0, "max_tokens": 4096, "seed": 2024}


@dataclass(frozen=True)
class PromptSpec:
    """How a screenshot is asked about: an optional system turn, the user text, and where the image goes."""

    style: str
    user: str
    system: str | None = None
    images_first: bool = False

    def messages(self, png: bytes) -> list[dict[str, Any]]:
        """The chat messages for one screenshot."""
        system = [{"role": "system", "content": self.system}] if self.system else []
        return [*system, user_message(self.user, images=[png], images_first=self.images_first)]


def make_prompt(style: str = "design2code", *, config: str | Path | None = None) -> PromptSpec:
    """Build the prompt of a style.

    Args:
        style: ``"design2code"`` (the benchmark's direct prompt) or ``"training"`` (vcoder's training prompt:
            ``vcoder.data.prompts`` defaults, or the ``system_prompt`` / ``user_prompt`` of ``config``).
        config: a training YAML recipe (``configs/...yaml``) whose prompts the model was trained with.

    Returns:
        The prompt spec.

    Raises:
        ValueError: unknown style, or a config given with the design2code style, or an unreadable config.
    """
    if style not in PROMPT_STYLES:
        raise ValueError(f"unknown prompt style {style!r}; choose one of {', '.join(PROMPT_STYLES)}")
    if style == "design2code":
        if config is not None:
            raise ValueError("--config only applies to --prompt training (it supplies the training prompts)")
        return PromptSpec("design2code", DESIGN2CODE_PROMPT)
    from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT

    system, user = DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT
    if config is not None:
        import yaml

        path = Path(config)
        try:
            recipe = yaml.safe_load(path.read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"cannot read the training config {str(path)!r}: {exc}") from exc
        if not isinstance(recipe, dict):
            raise ValueError(f"training config {str(path)!r} is not a YAML mapping of settings")
        # the training pipeline treats a missing/null prompt as the default, and "" as no system turn
        if recipe.get("system_prompt") is not None:
            system = recipe["system_prompt"] or None
        if recipe.get("user_prompt"):
            user = recipe["user_prompt"]
    # training rows put the image before the text (vcoder.data.prompts.make_conversation)
    return PromptSpec("training", user, system, images_first=True)


def _write_atomic(path: Path, data: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class PredictSummary:
    """Counts of one run: ``n`` samples, ``done`` this run, ``skipped`` (already done), ``failed``; ``no_html``
    counts done samples whose reply held no HTML; ``mean_latency_s`` averages the successful requests."""

    n: int
    done: int
    skipped: int
    failed: int
    no_html: int
    elapsed_s: float
    mean_latency_s: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


async def _predict_one(
    sample_id: str, testset: Path, out: Path, client: ChatClient, prompt: PromptSpec, sampling: dict[str, Any]
) -> dict[str, Any]:
    from vcoder.metrics.extract import extract_html

    start = time.perf_counter()
    try:
        messages = prompt.messages((testset / f"{sample_id}.png").read_bytes())
        reply = await client.chat(messages, **sampling)
    except (ChatError, OSError, ValueError) as exc:  # server errors after retries, or an unreadable screenshot
        logger.warning("sample %s failed: %s", sample_id, exc)
        elapsed = round(time.perf_counter() - start, 4)
        return {"id": sample_id, "status": "failed", "error": f"{type(exc).__name__}: {exc}", "elapsed_s": elapsed}
    html = extract_html(reply.text)
    record = {
        "id": sample_id,
        "status": "done",
        "has_html": html is not None,
        "elapsed_s": round(time.perf_counter() - start, 4),
        "request_s": round(reply.elapsed_s, 4),
        "attempts": reply.attempts,
        "finish_reason": reply.finish_reason,
        "error": None if html is not None else "no HTML in the reply; the raw text was written as the prediction",
    }
    raw = {**record, "model": client.model, "base_url": client.base_url, "prompt_style": prompt.style}
    raw.update(sampling=sampling, text=reply.text, response=reply.raw)
    _write_atomic(out / f"{sample_id}.raw.json", json.dumps(raw, indent=1, ensure_ascii=False))
    _write_atomic(out / f"{sample_id}.html", html if html is not None else reply.text)
    return record


def _previous_record(out: Path, sample_id: str) -> dict[str, Any]:
    try:
        raw = json.loads((out / f"{sample_id}.raw.json").read_text(encoding="utf-8"))
        keep = ("has_html", "elapsed_s", "request_s", "attempts", "finish_reason", "error")
        return {"id": sample_id, "status": "skipped", **{k: raw.get(k) for k in keep}}
    except (OSError, ValueError):
        return {"id": sample_id, "status": "skipped", "has_html": None, "error": None}


async def predict_testset(
    testset: str | Path,
    out: str | Path,
    client: ChatClient,
    *,
    prompt: PromptSpec | None = None,
    sampling: dict[str, Any] | None = None,
    overwrite: bool = False,
    ids: list[str] | None = None,
    progress: bool = True,
) -> PredictSummary:
    """Ask the server for every sample of ``testset`` and write the predictions to ``out``.

    Args:
        testset: a Design2Code-layout folder (``<id>.png``, ``<id>.html``, ``rick.jpg``); only read.
        out: the predictions folder (created); must not be the testset folder.
        client: the server and model (its ``max_concurrency`` bounds the requests in flight).
        prompt: the prompt (default: Design2Code's direct prompt).
        sampling: ``temperature`` / ``max_tokens`` / ``seed`` / extra request fields (default: the benchmark's).
        overwrite: redo samples whose ``<id>.html`` already exists (default: skip them, i.e. resume).
        ids: only these sample ids (default: all).
        progress: show a tqdm bar on stderr.

    Returns:
        The run's counts; per-sample states are in ``out/predictions.jsonl``.
    """
    testset, out = Path(testset), Path(out)
    all_ids = list_samples(testset, suffix=".png")
    if out.resolve() == testset.resolve():
        raise ValueError(f"--out {str(out)!r} is the testset folder; predictions would overwrite the references")
    prompt = prompt or make_prompt("design2code")
    sampling = dict(DESIGN2CODE_SAMPLING if sampling is None else sampling)
    todo_ids = all_ids if ids is None else [i for i in all_ids if i in set(ids)]
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    records: dict[str, dict[str, Any]] = {}
    todo = []
    for sample_id in todo_ids:
        if not overwrite and (out / f"{sample_id}.html").exists():
            records[sample_id] = _previous_record(out, sample_id)
        else:
            todo.append(sample_id)
    logger.info("predicting %d samples (%d already done) with %r", len(todo), len(records), client)
    tasks = [asyncio.ensure_future(_predict_one(i, testset, out, client, prompt, sampling)) for i in todo]
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="predict", unit="page", dynamic_ncols=True)
    try:
        for future in asyncio.as_completed(tasks):
            record = await future
            records[record["id"]] = record
            if bar is not None:
                bar.update(1)
                bar.set_postfix(failed=sum(r["status"] == "failed" for r in records.values()))
    finally:
        if bar is not None:
            bar.close()
        for task in tasks:
            task.cancel()
    lines = [json.dumps(records[i], ensure_ascii=False) for i in todo_ids if i in records]
    _write_atomic(out / "predictions.jsonl", "\n".join(lines) + "\n")
    done = [r for r in records.values() if r["status"] == "done"]
    latencies = [r["request_s"] for r in done]
    return PredictSummary(
        n=len(todo_ids),
        done=len(done),
        skipped=sum(r["status"] == "skipped" for r in records.values()),
        failed=sum(r["status"] == "failed" for r in records.values()),
        no_html=sum(not r["has_html"] for r in done),
        elapsed_s=round(time.perf_counter() - start, 3),
        mean_latency_s=round(sum(latencies) / len(latencies), 4) if latencies else None,
    )
