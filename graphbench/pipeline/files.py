"""Pipeline files: find one (a shipped name or a path) and run it, once per
process, all before any GPU work. What it describes is checked against the
run's element counts by graphbench.pipeline.plan (and, with its kernels compiled, by
graphbench.preflight).
"""

from __future__ import annotations

import hashlib
import os
import inspect
import stat
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graphbench.pipeline.callables import CallablePipeline
from graphbench.config import DEFAULT_STAGES
from graphbench.pipeline.plan import BufferPlan, Plan, StagePlan, plan, reference_outputs  # noqa: F401 - the public names
from graphbench.errors import UsageError
from graphbench.spelling import nearest
from graphbench.pipeline.params import pipeline_arguments
from graphbench.pipeline.spec import Pipeline, SpecError, _short

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
BUILTIN = "add_mul_sub"
SHIPPED = ("add_mul_sub", "softmax", "jacobi", "reduction", "torch_mlp", "cupy_chain")
MAX_PATH = 4096  # PATH_MAX on Linux; a longer name is refused before the OS is asked


@dataclass(frozen=True)
class LoadedPipeline:
    spec: Pipeline
    path: Path
    file_sha256: str | None  # None: an object, not a file
    source: str  # the CUDA C++ text ("" for callables)


def pipeline_path(name_or_path: str | None, option: str = "--pipeline") -> Path:
    """A shipped pipeline by name (softmax), or a pipeline file's path
    (`option`: what the caller calls it in messages)."""
    if name_or_path is None:
        return SHIPPED_DIR / f"{BUILTIN}.py"
    if name_or_path in SHIPPED:
        return SHIPPED_DIR / f"{name_or_path}.py"
    remedy = f"give a path to a .py file or one of {', '.join(SHIPPED)}"
    if not name_or_path.strip() or "\0" in name_or_path:
        raise SpecError(f"{option} {name_or_path!r} names no file", remedy)
    if len(name_or_path) > MAX_PATH:
        raise SpecError(f"{option} path of {len(name_or_path):,} characters is longer than "
                        f"any file name ({MAX_PATH})", remedy)
    path = Path(name_or_path)
    try:
        found = path.stat()
    except FileNotFoundError:
        close = nearest(name_or_path, SHIPPED) if os.sep not in name_or_path else None
        raise SpecError(f"pipeline file {_short(name_or_path)} not found"
                        + (f" (did you mean {close}?)" if close else ""), remedy) from None
    except OSError as exc:  # a name component too long, a permission problem
        raise SpecError(f"pipeline file {_short(name_or_path)}: {exc.strerror or exc}",
                        remedy) from None
    if stat.S_ISDIR(found.st_mode):
        raise SpecError(f"{option} {_short(name_or_path)} is a folder, not a pipeline file",
                        remedy)
    if not stat.S_ISREG(found.st_mode):  # /dev/null, a FIFO: it exists, but holds no file
        raise SpecError(f"{option} {_short(name_or_path)} is not a regular file", remedy)
    if found.st_size == 0:
        raise SpecError(f"pipeline file {_short(name_or_path)} is empty",
                        "define pipeline() in it (docs/pipelines.md)")
    return path


# Each file runs once per process: the preflight, the session and the sweep
# points all ask for it, and a file's prints (or side effects) must not repeat.
_NAMESPACES: dict[tuple[str, str], dict] = {}
_LOADED: dict[tuple, Pipeline] = {}


def load_pipeline(name_or_path: str | None, depth: int = 1, stages=None,
                  option: str = "--pipeline", params: dict[str, str] | None = None
                  ) -> LoadedPipeline:
    """Run the pipeline file (once) and call its pipeline() with the parameters
    it takes: depth, stages and `params` (stored texts, graphbench.config.params)."""
    params = params or {}
    path = pipeline_path(name_or_path, option)
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")  # a BOM is valid Python source
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read pipeline file {path}: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    key = (str(path.resolve()), digest, depth, tuple(stages) if stages else None,
           tuple(params.items()))
    if key not in _LOADED:
        namespace = _NAMESPACES.get(key[:2]) or _run_file(text, path)
        _NAMESPACES[key[:2]] = namespace
        spec = _call(namespace.get("pipeline"), path, depth, stages, params)
        _LOADED[key] = spec
    spec = _LOADED[key]  # the kernel text is read anew: it is another file, which may change
    source = "" if isinstance(spec, CallablePipeline) else kernel_source_text(spec.source, path)
    return LoadedPipeline(spec, path, hashlib.sha256(text.encode()).hexdigest(), source)


