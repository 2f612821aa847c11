"""Helpers shared by the core's tests (no test module imports another)."""
