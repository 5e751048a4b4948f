"""Build an open_clip image embedder: by name + pretrained tag (offline cache only), from a local checkpoint, or a
tiny random model for tests.

Preprocessing squashes the WHOLE page to the model's square input (``vcoder.metrics.clip.squash_to_square``);
open_clip's own preprocess resizes the shorter side and centre-crops, which on a full-page screenshot would
silently compare a middle band of the page -- it is not used. On a GPU the squash and the normalisation run on
the GPU as batched tensor operations (``vcoder.models.squash``: equal to OpenCV's within one grey level), since
on the CPU they took > 94% of the embedding time on an H100; on the CPU OpenCV stays (faster there, measured in
``bench/clip.py``). Missing weights raise ``ClipWeightsNotFound`` when the embedder is built, never a silent
zero score later.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vcoder.metrics.clip import squash_to_square
from vcoder.models.clip_weights import (
    CHECKPOINT_SUFFIXES,
    ClipWeightsNotFound,
    cached_pretrained,
    load_state_dict,
    tiny_clip_model,
)
from vcoder.models.squash import check_pages, squash_normalise

logger = logging.getLogger(__name__)

__all__ = ["ClipEmbedder", "ClipWeightsNotFound", "load_clip"]

_OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
_OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)


class ClipEmbedder:
    """L2-normalised image embeddings from an open_clip model (batched, no_grad, CUDA when available).

    Attributes:
        model: the open_clip model (eval mode).
        image_size: the square input side.
        device: torch device string.
        name: a description (model name and weights) for logs and reports.
        resize_on_device: squash and normalise pages on ``device`` with tensors (default: on any device but the
            CPU) rather than with OpenCV on the CPU; both give the same embeddings within 1e-4 cosine.
        cpu_threads: torch intra-op threads of a forward on the CPU, set in the calling thread only (OpenMP keeps the
            count per thread); None keeps torch's. The rewards use 1: their forward shares the cores with the
            browser, and on a busy 2-core machine 72 pages took 8.3 s with 2 threads, 0.46 s with 1 (same values).
    """

    cpu_threads: int | None = None

    def __init__(
        self,
        model,
        *,
        image_size: int,
        mean,
        std,
        device: str,
        name: str,
        batch_size: int = 32,
        resize_on_device: bool | None = None,
    ):
        import torch

        self.model = model.eval().to(device)
        self.image_size = int(image_size)
        self.device = device
        self.name = name
        self.batch_size = batch_size
        self.mean = tuple(float(v) for v in mean)
        self.std = tuple(float(v) for v in std)
        on_cpu = torch.device(device).type == "cpu"
        self.resize_on_device = not on_cpu if resize_on_device is None else bool(resize_on_device)

    def preprocess(self, images: Sequence[np.ndarray]):
        """Squash and normalise a batch of pages into the model's (N, 3, S, S) float32 input on ``device``."""
        if self.resize_on_device:
            return squash_normalise(images, self.image_size, mean=self.mean, std=self.std, device=self.device)
        return self._normalise([squash_to_square(i, self.image_size) for i in images])

    def _normalise(self, squares: Sequence[np.ndarray]):
        import torch

        batch = np.stack(squares)
        x = torch.from_numpy(batch).permute(0, 3, 1, 2).float().div_(255.0)
        mean = torch.tensor(self.mean, dtype=torch.float32).view(1, 3, 1, 1)
        std = torch.tensor(self.std, dtype=torch.float32).view(1, 3, 1, 1)
        return ((x - mean) / std).to(self.device)

    def embed(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """Embed screenshots.

        Args:
            images: (H, W, 3) uint8 RGB arrays of any sizes (each squashed whole to the model's square input).

        Returns:
            (N, D) float32 array of unit-norm embeddings.
        """
        images = list(images)
        check_pages(images)
        return self._embed(images, self.preprocess)

    def embed_squares(self, squares: Sequence[np.ndarray]) -> np.ndarray:
        """``embed`` of pages already squashed on the CPU (``squash_to_square(page, image_size)``, which a caller
        can do page by page as pages arrive); the same embeddings, in the same batches. CPU preprocessing only."""
        squares = list(squares)
        if self.resize_on_device:
            raise ValueError(f"{self!r} squashes pages on its device; call embed() with the pages")
        size = (self.image_size, self.image_size, 3)
        bad = next((k for k, sq in enumerate(squares) if getattr(sq, "shape", None) != size), None)
        if bad is not None:
            raise ValueError(f"squares[{bad}] is not a {size} page: squash it with squash_to_square(page, {size[0]})")
        return self._embed(squares, self._normalise)

    def _embed(self, items: list, prepare) -> np.ndarray:
        import torch

        out = []
        threads = torch.get_num_threads()
        limit = self.cpu_threads if torch.device(self.device).type == "cpu" else None
        if limit is not None:
            torch.set_num_threads(limit)
        try:
            with torch.no_grad():
                for start in range(0, len(items), self.batch_size):
                    x = prepare(items[start : start + self.batch_size])
                    feats = self.model.encode_image(x).float()
                    out.append(torch.nn.functional.normalize(feats, dim=-1).cpu().numpy())
        finally:
            if limit is not None:
                torch.set_num_threads(threads)
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(out).astype(np.float32)

    def __repr__(self) -> str:
        return f"ClipEmbedder({self.name!r}, device={self.device!r}, image_size={self.image_size})"


def load_clip(
    model: str = "ViT-B-32",
    pretrained: str | os.PathLike | None = "openai",
    *,
    device: str | None = None,
    tiny: bool = False,
    batch_size: int = 32,
    resize_on_device: bool | None = None,
) -> ClipEmbedder:
    """Build a CLIP image embedder.

    Args:
        model: open_clip model name (e.g. "ViT-B-32"); ignored when ``tiny``.
        pretrained: an open_clip pretrained tag ("openai", resolved from the local caches only), a local
            .pt/.pth/.bin/.safetensors state dict, or None for random weights (only sensible with ``tiny``).
            A local copy of OpenAI's weights needs the QuickGELU variant of the architecture: pass
            ``model="ViT-B-32-quickgelu"`` with it.
        device: torch device; default "cuda" when available, else "cpu".
        tiny: build a tiny random open_clip model (64-d embeddings, 64 px input, ~0.3M parameters) offline,
            for tests; a checkpoint path then loads into that architecture, and a pretrained tag is ignored.
        batch_size: images per forward pass.
        resize_on_device: see ``ClipEmbedder`` (None: on the device unless it is the CPU).

    Returns:
        A ``ClipEmbedder``.

    Raises:
        ClipWeightsNotFound: the weights are not available locally (never downloaded, never silently zero).
        ValueError: an unknown model name or pretrained tag.
    """
    import torch

    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be >= 1")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    path = Path(pretrained) if pretrained is not None and str(pretrained).endswith(CHECKPOINT_SUFFIXES) else None
    if path is not None and not path.is_file():
        raise ClipWeightsNotFound(f"CLIP checkpoint {path} does not exist; give the path of a saved state dict")
    if tiny:
        net = tiny_clip_model()
        if path is not None:
            load_state_dict(net, path)
        # a tiny model has no published weights: any tag ("openai", every caller's default) means random weights
        name = f"tiny-clip:{path or 'random'}"
        return ClipEmbedder(
            net,
            image_size=64,
            mean=_OPENAI_MEAN,
            std=_OPENAI_STD,
            device=device,
            name=name,
            batch_size=batch_size,
            resize_on_device=resize_on_device,
        )
    import open_clip

    if model not in open_clip.list_models():
        raise ValueError(f"unknown open_clip model {model!r}; e.g. 'ViT-B-32' (see open_clip.list_models())")
    cfg: dict = {}
    if path is None and pretrained is not None:
        cfg = open_clip.get_pretrained_cfg(model, str(pretrained)) or {}
        source = cached_pretrained(model, str(pretrained))
    else:
        source = None
    net = open_clip.create_model(model, pretrained=source, force_quick_gelu=bool(cfg.get("quick_gelu", False)))
    if path is not None:
        load_state_dict(net, path)
    if pretrained is None:
        logger.warning("CLIP %s built with random weights (pretrained=None): similarities are meaningless", model)
    size = net.visual.image_size
    size = size[0] if isinstance(size, (tuple, list)) else size
    mean = cfg.get("mean") or getattr(net.visual, "image_mean", None) or _OPENAI_MEAN
    std = cfg.get("std") or getattr(net.visual, "image_std", None) or _OPENAI_STD
    return ClipEmbedder(
        net,
        image_size=size,
        mean=mean,
        std=std,
        device=device,
        name=f"{model}:{pretrained}",
        batch_size=batch_size,
        resize_on_device=resize_on_device,
    )
