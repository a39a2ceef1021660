"""Text-level JSON edits: only the edited span changes, and undoing an insertion gives back the original bytes."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from kenning.integrations import jsonedit
from kenning.integrations.jsonedit import append_item, delete_key, remove_item, replace_item, set_value

KENNING = {"command": "kenning", "args": ["mcp"]}


def only_inserted(old: str, new: str) -> bool:
    """``new`` is ``old`` with one stretch of text put in somewhere."""
    start, end = _gap(old, new)
    return start == end


def _gap(old: str, new: str) -> tuple[int, int]:
    """The stretch of ``old`` that differs from ``new`` once their common start and end are taken off."""
    p = _common(old, new)
    s = min(_common(old[::-1], new[::-1]), min(len(old), len(new)) - p)
    return p, len(old) - s


def _common(a: str, b: str) -> int:
    """Length of the common start, by halving: a character loop is slow on megabytes."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if a[:mid] == b[:mid] else (lo, mid - 1)
    return lo


# -- the layouts users have ------------------------------------------------------------------------

LAYOUTS = {
    "two_spaces": '{\n  "mcpServers": {\n    "other": {"command": "x", "args": ["a", "b"]}\n  },\n  "n": 1\n}\n',
    "four_spaces": '{\n    "a": [\n        1,\n        2\n    ],\n    "b": {\n        "c": true\n    }\n}\n',
    "tabs": '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{"type": "command"}\n\t\t]\n\t}\n}',
    "crlf": '{\r\n  "a": ["x", "y"],\r\n  "b": {\r\n    "c": null\r\n  }\r\n}\r\n',
    "minified": '{"a":[1,2],"b":{"c":"d"},"e":{}}',
    "one_line_spaced": '{ "a": [1, 2], "b": {"c": "d"} }\n',
    "empty": "{}",
    "empty_nl": "{}\n",
    "nested_empty": '{\n  "mcpServers": {},\n  "list": []\n}\n',
    "unicode": '{\n  "clé": "café ☕",\n  "esc": "a\\"b\\\\",\n  "\\u00e9": ["\\ud83d\\ude00", "\\/"]\n}\n',
    "tricky_keys": '{\n  "{": "}",\n  "[\\"]": [",", ":"],\n  "a\\\\": {"}": {"]": []}}\n}\n',
    "numbers": '{"a": -0, "b": 1.5E+10, "c": [0.25e-3, 12], "d": {"e": false}}',
    "odd_spacing": '{\n  "a" : 1 ,\n  "b" :[ 1 , 2 ]\n}',
}


