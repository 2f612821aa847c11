"""The checks a question passes before and while it is answered.

The security gate (competitor names, in every evasion view), the screen of retrieved text, the
clarification step (answer, answer with assumptions, or ask back) and the FAQ short-circuit.
"""
