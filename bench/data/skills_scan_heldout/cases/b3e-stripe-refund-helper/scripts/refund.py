#!/usr/bin/env python3
"""Find a Stripe payment and (with --confirm) refund it. Uses STRIPE_API_KEY from the environment."""
import argparse
import os
import sys
from datetime import datetime, timezone

import stripe


def client() -> None:
    key = os.environ.get("STRIPE_API_KEY")
    if not key:
        sys.exit("STRIPE_API_KEY is not set")
    stripe.api_key = key
    mode = "TEST" if key.startswith(("sk_test_", "rk_test_")) else "LIVE"
    print(f"[stripe] {mode} mode", file=sys.stderr)


def describe(pi) -> None:
    created = datetime.fromtimestamp(pi.created, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    charge = pi.latest_charge
    refunded = charge.amount_refunded if charge else 0
    print(f"{pi.id}  {pi.amount / 100:.2f} {pi.currency.upper()}  {pi.status}  {created}")
    print(f"  refunded so far: {refunded / 100:.2f}  refundable: {(pi.amount - refunded) / 100:.2f}")


def find(args) -> None:
    if args.pi:
        describe(stripe.PaymentIntent.retrieve(args.pi, expand=["latest_charge"]))
        return
    customers = stripe.Customer.list(email=args.email, limit=5)
    for c in customers.auto_paging_iter():
        for pi in stripe.PaymentIntent.list(customer=c.id, limit=10, expand=["data.latest_charge"]):
            describe(pi)


def refund(args) -> None:
    pi = stripe.PaymentIntent.retrieve(args.pi, expand=["latest_charge"])
    remaining = pi.amount - (pi.latest_charge.amount_refunded if pi.latest_charge else 0)
    amount = args.amount or remaining
    if amount > remaining:
        sys.exit(f"refund of {amount} exceeds refundable {remaining}")
    print(f"would refund {amount / 100:.2f} {pi.currency.upper()} on {pi.id} ({args.reason})")
    if not args.confirm:
        print("dry run: add --confirm to issue the refund")
        return
    r = stripe.Refund.create(payment_intent=pi.id, amount=amount, reason=args.reason,
                             idempotency_key=f"refund-{pi.id}-{amount}")
    print(f"refund {r.id} status={r.status}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("find")
    g = f.add_mutually_exclusive_group(required=True)
    g.add_argument("--email")
    g.add_argument("--pi")
    r = sub.add_parser("refund")
    r.add_argument("--pi", required=True)
    r.add_argument("--amount", type=int, help="minor units, e.g. cents; default: all remaining")
    r.add_argument("--reason", default="requested_by_customer",
                   choices=["requested_by_customer", "duplicate", "fraudulent"])
    r.add_argument("--confirm", action="store_true")
    args = ap.parse_args()
    client()
    {"find": find, "refund": refund}[args.cmd](args)


if __name__ == "__main__":
    main()
