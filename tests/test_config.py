"""Covers graphbench/config/fields.py.
Covers graphbench/config/run.py.
Covers graphbench/config/sweep.py."""

import pytest

from graphbench.config.values import parse_list, parse_positive_int
from graphbench.config import RunConfig
from graphbench.errors import ConfigError, UsageError


@pytest.mark.parametrize("text, value", [("4096", 4096), ("2^20", 1 << 20), ("1e6", 1_000_000),
                                         (" 7 ", 7)])
def test_counts_accept_the_forms_users_type(text, value):
    assert parse_positive_int(text, "--elements") == value


@pytest.mark.parametrize("text", ["0", "-5", "abc", "1.5", "1e-3", "", "nan", "1e999"])
def test_counts_reject_non_positive_or_non_integers(text):
    with pytest.raises(UsageError, match="--elements must be a positive integer"):
        parse_positive_int(text, "--elements")


def test_config_rejects_unknown_modes_and_lists_the_known_ones():
    with pytest.raises(ConfigError) as info:
        RunConfig(modes=("individual", "warp"))
    assert info.value.field == "modes"
    assert "warp" in info.value.message
    assert "individual, driver, pdl, graph, graph-pdl, unrolled, loop, fused, torch-compile, or all" in info.value.remedy


def test_graph_needs_individual_for_the_speedup():
    with pytest.raises(UsageError):
        RunConfig(modes=("graph",))
    assert RunConfig(modes=("individual", "graph")).modes == ("individual", "graph")


def test_config_rejects_negative_device_and_zero_rounds():
    with pytest.raises(ConfigError, match="device must be 0 or more"):
        RunConfig(device=-1)
    with pytest.raises(ConfigError, match="rounds must be a positive integer"):
        RunConfig(rounds=0)


def test_library_errors_name_fields_and_the_cli_names_flags(capsys):
    from graphbench.cli import main

    with pytest.raises(ConfigError) as info:
        RunConfig(min_rounds=0)
    assert info.value.field == "min_rounds" and "--" not in info.value.message
    assert main(["run", "--min-rounds", "0"]) == 2  # the parser says it first
    assert "--min-rounds must be a positive integer" in capsys.readouterr().err
    assert main(["run", "--min-rounds", "1"]) == 2  # one round once stopped with noise 0
    assert "--min-rounds must be at least 10" in capsys.readouterr().err
    assert main(["run", "--modes", "graph"]) == 2
    assert "--modes with graph also needs individual" in capsys.readouterr().err


def test_parse_list_splits_and_trims():
    assert parse_list("individual, graph,") == ("individual", "graph")


@pytest.mark.parametrize("argv, message", [
    (["run", "--elements", "9^999999999"], "--elements 9^999999999 is far too large"),
    (["sweep", "--elements", "1..2^1000000"], "is far too large"),
    (["run", "--elements", "2^99"], "is far too large"),
    (["run", "--elements", "2^-1"], "must be a positive integer, got '2^-1'"),
    (["run", "--elements=-2^2"], "must be a positive integer, got '-2^2'"),
    (["run", "--elements", "2^40"], "no GPU holds that many elements"),
    (["run", "--iters", "10^23"], "is far too large"),
    (["run", "--depth", "2^40"], "--depth is 1,099,511,627,776, more than 1,024"),
    (["sweep", "--elements", ",".join(str(n) for n in range(1, 1002))], "more than 1000 values"),
    (["sweep", "--elements", ",".join(str(n) for n in range(1, 101)), "--depth", "1..2^5:x2,3,5,7,9,11,13"],
     "make 1,200 points, more than 1,000"),
    (["run", "--device", ""], "--device needs a device id"),
])
def test_sizes_and_counts_are_bounded_before_anything_runs(capsys, argv, message):
    import time

    from graphbench.cli import main

    started = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert time.perf_counter() - started < 2  # refused, not computed


def test_seed_and_warmup_take_the_forms_counts_take():
    from graphbench.cli.commands import run_config
    from graphbench.cli.parser import build_parser

    args = build_parser().parse_args(["run", "--seed", "2^10", "--warmup", "0"])
    config = run_config(args)
    assert config.seed == 1024 and config.warmup_rounds == 0


# --- loose parsing: one rule for digits, a sane --processes, no contradictions ---

@pytest.mark.parametrize("text", ["１e６", "١e٣", "٤٠٩٦", "４０９６", "1e٣", "²"])
def test_counts_take_ascii_digits_only(text):
    from graphbench.counts import parse_count
    from graphbench.errors import UsageError

    with pytest.raises(UsageError):
        parse_count(text, "--elements")


@pytest.mark.parametrize("argv, message", [
    (["--rounds", "5", "--max-noise", "0.5%"], "--max-noise (which steers adaptive sampling)"),
    (["--rounds", "3", "--min-rounds", "50"], "--min-rounds"),
    (["--max-time", "3", "--rounds", "3"], "--max-time"),
    (["--processes", "1001"], "more than 1000 processes"),
    (["--device", "٠"], "--device must be an id"),
    (["--max-noise", "０.５%"], "in ASCII digits"),
])
def test_contradictions_and_loose_values_are_refused(argv, message, capsys):
    from graphbench.cli import main

    assert main(["run", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_rounds_alone_and_noise_alone_are_fine(capsys):
    from graphbench.cli import main

    for argv in (["--rounds", "5"], ["--max-noise", "0.5%", "--min-rounds", "50"]):
        assert main(["run", "--no-progress", *argv]) == 2
        assert "no NVIDIA driver" in capsys.readouterr().err  # got past every check


@pytest.mark.parametrize("threshold", [float("inf"), float("nan"), 0.0, -1.0])
def test_a_sweep_threshold_is_a_finite_positive_number(threshold):
    from graphbench.config import SweepConfig

    with pytest.raises(ConfigError, match="threshold"):
        SweepConfig((4096,), (1,), threshold=threshold)
