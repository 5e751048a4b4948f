"""vcoder.data: datasets as TRL rows ``{"prompt", "image", "html", "id"}`` and a synthetic page generator.

Loaders: :func:`load_websight` (hub or local parquet), :func:`load_design2code` / :func:`export_testset`,
:func:`load_local` (folder or parquet). Generator: :func:`generate_page`, :func:`write_synthetic`; what a difficulty-0 page states, for comparing a model's
page with its reference: :func:`page_features`, :func:`feature_accuracy`, :func:`altered_pages`.
Prompts shared by training and evaluation: :data:`DEFAULT_SYSTEM_PROMPT`, :data:`DEFAULT_USER_PROMPT`.
Site-building tasks (Step-GRPO): :func:`load_webgen_bench` (WebGen-Bench's JSONL or hub id), :func:`site_tasks`
(instruction-only tasks with scripted cases, from :mod:`vcoder.data.site_kinds.pages`; every site kind, with its
content split, lives in :mod:`vcoder.data.site_kinds`), :func:`load_webgen_instruct` (WebGen-RL's training requests,
no cases: a writer LLM adds the GUI test), :func:`make_site_conversation` / :data:`SITE_SYSTEM_PROMPT`.
Agent SFT: :func:`read_trajectories` (multi-turn chat trajectories, WebGen-Agent's form included).
Light imports only: datasets, pyarrow and the browser load inside the functions that need them.
"""

from vcoder.data.common import DEFAULT_MAX_PIXELS, RowFilter, to_dataset
from vcoder.data.design2code import export_testset, load_design2code
from vcoder.data.local import load_local
from vcoder.data.prompts import (
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_USER_PROMPT,
    SITE_SYSTEM_PROMPT,
    make_conversation,
    make_site_conversation,
    site_system_prompt,
)
from vcoder.data.site_kinds.pages import site_task, site_tasks
from vcoder.data.synth_writer import write_synthetic
from vcoder.data.synthetic import SynthPage, generate_page
from vcoder.data.synthetic_facts import altered_pages, feature_accuracy, page_features
from vcoder.data.trajectories import read_trajectories
from vcoder.data.webgen_bench import load_webgen_bench
from vcoder.data.webgen_instruct import load_webgen_instruct
from vcoder.data.websight import load_websight
from vcoder.images import resize_to_max_pixels

__all__ = [
    "altered_pages",
    "DEFAULT_MAX_PIXELS",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_USER_PROMPT",
    "RowFilter",
    "SynthPage",
    "export_testset",
    "feature_accuracy",
    "generate_page",
    "load_design2code",
    "load_local",
    "load_websight",
    "make_conversation",
    "page_features",
    "read_trajectories",
    "resize_to_max_pixels",
    "to_dataset",
    "write_synthetic",
    "SITE_SYSTEM_PROMPT",
    "load_webgen_bench",
    "load_webgen_instruct",
    "make_site_conversation",
    "site_system_prompt",
    "site_task",
    "site_tasks",
]
