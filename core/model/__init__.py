"""The value types every stage passes on (questions parsed, facts, results) and the privacy-aware trace of a run."""
