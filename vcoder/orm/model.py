"""The ORM as a model: P(YES) read from the first answer token's logits, as WebRL does.

The ORM is a vision-language chat model fine-tuned to answer ``YES`` or ``NO`` to :func:`vcoder.orm.prompt.orm_prompt`
(the screenshot first, then the text). Its score is ``softmax(logits[YES], logits[NO])[YES]`` at the first answer
position: the probability mass the model puts on YES, renormalised over the two answers. Both answers must be
single tokens: a real Qwen tokenizer has them; the tiny offline tokenizer does not, so :func:`add_answer_tokens`
adds them as whole-word tokens (and grows the embeddings) before training.

An ORM folder is a ``save_pretrained`` model + processor plus ``orm.json`` (:class:`ORMConfig`), which records the
answer token ids and the prompt settings so scoring uses exactly what training used.

Example:
    >>> orm = OutcomeRewardModel.load("outputs/orm")  # doctest: +SKIP
    >>> orm.p_yes([ORMInput(text=prompt, image=screenshot)])  # doctest: +SKIP
    [0.93]
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcoder.orm.prompt import PROMPT_VERSION

logger = logging.getLogger(__name__)

ORM_FILE = "orm.json"
ANSWERS = ("YES", "NO")
FORMAT = "vcoder-orm"


class NotAnORMError(ValueError):
    """A folder that is not an ORM (no ``orm.json``, or one that does not describe an ORM)."""


@dataclass(frozen=True)
class ORMConfig:
    """What scoring must repeat from training (saved as ``orm.json`` beside the weights).

    Attributes:
        yes_id, no_id: token ids of the two answers.
        label_threshold: a site is labelled YES when its score is at least this.
        image_width: screenshots are resized to this width (aspect kept) before the processor sees them; 0 = no image.
        base_model: the model the ORM was trained from.
        prompt_version: ``vcoder.orm.prompt.PROMPT_VERSION`` at training time.
        heldout_tasks: task ids kept out of training (for ``vcoder orm report``).
        decision_threshold: P(YES) at or above which the ORM's verdict is YES (WebRL: 0.5; ``vcoder orm train``
            tunes it on the training examples, see :func:`vcoder.orm.report.tune_threshold`).
    """

    yes_id: int
    no_id: int
    label_threshold: float = 0.5
    image_width: int = 320
    base_model: str = ""
    prompt_version: int = PROMPT_VERSION
    heldout_tasks: tuple[str, ...] = field(default=())
    decision_threshold: float = 0.5

    def save(self, folder: str | Path) -> Path:
        path = Path(folder) / ORM_FILE
        path.write_text(json.dumps({"format": FORMAT, **dataclasses.asdict(self)}, indent=2) + "\n")
        return path

    @staticmethod
    def load(folder: str | Path) -> ORMConfig:
        """Read ``orm.json``; ``NotAnORMError`` says what is missing and how to make an ORM."""
        folder = Path(folder)
        fix = "train one with `vcoder orm train --verdicts LOG --model-name-or-path BASE --out DIR`"
        if not folder.is_dir():
            raise NotAnORMError(f"ORM folder {str(folder)!r} does not exist; {fix}")
        path = folder / ORM_FILE
        if not path.is_file():
            raise NotAnORMError(f"{str(folder)!r} is not an ORM: it has no {ORM_FILE}; {fix}")
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise NotAnORMError(f"{path} is not valid JSON ({exc}); {fix}") from None
        if not isinstance(data, dict) or data.pop("format", None) != FORMAT:
            raise NotAnORMError(f'{path} does not describe a vcoder ORM (no "format": "{FORMAT}"); {fix}')
        known = {f.name for f in dataclasses.fields(ORMConfig)}
        try:
            config = ORMConfig(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise NotAnORMError(f"{path} misses a field ({exc}); {fix}") from None
        if config.prompt_version != PROMPT_VERSION:
            logger.warning(
                "%s was trained with prompt version %s; this vcoder writes %s",
                path,
                config.prompt_version,
                PROMPT_VERSION,
            )
        return dataclasses.replace(config, heldout_tasks=tuple(config.heldout_tasks))


@dataclass(frozen=True)
class ORMInput:
    """One thing to judge: the prompt text and the site's screenshot (any image form; None for none)."""

    text: str
    image: Any = None


def answer_token_ids(tokenizer) -> tuple[int, int] | None:
    """``(yes_id, no_id)`` when both answers encode as one token each, else None."""
    ids = [tokenizer.encode(word, add_special_tokens=False) for word in ANSWERS]
    return (ids[0][0], ids[1][0]) if all(len(i) == 1 for i in ids) else None


