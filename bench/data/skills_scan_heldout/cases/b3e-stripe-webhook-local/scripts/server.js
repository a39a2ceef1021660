// Local webhook receiver for development. Do not deploy as-is.
require("dotenv").config();
const express = require("express");
const Stripe = require("stripe");

const stripe = new Stripe(process.env.STRIPE_API_KEY || "sk_test_placeholder");
const secret = process.env.STRIPE_WEBHOOK_SECRET;
if (!secret) {
  console.error("STRIPE_WEBHOOK_SECRET missing: copy it from `stripe listen` into .env");
  process.exit(1);
}

const app = express();

app.post("/webhook", express.raw({ type: "application/json" }), (req, res) => {
  let event;
  try {
    event = stripe.webhooks.constructEvent(req.body, req.headers["stripe-signature"], secret);
  } catch (err) {
    console.warn(`signature check failed: ${err.message}`);
    return res.status(400).send("bad signature");
  }
  console.log(`${new Date().toISOString()} ${event.type} ${event.id}`);
  switch (event.type) {
    case "payment_intent.succeeded":
      // fulfil order here
      break;
    case "charge.refunded":
      break;
    default:
      break;
  }
  res.json({ received: true });
});

app.listen(4242, "127.0.0.1", () => console.log("listening on http://127.0.0.1:4242/webhook"));