def _run_file(text: str, path: Path) -> dict:
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as exc:
        if exc.lineno is None:  # Python 3.11 and later: a NUL byte, with no line
            raise SpecError(f"{path}: not Python source ({exc.msg})") from None
        raise SpecError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except ValueError as exc:  # a NUL byte in the source (Python before 3.11)
        raise SpecError(f"{path}: not Python source ({exc})") from None
    # a real module in sys.modules: torch.compile imports the module a function
    # was defined in by its __module__ name
    module = types.ModuleType(f"graphbench_pipeline_{path.stem}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    try:
        with no_hard_exit(path):
            exec(code, namespace)  # noqa: S102 - a pipeline file is trusted code, like a conftest
    except (KeyboardInterrupt, HardExit):
        raise  # Ctrl-C while it loads is the user's; a HardExit names the file already
    except BaseException as exc:  # SystemExit, GeneratorExit too: the file's error, named
        raise SpecError(f"{path} raised {_raised(exc, ' while loading')}") from None
    return namespace


class HardExit(SpecError):
    """A pipeline's code called os._exit, which would end the process with
    no record and whatever exit code it chose."""


@contextmanager
def no_hard_exit(where):
    """os._exit refused while a pipeline's code runs (loading its file, its
    pipeline(), the run's stages and reference): a run that ends without a
    record must say so and exit non-zero, and os._exit skips every handler."""
    original = os._exit

    def refused(code=0):
        raise HardExit(f"{where} called os._exit({code}): a pipeline cannot end the process",
                       "return or raise an exception instead")
    os._exit = refused
    try:
        yield
    finally:
        os._exit = original


def _raised(exc: BaseException, when: str = "") -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose __str__ itself raises
        text = ""
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(exc).__name__}{when}: {text}" if text else f"{type(exc).__name__}{when}"


def _parameters(make, path: Path):
    if make is None:
        raise SpecError(f"{path} defines no pipeline() function",
                        "define def pipeline(): return graphbench.pipeline.spec.Pipeline(...)")
    if not inspect.isfunction(make):
        raise SpecError(f"{path}: pipeline is {_short(make)}, not a function defined in the file",
                        "define def pipeline(): return graphbench.pipeline.spec.Pipeline(...)")
    return inspect.signature(make).parameters


def _call(make, path: Path, depth: int, stages, params: dict[str, str]) -> Pipeline:
    accepted = _parameters(make, path)
    kwargs = {}
    for name, value, default in (("depth", depth, 1), ("stages", stages, DEFAULT_STAGES)):
        if name in accepted:
            if value is not None:
                kwargs[name] = value
        elif value not in (default, None):
            raise SpecError(f"{path}: pipeline() takes no {name}",
                            f"leave out --{name} for this pipeline")
    kwargs.update(pipeline_arguments(accepted, params, path))
    try:
        with no_hard_exit(path):
            spec = make(**kwargs)
    except HardExit:
        raise  # it names the file already
    except SpecError as exc:
        raise SpecError(f"{path}: {exc.message}", exc.remedy) from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit included: a user's function, named here
        raise SpecError(f"{path}: pipeline() raised {_raised(exc)}") from None
    if isinstance(spec, CallablePipeline):
        return spec
    if not isinstance(spec, Pipeline):
        raise SpecError(f"{path}: pipeline() returned {type(spec).__name__}, not a Pipeline",
                        "return graphbench.pipeline.spec.Pipeline(...) or "
                        "graphbench.pipeline.callables.CallablePipeline(...)")
    if not isinstance(spec.source, str) or not spec.source.strip():
        raise SpecError(f"{path}: Pipeline source must be CUDA text or a .cu path, got "
                        f"{_short(spec.source)}")
    return spec


def kernel_source_text(source: str, pipeline_file: Path) -> str:
    """CUDA text as given, or read from a path relative to the pipeline file."""
    path = kernel_source_path(source, pipeline_file)
    if path is None:
        return source
    from graphbench.kernel_files import read_source

    try:
        return read_source(path, f"kernel source {_short(source)}")
    except UsageError as exc:
        raise SpecError(f"{pipeline_file}: {exc.message}", exc.remedy) from None


def kernel_source_path(source: str, pipeline_file: Path) -> Path | None:
    """The .cu file a Pipeline's source names (relative to the pipeline file,
    else a shipped kernel file of that name); None for CUDA text itself."""
    if "__global__" in source or "\n" in source:
        return None
    if len(source) > MAX_PATH or "\0" in source:
        raise SpecError(f"{pipeline_file}: Pipeline source {_short(source)} is neither CUDA "
                        "text nor a file name")
    path = Path(source)
    if not path.is_absolute():
        path = pipeline_file.parent / path
    try:
        if not path.is_file() and (kernels := _shipped_kernel(source)):
            path = kernels
    except (OSError, ValueError):  # a name the OS cannot encode or stat: read_source says why
        pass
    return path


def _shipped_kernel(name: str) -> Path | None:
    from graphbench.kernel_files import kernel_dir

    path = kernel_dir() / name
    return path if path.is_file() else None
