"""vcoder.models: the tiny offline model factory (config-built Qwen-VL + locally trained tokenizer + processor), the
one way a policy is loaded (:mod:`.loading`), the one run loop of every TRL trainer (:mod:`.train_loop`) and its check
that 16-bit weights have an fp32 master copy (:mod:`.precision`).

Heavy imports (torch, transformers) happen inside the functions, so importing this package is cheap.
"""

from vcoder.models.loading import check_model_folder, load_for_training, load_model, load_policy, save_policy
from vcoder.models.precision import check_master_weights, master_copy_missing
from vcoder.models.tiny import ARCHES, SIZES, build_tiny_vlm, default_corpus, train_tokenizer
from vcoder.models.train_loop import resolve_resume, run_training

__all__ = [
    "ARCHES",
    "SIZES",
    "build_tiny_vlm",
    "check_master_weights",
    "check_model_folder",
    "default_corpus",
    "load_for_training",
    "load_model",
    "load_policy",
    "master_copy_missing",
    "resolve_resume",
    "run_training",
    "save_policy",
    "train_tokenizer",
]
