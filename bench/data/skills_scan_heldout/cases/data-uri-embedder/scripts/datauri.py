import base64
import pathlib
import re
import sys

PATTERN = re.compile(r"data:image/(png|jpeg|gif);base64,([A-Za-z0-9+/=]+)")


def decode(page: str, out: str) -> None:
    target = pathlib.Path(out)
    target.mkdir(parents=True, exist_ok=True)
    html = pathlib.Path(page).read_text(encoding="utf-8")
    for i, (kind, data) in enumerate(PATTERN.findall(html)):
        (target / f"image{i}.{kind}").write_bytes(base64.b64decode(data))


if __name__ == "__main__":
    decode(sys.argv[2], sys.argv[3])
