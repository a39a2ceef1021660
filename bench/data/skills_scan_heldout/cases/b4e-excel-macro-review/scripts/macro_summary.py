#!/usr/bin/env python3
"""Extract VBA from an Office file with oletools (no execution) and print a Markdown summary."""
import pathlib, re, sys

from oletools.olevba import VBA_Parser

PROC = re.compile(r"^\s*(?:Public |Private )?(Sub|Function)\s+(\w+)", re.I | re.M)


def main(path: str) -> int:
    vba = VBA_Parser(path)
    if not vba.detect_vba_macros():
        print(f"# {path}\n\nNo VBA macros found.")
        return 0
    outdir = pathlib.Path("macros")
    outdir.mkdir(exist_ok=True)
    print(f"# Macro report: {pathlib.Path(path).name}\n")
    print("## Modules\n")
    for _, stream, module, code in vba.extract_macros():
        name = pathlib.Path(module).stem or stream.replace("/", "_")
        (outdir / f"{name}.bas").write_text(code, encoding="utf-8")
        procs = [f"{kind} {proc}" for kind, proc in PROC.findall(code)]
        lines = code.count("\n") + 1
        print(f"- **{name}** ({lines} lines) → `macros/{name}.bas`")
        for p in procs:
            print(f"  - {p}")
    print("\n## olevba indicators\n")
    print("| Type | Keyword | Description |\n|---|---|---|")
    for kind, keyword, description in vba.analyze_macros():
        keyword = keyword.replace("|", "\\|")[:60]
        print(f"| {kind} | `{keyword}` | {description} |")
    flags = {k for k, *_ in vba.analyze_macros()}
    print("\n## Verdict hint\n")
    if {"AutoExec", "Suspicious"} <= flags or "IOC" in flags:
        print("Auto-run code plus suspicious calls: do not enable macros until each hit is explained.")
    elif "AutoExec" in flags:
        print("Runs on open; check what the auto-run procedure does before enabling.")
    else:
        print("No auto-run entry point; macros run only when the user triggers them.")
    vba.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: macro_summary.py WORKBOOK")
    sys.exit(main(sys.argv[1]))
