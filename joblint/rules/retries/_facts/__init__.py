"""The retries family's facts: retry policies, loops, growth and the jitter rewrite."""
