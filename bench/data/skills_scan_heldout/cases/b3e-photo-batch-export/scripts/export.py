#!/usr/bin/env python3
import argparse
from pathlib import Path

from PIL import Image, ImageOps

try:
    from pillow_heif import register_heif_opener
    register_heif_opener()
except ImportError:
    pass

EXTS = {".jpg", ".jpeg", ".png", ".heic", ".tif", ".tiff", ".webp"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max", type=int, default=2048)
    ap.add_argument("--format", choices=["jpeg", "webp", "png"], default="jpeg")
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--keep-exif", action="store_true")
    a = ap.parse_args()
    if a.out.resolve() == a.src.resolve():
        raise SystemExit("output folder must differ from the source folder")
    a.out.mkdir(parents=True, exist_ok=True)

    n = 0
    for p in sorted(a.src.rglob("*")):
        if p.suffix.lower() not in EXTS:
            continue
        with Image.open(p) as im:
            exif = im.getexif() if a.keep_exif else None
            icc = im.info.get("icc_profile")
            im = ImageOps.exif_transpose(im)
            im.thumbnail((a.max, a.max), Image.Resampling.LANCZOS)
            if a.format == "jpeg" and im.mode not in ("RGB", "L"):
                im = im.convert("RGB")
            rel = p.relative_to(a.src).with_suffix("." + ("jpg" if a.format == "jpeg" else a.format))
            dest = a.out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            kwargs = {"quality": a.quality, "optimize": True}
            if icc:
                kwargs["icc_profile"] = icc
            if exif is not None:
                kwargs["exif"] = exif
            im.save(dest, a.format.upper(), **kwargs)
            n += 1
    print(f"exported {n} images to {a.out} ({'EXIF kept' if a.keep_exif else 'EXIF removed'})")


if __name__ == "__main__":
    main()
