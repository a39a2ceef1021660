import sys
from pathlib import Path
from PIL import Image

src, dst, size = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
dst.mkdir(parents=True, exist_ok=True)
for p in src.glob("*.[jp][pn]g"):
    with Image.open(p) as im:
        im.thumbnail((size, size))
        im.save(dst / (p.stem + ".webp"), quality=80)
