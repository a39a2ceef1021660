"""The storage seam holds: every query runs in ``kenning.store``, behind ``Store``, whose contract
names no backend's types; the SQLite store implements all of it."""

from __future__ import annotations

import ast
import inspect
import re
import typing
from pathlib import Path

import kenning
from kenning.store import ItemQuery, contract, open_store
from kenning.store.sqlite import SQLiteStore

SOURCE = Path(kenning.__file__).parent
STORE = SOURCE / "store"
QUERY_CALLS = {"execute", "executemany", "executescript"}
# modules outside the store that may name sqlite3, and why (catching its errors, say): none today
SQLITE_ALLOWED: dict[str, str] = {}
OLD_SELECT_KEYWORDS = {"where", "params", "order", "limit", "columns"}  # select's arguments before ItemQuery
# what a piece of SQL looks like in a string: a condition, a subquery, a placeholder
SQL_SHAPES = re.compile(r"\bIS (NOT )?NULL\b|json_each|\binstr\(|\bSELECT\b.*\bFROM\b|\bWHERE\b|\bORDER BY\b|[=<>] \?",
                        re.S)


def _modules_outside_the_store() -> list[Path]:
    return sorted(p for p in SOURCE.rglob("*.py") if STORE not in p.parents)


def _sqlite_uses(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "sqlite3" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id == "sqlite3":
            lines.append(node.lineno)
    return lines


def test_no_module_outside_the_store_runs_a_query() -> None:
    found = []
    for path in _modules_outside_the_store():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in QUERY_CALLS:
                found.append(f"{path.relative_to(SOURCE)}:{node.lineno}")
    assert found == [], "move these queries behind kenning.store.contract.Store"


def test_items_are_selected_by_a_typed_query_never_by_sql_text() -> None:
    hints = typing.get_type_hints(contract.Store.select)
    (first, *rest) = list(inspect.signature(contract.Store.select).parameters)[1:]
    assert hints[first] is ItemQuery and rest == []
    found = []
    for path in _modules_outside_the_store():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "select":
                texts = [a for a in node.args if isinstance(a, ast.JoinedStr | ast.BinOp)
                         or (isinstance(a, ast.Constant) and isinstance(a.value, str))]
                if texts or {k.arg for k in node.keywords} & OLD_SELECT_KEYWORDS:
                    found.append(f"{path.relative_to(SOURCE)}:{node.lineno}")
    assert found == [], "pass Store.select an ItemQuery (kenning.store.query), not SQL text or keywords"


def test_no_module_outside_the_store_holds_sql_text() -> None:
    found = []
    for path in _modules_outside_the_store():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_SHAPES.search(node.value):
                found.append(f"{path.relative_to(SOURCE)}:{node.lineno}: {node.value[:60]!r}")
    assert found == [], "SQL belongs in kenning.store; give the store a typed request instead"


def test_no_module_outside_the_store_names_sqlite3() -> None:
    found = []
    for path in _modules_outside_the_store():
        name = str(path.relative_to(SOURCE))
        lines = _sqlite_uses(ast.parse(path.read_text(encoding="utf-8")))
        if lines and name not in SQLITE_ALLOWED:
            found.append(f"{name}:{lines}")
    assert found == [], "only kenning.store may depend on SQLite"
    assert len(_modules_outside_the_store()) > 50  # the walk did see the package


def test_the_contract_names_no_backend_type() -> None:
    tree = ast.parse(Path(contract.__file__).read_text(encoding="utf-8"))
    assert _sqlite_uses(tree) == []
    assert "Connection" not in Path(contract.__file__).read_text(encoding="utf-8")


def test_the_sqlite_store_implements_the_whole_contract(tmp_path: Path) -> None:
    members = dict(inspect.getmembers(contract.Store))
    methods = {n for n, m in members.items() if inspect.isfunction(m) and not n.startswith("_")}
    properties = {n for n, m in members.items() if isinstance(m, property)}
    assert {"transaction", "insert_item", "add_skill_version", "passage_vectors", "append_audit"} <= methods
    assert properties == {"redactor", "schema_version"}
    for name in methods:
        implemented = getattr(SQLiteStore, name, None)
        assert inspect.isfunction(implemented), name
        declared = list(inspect.signature(members[name]).parameters)
        assert declared == list(inspect.signature(implemented).parameters), name
    store = open_store(tmp_path / "seam.db", "test-embedder", 4)
    try:
        assert all(hasattr(store, name) for name in properties)
    finally:
        store.close()