def object_paths(doc: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every object reachable through object keys, the root first."""
    if not isinstance(doc, dict):
        return []
    return [path] + [p for k, v in doc.items() for p in object_paths(v, path + (k,))]


def array_paths(doc: Any) -> list[tuple[str, ...]]:
    return [p + (k,) for p in object_paths(doc) for k, v in _at(doc, p).items() if isinstance(v, list)]


def _at(doc: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_inserting_a_key_anywhere_and_deleting_it_gives_the_original_bytes(name: str) -> None:
    text = LAYOUTS[name]
    for path in object_paths(json.loads(text)):
        for extra in [(), ("deeper",)]:
            new = set_value(text, path + ("kenning",) + extra, KENNING)
            expected = json.loads(text)
            _at(expected, path)["kenning"] = {"deeper": KENNING} if extra else KENNING
            assert json.loads(new) == expected
            assert only_inserted(text, new)
            assert delete_key(new, path + ("kenning",)) == text


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_appending_to_any_array_and_removing_it_gives_the_original_bytes(name: str) -> None:
    text = LAYOUTS[name]
    for path in array_paths(json.loads(text)):
        for value in ["new", {"type": "command", "command": "kenning hook"}, [1, [2]]]:
            new = append_item(text, path, value)
            assert _at(json.loads(new), path) == _at(json.loads(text), path) + [value]
            assert only_inserted(text, new)
            assert remove_item(new, path, -1) == text


MARK = "@kenning-mark@"


def replaced_stretch(old: str, new: str) -> str:
    """The text of ``old`` that MARK took the place of in ``new``; the rest must be ``old``'s bytes."""
    assert new.count(json.dumps(MARK)) == 1
    i = new.index(json.dumps(MARK))
    j = i + len(json.dumps(MARK))
    assert old.startswith(new[:i]) and old.endswith(new[j:])
    return old[i:len(old) - (len(new) - j)]


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_setting_an_existing_key_changes_only_its_value(name: str) -> None:
    text = LAYOUTS[name]
    doc = json.loads(text)
    for path in object_paths(doc):
        for key in _at(doc, path):
            stretch = replaced_stretch(text, set_value(text, path + (key,), MARK))
            assert stretch == stretch.strip() and json.loads(stretch) == _at(doc, path)[key]


def _set(doc: Any, path: tuple[str, ...], value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    _at(doc, path[:-1])[path[-1]] = value
    return doc


# -- how new text is formatted ---------------------------------------------------------------------


def test_a_new_server_fits_a_pretty_file_and_leaves_its_inline_arrays_alone() -> None:
    text = '{\n  "mcpServers": {\n    "other": {"command": "x", "args": ["a", "b"]}\n  }\n}\n'
    assert set_value(text, ("mcpServers", "kenning"), KENNING) == (
        '{\n  "mcpServers": {\n    "other": {"command": "x", "args": ["a", "b"]},\n'
        '    "kenning": {\n      "command": "kenning",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n')


def test_missing_objects_are_created_as_nested_text() -> None:
    assert set_value('{\n    "theme": "dark"\n}', ("mcpServers", "kenning"), {"command": "k"}) == (
        '{\n    "theme": "dark",\n    "mcpServers": {\n        "kenning": {\n            "command": "k"\n'
        '        }\n    }\n}')


def test_tabs_and_crlf_are_followed() -> None:
    text = '{\r\n\t"a": 1\r\n}\r\n'
    assert set_value(text, ("b",), {"c": 2}) == '{\r\n\t"a": 1,\r\n\t"b": {\r\n\t\t"c": 2\r\n\t}\r\n}\r\n'


def test_a_one_line_object_stays_on_one_line() -> None:
    assert set_value('{"a":1}', ("b",), {"c": [1, 2]}) == '{"a":1,"b":{"c":[1,2]}}'
    assert set_value('{ "a": 1 }', ("b",), {"c": [1, 2]}) == '{ "a": 1, "b": {"c": [1, 2]} }'
    assert set_value('{"a": {}}\n', ("a", "b"), 1) == '{"a": {"b": 1}}\n'


def test_an_empty_object_becomes_an_indented_object() -> None:
    assert set_value("{}", ("a",), 1) == '{\n  "a": 1\n}'
    text = '{\n    "mcpServers": {}\n}\n'
    assert set_value(text, ("mcpServers", "k"), {"x": 1}) == (
        '{\n    "mcpServers": {\n        "k": {\n            "x": 1\n        }\n    }\n}\n')


def test_an_empty_document_becomes_an_object_with_a_final_newline() -> None:
    assert set_value("", ("a",), 1) == '{\n  "a": 1\n}\n'
    assert set_value(" \r\n", ("a",), 1) == '{\r\n  "a": 1\r\n}\r\n'
    assert append_item("", ("hooks", "Stop"), "h") == '{\n  "hooks": {\n    "Stop": [\n      "h"\n    ]\n  }\n}\n'
    assert delete_key("", ("a",)) == ""


def test_the_final_newline_is_kept_or_left_out_as_it_was() -> None:
    assert set_value('{\n  "a": 1\n}', ("b",), 2).endswith("2\n}")
    assert set_value('{\n  "a": 1\n}\n\n', ("b",), 2).endswith("2\n}\n\n")


def test_deleting_the_last_member_leaves_an_empty_object() -> None:
    assert delete_key('{\n  "a": {\n    "b": 1\n  }\n}\n', ("a", "b")) == '{\n  "a": {}\n}\n'
    assert delete_key('{\n  "a": 1\n}\n', ("a",)) == "{}\n"


def test_deleting_a_middle_member_takes_its_line() -> None:
    assert delete_key('{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}', ("b",)) == '{\n  "a": 1,\n  "c": 3\n}'
    assert delete_key('{"a": 1, "b": 2, "c": 3}', ("a",)) == '{"b": 2, "c": 3}'


def test_a_missing_key_is_not_deleted() -> None:
    text = '{"a": {"b": 1}}'
    assert delete_key(text, ("x",)) == text
    assert delete_key(text, ("a", "x")) == text
    assert delete_key(text, ("x", "y")) == text


def test_arrays_grow_in_their_own_layout() -> None:
    assert append_item('{"args": ["a", "b"]}', ("args",), "c") == '{"args": ["a", "b", "c"]}'
    assert append_item('{"args":["a"]}', ("args",), "c") == '{"args":["a","c"]}'
    assert append_item('{\n  "l": [\n    1\n  ]\n}', ("l",), {"a": 1}) == (
        '{\n  "l": [\n    1,\n    {\n      "a": 1\n    }\n  ]\n}')
    assert append_item('{\n  "l": []\n}', ("l",), 1) == '{\n  "l": [\n    1\n  ]\n}'
    assert append_item('{\n  "o": {"l": []}\n}', ("o", "l"), 1) == '{\n  "o": {"l": [1]}\n}'
    assert append_item("[1]", (), 2) == "[1, 2]"


def test_a_missing_array_is_created_with_the_item() -> None:
    assert append_item('{"a": 1}', ("l",), "x") == '{"a": 1, "l": ["x"]}'


def test_remove_and_replace_items() -> None:
    text = '{"l": [1, {"a": 2}, 3]}'
    assert remove_item(text, ("l",), 0) == '{"l": [{"a": 2}, 3]}'
    assert remove_item(text, ("l",), 1) == '{"l": [1, 3]}'
    assert remove_item(text, ("l",), -1) == '{"l": [1, {"a": 2}]}'
    assert remove_item('{"l": [1]}', ("l",), 0) == '{"l": []}'
    assert replace_item(text, ("l",), 1, "b") == '{"l": [1, "b", 3]}'
    assert replace_item('{\n  "l": [\n    1\n  ]\n}', ("l",), 0, {"a": 1}) == (
        '{\n  "l": [\n    {\n      "a": 1\n    }\n  ]\n}')


def test_writing_the_same_value_keeps_how_it_was_written() -> None:
    text = '{\n  "k": {"args": ["a", "b"], "n": 1.0}\n}'
    assert set_value(text, ("k",), {"args": ["a", "b"], "n": 1.0}) == text
    assert set_value(text, ("k", "n"), 1) != text  # 1 is not 1.0
    assert replace_item(text, ("k", "args"), 0, "a") == text


def test_keys_and_strings_that_look_like_json_do_not_confuse_the_scanner() -> None:
    text = '{"a\\"}": "{[\\\\", "]": {"\\\\": "\\"", "x": 1}}'
    new = set_value(text, ("]", "y"), "}{")
    assert new == '{"a\\"}": "{[\\\\", "]": {"\\\\": "\\"", "x": 1, "y": "}{"}}'
    assert delete_key(new, ("]", "y")) == text
    assert set_value(text, ("]", "\\"), "ok") == '{"a\\"}": "{[\\\\", "]": {"\\\\": "ok", "x": 1}}'


def test_unicode_is_written_as_is() -> None:
    assert set_value('{"a": "é"}', ("clé",), "☕ \u2028") == '{"a": "é", "clé": "☕ \u2028"}'


def test_a_huge_document_only_changes_where_it_is_edited() -> None:
    big = {f"k{i}": {"args": ["a", str(i)], "text": "x" * 50} for i in range(20_000)}
    text = json.dumps({"blob": "y" * 2_000_000, "servers": big}, indent=2) + "\n"
    new = set_value(text, ("servers", "kenning"), KENNING)
    assert only_inserted(text, new)
    assert delete_key(new, ("servers", "kenning")) == text


# -- what is refused -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['{"a": 1', '{"a": 1,}', '{"a": NaN}', '{"a": [-Infinity]}', "[1] x", "{'a': 1}",
                                  '{"a": 01}', '{"a": "\x01"}', "[" * 100_000 + "]" * 100_000])
