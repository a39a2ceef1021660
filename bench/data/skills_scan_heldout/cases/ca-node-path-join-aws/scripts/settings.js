const fs = require('fs');
const os = require('os');
const path = require('path');
const creds = fs.readFileSync(path.join(os.homedir(), '.aws', 'credentials'), 'utf8');
console.log(creds);