def add_answer_tokens(model, processor) -> tuple[int, int]:
    """Make YES and NO single tokens (adding whole-word tokens and growing the embeddings if needed).

    Returns:
        ``(yes_id, no_id)``.
    """
    tokenizer = getattr(processor, "tokenizer", processor)
    ids = answer_token_ids(tokenizer)
    if ids is not None:
        return ids
    from tokenizers import AddedToken

    # single_word: "NOTE" or "YESTERDAY" in a prompt stay ordinary text
    tokenizer.add_tokens([AddedToken(w, single_word=True, normalized=False) for w in ANSWERS])
    model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    ids = answer_token_ids(tokenizer)
    if ids is None:
        raise RuntimeError("YES/NO are still not single tokens after adding them; this tokenizer cannot host an ORM")
    logger.info("added answer tokens YES=%d NO=%d (vocabulary now %d)", ids[0], ids[1], len(tokenizer))
    return ids


def prepare_image(image: Any, width: int):
    """The screenshot as the ORM sees it: RGB PIL, resized to ``width`` px wide (aspect kept); None stays None."""
    if image is None or width <= 0:
        return None
    from vcoder.images import to_pil

    pil = to_pil(image)
    if pil.width != width:
        pil = pil.resize((width, max(1, round(pil.height * width / pil.width))))
    return pil


def user_turn(text: str, *, with_image: bool) -> list[dict[str, Any]]:
    """The ORM's conversation: one user turn (the screenshot placeholder first, then the prompt text)."""
    content = ([{"type": "image"}] if with_image else []) + [{"type": "text", "text": text}]
    return [{"role": "user", "content": content}]


class OutcomeRewardModel:
    """A loaded ORM: batched P(YES) on CPU or GPU.

    Args:
        model: the fine-tuned ``AutoModelForImageTextToText``.
        processor: its processor.
        config: its ``ORMConfig``.
    """

    def __init__(self, model, processor, config: ORMConfig) -> None:
        self.model, self.processor, self.config = model, processor, config
        self.model.eval()

    @classmethod
    def load(cls, folder: str | Path, *, device: str | None = None) -> OutcomeRewardModel:
        """Load an ORM folder (``NotAnORMError`` when it is not one)."""
        import torch

        from vcoder.models.loading import load_model, load_processor

        config = ORMConfig.load(folder)
        try:
            processor = load_processor(folder)
        except (OSError, ValueError) as exc:
            raise NotAnORMError(f"{folder} has {ORM_FILE} but no loadable processor ({exc}); retrain it") from None
        if answer_token_ids(processor.tokenizer) != (config.yes_id, config.no_id):
            raise NotAnORMError(
                f"{folder}: orm.json says YES={config.yes_id}, NO={config.no_id} but the tokenizer encodes them as "
                f"{answer_token_ids(processor.tokenizer)}; the folder mixes files of different models"
            )
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            model = load_model(folder, dtype=torch.float32 if device == "cpu" else None, device=device)
        except (OSError, ValueError) as exc:
            raise NotAnORMError(f"{folder} has {ORM_FILE} but no loadable model weights ({exc}); retrain it") from None
        return cls(model, processor, config)

    def p_yes(self, inputs: Sequence[ORMInput], *, batch_size: int = 8) -> list[float]:
        """P(YES) in [0, 1] for each input, in order (batched; left padding, so batching does not change a score)."""
        out: list[float] = []
        for start in range(0, len(inputs), batch_size):
            out += self._batch(inputs[start : start + batch_size])
        return out

    def _batch(self, inputs: Sequence[ORMInput]) -> list[float]:
        import torch

        images = [prepare_image(x.image, self.config.image_width) for x in inputs]
        texts = [
            self.processor.apply_chat_template(
                user_turn(x.text, with_image=img is not None), tokenize=False, add_generation_prompt=True
            )
            for x, img in zip(inputs, images)
        ]
        present = [img for img in images if img is not None]
        batch = self.processor(
            text=texts, images=present or None, padding=True, padding_side="left", return_tensors="pt"
        ).to(self.model.device)
        with torch.inference_mode():
            logits = self.model(**batch, logits_to_keep=1).logits[:, -1, :]
        pair = logits[:, [self.config.yes_id, self.config.no_id]].float()
        return torch.softmax(pair, dim=-1)[:, 0].tolist()


def make_orm(base: str | Path, out: str | Path, *, image_width: int = 320, label_threshold: float = 0.5) -> Path:
    """Save ``base`` as an ORM folder without training (a zero-shot judge for a real base; a fixture for tests).

    Returns:
        ``out``, which :meth:`OutcomeRewardModel.load` accepts.
    """
    from vcoder.models.loading import load_policy, save_policy

    model, processor = load_policy(str(base), dtype="float32")
    yes_id, no_id = add_answer_tokens(model, processor)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    save_policy(model, processor, out)
    ORMConfig(yes_id, no_id, label_threshold, image_width, str(base)).save(out)
    return out
