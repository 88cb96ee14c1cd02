"""graphbench: measure what CUDA Graphs buy on a real GPU.

The Python API (graphbench.api) is loaded on first use, so that `import
graphbench` and the command line's start-up stay cheap (no CUDA, CuPy or
NumPy import until a run needs them):

    import graphbench
    record = graphbench.run("softmax", modes="individual,graph")
"""

from graphbench._version import __version__

API = ("run", "compare", "load", "save")
__all__ = ["__version__", *API]


def __getattr__(name: str):
    if name in API:  # looked up on every access, so a test's monkeypatch of api.run holds
        from graphbench import api

        return getattr(api, name)
    raise AttributeError(f"module 'graphbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
