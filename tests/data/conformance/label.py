"""Label the conformance corpus with the Agent Skills reference validator, ``skills-ref``.

Run it with a Python that has ``skills-ref`` installed (never kenning's own environment: the
reference is only a yardstick), e.g.::

    python -m venv /tmp/skills-ref && /tmp/skills-ref/bin/pip install skills-ref
    /tmp/skills-ref/bin/python tests/data/conformance/label.py

It builds each case as a real skill folder (the case's folder name and file name) in a temporary
directory, runs ``skills_ref.validator.validate`` on it, and prints one JSON object: the reference's
version and, per case id, "valid" or "invalid", the reference's errors, and, for a file that starts
with a byte-order mark, the label of the text kenning writes for it (the same without the mark).
``tests/test_skill_conformance.py`` runs it when ``KENNING_SKILLS_REF_PYTHON`` names such a Python.
"""

from __future__ import annotations

import json
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

from skills_ref.validator import validate

HERE = Path(__file__).resolve().parent
BOM = "\ufeff".encode()


def label(folder: str, file: str, data: bytes) -> tuple[str, list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        skill = Path(tmp) / folder
        skill.mkdir()
        (skill / file).write_bytes(data)
        errors = validate(skill)
    return ("invalid" if errors else "valid"), [str(e) for e in errors]


def main() -> None:
    cases = tomllib.loads((HERE / "cases.toml").read_text(encoding="utf-8"))["case"]
    out: dict[str, object] = {"version": metadata.version("skills-ref")}
    labels: dict[str, dict[str, object]] = {}
    for case in cases:
        data = (HERE / "cases" / f"{case['id']}.md").read_bytes()
        verdict, errors = label(case["folder"], case.get("file", "SKILL.md"), data)
        labels[case["id"]] = {"reference": verdict, "errors": errors}
        if data.startswith(BOM):
            labels[case["id"]]["written"] = label(case["folder"], case.get("file", "SKILL.md"), data[len(BOM):])[0]
    out["labels"] = labels
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
