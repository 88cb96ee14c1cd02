"""A command's error is at most two lines of at most 200 characters; the
reasoning behind it is the error's `details`, printed under -v. The API's
errors are as short: str(exc) is the message, cut where it is long.

Covers graphbench/cli/messages.py.
Covers graphbench/errors.py."""

import pytest
from conftest import make_record
from hypothesis import HealthCheck, given, settings, strategies as st
from tests_helpers import short_error

import graphbench
from graphbench.stats.merge import merge_runs
from graphbench.cli import main
from graphbench.cli.messages import MORE, error_line, error_lines
from graphbench.errors import LINE_LIMIT, ConfigError, RecordError, UsageError, shortened
from graphbench.record.codec import write_record

WALLS = {"individual": 14.0, "graph": 4.3, "fused": 4.6}
WALL_GATE = ["--fail-on", "individual.wall:10%", "--fail-on", "graph.wall:10%",
             "--fail-on", "fused.wall:10%"]


def processes(count, seed, noise, **config):
    return merge_runs([make_record(WALLS, rounds=20, seed=seed + i, noise=noise, **config)
                       for i in range(count)])


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """Record files of pairs the gate cannot judge: every wall too noisy
    (3 processes a side, 30% noise: "not even 64 processes ..."), a
    1-process baseline, and records of another configuration in every way."""
    folder = tmp_path_factory.mktemp("pairs")
    records = {"noisy_base": processes(3, 10, 0.3), "noisy_cur": processes(3, 40, 0.3),
               "one_base": processes(1, 10, 0.005), "cur": processes(3, 40, 0.005),
               "other": processes(3, 40, 0.005, elements=65536, depth=4, stages=("add", "mul"),
                                  flush_l2=True)}
    for name, record in records.items():
        write_record(folder / f"{name}.json", record)
    return {name: str(folder / f"{name}.json") for name in records}


def compare(capsys, *argv):
    code = main(["compare", *argv])
    return code, capsys.readouterr()


# --- the compare cases that printed 700-1,700 characters on one line -----------------------

def test_a_gate_of_noisy_walls_says_which_and_why_in_two_short_lines(pairs, capsys):
    code, out = compare(capsys, pairs["noisy_base"], pairs["noisy_cur"], *WALL_GATE)
    assert code == 2 and "PASS" not in out.out
    err = short_error(out.err)
    assert "(individual.wall, graph.wall, fused.wall: too noisy at 10%) (-v for details)" in err
    assert "run more --processes on each side" in err and "it detects" not in err


def test_under_v_each_metric_s_whole_note_follows(pairs, capsys):
    code, out = compare(capsys, pairs["noisy_base"], pairs["noisy_cur"], *WALL_GATE, "-v")
    lines = out.err.splitlines()
    assert code == 2 and lines[0].startswith("graphbench: error: the gate judged nothing")
    assert "(-v for details)" not in out.err
    notes = [line for line in lines[1:] if line.startswith("  ")]
    assert [n.split(":")[0].strip() for n in notes] == ["individual.wall", "graph.wall",
                                                        "fused.wall"]
    assert all("not gateable on this pair: it detects" in n and "processes" in n for n in notes)


def test_a_one_process_baseline_names_the_reason_and_the_remedy(pairs, capsys):
    code, out = compare(capsys, pairs["one_base"], pairs["cur"])
    err = short_error(out.err)
    assert code == 2 and "too few baseline processes" in err
    assert "--processes 3 or more" in err


def test_records_unlike_in_every_way_are_cut_at_a_clause_and_listed_under_v(pairs, capsys):
    code, out = compare(capsys, pairs["cur"], pairs["other"])
    err = short_error(out.err)
    assert code == 2 and err.startswith("graphbench: error: records are not comparable: ")
    code, out = compare(capsys, pairs["cur"], pairs["other"], "--verbose")
    assert code == 2 and "flush_l2" in out.err.replace("-", "_") and "depth" in out.err


def test_the_api_raises_the_same_short_message_with_the_notes_in_details(pairs):
    with pytest.raises(RecordError) as caught:
        graphbench.compare(pairs["noisy_base"], pairs["noisy_cur"],
                           ["individual.wall:10%", "graph.wall:10%", "fused.wall:10%"])
    error = caught.value
    assert len(str(error)) <= LINE_LIMIT and "\n" not in str(error)
    assert str(error).endswith("too noisy at 10%)")
    assert len(error.details.splitlines()) == 3 and "it detects" in error.details
    assert "processes" in error.remedy and "--processes" not in error.remedy  # the API's words


# --- the cap holds for any error -----------------------------------------------------

WORDS = st.lists(st.text(st.characters(codec="ascii", categories=("L", "N", "P")), min_size=1,
                         max_size=90), min_size=1, max_size=60)


@pytest.mark.slow
@given(WORDS, st.sampled_from(["; ", ": ", ", ", " ", ". "]), st.integers(20, 300))
def test_shortened_fits_and_shows_only_pieces_of_the_text(words, joint, limit):
    text = joint.join(words)
    short = shortened(text, limit, MORE)
    assert len(short) <= max(limit, len(MORE) + 4)
    if len(text) <= limit:
        assert short == text
    else:
        assert short.endswith(MORE)
        pieces = short.removesuffix(MORE).removesuffix(" ...").split("...")
        assert all(piece in text for piece in pieces)


