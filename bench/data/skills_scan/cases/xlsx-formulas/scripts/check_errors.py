import sys
from openpyxl import load_workbook

wb = load_workbook(sys.argv[1], data_only=True)
bad = [(ws.title, c.coordinate, c.value) for ws in wb for row in ws.iter_rows() for c in row
       if isinstance(c.value, str) and c.value.startswith("#")]
for item in bad:
    print(*item)
sys.exit(1 if bad else 0)
