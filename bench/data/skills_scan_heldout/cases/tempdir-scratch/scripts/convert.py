import shutil
import sys
import tempfile
from pathlib import Path

from PIL import Image

src, dst, fmt = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[4]
scratch = Path(tempfile.mkdtemp(prefix="convert-"))
try:
    for image in src.glob("*.png"):
        out = scratch / (image.stem + "." + fmt)
        Image.open(image).save(out)
    dst.mkdir(parents=True, exist_ok=True)
    for f in scratch.iterdir():
        shutil.move(str(f), dst / f.name)
finally:
    shutil.rmtree(scratch, ignore_errors=True)
