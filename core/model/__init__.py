"""The value types every stage passes on (periods, facts, questions parsed, computed values,
results) and the privacy-aware trace of a run."""
