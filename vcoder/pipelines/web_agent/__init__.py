"""WebRL's own setting: the browsing agent's SFT start (:mod:`.sft`) and curriculum (:mod:`.run`) on
:mod:`vcoder.browse`'s sites, with a local LM policy (:mod:`.lm`) and its recipe (:mod:`.config`).

``run`` drives the phases; ``webrl`` and ``webrl_phase`` are WebRL's actor-critic update (``algorithm: webrl``);
``pool`` grows a phase's task pool (both updates use it, so it sits below them); ``writer`` is the LLM task writer
and ``judging`` the ORM's verdicts on written tasks."""
