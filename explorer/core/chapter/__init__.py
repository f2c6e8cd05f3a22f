"""What the explore panels compute: kernel regression, cues, scoring, costs, the Transformer's anatomy."""
