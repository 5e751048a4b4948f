"""vcoder.pipelines."""
