"""Every write goes through a service (STYLE.md, "Admin is declarative"): no module that serves a
request saves, deletes, creates or updates rows itself.

The modules read are each of the project's apps' `api.py`, `views.py` (`page/views.py` too),
`admin.py` and `*admin*.py`, any module inside an `api`, `views` or `admin` package, and, so
that a module named otherwise is not missed, every project module that defines a view a URL
resolves to or a `ModelAdmin` (or one of its inlines) the admin site registers. Each is read
with `ast`; nothing in it runs.

A write is a call of
- `.save(`, `.delete(`, `.create(`, `.get_or_create(`, `.update_or_create(`, `.bulk_create(`
  or `.bulk_update(`, on any receiver: a model, a manager, a queryset, a serializer or a form
  each writes rows with these (a serializer's `.save()` in an API counts);
- `.update(` on a queryset. Without types, a queryset is told from a dict, a `Counter` or a
  set by how it was reached: the receiver's chain passes through a manager (`.objects`), a
  queryset method (`filter`, `exclude`, `all`, ... `QUERYSET_METHODS`), `get_queryset()` or a
  selector (`*_list(...)`, which returns a QuerySet by the house style); or it is a name bound,
  in the same function or an enclosing one or the module, to such a chain, or annotated
  `QuerySet`. A dict, `Counter` or set is reached none of these ways (`counts[key].update(...)`,
  `context.update(...)`), so none is flagged. What this misses is an update through an
  attribute that holds a related manager (`turn.conversation.turns.update(...)` without a
  queryset method), and a related manager's `add`/`remove`/`set`/`clear`, whose names sets
  share: review catches those.

`EXEMPT` names the receivers that are not our models, each with its reason.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WRITES = frozenset({"save", "delete", "create", "get_or_create", "update_or_create", "bulk_create", "bulk_update"})
QUERYSET_METHODS = frozenset(
    {
        "all",
        "alias",
        "annotate",
        "defer",
        "difference",
        "distinct",
        "exclude",
        "extra",
        "filter",
        "get_queryset",
        "intersection",
        "none",
        "only",
        "order_by",
        "prefetch_related",
        "reverse",
        "select_for_update",
        "select_related",
        "union",
        "using",
        "values",
        "values_list",
    }
)
# The last attribute of a receiver that is no model of ours: `request.session.save()` stores
# Django's session (its middleware would save it at the end of the response anyway).
EXEMPT = frozenset({"session"})
REQUEST_MODULE_NAMES = ("api.py", "views.py")
REQUEST_PACKAGES = ("api", "views", "admin")


def _project_file(obj: object) -> Path | None:
    try:
        name = inspect.getsourcefile(obj)  # type: ignore[arg-type]
    except TypeError:
        return None
    if name is None:
        return None
    path = Path(name).resolve()
    inside = path.is_relative_to(ROOT) and not path.is_relative_to(ROOT / ".venv")
    return path if inside and "tests" not in path.relative_to(ROOT).parts else None


def _classes_of(view: object) -> Iterator[type]:
    """The classes a URL's view or a registered admin is built from (its MRO), or its function."""
    view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if isinstance(view, type):
        view_class = view
    if view_class is not None:
        yield from view_class.__mro__
    else:
        yield inspect.unwrap(view)  # type: ignore[arg-type,misc]


def _url_views(patterns: list[object]) -> Iterator[object]:
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from _url_views(pattern.url_patterns)
        elif getattr(pattern, "callback", None) is not None:
            yield pattern.callback


@cache
def request_modules() -> tuple[Path, ...]:
    """Every project module that serves a request, by its name or by what it defines."""
    from django.apps import apps
    from django.contrib import admin
    from django.urls import get_resolver

    found: set[Path] = set()
    for config in apps.get_app_configs():
        app = Path(config.path).resolve()
        if not app.is_relative_to(ROOT) or app.is_relative_to(ROOT / ".venv"):
            continue
        for path in app.rglob("*.py"):
            parts = path.relative_to(app).parts
            if "migrations" in parts or "tests" in parts:
                continue
            named = path.name in REQUEST_MODULE_NAMES or "admin" in path.stem
            if named or any(part in REQUEST_PACKAGES for part in parts[:-1]):
                found.add(path)
    # `admin.site` is lazy: its `__class__` is the site's own class (`RagspineAdminSite`).
    endpoints: list[object] = [*_url_views(get_resolver().url_patterns), admin.site.__class__]
    for model_admin in admin.site._registry.values():
        endpoints.append(type(model_admin))
        endpoints.extend(getattr(model_admin, "inlines", []))
    for endpoint in endpoints:
        for part in _classes_of(endpoint):
            path = _project_file(part)
            if path is not None:
                found.add(path)
    return tuple(sorted(found))


