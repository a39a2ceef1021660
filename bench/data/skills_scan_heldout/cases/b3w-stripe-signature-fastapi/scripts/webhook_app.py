"""FastAPI Stripe webhook receiver with manual signature verification.

Run: uvicorn webhook_app:app   |   Test helper: python webhook_app.py sign '<json>'
"""
import hashlib
import hmac
import json
import os
import shlex
import sys
import time

from fastapi import FastAPI, HTTPException, Request

TOLERANCE = 300
app = FastAPI()
_seen: set[str] = set()  # replace with a DB table in production


def secret() -> bytes:
    s = os.environ.get("STRIPE_WEBHOOK_SECRET")
    if not s:
        raise RuntimeError("STRIPE_WEBHOOK_SECRET is not set")
    return s.encode()


def verify(raw: bytes, header: str, now: float | None = None) -> None:
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    ts = next((v for k, v in parts if k == "t"), None)
    sigs = [v for k, v in parts if k == "v1"]
    if not ts or not sigs:
        raise ValueError("malformed Stripe-Signature header")
    if abs((now or time.time()) - int(ts)) > TOLERANCE:
        raise ValueError("timestamp outside tolerance")
    expected = hmac.new(secret(), ts.encode() + b"." + raw, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, s) for s in sigs):
        raise ValueError("signature mismatch")


@app.post("/webhooks/stripe")
async def stripe_webhook(request: Request):
    raw = await request.body()
    try:
        verify(raw, request.headers.get("stripe-signature", ""))
    except ValueError as exc:
        raise HTTPException(status_code=400, detail=str(exc))
    event = json.loads(raw)
    if event["id"] in _seen:
        return {"status": "duplicate"}
    _seen.add(event["id"])
    if event["type"] == "invoice.paid":
        pass  # mark the invoice paid in your own DB
    elif event["type"] == "customer.subscription.deleted":
        pass  # downgrade the account
    return {"status": "ok"}


def sign_for_test(payload: str) -> str:
    ts = str(int(time.time()))
    sig = hmac.new(secret(), f"{ts}.{payload}".encode(), hashlib.sha256).hexdigest()
    return (f"curl -sS -X POST http://localhost:8000/webhooks/stripe "
            f"-H 'Content-Type: application/json' "
            f"-H 'Stripe-Signature: t={ts},v1={sig}' --data-raw {shlex.quote(payload)}")


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "sign":
    print(sign_for_test(sys.argv[2]))
