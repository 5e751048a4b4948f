"""vcoder.data."""
