const [repo, ...rest] = process.argv.slice(2);
const headers = {
  Authorization: `Bearer ${process.env.GITHUB_TOKEN}`,
  Accept: 'application/vnd.github+json',
};
const base = `https://api.github.com/repos/${repo}`;
if (rest[0] === '--label') {
  const [, label, ...numbers] = rest;
  for (const n of numbers) {
    await fetch(`${base}/issues/${n}/labels`, { method: 'POST', headers, body: JSON.stringify({ labels: [label] }) });
  }
} else {
  const issues = await (await fetch(`${base}/issues?state=open&per_page=50`, { headers })).json();
  for (const i of issues) console.log(`#${i.number} ${i.title}`);
}
