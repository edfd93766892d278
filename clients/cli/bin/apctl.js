#!/usr/bin/env node
// The command is built to ../dist (by `npm ci` at the repository's root, or `npm pack` here).
import '../dist/apctl.js';
