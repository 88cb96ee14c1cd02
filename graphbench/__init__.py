"""graphbench: measure what CUDA Graphs buy on a real GPU.

The Python API (graphbench.api) is loaded on first use, so that `import
graphbench` and the command line's start-up stay cheap (no CUDA, CuPy or
NumPy import until a run needs them):

    import graphbench
    record = graphbench.run("softmax", modes="individual,graph")
    print(graphbench.summarize(record).speedup["graph"].stats.median)
"""

from typing import TYPE_CHECKING

from graphbench._version import __version__

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ loads the API lazily
    # "X as X": an explicit re-export, which mypy --strict and pyright require
    from graphbench.api import bench as bench, compare as compare, load as load, run as run
    from graphbench.api import save as save, summarize as summarize
    from graphbench.api import check_replay as check_replay

API = ("run", "bench", "check_replay", "compare", "load", "save", "summarize")
__all__ = ["__version__", *API]


def __getattr__(name: str):
    if name in API:  # looked up on every access, so a test's monkeypatch of api.run holds
        from graphbench import api

        return getattr(api, name)
    raise AttributeError(f"module 'graphbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
