"""Rendering: records and comparisons as rich tables, text, markdown and
charts. Pure functions of a record, so a saved file renders as the live run
did. Nothing here prints; the CLI does."""
