"""vcoder.models."""
