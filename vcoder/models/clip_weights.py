"""Where a CLIP embedder's weights come from, never the network: the tiny deterministic model for tests, a local
state-dict file, or a pretrained tag resolved from the local caches only (``ClipWeightsNotFound`` otherwise).
:func:`vcoder.models.clip.load_clip` builds the embedder from them.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the suffixes of a local checkpoint file (anything else is a pretrained tag)
CHECKPOINT_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors")


class ClipWeightsNotFound(RuntimeError):
    """Raised at build time when the requested CLIP weights are not available on this machine."""


def tiny_clip_model():
    """A tiny open_clip CLIP (64-d embeddings, 64 px input), the same weights in every process."""
    import torch
    from open_clip.model import CLIP

    # deterministic weights: the same tiny model in every process (tests compare embeddings across loads)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return CLIP(
            embed_dim=64,
            vision_cfg={
                "image_size": 64,
                "layers": 2,
                "width": 96,
                "patch_size": 16,
                "head_width": 32,
                "mlp_ratio": 2.0,
            },
            text_cfg={"context_length": 8, "vocab_size": 64, "width": 32, "heads": 2, "layers": 1},
        )


def load_state_dict(model, path: Path) -> None:
    """Load a state-dict file into ``model``; ``ClipWeightsNotFound`` when it holds none or does not fit."""
    import torch

    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        state = load_file(str(path))
    else:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
        if isinstance(state, dict) and "state_dict" in state:
            state = state["state_dict"]
    if not isinstance(state, dict):
        raise ClipWeightsNotFound(
            f"{path} does not hold a state dict (got {type(state).__name__}); save one with "
            "torch.save(model.state_dict(), path) or safetensors"
        )
    state = {k.removeprefix("module."): v for k, v in state.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ClipWeightsNotFound(
            f"{path} does not fit this architecture: {len(missing)} missing keys (e.g. {missing[:3]}), "
            f"{len(unexpected)} unexpected (e.g. {unexpected[:3]}); pass the matching model name (or tiny=True)"
        )


def cached_pretrained(model: str, tag: str) -> str:
    """Resolve a pretrained tag to a local file without touching the network, or raise ClipWeightsNotFound."""
    import open_clip

    tags = open_clip.list_pretrained_tags_by_model(model)
    if tag not in tags:
        raise ValueError(f"pretrained={tag!r} is not an open_clip tag for {model!r}; known tags: {tags}")
    cfg = open_clip.get_pretrained_cfg(model, tag)
    tried = []
    if cfg.get("hf_hub"):
        from huggingface_hub import hf_hub_download

        repo = cfg["hf_hub"].rstrip("/")
        for filename in ("open_clip_model.safetensors", "open_clip_pytorch_model.bin"):
            tried.append(f"hf://{repo}/{filename}")
            try:
                return hf_hub_download(repo, filename, local_files_only=True)
            except Exception:  # not in the local Hugging Face cache
                continue
    if cfg.get("url"):
        cached = Path(os.path.expanduser("~/.cache/clip")) / os.path.basename(cfg["url"])
        tried.append(str(cached))
        if cached.is_file():
            return str(cached)
    raise ClipWeightsNotFound(
        f"CLIP weights {model}/{tag} are not on this machine (looked in: {', '.join(tried)}); vcoder never downloads "
        f"them during training or evaluation. Pass a local checkpoint path as pretrained=..., pre-fill the Hugging "
        f"Face cache (huggingface-cli download {cfg.get('hf_hub', '').rstrip('/') or '<repo>'}), or use tiny=True "
        "for tests."
    )
