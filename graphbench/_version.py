"""The version, in a module of its own: graphbench/__init__.py gives the API
lazily, and modules that only need the version must not import the API."""

__version__ = "0.2.0"
# The name on the package index ("graphbench" there is another project); the
# import, the command and the pytest fixture are all `graphbench`.
DISTRIBUTION = "cuda-graphbench"


def install_command(extra: str) -> str:
    """How to add an optional extra: pip install ".[torch]" in graphbench's
    checkout. The distribution is not on the package index, so an extra is
    installed from the source, as graphbench itself is (README.md)."""
    return f'pip install ".[{extra}]" in the graphbench checkout'
