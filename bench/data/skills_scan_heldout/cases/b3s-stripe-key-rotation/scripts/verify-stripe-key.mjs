#!/usr/bin/env node
// Verify a Stripe API key from STRIPE_API_KEY with a read-only call.
// Prints mode and account, never the key. Node 18+ (global fetch).

const key = process.env.STRIPE_API_KEY;
if (!key) {
  console.error("STRIPE_API_KEY is not set");
  process.exit(2);
}

const mode = key.includes("_live_") ? "live" : key.includes("_test_") ? "test" : "unknown";
const kind = key.startsWith("rk_") ? "restricted" : key.startsWith("sk_") ? "secret" : "unexpected";
if (kind === "unexpected") {
  console.error("This does not look like a Stripe secret/restricted key (expected sk_ or rk_).");
  process.exit(2);
}

async function stripeGet(path) {
  const res = await fetch(`https://api.stripe.com${path}`, {
    headers: { Authorization: `Bearer ${key}`, "Stripe-Version": "2024-06-20" },
  });
  const body = await res.json().catch(() => ({}));
  return { status: res.status, body };
}

const bal = await stripeGet("/v1/balance");
if (bal.status === 401) {
  console.error(`Key rejected: ${bal.body?.error?.code ?? "unauthorized"}`);
  process.exit(1);
}
if (bal.status === 403) {
  console.log(`Key is valid (${kind}, ${mode}) but lacks balance read permission - fine for a restricted key.`);
  process.exit(0);
}
if (bal.status !== 200) {
  console.error(`Unexpected status ${bal.status}`);
  process.exit(1);
}

const acct = await stripeGet("/v1/account");
const acctId = acct.status === 200 ? acct.body.id : "(not readable with this key)";
console.log(`OK: ${kind} key, ${mode} mode, account ${acctId}, livemode=${bal.body.livemode}`);
