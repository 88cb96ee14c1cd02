"""graphbench: measure what CUDA Graphs buy on a real GPU."""

__version__ = "0.1.0"
