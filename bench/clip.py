"""CLIP page embeddings/s: the previous preprocessing (OpenCV on the CPU, kept here as the baseline) against
``ClipEmbedder.embed`` at the same batch size, and the largest cosine difference between their embeddings.

    python bench/clip.py                       # CPU (or the GPU when there is one): ViT-B-32, 64 pages 1280x720-1552
    python bench/clip.py --tall                # pages 1280x2600-3900
    python bench/clip.py --device cuda --pages 512
    python bench/clip.py --small               # the test suite's smoke run: tiny CLIP, 4 pages (not comparable)

Prints one JSON object. ``before``: OpenCV squash + CPU normalisation + the model on ``--device`` (vcoder's
previous ``embed``). ``after``: today's ``embed`` (the squash runs on the device unless it is the CPU).
``after_on_device``: the tensor squash forced on, also on a CPU, so its equality is checked where no GPU is.
``model_only``: the forward pass on already prepared inputs (the ceiling). Weights are random unless
``--pretrained`` names a local checkpoint (the architecture sets the cost; embeddings compare either way).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def _pages(n: int, low: int, high: int, seed: int = 0) -> list[np.ndarray]:
    # page-like: white ground, a coloured header, colour blocks and dark text-like stripes (high frequencies)
    rng = np.random.default_rng(seed)
    pages = []
    for height in np.linspace(low, high, n).astype(int):
        page = np.full((height, 1280, 3), 255, dtype=np.uint8)
        page[:80] = rng.integers(0, 256, 3)
        for _ in range(12):
            y, x = int(rng.integers(100, height - 60)), int(rng.integers(0, 1100))
            page[y : y + int(rng.integers(20, 200)), x : x + int(rng.integers(60, 600))] = rng.integers(0, 256, 3)
        for y in range(120, height - 20, 24):
            mask = rng.random((10, 900)) < 0.35
            page[y : y + 10, 60:960][mask] = 30
        pages.append(page)
    return pages


def _previous_embed(model, images, *, size: int, mean, std, device: str, batch_size: int) -> np.ndarray:
    """vcoder's embed() before the squash moved to the device, copied whole (the baseline)."""
    import cv2
    import torch

    mean_t = torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)
    std_t = torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1)

    def squash(image):
        shrinking = image.shape[0] * image.shape[1] > size * size
        interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
        return cv2.resize(np.ascontiguousarray(image), (size, size), interpolation=interpolation)

    out = []
    with torch.no_grad():
        for start in range(0, len(images), batch_size):
            batch = np.stack([squash(i) for i in images[start : start + batch_size]])
            x = torch.from_numpy(batch).permute(0, 3, 1, 2).float().div_(255.0)
            x = ((x - mean_t) / std_t).to(device)
            feats = model.encode_image(x).float()
            out.append(torch.nn.functional.normalize(feats, dim=-1).cpu().numpy())
    return np.concatenate(out)


def _timed(variants: dict, repeat: int, n: int) -> tuple[dict, dict]:
    """Best wall time of each variant; the variants take turns in every round, so load drift hits them alike."""
    import torch

    best = {name: float("inf") for name in variants}
    results = {}
    for _ in range(repeat):
        for name, fn in variants.items():
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            start = time.perf_counter()
            results[name] = fn()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            best[name] = min(best[name], time.perf_counter() - start)
    timings = {name: {"embeddings_per_s": round(n / s, 2), "seconds": round(s, 3)} for name, s in best.items()}
    return timings, results


def _cosine_gap(a: np.ndarray, b: np.ndarray) -> float:
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(np.max(1.0 - cos))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="ViT-B-32", help="open_clip architecture")
    parser.add_argument("--pretrained", default=None, help="a local checkpoint (default: random weights)")
    parser.add_argument("--device", default=None, help="default: cuda when available, else cpu")
    parser.add_argument("--pages", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--tall", action="store_true", help="pages 2600-3900 px tall (default 720-1552)")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per variant; the best is kept")
    parser.add_argument("--small", action="store_true", help="smoke run: tiny random CLIP, 4 pages, batch 2, 1 run")
    args = parser.parse_args()
    if args.small:
        args.pages, args.batch_size, args.repeat = 4, 2, 1
    tiny = {"tiny": True} if args.small else {}

    import torch

    from vcoder.models.clip import load_clip

    low, high = (2600, 3900) if args.tall else (720, 1552)
    pages = _pages(args.pages, low, high)
    embedder = load_clip(args.model, args.pretrained, device=args.device, batch_size=args.batch_size, **tiny)
    forced = load_clip(args.model, None, device=args.device, batch_size=args.batch_size, resize_on_device=True, **tiny)
    forced.model = embedder.model  # the same weights: only the preprocessing differs
    common = dict(size=embedder.image_size, mean=embedder.mean, std=embedder.std, device=embedder.device)
    embedder.embed(pages[: args.batch_size])  # warm-up (kernels, allocator, thread pools)
    forced.embed(pages[: args.batch_size])

    inputs = [embedder.preprocess(pages[s : s + args.batch_size]) for s in range(0, len(pages), args.batch_size)]

    def model_only():
        with torch.no_grad():
            return [embedder.model.encode_image(x) for x in inputs]

    variants = {
        "before": lambda: _previous_embed(embedder.model, pages, batch_size=args.batch_size, **common),
        "after": lambda: embedder.embed(pages),
        "after_on_device": lambda: forced.embed(pages),
        "model_only": model_only,
    }
    timings, out = _timed(variants, args.repeat, len(pages))
    report = {
        "model": embedder.name,
        "device": embedder.device,
        "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        "torch_threads": torch.get_num_threads(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "pages": len(pages),
        "page_size": f"1280x{low}-{high}",
        "batch_size": args.batch_size,
        **timings,
        "after_resizes_on_device": embedder.resize_on_device,
        "max_cosine_difference": {
            "after_vs_before": _cosine_gap(out["before"], out["after"]),
            "on_device_vs_before": _cosine_gap(out["before"], out["after_on_device"]),
        },
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
