"""WebRL's own setting: the browsing agent's SFT start (:mod:`.sft`) and curriculum (:mod:`.run`) on
:mod:`vcoder.browse`'s sites, with a local LM policy (:mod:`.lm`) and its recipe (:mod:`.config`)."""
