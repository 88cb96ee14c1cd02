"""The version, in a module of its own: graphbench/__init__.py gives the API
lazily, and modules that only need the version must not import the API."""

__version__ = "0.2.0"
