"""Training flows on TRL, one package per loop, over a shared layer that none of them is imported by.

The loops:

- :mod:`.grpo`: one-shot GRPO and SFT of a VLM (VisionCoder: screenshot -> HTML, scored by the rendering rewards),
  ``vcoder train grpo`` / ``vcoder train sft``; also agent SFT on multi-turn trajectories.
- :mod:`.step_grpo`: Step-GRPO (WebGen-Agent): multi-turn site building with one reward per step,
  ``vcoder train step-grpo``.
- :mod:`.curriculum`: WebRL's self-evolving curriculum over the website-building policies, ``vcoder curriculum run``.
- :mod:`.web_agent`: WebRL's own setting, the browsing agent on :mod:`vcoder.browse`'s sites
  (``vcoder curriculum web-sft`` and ``run`` with a ``web_agent_*`` recipe).
- :mod:`.quickstart` and :mod:`.agent_quickstart`: the end-to-end CPU demos behind ``vcoder quickstart [--agent]``;
  :mod:`.agent_quickstart.evaluation` scores a site-building policy on held-out tasks for the latter.

The shared layer, which the loops import and which imports none of them (``tests/test_architecture.py``):
:mod:`.recipes` (parsing a recipe with one-line errors, the model-path and reward-weight checks, the run loop with the
holdout score a loop hands in), :mod:`.disk` (what a recipe will write against the free space), :mod:`.progress` (the
progress bar) and :mod:`.plots` (``vcoder plot``). :mod:`.seed_flags` and ``training.py`` run VisionCoder's own
command line on the GRPO loop. Heavy imports (torch, TRL) happen inside functions, so importing a pipeline is cheap.
"""
