"""Plumbing every app shares: who may see what (`access`), request ids and the error envelope
(`middleware`), and the building blocks of the DRF API (`api`).

It imports Django and the core, never one of the project's apps, so any app may import it.
"""
