"""Training curves from TRL runs: trainer_state.json (+ the completions parquet) -> PNGs and one HTML page.

A run folder is what ``output_dir`` holds: its own ``trainer_state.json`` (written at the end of a run) and/or
``checkpoint-N/trainer_state.json``. By default the state with the most steps is read; ``checkpoint=N`` picks one.
Several runs are overlaid on the same axes; every curve can be smoothed with a trailing moving average (the raw
values stay visible, faint). Matplotlib runs headless (Agg).
"""

from __future__ import annotations

import base64
import glob
import html as html_lib
import json
import logging
import os
import re
from typing import Any

logger = logging.getLogger(__name__)

# (file stem, title, [(log key, std key or None, label)])
PANELS: list[tuple[str, str, list[tuple[str, str | None, str]]]] = [
    ("reward", "Total reward (mean, ±std)", [("reward", "reward_std", "reward")]),
    ("loss", "Loss", [("loss", None, "loss")]),
    (
        "completion_length",
        "Completion length (tokens)",
        [("completions/mean_length", None, "mean"), ("completions/mean_terminated_length", None, "terminated")],
    ),
    ("entropy", "Entropy", [("entropy", None, "entropy")]),
    ("kl", "KL to the reference model", [("kl", None, "kl")]),
    (
        "clip_ratio",
        "Clip ratios",
        [
            ("clip_ratio/region_mean", None, "region"),
            ("clip_ratio/low_mean", None, "low"),
            ("clip_ratio/high_mean", None, "high"),
        ],
    ),
    ("step_time", "Step time (s)", [("step_time", None, "step time")]),
    (
        "step_grpo_rewards",
        "Step-GRPO: step reward (0-10, -1 malformed)",
        [("step_grpo/step_reward_mean", None, "step")],
    ),
    (
        "step_grpo_components",
        "Step-GRPO: step grades (0-1)",
        [("step_grpo/screenshot_mean", None, "screenshot"), ("step_grpo/gui_mean", None, "gui")],
    ),
    (
        "step_grpo_episodes",
        "Step-GRPO: episodes",
        [
            ("step_grpo/turns_mean", None, "turns"),
            ("step_grpo/malformed_rate", None, "malformed rate"),
            ("step_grpo/finish_rate", None, "finish rate"),
            ("step_grpo/error_rate", None, "error rate"),
        ],
    ),
    ("token_accuracy", "Mean token accuracy", [("mean_token_accuracy", None, "accuracy")]),
    ("learning_rate", "Learning rate", [("learning_rate", None, "lr")]),
]


def find_state(run_dir: str, checkpoint: int | None = None) -> str:
    """Path of the ``trainer_state.json`` to read for a run.

    Args:
        run_dir: a run's ``output_dir`` (or a ``checkpoint-N`` folder itself).
        checkpoint: a step ``N`` to read ``checkpoint-N``; None reads the state with the most steps.

    Returns:
        The path.

    Raises:
        FileNotFoundError: naming what was looked for and what exists.
    """
    if checkpoint is not None:
        path = os.path.join(run_dir, f"checkpoint-{checkpoint}", "trainer_state.json")
        if not os.path.isfile(path):
            have = sorted(os.path.basename(p) for p in glob.glob(os.path.join(run_dir, "checkpoint-*")))
            raise FileNotFoundError(f"{path} does not exist; checkpoints in {run_dir!r}: {have or 'none'}")
        return path
    candidates = glob.glob(os.path.join(run_dir, "checkpoint-*", "trainer_state.json"))
    candidates += [p for p in [os.path.join(run_dir, "trainer_state.json")] if os.path.isfile(p)]
    if not candidates:
        raise FileNotFoundError(
            f"no trainer_state.json in {run_dir!r} or its checkpoint-N folders; is it a run's output_dir?"
        )

    def steps(path: str) -> int:
        with open(path) as handle:
            return int(json.load(handle).get("global_step", 0))

    return max(candidates, key=lambda p: (steps(p), p.endswith(os.path.join(run_dir, "trainer_state.json"))))


