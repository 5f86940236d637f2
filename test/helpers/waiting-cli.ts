/*
 * The `timetrack` command line in a process of its own that waits for a word before it runs: its
 * modules are loaded first, then it prints `ready` and waits for a line on standard input, then
 * runs the command (argv) against DATABASE_PATH as bin/timetrack.js would. Two of them, told to
 * go at the same moment, race for one database file (test/process/invoice-cli.test.ts).
 */
import { once } from 'node:events';
import { main } from '../../src/main.js';

// What main() loads for a command, loaded now: after the word, the race starts at once.
await Promise.all([
  import('../../src/cli/database.js'),
  import('../../src/cli/main.js'),
  import('../../src/db/database.js'),
  import('../../src/services.js'),
  import('../../src/secret-key.js'),
]);
process.stderr.write('ready\n');
await once(process.stdin, 'data');
process.exitCode = await main(process.argv.slice(2), process.env);
process.stdin.destroy();
