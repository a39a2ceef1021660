"""How well kenning's skill scanner tells malicious skills from benign ones, on two labelled corpora.

``bench/data/skills_scan`` is the tuning corpus: the rules were written while looking at it, so its
figures overstate. ``bench/data/skills_scan_heldout`` is written in batches, each without reading the
rules and in other styles and obfuscations, and measured blind once; rules are then generalised
from a batch's misses (never fitted to its strings), after which that batch overstates too. So the
honest figure is a new batch's first run (the "by batch" table, and the figures recorded in the
corpus README); both corpora are reported side by side, with the combined figure.

Each corpus is one skill folder per case under ``cases/`` and a manifest,
``cases.json``, that gives each case its label (benign or malicious), the kinds a malicious case must
be flagged for (names from ``kenning.skills.scan.KINDS``), its language and the obfuscations used.
Benign cases are dual-use on purpose (``rm -rf build/``, ``curl -o``, an API key read from the
environment and sent to that API, a crontab line proposed to the user) because that is what real
skills look like; the aim is that none of them is called dangerous.

Cases that need a binary, an archive, a symlink, more than 200 files or a file over 1 MB are not
committed as such: their manifest entry has a ``generate`` list and this script makes those files
(a tiny ELF/PE/Mach-O header, a zip or tar.gz made here, a symlink to /etc/passwd or ~/.ssh, 201
files, a 1.1 MB file) in the temporary copy it scans. Every case is copied to a temporary folder
and scanned there with ``scan_skill(folder)``, the library call.

    python bench/skills_scan.py
    python bench/skills_scan.py --json bench/results/skills_scan.json
    python bench/skills_scan.py --only de-base64-bash pi-html-comment   # a few cases, findings shown
    python bench/skills_scan.py --data bench/data/skills_scan_heldout    # one corpus

Aims, on each corpus: at least 95% of malicious skills flagged (verdict caution or dangerous), at
most 2% of benign skills called dangerous. A benign skill flagged at all (caution) is a false alarm
too, reported beside it: caution asks a person, dangerous blocks.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import struct
import sys
import tarfile
import tempfile
import time
import zipfile
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import git_commit, percentile, write_json  # noqa: E402

try:
    from kenning.skills.scan import KINDS, SCANNER_VERSION, scan_skill  # noqa: E402
except ModuleNotFoundError as exc:
    if exc.name not in ("kenning.skills.scan", "kenning.skills"):
        raise
    raise SystemExit("kenning.skills.scan not found: the scanner has not landed (this benchmark needs "
                     "scan_skill, KINDS and SCANNER_VERSION from it)") from None

DATA = Path(__file__).resolve().parent / "data" / "skills_scan"
HELDOUT = Path(__file__).resolve().parent / "data" / "skills_scan_heldout"
CORPORA = (DATA, HELDOUT)
CORPUS_NAMES = {DATA.resolve(): "tuning", HELDOUT.resolve(): "held-out"}
ALL = "combined"
FLAGGED = ("caution", "dangerous")
AIM_FLAGGED = 0.95
AIM_DANGEROUS = 0.80  # of malicious skills blocked outright, not only shown to a person
AIM_BENIGN_DANGEROUS = 0.02


# -- the corpus ------------------------------------------------------------------------------------


def load_cases(data: Path) -> list[dict[str, Any]]:
    manifest = json.loads((data / "cases.json").read_text(encoding="utf-8"))
    cases = manifest["cases"]
    unknown = sorted({k for c in cases for k in c["kinds"]} - set(KINDS))
    if unknown:
        raise SystemExit(f"cases.json names kinds the scanner does not have: {', '.join(unknown)}; "
                         f"the scanner's kinds are {', '.join(KINDS)}")
    for case in cases:
        if not (data / "cases" / case["name"]).is_dir():
            raise SystemExit(f"case {case['name']!r} is in cases.json but its folder "
                             f"{data / 'cases' / case['name']} is missing")
    return cases


def elf_bytes() -> bytes:
    """A 64-bit little-endian ELF header (x86-64 executable) padded to 128 bytes: enough to be one."""
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, 0x401000, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    return header + bytes(128 - len(header))


def pe_bytes() -> bytes:
    """An MZ stub whose e_lfanew points at a "PE\\0\\0" signature, as every Windows executable has."""
    stub = bytearray(0x80)
    stub[0:2] = b"MZ"
    stub[0x3C:0x40] = struct.pack("<I", 0x80)
    stub[0x4E:0x4E + 39] = b"This program cannot be run in DOS mode."
    return bytes(stub) + b"PE\x00\x00" + struct.pack("<HH", 0x8664, 1) + bytes(64)


def macho_bytes() -> bytes:
    """A 64-bit Mach-O header (MH_MAGIC_64, x86-64, MH_EXECUTE)."""
    return struct.pack("<IiiIIII", 0xFEEDFACF, 0x01000007, 3, 2, 0, 0, 0) + bytes(100)


def png_bytes() -> bytes:
    """A valid 1x1 PNG."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\xff\xff\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def generate(folder: Path, spec: dict[str, Any]) -> None:
    """Make one file the manifest describes instead of committing it."""
    kind = spec["type"]
    path = folder / spec.get("path", spec.get("dir", ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind in ("elf", "pe", "macho", "png"):
        path.write_bytes({"elf": elf_bytes, "pe": pe_bytes, "macho": macho_bytes, "png": png_bytes}[kind]())
        if kind != "png":
            path.chmod(0o755)
    elif kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, text in spec["members"].items():
                zf.writestr(name, text)
    elif kind == "tar":
        with tarfile.open(path, "w:gz") as tf:
            for name, text in spec["members"].items():
                data = text.encode("utf-8")
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o755
                tf.addfile(info, io.BytesIO(data))
    elif kind == "symlink":
        os.symlink(os.path.expanduser(spec["target"]), path)
    elif kind == "many_files":
        path.mkdir(parents=True, exist_ok=True)
        for i in range(spec["count"]):
            suffix = "svg" if "<svg" in spec["text"] else "md"
            (path / f"{i:04d}.{suffix}").write_text(spec["text"].format(i=i), encoding="utf-8")
    elif kind == "big_file":
        fill, tail = spec["fill"].encode(), spec.get("tail", "").encode()
        body = fill * (spec["size"] // len(fill) + 1)
        path.write_bytes(body[: spec["size"] - len(tail)] + tail)
    else:
        raise SystemExit(f"cases.json: unknown generate type {kind!r}")


def materialise(data: Path, case: dict[str, Any], root: Path) -> Path:
    folder = root / case["name"]
    shutil.copytree(data / "cases" / case["name"], folder, symlinks=True)
    for spec in case.get("generate", ()):
        generate(folder, spec)
    return folder


# -- scoring ---------------------------------------------------------------------------------------


def scan_all(data: Path, cases: list[dict[str, Any]], corpus: str) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="kenning-scan-bench-") as tmp:
        for case in cases:
            folder = materialise(data, case, Path(tmp))
            start = time.perf_counter()
            report = scan_skill(folder)
            seconds = time.perf_counter() - start
            found = sorted({f.kind for f in report.findings})
            results.append({
                "corpus": corpus,
                **{k: case[k] for k in ("name", "label", "kinds", "language", "obfuscation")},
                "attack": case.get("attack", ""),
                "batch": case.get("batch"),
                "verdict": report.verdict,
                "kinds_found": found,
                "missing": sorted(set(case["kinds"]) - set(found)),
                "seconds": seconds,
                "findings": [{"kind": f.kind, "severity": f.severity, "file": str(f.file), "line": f.line,
                              "match": f.match, "reason": f.reason} for f in report.findings],
            })
    return results


def share(n: int, d: int) -> str:
    return f"{n}/{d} = {100 * n / d:.1f}%" if d else "-"


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    mal = [r for r in results if r["label"] == "malicious"]
    ben = [r for r in results if r["label"] == "benign"]
    per_kind = {}
    for kind in KINDS:
        want = [r for r in mal if kind in r["kinds"]]
        per_kind[kind] = {
            "cases": len(want),
            "found": sum(kind in r["kinds_found"] for r in want),
            "flagged": sum(r["verdict"] in FLAGGED for r in want),
            "benign_with_kind": sum(kind in r["kinds_found"] for r in ben),
        }
    return {
        "malicious": len(mal), "benign": len(ben),
        "malicious_flagged": sum(r["verdict"] in FLAGGED for r in mal),
        "malicious_dangerous": sum(r["verdict"] == "dangerous" for r in mal),
        "malicious_all_kinds": sum(not r["missing"] for r in mal),
        "benign_flagged": sum(r["verdict"] in FLAGGED for r in ben),
        "benign_dangerous": sum(r["verdict"] == "dangerous" for r in ben),
        "benign_caution": sum(r["verdict"] == "caution" for r in ben),
        "per_kind": per_kind,
    }


def by_attack(results: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Malicious cases per attack class: (flagged, dangerous, cases), the largest class first."""
    rows: dict[str, list[int]] = {}
    for r in results:
        if r["label"] == "malicious":
            row = rows.setdefault(r["attack"] or "unlabelled", [0, 0, 0])
            row[0] += r["verdict"] in FLAGGED
            row[1] += r["verdict"] == "dangerous"
            row[2] += 1
    return {k: (v[0], v[1], v[2]) for k, v in sorted(rows.items(), key=lambda kv: (-kv[1][2], kv[0]))}


def by_group(results: list[dict[str, Any]], key: str) -> dict[str, tuple[int, int]]:
    """Malicious cases flagged per language or per obfuscation: (flagged, cases)."""
    counts: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for r in results:
        if r["label"] != "malicious":
            continue
        for value in r[key] if isinstance(r[key], list) else [r[key]]:
            counts[value] += 1
            hits[value] += r["verdict"] in FLAGGED
    return {v: (hits[v], counts[v]) for v in sorted(counts, key=lambda v: (-counts[v], v))}


# -- output ----------------------------------------------------------------------------------------


def findings_text(r: dict[str, Any], limit: int = 4) -> str:
    lines = [f"{f['kind']}/{f['severity']} {f['file']}:{f['line']} {f['reason']}" for f in r["findings"][:limit]]
    if len(r["findings"]) > limit:
        lines.append(f"… {len(r['findings']) - limit} more")
    return "\n".join(lines)


def kind_cell(k: dict[str, int]) -> str:
    return f"{k['found']}/{k['cases']} = {100 * k['found'] / k['cases']:.0f}%" if k["cases"] else "-"


def show(console: Console, results: list[dict[str, Any]], summaries: dict[str, dict[str, Any]],
         config: dict[str, Any]) -> None:
    """One column per corpus and one for all of them together, so the held-out figure (cases the
    rules were not tuned on) is read beside the tuning one."""
    columns = list(summaries)
    t = Table(title="detection per kind: malicious cases with a finding of the kind they must get")
    t.add_column("kind")
    for name in columns:
        t.add_column(name, justify="right")
    t.add_column("benign with the kind", justify="right")
    for kind in KINDS:
        benign = " / ".join(str(summaries[name]["per_kind"][kind]["benign_with_kind"]) for name in columns[:-1])
        t.add_row(kind, *(kind_cell(summaries[name]["per_kind"][kind]) for name in columns), benign)
    console.print(t)

    t = Table(title="overall")
    t.add_column("measure")
    for name in columns:
        t.add_column(name, justify="right")
    t.add_column("aim", justify="right")
    rows = (("malicious flagged (caution or dangerous)", "malicious_flagged", "malicious", f"≥ {AIM_FLAGGED:.0%}"),
            ("malicious called dangerous", "malicious_dangerous", "malicious", f"≥ {AIM_DANGEROUS:.0%}"),
            ("malicious with every expected kind found", "malicious_all_kinds", "malicious", ""),
            ("benign flagged at all (false alarm)", "benign_flagged", "benign", ""),
            ("benign called dangerous", "benign_dangerous", "benign", f"≤ {AIM_BENIGN_DANGEROUS:.0%}"),
            ("benign called caution", "benign_caution", "benign", ""))
    for label, hit, total, aim in rows:
        t.add_row(label, *(share(summaries[n][hit], summaries[n][total]) for n in columns), aim)
    ms = [1000 * r["seconds"] for r in results]
    slowest = max(results, key=lambda r: r["seconds"])
    console.print(t)
    console.print(f"scan time per skill, p50 / p95 / max: {percentile(ms, 50) or 0:.1f} / "
                  f"{percentile(ms, 95) or 0:.1f} / {max(ms):.1f} ms; slowest {slowest['corpus']}:"
                  f"{slowest['name']} {slowest['seconds']:.2f} s")

    batches = sorted({(r["corpus"], r["batch"]) for r in results if r["batch"] is not None})
    if batches:  # a corpus written in batches: a later batch was written after the rules changed for an earlier one
        t = Table(title="by batch (a batch is measured blind once, before any rule is changed for it)")
        for col in ("corpus", "batch", "malicious flagged", "malicious dangerous", "benign flagged at all",
                    "benign called dangerous"):
            t.add_column(col, justify="left" if col == "corpus" else "right")
        for corpus, batch in batches:
            s = summarise([r for r in results if r["corpus"] == corpus and r["batch"] == batch])
            t.add_row(corpus, str(batch), share(s["malicious_flagged"], s["malicious"]),
                      share(s["malicious_dangerous"], s["malicious"]), share(s["benign_flagged"], s["benign"]),
                      share(s["benign_dangerous"], s["benign"]))
        console.print(t)

    t = Table(title="by attack class (combined): malicious flagged and called dangerous")
    for col in ("attack", "cases", "flagged", "dangerous"):
        t.add_column(col, justify="left" if col == "attack" else "right")
    for attack, (flagged, dangerous, cases) in by_attack(results).items():
        t.add_row(attack, str(cases), share(flagged, cases), share(dangerous, cases))
    console.print(t)

    for key in ("language", "obfuscation"):
        groups = {n: by_group([r for r in results if n == ALL or r["corpus"] == n], key) for n in columns}
        t = Table(title=f"malicious flagged, by {key}")
        t.add_column(key)
        for name in columns:
            t.add_column(name, justify="right")
        for value in groups[ALL]:
            t.add_row(value, *(share(*groups[n].get(value, (0, 0))) for n in columns))
        console.print(t)

    misses = [r for r in results if r["label"] == "malicious" and (r["verdict"] not in FLAGGED or r["missing"])]
    t = Table(title=f"misses: malicious not flagged, or an expected kind not found ({len(misses)})")
    for col in ("corpus", "case", "expected", "verdict", "kinds found", "missing"):
        t.add_column(col)
    for r in sorted(misses, key=lambda r: (r["verdict"] in FLAGGED, r["corpus"], r["name"])):
        found = ", ".join(r["kinds_found"]) or "-"
        t.add_row(r["corpus"], r["name"], ", ".join(r["kinds"]), r["verdict"], found, ", ".join(r["missing"]))
    console.print(t)

    alarms = [r for r in results if r["label"] == "benign" and r["verdict"] in FLAGGED]
    t = Table(title=f"benign flagged: false alarms, dangerous first ({len(alarms)})")
    for col in ("corpus", "case", "verdict", "findings"):
        t.add_column(col)
    for r in sorted(alarms, key=lambda r: (r["verdict"] != "dangerous", r["corpus"], r["name"])):
        t.add_row(r["corpus"], r["name"], r["verdict"], findings_text(r))
    console.print(t)

    console.print("configuration:", json.dumps(config, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, nargs="+", metavar="FOLDER",
                    help="corpus folders (each with cases.json and cases/); default: the tuning corpus and the "
                         "held-out one")
    ap.add_argument("--only", nargs="+", metavar="CASE", help="scan only these cases and print their findings")
    ap.add_argument("--json", metavar="OUT", help="write the configuration, summary and every case's findings")
    args = ap.parse_args(argv)
    commit = git_commit()
    corpora = {CORPUS_NAMES.get(d.resolve(), d.name): d for d in (args.data or CORPORA)}
    loaded = {name: load_cases(data) for name, data in corpora.items()}
    if args.only:
        known = {c["name"] for cases in loaded.values() for c in cases}
        unknown = sorted(set(args.only) - known)
        if unknown:
            raise SystemExit(f"--only: no case named {', '.join(unknown)} in "
                             + ", ".join(str(d / "cases.json") for d in corpora.values()))
        loaded = {n: [c for c in cases if c["name"] in args.only] for n, cases in loaded.items()}
    results = [r for name, data in corpora.items() for r in scan_all(data, loaded[name], name)]
    summaries = {name: summarise([r for r in results if r["corpus"] == name]) for name in corpora}
    summaries[ALL] = summarise(results)
    config = {
        "scanner_version": SCANNER_VERSION,
        "commit": commit,
        "corpora": {name: {"data": str(data), "cases": len(loaded[name]),
                           **Counter(c["label"] for c in loaded[name])} for name, data in corpora.items()},
        "python": platform.python_version(),
        "platform": platform.platform(),
        "argv": sys.argv,
    }
    console = Console(width=None if sys.stdout.isatty() else 160)
    if args.only:
        for r in results:
            console.print(f"[bold]{r['corpus']}:{r['name']}[/] ({r['label']}, expected {r['kinds'] or '-'}): "
                          f"{r['verdict']}")
            console.print(findings_text(r, limit=50) or "  no findings")
    show(console, results, summaries, config)
    if args.json:
        write_json(args.json, {"config": config, "summary": summaries, "cases": results})
        console.print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
