"""The answer routes: each takes a parsed, cleared intent and returns the answer part of its route."""