def load_history(state_path: str) -> list[dict[str, Any]]:
    """The per-step log rows of a trainer state (the final summary row, without a loss or reward, dropped)."""
    with open(state_path) as handle:
        history = json.load(handle)["log_history"]
    return [row for row in history if "step" in row and "train_runtime" not in row]


def series(history: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
    """Steps and values of one logged key (rows without it, or with None, skipped)."""
    pairs = [(row["step"], float(row[key])) for row in history if isinstance(row.get(key), (int, float))]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def smooth(values: list[float], k: int) -> list[float]:
    """Trailing moving average over ``k`` values (``k <= 1`` returns the values)."""
    if k <= 1:
        return list(values)
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= k:
            total -= values[i - k]
        out.append(total / min(i + 1, k))
    return out


def reward_names(histories: list[list[dict[str, Any]]]) -> list[str]:
    """Names of the per-function rewards logged as ``rewards/<name>/mean`` in any run, in first-seen order."""
    names: list[str] = []
    for history in histories:
        for row in history:
            for key in row:
                m = re.fullmatch(r"rewards/(.+)/mean", key)
                if m and m.group(1) not in names:
                    names.append(m.group(1))
    return names


def _plot(ax, steps, values, stds, label, color, k):
    ax.plot(steps, values, color=color, alpha=0.25 if k > 1 else 1.0, linewidth=1)
    smoothed = smooth(values, k)
    ax.plot(steps, smoothed, color=color, label=label, linewidth=1.8)
    if stds is not None and len(stds) == len(values):
        sm_std = smooth(stds, k)
        ax.fill_between(
            steps,
            [m - s for m, s in zip(smoothed, sm_std)],
            [m + s for m, s in zip(smoothed, sm_std)],
            color=color,
            alpha=0.15,
        )


def _figure(title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    ax.set_title(title)
    ax.set_xlabel("step")
    ax.grid(alpha=0.3)
    return fig, ax


def _completions_table(run_dir: str, n: int = 6) -> tuple[list[tuple[int, float]], str]:
    """Mean completion length (chars) per logged step and an HTML table of the last step's samples."""
    files = sorted(glob.glob(os.path.join(run_dir, "completions", "completions_*.parquet")))
    if not files:
        return [], ""
    import pandas as pd

    lengths = []
    for path in files:
        frame = pd.read_parquet(path)
        if len(frame):
            text = frame["completion"].map(_completion_text)
            lengths.append((int(frame["step"].iloc[0]), float(text.str.len().mean())))
    frame = pd.read_parquet(files[-1]).head(n)
    cols = [c for c in frame.columns if c not in ("prompt", "step")]
    head = "".join(f"<th>{html_lib.escape(c)}</th>" for c in cols)
    rows = []
    for _, row in frame.iterrows():
        cells = []
        for c in cols:
            value = _completion_text(row[c]) if c == "completion" else row[c]
            value = f"{value:.3f}" if isinstance(value, float) else str(value)
            cells.append(f"<td><pre>{html_lib.escape(value[:600])}</pre></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    step = os.path.basename(files[-1])
    return lengths, f"<h3>{html_lib.escape(step)}</h3><table><tr>{head}</tr>{''.join(rows)}</table>"


def _completion_text(value: Any) -> str:
    # conversational completions are stored as a list of messages
    if isinstance(value, str):
        return value
    try:
        return "".join(str(m.get("content", "")) for m in value)
    except (TypeError, AttributeError):
        return str(value)


def plot_runs(
    run_dirs: list[str],
    out_dir: str,
    *,
    labels: list[str] | None = None,
    smooth: int = 1,
    checkpoint: int | None = None,
) -> dict[str, Any]:
    """Write one PNG per metric (runs overlaid) and a self-contained ``report.html`` into ``out_dir``.

    Args:
        run_dirs: run folders (``output_dir`` of TRL runs).
        out_dir: where the PNGs and the HTML go.
        labels: one legend label per run (default: folder names).
        smooth: trailing moving-average window (1 = raw).
        checkpoint: read ``checkpoint-N`` of every run instead of the latest state.

    Returns:
        ``{"pngs": [paths], "html": path, "states": [state paths]}``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = labels or [os.path.basename(os.path.normpath(d)) for d in run_dirs]
    if len(labels) != len(run_dirs):
        raise ValueError(f"{len(labels)} labels for {len(run_dirs)} runs; give one label per run")
    os.makedirs(out_dir, exist_ok=True)
    states = [find_state(d, checkpoint) for d in run_dirs]
    histories = [load_history(s) for s in states]
    colors = [plt.get_cmap("tab10")(i % 10) for i in range(len(run_dirs))]
    panels = list(PANELS)
    for name in reward_names(histories):
        panels.insert(
            1,
            (
                f"reward_{name}",
                f"rewards/{name} (mean, ±std)",
                [(f"rewards/{name}/mean", f"rewards/{name}/std", name)],
            ),
        )
    pngs, k = [], max(1, smooth)
    for stem, title, keys in panels:
        fig, ax = _figure(title)
        drew = False
        for run_i, (history, label) in enumerate(zip(histories, labels)):
            for key_i, (key, std_key, key_label) in enumerate(keys):
                steps, values = series(history, key)
                if not steps:
                    continue
                stds = series(history, std_key)[1] if std_key else None
                color = colors[run_i] if len(keys) == 1 else plt.get_cmap("tab10")((run_i * len(keys) + key_i) % 10)
                name = label if len(keys) == 1 else f"{label}: {key_label}"
                _plot(ax, steps, values, stds, name, color, k)
                drew = True
        if drew:
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = os.path.join(out_dir, f"{stem}.png")
            fig.savefig(path)
            pngs.append(path)
        plt.close(fig)
    tables = []
    for run_dir, label, color in zip(run_dirs, labels, colors):
        lengths, table = _completions_table(run_dir)
        if lengths:
            fig, ax = _figure("Completion length (characters, from the completions parquet)")
            _plot(ax, [s for s, _ in lengths], [v for _, v in lengths], None, label, color, k)
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = os.path.join(out_dir, f"completion_chars_{len(tables)}.png")
            fig.savefig(path)
            plt.close(fig)
            pngs.append(path)
        if table:
            tables.append(f"<h2>Sample completions: {html_lib.escape(label)}</h2>{table}")
    html_path = os.path.join(out_dir, "report.html")
    with open(html_path, "w") as handle:
        handle.write(_html(run_dirs, labels, states, histories, pngs, tables, k))
    logger.info("wrote %d plots and %s", len(pngs), html_path)
    return {"pngs": pngs, "html": html_path, "states": states}


def _html(run_dirs, labels, states, histories, pngs, tables, k) -> str:
    rows = []
    for run_dir, label, state, history in zip(run_dirs, labels, states, histories):
        last = {key: value for row in history for key, value in row.items()}
        # a step may log None (no trajectory was scored: WebGen-Agent's loop drops one whose reply hit its cap)
        numbers = [key for key in ("reward", "loss", "kl", "entropy") if isinstance(last.get(key), (int, float))]
        shown = ", ".join(f"{key} {last[key]:.4g}" for key in numbers)
        rows.append(
            f"<tr><td>{html_lib.escape(label)}</td><td>{html_lib.escape(run_dir)}</td>"
            f"<td>{html_lib.escape(state)}</td><td>{last.get('step', 0)}</td><td>{html_lib.escape(shown)}</td></tr>"
        )
    images = []
    for path in pngs:
        with open(path, "rb") as handle:
            data = base64.b64encode(handle.read()).decode("ascii")
        images.append(
            f'<figure><img src="data:image/png;base64,{data}"><figcaption>{os.path.basename(path)}'
            "</figcaption></figure>"
        )
    style = (
        "body{font-family:sans-serif;margin:24px}figure{display:inline-block;margin:6px}img{max-width:680px}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}"
        "pre{white-space:pre-wrap;margin:0;max-width:520px}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>vcoder training curves</title><style>{style}</style>"
        f"</head><body><h1>Training curves</h1><p>Smoothing: trailing mean over {k} logged steps (raw values faint)."
        "</p><table><tr><th>run</th><th>folder</th><th>state read</th><th>last step</th><th>last values</th></tr>"
        f"{''.join(rows)}</table>{''.join(images)}{''.join(tables)}</body></html>"
    )
