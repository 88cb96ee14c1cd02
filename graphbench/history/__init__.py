"""The results history: run records stored with their key (machine, commit,
pipeline, time) in one SQLite file or a shared PostgreSQL database, listed,
exported, and named by reference in compare (docs/history.md)."""
