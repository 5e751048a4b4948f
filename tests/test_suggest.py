"""The one "did you mean": close names, prefixed tails, nothing for a name far from every choice."""

from vcoder.suggest import did_you_mean, unknown_names


def test_a_typo_gets_the_close_name_and_a_far_name_gets_nothing():
    assert did_you_mean("blok", ["block", "text", "color"]) == " (did you mean 'block'?)"
    assert did_you_mean("zzzz", ["block", "text", "color"]) == ""
    assert did_you_mean(3, ["block"]) == ""  # not a string: compared by its str, never raises


def test_several_suggestions_and_prefixed_tails():
    assert did_you_mean("colr", ["color", "colour", "block"], n=2) == " (did you mean 'color' or 'colour'?)"
    fields = ["gui_base_url", "judge_base_url", "phases", "new_tasks_per_phase"]
    assert did_you_mean("base_url", fields, prefixed=True) == " (did you mean 'gui_base_url' or 'judge_base_url'?)"
    assert did_you_mean("phase", fields) == " (did you mean 'phases'?)"  # tails only for prefixed settings


def test_unknown_names_quotes_each_name_with_its_suggestion():
    assert unknown_names(["blok", "zzz"], ["block", "text"]) == "'blok' (did you mean 'block'?), 'zzz'"
