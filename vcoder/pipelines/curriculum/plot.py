"""``vcoder plot DIR`` for a curriculum run folder: success rate and pool size per phase (one PNG).

A folder is a curriculum run when it holds ``curriculum.json`` (:func:`is_curriculum_dir`); the phases' reports are
read from ``phase_<k>/report.json`` so a run still in progress plots its complete phases.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def is_curriculum_dir(path: str | os.PathLike) -> bool:
    """True when ``path`` is a curriculum run folder."""
    return (Path(path) / "curriculum.json").is_file()


def phase_reports(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The complete phases' reports, in order."""
    out, k = [], 0
    while (Path(run_dir) / f"phase_{k}" / "report.json").is_file():
        out.append(json.loads((Path(run_dir) / f"phase_{k}" / "report.json").read_text(encoding="utf-8")))
        k += 1
    return out


def plot_curriculum(run_dir: str | os.PathLike, out_dir: str | os.PathLike) -> dict[str, Any]:
    """Draw success rate (left axis) and pool size (right axis) per phase to ``out_dir/curriculum.png``.

    Returns:
        ``{"png", "phases", "success_rate", "pool_size"}``.

    Raises:
        ValueError: no complete phase yet.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reports = phase_reports(run_dir)
    if not reports:
        raise ValueError(f"{run_dir} has no complete phase yet (no phase_0/report.json); run more phases first")
    phases = [r["phase"] for r in reports]
    rates = [float("nan") if r["success_rate"] is None else r["success_rate"] for r in reports]
    sizes = [r["pool_size"] for r in reports]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.plot(phases, rates, marker="o", color="tab:blue", label="success rate")
    ax.set_xlabel("phase")
    ax.set_ylabel("success rate (rollouts)", color="tab:blue")
    ax.set_ylim(0, 1)
    ax.set_xticks(phases)
    twin = ax.twinx()
    twin.bar(phases, sizes, alpha=0.25, color="tab:orange", label="pool size")
    twin.set_ylabel("pool size (tasks)", color="tab:orange")
    ax.set_zorder(twin.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.set_title(f"Curriculum: {os.path.basename(os.path.abspath(run_dir))}")
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    png = os.path.join(out_dir, "curriculum.png")
    fig.savefig(png)
    plt.close(fig)
    return {"png": png, "phases": phases, "success_rate": rates, "pool_size": sizes}
