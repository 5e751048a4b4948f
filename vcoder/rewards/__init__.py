"""vcoder.rewards."""
