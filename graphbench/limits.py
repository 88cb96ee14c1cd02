"""The few numbers the configuration, the statistics and the report must
agree on: each is written here once, with why it is what it is."""

# No interval is stated from fewer rounds: at 10 rounds 12% of windows lay
# wholly inside one slow host phase on the H200, and no interval from their
# rounds could reach the process's median (benchmarks/calibration.py).
MIN_ROUNDS = 20
# Processes for a spread between them: two give a difference, not a spread.
MIN_PROCESSES = 3
# Independent rounds (rounds over the autocorrelation time) below which an
# interval is mostly the rounds' correlation, read too roughly to gate on.
MIN_EFFECTIVE_ROUNDS = 8
