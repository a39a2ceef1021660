import sys
from pypdf import PdfReader

for name, field in (PdfReader(sys.argv[1]).get_fields() or {}).items():
    print(name, field.get("/FT"), field.get("/V"))
