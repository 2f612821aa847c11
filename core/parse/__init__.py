"""Reading a question into a `ParsedIntent` without a model.

Holds the slot parser, the operator words, what a follow-up inherits and the model-assisted fallback.
"""
