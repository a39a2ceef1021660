const { execFileSync } = require('node:child_process');
const files = execFileSync('git', ['diff', '--name-only', 'origin/main...HEAD'], { encoding: 'utf8' })
  .split('\n').filter((f) => /\.(js|ts|tsx)$/.test(f));
console.log(files.join(' '));
