"""Design2Code's CLIP score: text inpainted away, page squashed to a square, OpenAI CLIP ViT-B/32 image cosine.

As in the benchmark (Si et al., 2024): each page's text-block boxes are inpainted (OpenCV Telea, radius 3) so the
score judges the layout and imagery rather than the text (which the block metrics judge), the whole page is resized
to a square (not cropped), and the cosine of the two image embeddings is the score.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


class ClipScorer:
    """Scores rendered pairs with CLIP; build it with ``ClipScorer.create`` (None when no weights are available).

    Args:
        embedder: an object with ``embed(list_of_rgb_arrays) -> embeddings`` (``vcoder.models.clip.load_clip``).
    """

    def __init__(self, embedder):
        self.embedder = embedder

    @classmethod
    def create(cls, model: str = "ViT-B-32", pretrained: str | None = "openai", *, tiny: bool = False):
        """Load CLIP offline; when its weights are not available locally, warn ONCE and return None.

        Args:
            model: open_clip model name (the benchmark's is ViT-B-32).
            pretrained: open_clip tag resolved from the local cache (``openai``) or a checkpoint path.
            tiny: a tiny random model (tests only; its scores mean nothing).

        Returns:
            A ``ClipScorer``, or None when the weights cannot be found (the clip column is then null).
        """
        from vcoder.models.clip import ClipWeightsNotFound, load_clip

        try:
            return cls(load_clip(model, pretrained, tiny=tiny))
        except ClipWeightsNotFound as exc:
            logger.warning(
                "CLIP weights %s/%s are not available locally, so the clip column is null and overall averages "
                "block_match, text, position and color only (%s). Pass --clip-pretrained PATH to a local "
                "ViT-B-32 OpenAI checkpoint to compute it.",
                model,
                pretrained,
                exc,
            )
            return None

    @staticmethod
    def prepare(rendered):
        """The page with its text boxes inpainted (the embedder squashes the whole page to its square input)."""
        from vcoder.metrics import mask_text

        boxes = [b.bbox for b in rendered.layout.text_blocks] if rendered.layout is not None else []
        return mask_text(rendered.image, boxes)

    def score(self, ref, pred) -> float:
        """CLIP similarity of two ``Rendered`` pages (ok ones), in [0, 1]."""
        from vcoder.metrics import clip_similarity

        emb = self.embedder.embed([self.prepare(ref), self.prepare(pred)])
        return float(clip_similarity(emb[0], emb[1]))
