"""Text primitives every stage reads with: normalisation, the period grammar, alias matching and figures in prose."""