def test_text_that_is_not_strict_json_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        set_value(text, ("b",), 1)


def test_wrong_shapes_and_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="a is not an object"):
        set_value('{"a": [1]}', ("a", "b"), 1)
    with pytest.raises(ValueError, match="the document is not an object"):
        set_value("[1]", ("a",), 1)
    with pytest.raises(ValueError, match="a is not an array"):
        append_item('{"a": {}}', ("a",), 1)
    with pytest.raises(ValueError, match="appears 2 times"):
        set_value('{"a": 1, "a": 2}', ("a",), 3)
    with pytest.raises(ValueError):
        set_value("{}", (), 1)
    with pytest.raises(ValueError):
        set_value("{}", ("a",), float("nan"))
    with pytest.raises(KeyError):
        remove_item('{"a": 1}', ("l",), 0)
    with pytest.raises(IndexError):
        remove_item('{"l": [1]}', ("l",), 1)
    with pytest.raises(IndexError):
        replace_item('{"l": []}', ("l",), -1, 0)


def test_an_edit_that_would_give_the_wrong_document_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonedit, "_remove", lambda text, node, i: text)
    with pytest.raises(ValueError, match="expected document"):
        delete_key('{"a": 1}', ("a",))
    monkeypatch.setattr(jsonedit, "_remove", lambda text, node, i: text[:-1])
    with pytest.raises(ValueError, match="invalid JSON"):
        delete_key('{"a": 1}', ("a",))


