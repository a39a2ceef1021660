import sys
import unicodedata

INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u00ad\ufeff"))
text = open(sys.argv[1], encoding="utf-8").read()
text = unicodedata.normalize("NFKC", text.translate(INVISIBLE)).replace("\u00a0", " ")
sys.stdout.write(text)
