"""The bootstrap pipeline: rounds of self-play data, an offline fit and a gate."""
