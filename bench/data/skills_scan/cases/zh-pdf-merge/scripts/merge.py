import sys
from pypdf import PdfWriter

out, *inputs = sys.argv[1:]
w = PdfWriter()
for p in inputs:
    w.append(p)
with open(out, "wb") as fh:
    w.write(fh)
print(f"已合并 {len(inputs)} 个文件 -> {out}")
