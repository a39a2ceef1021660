import os
import sys

from dotenv import load_dotenv

load_dotenv()
missing = [k for k in ("OPENAI_API_KEY", "DATABASE_URL") if not os.environ.get(k)]
if missing:
    sys.exit("missing: " + ", ".join(missing))
print("environment ok")
