"""Evaluations of a trained policy: Design2Code (screenshot -> HTML) and WebGen-Bench (instruction -> website).

Design2Code (``vcoder eval design2code``; Si et al., 2024): :mod:`.predict` asks any OpenAI-compatible server for
each test page (resumable, a reply without HTML kept and scored), :mod:`.design2code` renders and scores every pair
with the official metrics (block-match, text, position, colour, CLIP: :mod:`.clip_score`), never dropping a sample,
into ``results.jsonl`` (:mod:`.results`), ``summary.json`` and ``report.html`` (:mod:`.report`); :mod:`.scoring` is
the one definition of a scored pair, which the training pipelines' holdout scoring uses too. The module docstring of
:mod:`.design2code` lists every deliberate deviation from the official scorer.

WebGen-Bench (``vcoder eval webgen-bench``; Lu et al., 2025): :mod:`.webgen_bench` builds each task's site with a
served model through :mod:`vcoder.sites` (one :mod:`.webgen_task` per task, its test cases hidden from the builder),
grades it under vcoder's protocol (the GUI agent ``gui_policy`` names, the screenshot judge), the benchmark's own
(its WebVoyager agent, :mod:`vcoder.gui.webvoyager`, and appearance prompt, :mod:`.webgen_appearance`) or both, and
writes one row per task (:mod:`.webgen_rows`), the summary and ``report.html`` (:mod:`.webgen_report`);
:mod:`.webgen_config` is the run's settings.

``extract_testset`` and ``generate_predictions`` are VisionCoder's own scripts, kept as thin entry points over
``vcoder data design2code`` and ``vcoder predict``. Heavy imports happen inside functions; nothing is exported here:
import the module you use (``from vcoder.eval.design2code import evaluate``).
"""
