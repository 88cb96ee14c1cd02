"""A pipeline's own parameters (run --param NAME=VALUE, sweep --param
NAME=V1,V2, the API's params=) on CPU: values as users type them and the
one text a record keeps, the checks against pipeline()'s signature before
any GPU work, the record's round trip, the report, the sweep's axis, the
gate's config difference, the API, and the softmax pipeline's row width
compiled for sm_90 offline.

Covers graphbench/config/params.py.
Covers graphbench/spec.py."""

import dataclasses
import json
import textwrap
from pathlib import Path

import pytest
from tests_helpers import short_error
from conftest import make_record, synthetic_point

import graphbench
from graphbench.gate.compare import compare_records
from graphbench.cli import main
from graphbench.cli.commands import run_config, sweep_config
from graphbench.cli.parser import build_parser
from graphbench.config.values import parse_param, parse_param_axis, split_top
from graphbench.config import RunConfig, SweepConfig
from graphbench.config.params import params_text, typed_value, value_text
from graphbench.errors import ConfigError, UsageError
from graphbench.measure.sweep import run_sweep
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.preflight import preflight
from graphbench.record.codec import read_record, read_run, write_record
from graphbench.report.chart import sweep_panels
from graphbench.report.csv_rows import sweep_csv
from graphbench.report.run import run_report
from graphbench.report.sweep import crossover_rows, sweep_report, sweep_rows
from graphbench.report.tables import to_text

RECORDS = Path(__file__).resolve().parent / "records"
PIPELINE = '''
from graphbench.spec import Pipeline, Stage, buffer, count

SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, float a, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = a * x[i];
}
"""
CALLS = []

def pipeline(width=4, mode="fast", exact=False, scale=1.0, shape=(1, 2), loose=None):
    CALLS.append(dict(width=width, mode=mode, exact=exact, scale=scale, shape=shape, loose=loose))
    return Pipeline(name="scaled", source=SOURCE, reference=lambda inputs, n: {},
                    buffers=[buffer("x", size=f"n * {width}", role="input"),
                             buffer("y", size=f"n * {width}")],
                    stages=[Stage("scale", args=("x", "y", count(f"n * {width}")))],
                    description=f"{mode} width {width}")
'''


@pytest.fixture
def scaled(tmp_path):
    path = tmp_path / "scaled.py"
    path.write_text(PIPELINE)
    return str(path)


# --- values as users type them ------------------------------------------------

@pytest.mark.parametrize("typed, stored", [
    ("256", "256"), ("0x100", "256"), ("2.5", "2.5"), ("1e3", "1000.0"), ("-3", "-3"),
    ("True", "True"), ("fast", "'fast'"), ("float16", "'float16'"), ("row-major", "'row-major'"),
    ("'two words'", "'two words'"), ("(4,8)", "(4, 8)"), ("(1, 'a', (2.5,))", "(1, 'a', (2.5,))"),
    ("'True'", "'True'"), ("true", "'true'")])  # true is a word: a bool is True
def test_values_are_python_literals_or_bare_words(typed, stored):
    assert value_text("p", typed_value("p", typed)) == stored


@pytest.mark.parametrize("typed, said", [
    ("None", "None"), ("[1,2]", "a list"), ("{1: 2}", "a dict"), ("1e999", "not a finite"),
    ("1+2j", "a complex"), ("b'x'", "a bytes"), ("a b", "not a Python literal"),
    ("(1,", "not a Python literal"), ("", "no value")])
def test_values_no_parameter_takes_are_refused_naming_why(typed, said):
    with pytest.raises(ConfigError, match=said.replace("+", r"\+")) as refused:
        value_text("p", typed_value("p", typed))
    assert refused.value.field == "params" and refused.value.remedy


