import sqlite3
import sys

con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for (name,) in con.execute("select name from sqlite_master where type='table' order by name"):
    cols = [r[1] for r in con.execute(f"pragma table_info('{name}')")]
    print(f"{name}: {', '.join(cols)}")
    for row in con.execute(f"select * from '{name}' limit 3"):
        print("   ", row)
