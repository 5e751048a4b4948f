"""vcoder.agents."""