def test_a_long_path_keeps_its_file_name_and_what_follows_it():
    path = "/home/someone/" + "deep/" * 30 + "pipeline.py"
    short = shortened(f"{path}: stage 2 (vec_mul): kernel vec_mul is not defined", 120, MORE)
    assert short.endswith("/pipeline.py: stage 2 (vec_mul): kernel vec_mul is not defined" + MORE)
    assert short.startswith("/home/someon...")


@pytest.mark.slow
@given(st.text(max_size=3000), st.text(max_size=1000), st.text(max_size=2000))
def test_any_error_prints_at_most_two_short_lines_and_everything_under_v(message, remedy,
                                                                         details):
    error = UsageError(message, remedy, details)
    lines = error_lines(error)
    assert 1 <= len(lines) <= 2 and all(len(line) <= LINE_LIMIT for line in lines)
    assert all("\n" not in line for line in lines)
    assert len(error_line(error)) <= LINE_LIMIT
    assert len(str(error)) <= LINE_LIMIT
    if message.isprintable() and remedy.isprintable():
        assert f"{message}; {remedy}" in error_lines(error, verbose=True)[0] or not remedy


def test_a_long_message_is_kept_whole_in_details():
    message = "first clause; " + "x" * 300
    error = RecordError(message, "do this", "why")
    assert error.details == f"{message}\nwhy"
    assert str(error).startswith("first clause; xxx") and len(str(error)) <= LINE_LIMIT
    assert str(error).endswith(" (the rest in .details)")


def test_a_configuration_field_is_named_by_its_flag_in_either_form():
    error = ConfigError("elements", "is wrong; " * 40, "give fewer")
    assert error_lines(error)[0].startswith("graphbench: error: --elements is wrong")
    assert error_lines(error, verbose=True)[0].startswith("graphbench: error: --elements is wrong")


OPTIONS = {"compare": ["--fail-on", "--json", "--csv", "--markdown", "--history", "--bogus"],
           "report": ["--plot", "--json", "--csv", "--markdown", "--timeline", "--bogus"],
           "run": ["--elements", "--modes", "--grid", "--block", "--param", "--fail-on",
                   "--baseline", "--pipeline", "--stages", "--rtol", "--gate-sizes"],
           "sweep": ["--elements", "--depth", "--grid", "--block", "--param", "--threshold"],
           "kernels": ["--arch", "--kernel-source", "--pipeline", "--param"],
           "history": ["list --since", "list --limit", "export", "list --bogus"]}
# values near a valid one, where the messages are longest: a metric or mode that
# is not there lists those that are; a size no launch takes names both limits
NEAR = ["bogus.wall:10%", "graph.wall:10", "individual,warp", "per-element", "1", "2^32",
        "x=None", "2^12..2^40", "sm_9x", "2^34", "1024", "graph.wall:0.5us,speedup:1", "none"]
VALUES = st.one_of(st.sampled_from(NEAR), st.text(max_size=1200),
                   st.lists(st.sampled_from(["2^40", "x", ";", "a b", "..", ":x4", "/nowhere/",
                                             "graph.wall", "%", "0", "-1", "1e400"]),
                            max_size=300).map("".join))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(OPTIONS)), st.data())
def test_every_refusal_on_the_command_line_is_at_most_two_short_lines(
        tmp_path, monkeypatch, capsys, command, data):
    """Bad values of every kind (long ones, lists of odd words, paths that
    are not there, values next to a valid one) for the commands that print
    long errors, up to three options at once."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHBENCH_HISTORY", str(tmp_path / "history.db"))
    argv = [command] + ([] if command in ("run", "sweep", "kernels", "history") else
                        [data.draw(VALUES).replace("\x00", "") or "none"])
    for _ in range(data.draw(st.integers(1, 3))):
        argv += [*data.draw(st.sampled_from(OPTIONS[command])).split(),
                 data.draw(VALUES).replace("\x00", "")]
    capsys.readouterr()
    if main(argv) == 0:
        return
    assert short_error(capsys.readouterr().err)


@pytest.mark.parametrize("argv", [["compare", "a.json", "-v"], ["run", "-v"], ["sweep", "-v"],
                                  ["report", "a.json", "--verbose"], ["kernels", "-v"],
                                  ["history", "list", "-v"], ["history", "export", "last", "-v"],
                                  ["history", "import", "a.json", "-v"]])
def test_every_command_takes_v(argv):
    from graphbench.cli.parser import build_parser

    assert build_parser().parse_args(argv).verbose is True


def test_v_is_honoured_where_parsing_itself_refused(capsys):
    long = "x" * 900
    assert main(["compare", "a.json", "--fail-on", f"{long}:5%"]) == 2
    short = capsys.readouterr().err
    assert main(["compare", "a.json", "-v", "--fail-on", f"{long}:5%"]) == 2
    full = capsys.readouterr().err
    assert short_error(short) and long not in short and long in full


def test_an_exception_is_said_in_its_first_line_or_by_its_type():
    from graphbench.errors import first_line

    assert first_line(ValueError("  bad shape\n  traceback text ")) == "bad shape"
    assert first_line(ValueError("bad shape\nmore"), named=True) == "ValueError: bad shape"
    assert first_line(KeyError()) == first_line(KeyError(), named=True) == "KeyError"
