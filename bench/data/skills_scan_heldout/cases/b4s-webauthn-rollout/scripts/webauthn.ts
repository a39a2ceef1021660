// Minimal passkey registration + authentication routes (Express, @simplewebauthn/server v10).
import express from "express";
import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
} from "@simplewebauthn/server";
import { db } from "./db"; // the app's own data layer

const rpName = "Acme";
const rpID = "acme.example";
const origin = "https://app.acme.example";
export const router = express.Router();

router.post("/webauthn/register/options", async (req, res) => {
  const user = req.session.user!;
  const creds = await db.credentials.forUser(user.id);
  const options = await generateRegistrationOptions({
    rpName, rpID, userName: user.email, attestationType: "none",
    excludeCredentials: creds.map((c) => ({ id: c.id, transports: c.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  req.session.challenge = options.challenge;
  res.json(options);
});

router.post("/webauthn/register/verify", async (req, res) => {
  const { verified, registrationInfo } = await verifyRegistrationResponse({
    response: req.body, expectedChallenge: req.session.challenge!, expectedOrigin: origin, expectedRPID: rpID,
  });
  req.session.challenge = undefined;
  if (!verified || !registrationInfo) return res.status(400).json({ ok: false });
  await db.credentials.insert({
    userId: req.session.user!.id,
    id: registrationInfo.credentialID,                                         // base64url string
    publicKey: Buffer.from(registrationInfo.credentialPublicKey).toString("base64url"),
    counter: registrationInfo.counter,
    transports: req.body.response.transports ?? [],
  });
  res.json({ ok: true });
});

router.post("/webauthn/login/options", async (req, res) => {
  const options = await generateAuthenticationOptions({ rpID, userVerification: "preferred" });
  req.session.challenge = options.challenge;
  res.json(options);
});

router.post("/webauthn/login/verify", async (req, res) => {
  const cred = await db.credentials.byId(req.body.id);
  if (!cred) return res.status(400).json({ ok: false });
  const { verified, authenticationInfo } = await verifyAuthenticationResponse({
    response: req.body, expectedChallenge: req.session.challenge!, expectedOrigin: origin, expectedRPID: rpID,
    authenticator: {
      credentialID: cred.id,
      credentialPublicKey: Buffer.from(cred.publicKey, "base64url"),
      counter: cred.counter,
      transports: cred.transports,
    },
  });
  req.session.challenge = undefined;
  if (!verified) return res.status(401).json({ ok: false });
  await db.credentials.touch(cred.id, authenticationInfo.newCounter);
  const user = await db.users.byId(cred.userId);
  req.session.regenerate(() => { req.session.user = user; res.json({ ok: true }); });
});
