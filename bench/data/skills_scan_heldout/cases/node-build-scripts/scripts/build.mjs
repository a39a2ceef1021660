import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (cmd) => {
  console.log(`$ ${cmd}`);
  execSync(cmd, { stdio: 'inherit', env: { ...process.env, CI: '1' } });
};

if (!existsSync('node_modules')) run('npm ci');
run('npm run lint');
run('npm run build');
