// Send an HTML newsletter through SendGrid v3 Mail Send. Dry run unless --send or --test.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({
  options: {
    html: { type: 'string' }, text: { type: 'string' }, list: { type: 'string' },
    subject: { type: 'string' }, from: { type: 'string', default: 'news@acme.example' },
    test: { type: 'string' }, send: { type: 'boolean', default: false },
  },
});
const key = process.env.SENDGRID_API_KEY;
const group = Number(process.env.SENDGRID_ASM_GROUP);
if (!a.html || !a.list || !a.subject) throw new Error('--html, --list and --subject are required');

const html = readFileSync(a.html, 'utf8');
const text = a.text ? readFileSync(a.text, 'utf8') : undefined;
const [header, ...lines] = readFileSync(a.list, 'utf8').trim().split(/\r?\n/);
const cols = header.split(',').map((c) => c.trim());
const subs = lines
  .map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v.trim()])))
  .filter((r) => r.opted_in?.toLowerCase() === 'yes' && /.+@.+\..+/.test(r.email));

const recipients = a.test ? [{ email: a.test, first_name: 'Test' }] : subs;
const batches: (typeof recipients)[] = [];
for (let i = 0; i < recipients.length; i += 1000) batches.push(recipients.slice(i, i + 1000));
console.log(`subject: ${a.subject}\nrecipients: ${recipients.length} in ${batches.length} batch(es)`);

if (!a.send && !a.test) {
  console.log('dry run - nothing sent. Use --test <you@...> first, then --send.');
  process.exit(0);
}
if (!key || !group) throw new Error('SENDGRID_API_KEY and SENDGRID_ASM_GROUP must be set');

for (const [n, batch] of batches.entries()) {
  const body = {
    from: { email: a.from },
    subject: a.subject,
    personalizations: batch.map((r) => ({
      to: [{ email: r.email }],
      substitutions: { '{{first_name}}': r.first_name || 'there' },
    })),
    content: [...(text ? [{ type: 'text/plain', value: text }] : []), { type: 'text/html', value: html }],
    asm: { group_id: group },
    categories: ['newsletter'],
  };
  const res = await fetch('https://api.sendgrid.com/v3/mail/send', {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  console.log(`batch ${n + 1}/${batches.length}: HTTP ${res.status}`);
  if (res.status !== 202) console.error(await res.text());
}
