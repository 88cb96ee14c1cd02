"""The few numbers the configuration, the statistics and the report must
agree on: each is written here once, with why it is what it is."""

# No interval is stated from fewer rounds: at 10 rounds a window can lie
# wholly inside one slow host phase, and no interval from its rounds can
# reach the process's median (tests/calibration.py; docs/measurement.md#rounds).
MIN_ROUNDS = 20
# Processes for a spread between them: two give a difference, not a spread.
MIN_PROCESSES = 3
# Independent rounds (rounds over the autocorrelation time) below which an
# interval is mostly the rounds' correlation, read too roughly to gate on.
MIN_EFFECTIVE_ROUNDS = 8
# The fewest earlier records compare last judges one record against. In
# simulation (tests/test_history_series.py, 150 series of one-process records
# 0.2% apart: one GPU's spread between processes), with 5 every series was
# gateable at 5% and a current 5% slower was caught in every one; with 4,
# 1.3% were not gateable and 98.7% caught; with 3, 14% and 86%. No A/A
# current was judged slower with any. Records 0.5% apart need more than 8
# (57% caught with 8, the rest not gateable: one record's own scatter).
MIN_SERIES = 5
