"""vcoder.metrics."""
