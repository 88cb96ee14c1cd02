"""Pure analysis of measured samples: statistics, stopping rules, derived
figures, warnings, the regression gate and merging. No GPU, no I/O."""
