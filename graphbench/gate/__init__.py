"""Judgement between records: the decision rule, stored, paired and series verdicts, the stop rule that samples until a verdict can be given."""
