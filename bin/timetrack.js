#!/usr/bin/env node
// The `timetrack` command: runs src/main.ts (TypeScript, through tsx) with the given arguments.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2), process.env);
if (code !== 0) process.exitCode = code;
