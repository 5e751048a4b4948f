"""vcoder.models: tiny offline model factory (config-built Qwen-VL + locally trained tokenizer + processor).

Heavy imports (torch, transformers) happen inside the functions, so importing this package is cheap.
"""

from vcoder.models.tiny import ARCHES, SIZES, build_tiny_vlm, default_corpus, train_tokenizer

__all__ = ["ARCHES", "SIZES", "build_tiny_vlm", "default_corpus", "train_tokenizer"]
