"""vcoder.eval."""
