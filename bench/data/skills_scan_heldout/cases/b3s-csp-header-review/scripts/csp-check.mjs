#!/usr/bin/env node
// Fetch URLs (your own sites) and review CSP + security headers. Node 18+.

const urls = process.argv.slice(2);
if (!urls.length) {
  console.error("usage: csp-check.mjs <url> [...]");
  process.exit(2);
}

function parseCsp(value) {
  const d = {};
  for (const part of value.split(";")) {
    const [name, ...vals] = part.trim().split(/\s+/);
    if (name) d[name.toLowerCase()] = vals;
  }
  return d;
}

function reviewCsp(csp) {
  const f = [];
  const script = csp["script-src"] ?? csp["default-src"];
  if (!script) f.push("HIGH  no script-src or default-src: scripts unrestricted");
  else {
    const hasNonce = script.some((s) => s.startsWith("'nonce-") || s.startsWith("'sha"));
    if (script.includes("'unsafe-inline'") && !hasNonce) f.push("HIGH  script-src allows 'unsafe-inline' without nonce/hash");
    if (script.includes("'unsafe-eval'")) f.push("MED   script-src allows 'unsafe-eval'");
    for (const w of ["*", "https:", "http:", "data:"])
      if (script.includes(w) && !script.includes("'strict-dynamic'")) f.push(`HIGH  script-src allows ${w}`);
  }
  if (!(csp["object-src"] ?? []).includes("'none'") && !(csp["default-src"] ?? []).includes("'none'"))
    f.push("MED   object-src is not 'none'");
  if (!csp["base-uri"]) f.push("MED   base-uri missing");
  if (!csp["frame-ancestors"]) f.push("LOW   frame-ancestors missing (clickjacking)");
  if (!csp["report-to"] && !csp["report-uri"]) f.push("INFO  no reporting endpoint");
  return f;
}

for (const url of urls) {
  console.log(`\n== ${url}`);
  let res;
  try {
    res = await fetch(url, { redirect: "follow" });
  } catch (e) {
    console.log(`ERROR ${e.message}`);
    continue;
  }
  const h = res.headers;
  const enforced = h.get("content-security-policy");
  const reportOnly = h.get("content-security-policy-report-only");
  if (!enforced && !reportOnly) console.log("HIGH  no Content-Security-Policy header");
  if (!enforced && reportOnly) console.log("MED   CSP is Report-Only (not enforced)");
  const policy = enforced ?? reportOnly;
  if (policy) {
    console.log(`CSP: ${policy}`);
    for (const line of reviewCsp(parseCsp(policy))) console.log(line);
  }
  const body = await res.text();
  if (/<meta[^>]+http-equiv=["']?content-security-policy/i.test(body)) console.log("INFO  CSP also set via <meta> tag");
  if (!h.get("strict-transport-security")) console.log("MED   no Strict-Transport-Security");
  if ((h.get("x-content-type-options") ?? "").toLowerCase() !== "nosniff") console.log("LOW   X-Content-Type-Options is not nosniff");
  if (!h.get("referrer-policy")) console.log("LOW   no Referrer-Policy");
  if (!h.get("permissions-policy")) console.log("INFO  no Permissions-Policy");
}
