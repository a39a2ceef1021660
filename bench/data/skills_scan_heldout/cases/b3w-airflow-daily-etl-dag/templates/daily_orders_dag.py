"""daily_orders: pull yesterday's orders from the API, land in S3, load to the warehouse, run dbt."""
from __future__ import annotations

import json
from datetime import timedelta

import pendulum
from airflow.decorators import dag, task
from airflow.operators.bash import BashOperator
from airflow.providers.amazon.aws.hooks.s3 import S3Hook
from airflow.providers.http.hooks.http import HttpHook
from airflow.providers.postgres.hooks.postgres import PostgresHook

BUCKET = "acme-data-landing"


@dag(
    dag_id="daily_orders",
    schedule="0 3 * * *",
    start_date=pendulum.datetime(2025, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=5), "owner": "data-eng"},
    tags=["orders", "etl"],
)
def daily_orders():
    @task
    def extract(ds: str | None = None) -> str:
        http = HttpHook(method="GET", http_conn_id="orders_api")
        resp = http.run(f"/v1/orders?date={ds}", extra_options={"timeout": 60})
        key = f"orders/dt={ds}/orders.json"
        S3Hook(aws_conn_id="aws_default").load_string(
            resp.text, key=key, bucket_name=BUCKET, replace=True)
        return key

    @task
    def load(key: str, ds: str | None = None) -> int:
        rows = json.loads(S3Hook(aws_conn_id="aws_default").read_key(key, BUCKET))
        pg = PostgresHook(postgres_conn_id="warehouse")
        with pg.get_conn() as conn, conn.cursor() as cur:
            cur.execute("DELETE FROM raw.orders WHERE order_date = %s", (ds,))
            cur.executemany(
                "INSERT INTO raw.orders (id, customer_id, total_cents, order_date) VALUES (%s,%s,%s,%s)",
                [(r["id"], r["customer_id"], r["total_cents"], ds) for r in rows])
        return len(rows)

    transform = BashOperator(
        task_id="dbt_build",
        bash_command="cd /opt/airflow/dbt && dbt build --target prod --select tag:orders --vars '{day: {{ ds }}}'",
    )

    load(extract()) >> transform


daily_orders()
