#!/usr/bin/env node
// The `timetrack` command: runs the compiled command line (the bundle dist/bundle/main.js, built
// at install) with the given arguments. From a working copy whose sources changed since the
// build, it runs them through tsx instead (slower to start, the same behaviour).
import { staleBuild } from './build-check.js';

let main;
if (staleBuild() === null) {
  ({ main } = await import('../dist/bundle/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
const code = await main(process.argv.slice(2), process.env);
if (code !== 0) process.exitCode = code;
