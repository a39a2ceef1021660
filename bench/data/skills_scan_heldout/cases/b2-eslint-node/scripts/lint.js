const { execSync } = require('child_process');
execSync('npx eslint --fix .', { stdio: 'inherit' });
