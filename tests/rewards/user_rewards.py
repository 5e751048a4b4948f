"""A user's own reward module, loaded by dotted path in the registry tests."""


def length_reward(completions, **kwargs):
    return [min(1.0, len(str(c)) / 100) for c in completions]


def make_constant_reward(*, render_width: int = 1280, value: float = 0.5):
    def constant_reward(completions, **kwargs):
        return [value] * len(completions)

    return constant_reward