def test_commas_split_values_outside_brackets_and_quotes():
    assert split_top("1,(2,3),'a,b',[4,5]") == ["1", "(2,3)", "'a,b'", "[4,5]"]
    assert parse_param("shape=(4,8)", "--param") == ("shape", "(4, 8)")
    assert parse_param_axis("cols=256,1024", "--param") == ("cols", ("256", "1024"))
    with pytest.raises(UsageError, match="has 2 values: a run takes one"):
        parse_param("cols=256,1024", "--param")
    with pytest.raises(UsageError, match="names 256 twice"):
        parse_param_axis("cols=256,0x100", "--param")  # one value, written twice
    assert parse_param_axis("x=1,1.0,True", "--param")[1] == ("1", "1.0", "True")  # three


@pytest.mark.parametrize("text, said", [("cols", "is not NAME=VALUE"), ("=3", "not a Python "
                                        "identifier"), ("2x=3", "not a Python identifier")])
def test_a_malformed_param_names_the_flag(text, said):
    with pytest.raises(UsageError, match=f"--param .*{said}"):
        parse_param(text, "--param")


def test_the_command_line_reads_every_param_into_the_configuration():
    args = build_parser().parse_args(["run", "--param", "cols=0x100", "--param", "mode=fast"])
    assert run_config(args).params == {"cols": "256", "mode": "'fast'"}
    args = build_parser().parse_args(["sweep", "--param", "cols=256,1024", "--param", "x=a,b"])
    config = sweep_config(args)
    assert config.params == {"cols": ("256", "1024"), "x": ("'a'", "'b'")}
    assert config.base.params == {} and len(config.points()) == 4 * len(config.elements) * 3
    assert run_config(build_parser().parse_args(["run"])).params == {}


def test_a_param_named_twice_is_refused(capsys):
    assert main(["run", "--param", "cols=1", "--param", "cols=2"]) == 2
    assert "--param names cols twice" in capsys.readouterr().err


# --- the configuration ----------------------------------------------------------

def test_a_configuration_keeps_each_value_s_one_text():
    assert RunConfig(params={"cols": "0x100", "m": "'fast'"}).params == {"cols": "256",
                                                                       "m": "'fast'"}
    with pytest.raises(ConfigError, match="not a Python literal"):
        RunConfig(params={"m": "fast"})  # a bare word is the command line's; text is quoted here
    with pytest.raises(ConfigError, match="__import__"):
        RunConfig(params={"m": "__import__('os').getcwd()"})  # never evaluated
    with pytest.raises(ConfigError, match="must be a dict"):
        RunConfig(params=[("cols", "1")])


@pytest.mark.parametrize("name, flag", [("depth", "--depth"), ("stages", "--stages")])
def test_a_parameter_another_option_sets_is_refused_with_that_option(name, flag, capsys):
    with pytest.raises(ConfigError) as refused:
        RunConfig(params={name: "4"})
    assert f"is set by {flag}" in refused.value.message and f"give {flag} 4" in refused.value.remedy
    assert main(["sweep", "--param", f"{name}=1,4"]) == 2
    assert f"--param {name} is set by {flag}" in capsys.readouterr().err


def test_a_sweep_crosses_parameter_axes_inside_shapes_and_outside_depths():
    config = SweepConfig(elements=(4096, 8192), depths=(1,), grids=("auto", "1056"),
                         params={"cols": ("256", "1024"), "mode": ("'a'",)})
    points = [(p.grid, p.params["cols"], p.elements) for p in config.points()]
    assert points[:4] == [("auto", "256", 4096), ("auto", "256", 8192),
                          ("auto", "1024", 4096), ("auto", "1024", 8192)]
    assert len(points) == 8 and all(p.params["mode"] == "'a'" for p in config.points())
    assert SweepConfig().param_points == [{}]  # no axis: the points it always ran


@pytest.mark.parametrize("params, said", [
    ({"cols": ("256", "0x100")}, "names 256 twice"), ({"cols": ()}, "one value or more"),
    ({"depth": ("1",)}, "set by --depth"), ({"cols": ("None",)}, "cols is None"),
    ({f"p{i}": ("1",) for i in range(40)}, "more than 32")])
