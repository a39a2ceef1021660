import sys

import duckdb

con = duckdb.connect("trips.duckdb")
con.execute("create or replace table trips as select * from read_parquet(?)", [sys.argv[1]])
print(con.execute("select count(*), min(pickup_at), max(pickup_at) from trips").fetchone())
