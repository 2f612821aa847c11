# RAGSpine: `make run` serves the app on SQLite with the demo data; `make test` passes the suite.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: messages run test test-sqlite test-postgres lint-imports bench bench-quick reliability reliability-sqlite venv venv-dev clean

$(VENV)/.base: requirements.txt
	@PYTHON=$$(scripts/find-python) || exit 1; \
	  [ -x $(PY) ] || $$PYTHON -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	@touch $@

$(VENV)/.dev: $(VENV)/.base requirements-dev.txt
	$(PY) -m pip install -q -r requirements-dev.txt
	@touch $@

venv: $(VENV)/.base messages
venv-dev: $(VENV)/.dev messages

# The UI's message catalogues (locale/*/LC_MESSAGES/django.po) compiled to .mo (GNU gettext's msgfmt;
# scripts/system-deps installs it when root).
messages: $(VENV)/.base
	@command -v msgfmt >/dev/null || scripts/system-deps
	$(PY) manage.py compilemessages -v0 --ignore=.venv

run: venv
	@mkdir -p var
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py load_demo
	@# The background worker (uploads, embedding) runs beside the server and stops with it.
	@$(PY) manage.py ingest_worker -v0 & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT; \
	  $(PY) manage.py runserver $(HOST):$(PORT)

test: venv-dev
	scripts/system-deps
	$(MAKE) --no-print-directory messages
	$(MAKE) --no-print-directory lint-imports test-sqlite test-postgres

test-sqlite:
	RAGSPINE_REQUIRE_BROWSER=$$( [ "$$(id -u)" = 0 ] && echo 1 || echo 0 ) $(PY) -m pytest -q -p no:cacheprovider

test-postgres:
	RAGSPINE_TEST_DB=postgres $(PY) -m pytest -q -p no:cacheprovider -m "django_db and not browser"

lint-imports:
	$(VENV)/bin/lint-imports

bench: venv-dev
	$(PY) manage.py bench --all

bench-quick: venv-dev
	$(PY) manage.py bench --all --quick

# Load and fault drill against gunicorn + PostgreSQL on 127.0.0.1 (a few minutes; see RELIABILITY.md).
reliability: venv-dev
	$(PY) scripts/reliability.py

reliability-sqlite: venv-dev
	$(PY) scripts/reliability.py --database sqlite

clean:
	rm -rf $(VENV) var/*.sqlite3*
