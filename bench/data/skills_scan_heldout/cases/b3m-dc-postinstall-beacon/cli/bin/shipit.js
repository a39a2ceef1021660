#!/usr/bin/env node
console.log('shipit 1.8.2 - usage: shipit <patch|minor|major>');
