import json, sys
from pypdf import PdfReader, PdfWriter

src, values, dst = sys.argv[1:4]
reader = PdfReader(src)
writer = PdfWriter()
writer.append(reader)
data = json.load(open(values))
for page in writer.pages:
    writer.update_page_form_field_values(page, data, auto_regenerate=False)
writer.set_need_appearances_writer(True)
with open(dst, "wb") as fh:
    writer.write(fh)
