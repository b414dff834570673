"""The retries family's facts: retry policies (where they are set, and their delays,
bounds and caught exceptions), loops, growth and the jitter rewrite."""
