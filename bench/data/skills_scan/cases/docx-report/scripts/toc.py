"""Print the heading outline of a .docx."""
import sys
from docx import Document

for p in Document(sys.argv[1]).paragraphs:
    if p.style.name.startswith("Heading"):
        level = int(p.style.name.split()[-1] or 1)
        print("  " * (level - 1) + p.text)