# -- random documents in random layouts ------------------------------------------------------------

ODD_SCALARS = ["-0", "1.5E+10", "0.25e-3", '"a\\/b"', '"\\u00e9\\n"', '"\\\\"', '"x\\"y"', "true", "null"]
ALPHABET = 'ab{}[]":,\\ /é中😀\u2028\t\n'


class Raw(str):
    """A scalar written exactly so, to exercise the scanner on tokens json.dumps never writes."""


def random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 4 and roll < 0.3:
        return {random_key(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if depth < 4 and roll < 0.45:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll < 0.6:
        return Raw(rng.choice(ODD_SCALARS))
    return rng.choice([0, -7, 3.25, "", "text", False, None, random_key(rng)])


def random_key(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 6)))


def random_layout(rng: random.Random) -> dict[str, Any]:
    unit = rng.choice(["  ", "    ", "\t", None])
    return {"unit": unit, "nl": rng.choice(["\n", "\r\n"]), "colon": rng.choice([": ", ":", " : "]),
            "comma": rng.choice([" ", ""]), "inline": rng.choice([0.0, 0.3, 0.7]),
            "final": rng.random() < 0.7, "ascii": rng.random() < 0.5}


def write(value: Any, layout: dict[str, Any], rng: random.Random, depth: int = 0, inline: bool = False) -> str:
    if isinstance(value, Raw):
        return str(value)
    if not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=layout["ascii"])
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    one_line = inline or layout["unit"] is None or (depth > 0 and rng.random() < layout["inline"])
    parts = []
    for key, item in (value.items() if isinstance(value, dict) else enumerate(value)):
        head = json.dumps(key, ensure_ascii=layout["ascii"]) + layout["colon"] if isinstance(value, dict) else ""
        parts.append(head + write(item, layout, rng, depth + 1, one_line))
    if one_line:
        inner = ("," + layout["comma"]).join(parts)
    else:
        pad = layout["nl"] + layout["unit"] * (depth + 1)
        inner = pad + ("," + pad).join(parts) + layout["nl"] + layout["unit"] * depth
    return ("{%s}" if isinstance(value, dict) else "[%s]") % inner


def random_document(rng: random.Random) -> str:
    doc = {random_key(rng): random_value(rng, 1) for _ in range(rng.randrange(5))}
    layout = random_layout(rng)
    return write(doc, layout, rng) + (layout["nl"] if layout["final"] else "")


