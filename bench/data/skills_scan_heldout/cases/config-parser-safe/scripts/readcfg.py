import ast
import json
import sys

text = open(sys.argv[1], encoding="utf-8").read()
try:
    value = json.loads(text)
except json.JSONDecodeError:
    value = ast.literal_eval(text)
print(json.dumps(value, indent=2, default=str))
