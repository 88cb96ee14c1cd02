import pytest

from graphbench.cli.values import parse_list, parse_positive_int
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
    assert "warp" in info.value.message and "individual, graph, fused" in info.value.remedy


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
    assert main(["run", "--modes", "graph"]) == 2
    assert "--modes with graph also needs individual" in capsys.readouterr().err


def test_parse_list_splits_and_trims():
    assert parse_list("individual, graph,") == ("individual", "graph")