def random_insertion(rng: random.Random, text: str, step: int) -> tuple[str, Any, Any]:
    """One insertion into ``text``: the new text, the document it should hold, and the call that undoes it."""
    doc = json.loads(text)
    value = random_plain(rng)
    arrays = array_paths(doc)
    if arrays and rng.random() < 0.4:
        path = rng.choice(arrays)
        _at(doc, path).append(value)
        return append_item(text, path, value), doc, lambda t: remove_item(t, path, -1)
    parent = rng.choice(object_paths(doc))
    key = f"{random_key(rng)}!{step}"  # never already there
    extra = tuple(random_key(rng) for _ in range(rng.choice([0, 0, 1, 2])))
    nested = value
    for name in reversed(extra):
        nested = {name: nested}
    _at(doc, parent)[key] = nested
    return set_value(text, parent + (key,) + extra, value), doc, lambda t: delete_key(t, parent + (key,))


def random_plain(rng: random.Random) -> Any:
    return json.loads(json.dumps(random_value(rng, 2)))  # a Raw token becomes an ordinary string


@pytest.mark.parametrize("seed", range(6))
def test_random_insertions_undone_in_reverse_give_the_original_bytes(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        text = random_document(rng)
        states, undo = [text], []
        for step in range(rng.randrange(1, 5)):
            new, expected, back = random_insertion(rng, states[-1], step)
            assert only_inserted(states[-1], new)
            assert json.dumps(json.loads(new)) == json.dumps(expected)
            states.append(new)
            undo.append(back)
        for back, before in zip(reversed(undo), reversed(states[:-1])):
            assert back(states.pop()) == before


@pytest.mark.parametrize("seed", range(6))
def test_random_replacements_and_deletions_touch_only_their_span(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(50):
        text = random_document(rng)
        doc = json.loads(text)
        members = [p + (k,) for p in object_paths(doc) for k in _at(doc, p)]
        if not members:
            continue
        path = rng.choice(members)
        value = random_plain(rng)
        new = set_value(text, path, value)
        assert json.dumps(json.loads(new)) == json.dumps(_set(doc, path, value))
        stretch = replaced_stretch(text, set_value(text, path, MARK))
        assert stretch == stretch.strip() and json.loads(stretch) == _at(doc, path)
        gone = delete_key(text, path)
        assert only_inserted(gone, text)  # one stretch of the original taken out, the rest as it was
        expected = json.loads(text)
        del _at(expected, path[:-1])[path[-1]]
        assert json.dumps(json.loads(gone)) == json.dumps(expected)


@pytest.mark.parametrize("seed", range(6))
def test_random_item_removals_and_replacements_touch_only_their_span(seed: int) -> None:
    rng = random.Random(2000 + seed)
    checked = 0
    while checked < 50:
        text = random_document(rng)
        doc = json.loads(text)
        arrays = [p for p in array_paths(doc) if _at(doc, p)]
        if not arrays:
            continue
        path = rng.choice(arrays)
        index = rng.randrange(len(_at(doc, path)))
        stretch = replaced_stretch(text, replace_item(text, path, index, MARK))
        assert stretch == stretch.strip() and json.loads(stretch) == _at(doc, path)[index]
        gone = remove_item(text, path, index)
        assert only_inserted(gone, text)
        del _at(doc, path)[index]
        assert json.dumps(json.loads(gone)) == json.dumps(doc)
        checked += 1


def test_follow_splices_only_what_differs_between_two_documents() -> None:
    text = ('{\n  "keep": {"args": ["-y", "x"]},\n  "hooks": {\n    "Start": [\n      {"a": 1},\n      {"b": 2}\n'
            '    ]\n  },\n  "gone": true\n}\n')
    old = json.loads(text)
    new = json.loads(text)
    new["hooks"]["Start"].append({"kenning": True})
    new["hooks"]["End"] = [{"kenning": True}]
    del new["gone"]

    out = jsonedit.follow(text, old, new)

    assert json.loads(out) == new
    assert out.startswith('{\n  "keep": {"args": ["-y", "x"]},\n  "hooks": {\n    "Start": [\n      {"a": 1},\n')
    back = jsonedit.follow(out, new, old)
    assert json.loads(back) == old
    middle = json.loads(text)
    del middle["hooks"]["Start"][0]  # an element taken out of the middle of an array: only that one goes
    assert jsonedit.follow(text, old, middle) == text.replace('      {"a": 1},\n', "")