def test_bad_parameter_axes_are_refused(params, said):
    with pytest.raises(ConfigError, match=said):
        SweepConfig(params=params)


def test_an_axis_is_not_also_the_base_run_s_and_the_points_are_bounded():
    with pytest.raises(ConfigError, match="an axis and the base run's"):
        SweepConfig(params={"cols": ("1",)}, base=RunConfig(params={"cols": "2"}))
    with pytest.raises(ConfigError, match="and --param make 1,001 points"):
        SweepConfig(elements=(4096,), depths=(1,),
                    params={"a": tuple(map(str, range(7))), "b": tuple(map(str, range(143)))})


# --- pipeline(): its signature, checked before any GPU work -------------------

def test_the_values_reach_pipeline_as_python_values(scaled):
    params = RunConfig(params={"width": "8", "mode": "'slow'", "exact": "True",
                               "scale": "2", "shape": "(4, 8)", "loose": "'x'"}).params
    loaded = load_pipeline(scaled, params=params)
    assert loaded.spec.description == "slow width 8"
    assert plan(loaded.spec, 100).buffers["x"].size == 800
    assert load_pipeline(scaled).spec.description == "fast width 4"  # its defaults, apart


@pytest.mark.parametrize("params, said", [
    ({"widht": "8"}, "widht: scaled.py's pipeline() has no such parameter (did you mean width?)"),
    ({"width": "8.5"}, "defaults width to 4"), ({"width": "True"}, "defaults width to 4"),
    ({"exact": "'true'"}, "defaults exact to False"), ({"mode": "3"}, "defaults mode to 'fast'"),
    ({"shape": "4"}, "defaults shape to (1, 2)")])
def test_a_name_or_value_pipeline_does_not_take_is_refused(scaled, params, said):
    with pytest.raises(ConfigError) as refused:
        load_pipeline(scaled, params=params)
    assert said in refused.value.message
    assert refused.value.remedy  # what it takes, or the kind of value to give


def test_an_int_is_a_float_parameter_s_value_and_none_takes_any(scaled):
    assert load_pipeline(scaled, params={"scale": "3", "loose": "(1, 'a')"}).spec.name == "scaled"


def test_the_remedy_lists_the_parameters_it_takes(scaled):
    with pytest.raises(ConfigError) as refused:
        load_pipeline(scaled, params={"zzz": "1"})
    assert refused.value.remedy == "it takes width, mode, exact, scale, shape, loose"
    with pytest.raises(ConfigError) as refused:
        load_pipeline(None, params={"cols": "1"})  # the built-in takes only depth and stages
    assert "no parameters of its own" in refused.value.remedy


def test_the_session_loads_the_pipeline_with_the_run_s_parameters(scaled, monkeypatch):
    # the measuring process (and a fresh trace's or --processes child, which
    # rebuild the session from the config) gives pipeline() the run's parameters
    from graphbench.config import RunConfig
    from graphbench.measure import session as session_module

    seen = []
    monkeypatch.setattr(session_module, "load_pipeline",
                        lambda *a, **k: seen.append(load_pipeline(*a, **k).spec.description)
                        or (_ for _ in ()).throw(RuntimeError("no GPU work here")))
    config = RunConfig(pipeline=str(scaled), params={"width": "16"})
    with pytest.raises(RuntimeError, match="no GPU work"):
        session_module.Session(config, None)
    assert seen == ["fast width 16"]
    assert load_pipeline(scaled).spec.description == "fast width 4"


