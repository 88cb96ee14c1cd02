"""The `pytest11` entry point. It loads graphbench.pytest_plugin by its
module name rather than being it: pytest refuses one module registered
under two names, and the entry point's name (graphbench) is not the
module's. So `-p graphbench`, `-p graphbench.pytest_plugin`, a conftest's
`pytest_plugins = ["graphbench.pytest_plugin"]` and the entry point's own
loading all end in one registration, whichever comes first."""

pytest_plugins = ["graphbench.pytest_plugin"]
