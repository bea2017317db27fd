#!/usr/bin/env node
// The installed `vigil` command: runs the compiled CLI (built by `npm install` through `prepare`).
import '../dist/cli/main.js';