@pytest.mark.parametrize("argv, said", [
    (["run", "--pipeline", "softmax", "--param", "colz=256"], "(did you mean cols?); it takes cols"),
    (["run", "--pipeline", "softmax", "--param", "cols=true"], "defaults cols to 1024"),
    (["run", "--pipeline", "softmax", "--param", "cols=0"], "cols is 0"),
    (["run", "--pipeline", "softmax", "--param", "cols=4096", "--elements", "1024"],
     "is 0 at n = 1,024, not positive"),
    (["sweep", "--pipeline", "softmax", "--depth", "1", "--param", "cols=256,colz"],
     "defaults cols to 1024"),
    (["sweep", "--pipeline", "jacobi", "--param", "cols=256"], "no such parameter"),
    (["kernels", "--pipeline", "softmax", "--param", "col=2"], "did you mean cols?")])
def test_a_bad_param_is_one_line_before_any_gpu_work(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "driver" not in err
    assert "Traceback" not in err and short_error(err)


def test_good_params_pass_every_check_and_only_the_gpu_is_missing(capsys):
    """On this machine without a GPU: the run gets as far as the driver."""
    from conftest import gpu_unavailable_reason

    if not gpu_unavailable_reason():
        pytest.skip("a GPU is here: the run would run")
    assert main(["sweep", "--pipeline", "softmax", "--depth", "1", "--elements", "2^20",
                 "--param", "cols=256,4096", "--no-progress"]) == 2
    assert "driver" in capsys.readouterr().err


def test_softmax_row_width_compiles_for_sm_90_and_plans_its_rows():
    plans = preflight([RunConfig(pipeline="softmax", elements=2**20, params={"cols": cols})
                       for cols in ("256", "4096")], arch="sm_90")  # NVRTC, no GPU
    assert [p.stages[0].grid for p in plans] == [(4096,), (256,)]
    assert [p.description for p in plans] == [
        "row-wise softmax of (n // 256) x 256: max, exp-and-sum, normalise",
        "row-wise softmax of (n // 4096) x 4096: max, exp-and-sum, normalise"]


def test_softmax_reference_follows_its_row_width():
    import numpy as np

    x = np.random.default_rng(0).standard_normal(1024).astype(np.float32)
    y = load_pipeline("softmax", params={"cols": "256"}).spec.reference({"x": x}, 1024)["y"]
    assert np.allclose(y.reshape(4, 256).sum(axis=1), 1.0)


# --- the record, the report, the gate -------------------------------------------

def test_a_record_keeps_its_params_and_reads_back(tmp_path):
    record = make_record(params={"cols": "256", "mode": "'fast'"})
    path = write_record(tmp_path / "run.json", record)
    assert json.loads(path.read_text())["config"]["params"] == {"cols": "256", "mode": "'fast'"}
    assert read_run(path).config.params == {"cols": "256", "mode": "'fast'"}
    assert read_run(RECORDS / "baseline.json").config.params == {}  # written before params


def test_a_record_with_a_hostile_param_text_is_refused(tmp_path):
    document = json.loads(write_record(tmp_path / "run.json", make_record()).read_text())
    document["config"]["params"] = {"cols": "__import__('os')"}
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(graphbench.errors.RecordError, match="config: params cols"):
        read_record(tmp_path / "bad.json")


def test_the_report_header_names_the_params():
    text = to_text(run_report(make_record(params={"cols": "256", "mode": "'fast'"})))
    assert "parameters cols=256 mode=fast" in text
    assert "parameters" not in to_text(run_report(make_record()))


def test_records_of_other_params_are_incompatible_as_other_sizes_are():
    base = make_record(rounds=20, params={"cols": "256"})
    comparison = compare_records(base, make_record(rounds=20, seed=3, params={"cols": "1024"}))
    assert comparison.incompatible == ("params cols=256 vs cols=1024",)
    assert {v.verdict for v in comparison.verdicts} == {"incompatible"}
    unset = compare_records(base, make_record(rounds=20, seed=3))
    assert unset.incompatible == ("params cols=256 vs none",)


def param_point(config):
    """synthetic_point, its record keeping the point's params, as run_benchmark's does;
    wider rows: fewer launches' worth of cost per element."""
    record = synthetic_point(config)
    return dataclasses.replace(record, config=dataclasses.replace(record.config,
                                                                   params=config.params))


def test_a_sweep_over_a_parameter_labels_its_points_by_its_values(tmp_path):
    config = SweepConfig(elements=(4096, 65536), depths=(1, 4),
                         params={"cols": ("256", "1024"), "mode": ("'fast'",)})
    sweep = run_sweep(config, param_point)
    columns, rows = sweep_rows(sweep)
    assert columns[:3] == ["cols", "mode", "elements"]
    assert [row[:3] for row in rows] == [["256", "fast", "2^12"], ["256", "fast", "2^16"],
                                         ["1024", "fast", "2^12"], ["1024", "fast", "2^16"]]
    assert all("x" in cell for row in rows for cell in row[3:5])  # every point found
    assert crossover_rows(sweep)[0][:3] == ["cols", "mode", "depth"]
    labels = [s.label for s in sweep_panels(sweep)[0].series]
    assert labels == ["d1 cols=256 mode=fast", "d4 cols=256 mode=fast",
                      "d1 cols=1024 mode=fast", "d4 cols=1024 mode=fast"]
    text = to_text(sweep_report(sweep))
    assert "8 of 8 points" in text and "swept: cols = 256, 1024; mode = fast" in text
    assert "cols=256 mode=fast" in sweep_csv(sweep).splitlines()[1]
    again = read_record(write_record(tmp_path / "sweep.json", sweep))
    assert again.config.params == config.params and sweep_rows(again) == (columns, rows)


def test_a_sweep_without_parameters_reads_and_renders_as_before():
    sweep = read_record(RECORDS / "sweep.json")
    assert sweep.config.params == {} and all(not p.config.params for p in sweep.points)
    assert sweep_rows(sweep)[0][0] == "elements" and "swept" not in to_text(sweep_report(sweep))


# --- the API and project defaults -------------------------------------------------

@pytest.fixture
def no_gpu(monkeypatch):
    taken = []
    monkeypatch.setattr("graphbench.runner.measure",
                        lambda config, count, spec=None: taken.append(config) or make_record())
    return taken


def test_the_api_takes_params_as_python_values(no_gpu):
    graphbench.run("softmax", elements=2**20, params={"cols": 256})
    assert no_gpu[0].params == {"cols": "256"}


@pytest.mark.parametrize("params, said", [
    ({"colz": 256}, "params colz: softmax.py's pipeline() has no such parameter"),
    ({"cols": None}, "params cols is None"), ({"cols": [1]}, "params cols is a list"),
    ({"depth": 2}, "params depth is set by depth"), ("cols=256", "must be a dict")])
def test_the_api_refuses_bad_params_before_any_gpu_work(no_gpu, params, said):
    with pytest.raises(ConfigError) as refused:
        graphbench.run("softmax", elements=2**20, params=params)
    assert said in refused.value.message and refused.value.remedy and not no_gpu


def test_a_pipeline_object_takes_no_params(no_gpu):
    spec = load_pipeline("softmax").spec
    with pytest.raises(UsageError, match="depth, stages and params do not apply"):
        graphbench.run(spec, params={"cols": 256})


def test_a_project_s_param_list_is_one_param_each(tmp_path, monkeypatch):
    from graphbench.cli.project_defaults import with_project_defaults

    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.graphbench.run]
        param = ["cols=256", "mode=fast"]
    """))
    monkeypatch.chdir(tmp_path)
    argv = with_project_defaults(["run"], build_parser())
    assert argv == ["run", "--param", "cols=256", "--param", "mode=fast"]


def test_params_text_shows_words_bare_and_other_text_quoted():
    assert params_text({"a": "'fast'", "b": "'two words'", "c": "'True'", "d": "(1, 2)"}) == \
        "a=fast b='two words' c='True' d=(1, 2)"