def _receiver_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _reaches_queryset(node: ast.expr, querysets: set[str]) -> bool:
    """Whether the expression is reached through a manager, a queryset method or a selector, or
    starts at a name known to hold a queryset."""
    while True:
        if isinstance(node, ast.Call):
            called = _receiver_name(node.func)
            if called in QUERYSET_METHODS or called.endswith("_list"):
                return True
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr == "objects":
                return True
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id in querysets
        else:
            return False


def _annotated_queryset(annotation: ast.expr | None) -> bool:
    return annotation is not None and "QuerySet" in ast.unparse(annotation)


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope` outside the functions nested in it (each binds names of its own)."""
    for child in ast.iter_child_nodes(scope):
        if not isinstance(child, SCOPES):
            yield child
            yield from _own_nodes(child)


def _querysets_bound(scope: ast.AST, outer: set[str]) -> set[str]:
    """The names `scope` binds to a queryset (its arguments annotated `QuerySet`, its
    assignments from a queryset chain), added to those of the enclosing scopes."""
    names = set(outer)
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        names |= {a.arg for a in every if _annotated_queryset(a.annotation)}
    while True:
        before = len(names)
        for node in _own_nodes(scope):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if _annotated_queryset(node.annotation) or (
                    node.value is not None and _reaches_queryset(node.value, names)
                ):
                    names.add(node.target.id)
            elif isinstance(node, ast.Assign) and _reaches_queryset(node.value, names):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if len(names) == before:
            return names


def writes_in(source: str) -> list[tuple[int, str]]:
    """Each write call in `source`, as (line, the call as written)."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []

    def visit(scope: ast.AST, outer: set[str]) -> None:
        querysets = _querysets_bound(scope, outer)
        for node in ast.iter_child_nodes(scope):
            _visit_node(node, querysets)

    def _visit_node(node: ast.AST, querysets: set[str]) -> None:
        if isinstance(node, SCOPES):
            visit(node, querysets)
            return
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, node.func.value
            exempt = _receiver_name(receiver) in EXEMPT
            queryset_update = method == "update" and _reaches_queryset(receiver, querysets)
            if (method in WRITES or queryset_update) and not exempt:
                found.append((node.lineno, f"{ast.unparse(node.func)}(...)"))
        for child in ast.iter_child_nodes(node):
            _visit_node(child, querysets)

    visit(tree, set())
    return sorted(found)


def test_the_modules_that_serve_requests_are_all_read() -> None:
    """The walk finds each kind of module: named ones, a page's views, an admin module named
    otherwise, and an API module found through the URLs."""
    read = {str(p.relative_to(ROOT)) for p in request_modules()}
    expected = {
        "agent/admin.py",
        "agent/api.py",
        "agent/page/views.py",
        "documents/admin.py",
        "documents/company_admin.py",
        "facts/api.py",
        "facts/glossary_admin.py",
        "faq/api.py",
        "protocols/chat.py",
        "protocols/mcp_http.py",
        "ragspine_site/admin_site.py",
        "retrieval/api.py",
    }
    assert expected <= read, sorted(expected - read)


@pytest.mark.parametrize(
    ("source", "writes"),
    [
        ("serializer.save()", ["serializer.save(...)"]),
        ("get_object_or_404(Alias, pk=pk).delete()", ["get_object_or_404(Alias, pk=pk).delete(...)"]),
        ("Gap.objects.get_or_create(term=t)", ["Gap.objects.get_or_create(...)"]),
        ("Log.objects.filter(pk=1).update(vote=1)", ["Log.objects.filter(pk=1).update(...)"]),
        ("def f(self, request):\n    logs = self.get_queryset(request)\n    logs.update(vote=1)", ["logs.update(...)"]),
        ("def f(logs: QuerySet[Log]):\n    logs.update(vote=1)", ["logs.update(...)"]),
        ("faq_item_list(cleared=True).update(enabled=False)", ["faq_item_list(cleared=True).update(...)"]),
        ("counts[route].update(terms)", []),
        ("context = {}\ncontext.update(extra)", []),
        ("seen = set()\nseen.update(codes)", []),
        ("def f():\n    logs = Log.objects.all()\ndef g(logs):\n    logs.update(extra)", []),
        ("request.session.save()", []),
        ("super().save_model(request, obj, form, change)", []),
    ],
)
def test_a_write_is_told_from_what_is_not(source: str, writes: list[str]) -> None:
    assert [call for _, call in writes_in(source)] == writes


@pytest.mark.parametrize("path", request_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_that_serves_requests_writes_outside_a_service(path: Path) -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {call}" for line, call in writes_in(path.read_text(encoding="utf-8"))]
    assert not found, "write through a service (services.py) instead:\n" + "\n".join(found)
