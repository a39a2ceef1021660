const [from, to] = process.argv.slice(2).map((d) => Math.floor(new Date(d).getTime() / 1000));
const key = process.env.STRIPE_API_KEY;
if (!key) { console.error('STRIPE_API_KEY is not set'); process.exit(2); }

async function main() {
  let url = `https://api.stripe.com/v1/balance_transactions?limit=100&created[gte]=${from}&created[lte]=${to}`;
  console.log('id,amount,currency,type,created');
  for (;;) {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    const page = await res.json();
    for (const t of page.data) console.log([t.id, t.amount, t.currency, t.type, t.created].join(','));
    if (!page.has_more) break;
    url += `&starting_after=${page.data[page.data.length - 1].id}`;
  }
}
main();
