"""The ACME demo: its data (`manifest.json`, `glossary.csv`, `facts.csv`, `faq.csv`, `docs/`),
the office files built from it (`demo.files`) and `manage.py load_demo`, which loads it all
through the same services a curator's uploads and imports use."""
