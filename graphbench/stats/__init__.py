"""Statistics of one record: intervals, summaries, the figures derived from its rounds."""
