"""Real tiny models: build offline, save, load with the Auto classes, forward, generate with an image message."""

from __future__ import annotations

import json
import os
import re

import pytest

pytest.importorskip("transformers")

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from vcoder.data.prompts import make_conversation  # noqa: E402
from vcoder.data.synthetic import generate_page  # noqa: E402
from vcoder.models.tiny import SPECIAL_TOKENS, build_tiny_vlm, train_tokenizer  # noqa: E402

# a small corpus keeps tokenizer training well under a second; the default corpus is covered once below
SMALL_CORPUS = [generate_page(seed, difficulty=d).html for d in range(4) for seed in range(12)]


@pytest.fixture(scope="module", params=["qwen2_5_vl", "qwen3_vl"])
def tiny_dir(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    return build_tiny_vlm(out, arch=request.param, corpus=SMALL_CORPUS, seed=0)


def test_tokenizer_round_trips_html_and_keeps_special_tokens():
    tok = train_tokenizer(SMALL_CORPUS, vocab_size=1000)
    html = generate_page(999, difficulty=2).html
    ids = tok(html).input_ids
    assert tok.decode(ids) == html
    # merges cross punctuation and spaces, so a page is far fewer tokens than bytes
    assert len(ids) < len(html) / 3
    for special in SPECIAL_TOKENS:
        assert len(tok(special).input_ids) == 1, special
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"


def test_default_corpus_makes_difficulty0_pages_short():
    pytest.importorskip("tokenizers")
    from vcoder.models.tiny import default_corpus

    tok = train_tokenizer(default_corpus(40), vocab_size=2048)
    lengths = [len(tok(generate_page(50_000 + s).html).input_ids) for s in range(5)]
    assert max(lengths) < 60, lengths


def test_saved_folder_loads_offline_and_generates(tiny_dir):
    import torch
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    info = json.loads((tiny_dir / "vcoder_tiny.json").read_text())
    assert 100_000 < info["parameters"] < 1_000_000
    processor = AutoProcessor.from_pretrained(tiny_dir, local_files_only=True)
    model = AutoModelForImageTextToText.from_pretrained(tiny_dir, local_files_only=True)
    assert type(processor.image_processor).__name__ == "Qwen2VLImageProcessor"
    assert "<|im_start|>" in processor.chat_template

    image = Image.new("RGB", (320, 240), (200, 30, 30))
    inputs = processor.apply_chat_template(
        make_conversation(image), add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt"
    )
    n_visual = int((inputs["input_ids"] == processor.image_token_id).sum())
    assert 4 <= n_visual <= 64  # the small max_pixels keeps a screenshot to a few dozen visual tokens
    with torch.no_grad():
        logits = model(**inputs).logits
    assert logits.shape == (1, inputs["input_ids"].shape[1], len(processor.tokenizer))
    assert torch.isfinite(logits).all()
    out = model.generate(**inputs, max_new_tokens=8, do_sample=False)
    assert out.shape[1] > inputs["input_ids"].shape[1]
    assert isinstance(processor.decode(out[0, inputs["input_ids"].shape[1] :]), str)


def test_same_seed_same_weights(tmp_path):
    from safetensors.torch import load_file

    corpus = SMALL_CORPUS[:8]
    a = load_file(build_tiny_vlm(tmp_path / "a", corpus=corpus, seed=1) / "model.safetensors")
    b = load_file(build_tiny_vlm(tmp_path / "b", corpus=corpus, seed=1) / "model.safetensors")
    c = load_file(build_tiny_vlm(tmp_path / "c", corpus=corpus, seed=2) / "model.safetensors")
    assert all((a[k] == b[k]).all() for k in a)
    assert any((a[k] != c[k]).any() for k in a)


@pytest.mark.parametrize(("kwargs", "match"), [({"arch": "llama"}, "unknown arch 'llama'"), ({"size": "xl"}, "xl")])
def test_bad_arguments_are_named(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        build_tiny_vlm(tmp_path, **kwargs)


def test_split_digits_keeps_every_digit_a_token_through_save_and_load(tmp_path):
    from transformers import AutoTokenizer

    from vcoder.models.tiny_lm import build_tiny_lm

    request = "It shows 'Laps: N', starting at 8. An 'Increase' button adds 3, and 'Reset to 8'."
    corpus = [request.replace("8", str(d)).replace("3", str((d + 1) % 10)) for d in range(10)] * 20
    merged = train_tokenizer(corpus, vocab_size=400)
    assert any(any(c.isdigit() for c in tok) and len(tok) > 1 for tok in merged.get_vocab())  # merges glue digits
    split = train_tokenizer(corpus, vocab_size=400, split_digits=True)
    assert not [tok for tok in split.get_vocab() if any(c.isdigit() for c in tok) and len(tok) > 1]
    # the saved qwen3 folder loads with the same pre-tokenizer (the model's own tokenizer class would re-split words)
    path = build_tiny_lm(tmp_path / "lm", arch="qwen3", size="tiny", corpus=corpus, split_digits=True)
    loaded = AutoTokenizer.from_pretrained(path)
    ids = loaded(request)["input_ids"]
    assert loaded.convert_ids_to_tokens(ids).count("8") == 2 and loaded.decode(ids) == request
    assert len(ids) == len(train_tokenizer(corpus, vocab_size=2048, split_digits=True)(request)["input_ids"])


def test_split_words_gives_a_name_the_same_tokens_everywhere_through_save_and_load(tmp_path):
    from transformers import AutoTokenizer

    from vcoder.models.tiny_lm import build_tiny_lm

    names = ["Kitchen", "Office", "Smart Headphones", "Hana Okafor"]
    corpus = [f'Task: open {n} now\n<a id="{k}">{n}</a>\n# Element: {n}' for k, n in enumerate(names)] * 30

    def pieces(tok, text, name):
        ids = tok(text)["input_ids"]
        whole = tok.convert_ids_to_tokens(ids)
        want = tok.convert_ids_to_tokens(tok(name)["input_ids"])
        return any(whole[i : i + len(want)] == want for i in range(len(whole)))

    def crossing(tok):  # tokens that hold a word edge (special tokens aside)
        texts = [tok.convert_tokens_to_string([t]) for t in tok.get_vocab() if t not in tok.all_special_tokens]
        return [t for t in texts if re.search(r"\w\W|\W\w", t) and not re.fullmatch(r"</?[\w|]+>", t)]

    assert crossing(train_tokenizer(corpus, vocab_size=400))  # merges glue a name to its neighbours
    assert not crossing(train_tokenizer(corpus, vocab_size=400, split_words=True))
    # qwen2_5: the model's own tokenizer class re-splits words on load, so the merges must stay inside them
    path = build_tiny_lm(tmp_path / "lm", arch="qwen2_5", corpus=corpus, split_digits=True, split_words=True)
    loaded = AutoTokenizer.from_pretrained(path)
    for n in names:
        for text in (f"Task: open {n} now", f'<a id="1">{n}</a>', f"# Element: {n}\n"):
            assert pieces(loaded, text, n), (n, text)
        assert loaded.decode(loaded(f'<a id="1">{n}</a>')["input_ids"]) == f'<a id="1">{n}</a>'
