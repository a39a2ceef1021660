// Look up file hashes, IPs and domains on VirusTotal (API v3). Hashes only; no uploads.
// Usage: VT_API_KEY=... npx tsx vt-lookup.ts <hash|ip|domain> [...]

const key = process.env.VT_API_KEY;
if (!key) {
  console.error("VT_API_KEY is not set");
  process.exit(2);
}

type Kind = "files" | "ip_addresses" | "domains";

function kindOf(obs: string): Kind {
  if (/^[a-f0-9]{32}$|^[a-f0-9]{40}$|^[a-f0-9]{64}$/i.test(obs)) return "files";
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(obs) || obs.includes(":")) return "ip_addresses";
  return "domains";
}

async function lookup(obs: string): Promise<string> {
  const kind = kindOf(obs);
  const res = await fetch(`https://www.virustotal.com/api/v3/${kind}/${encodeURIComponent(obs)}`, {
    headers: { "x-apikey": key as string, accept: "application/json" },
  });
  if (res.status === 404) return `${obs}\t${kind}\tnot found on VT`;
  if (res.status === 429) return `${obs}\t${kind}\trate limited, retry in a minute`;
  if (!res.ok) return `${obs}\t${kind}\tHTTP ${res.status}`;
  const attrs = (await res.json()).data?.attributes ?? {};
  const s = attrs.last_analysis_stats ?? {};
  const extra =
    kind === "files"
      ? `name=${attrs.meaningful_name ?? "?"} type=${attrs.type_description ?? "?"}`
      : kind === "ip_addresses"
      ? `asn=${attrs.asn ?? "?"} owner=${attrs.as_owner ?? "?"} country=${attrs.country ?? "?"}`
      : `registrar=${attrs.registrar ?? "?"} created=${attrs.creation_date ? new Date(attrs.creation_date * 1000).toISOString().slice(0, 10) : "?"}`;
  return `${obs}\t${kind}\tmalicious=${s.malicious ?? 0} suspicious=${s.suspicious ?? 0} harmless=${s.harmless ?? 0}\t${extra}`;
}

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("give at least one hash, IP or domain");
  process.exit(2);
}
for (const obs of args) {
  console.log(await lookup(obs.trim()));
  // Public API allows 4 requests/minute.
  if (args.length > 1) await new Promise((r) => setTimeout(r, 15_000));
}
