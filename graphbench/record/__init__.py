"""The typed result records (model) and their one JSON boundary (codec)."""
