"""A compact progress bar for trainers: one tqdm line per run with the live loss or reward, no log dumps."""

from __future__ import annotations

from transformers import TrainerCallback

# what the bar shows when the trainer logs it, in this order
_SHOWN = (("reward", "reward"), ("loss", "loss"), ("kl", "kl"), ("step_time", "s/step"))


class BarCallback(TrainerCallback):
    """Show training progress as a single tqdm bar whose postfix tracks the latest reward/loss.

    Use with ``disable_tqdm=True`` in the trainer config so the default bar (which prints every log dict) is off.

    Args:
        desc: label of the bar (e.g. ``"SFT"``, ``"GRPO"``).
        disable: hide the bar (non-main processes, tests).
    """

    def __init__(self, desc: str, *, disable: bool = False):
        self.desc = desc
        self.disable = disable
        self.bar = None

    def on_train_begin(self, args, state, control, **kwargs):
        from tqdm.auto import tqdm

        if state.is_world_process_zero:
            self.bar = tqdm(
                total=state.max_steps, initial=state.global_step, desc=self.desc, unit="step", disable=self.disable
            )

    def on_step_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.update(state.global_step - self.bar.n)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self.bar is None or not logs:
            return
        shown = {label: f"{logs[key]:.3g}" for key, label in _SHOWN if isinstance(logs.get(key), (int, float))}
        if shown:
            self.bar.set_postfix(shown, refresh=False)

    def on_train_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
