import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How `npm start` runs the server, read from package.json so the benchmarks run it exactly so:
 * `exec env NAME=value … node FLAGS… SCRIPT`. Returns node's arguments and the environment the
 * script sets (the allocator's settings, docs/operations.md); the benchmarks add their own.
 */
export function startCommand(root: string): { args: string[]; env: Record<string, string> } {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.trim().split(/\s+/);
  if (words[0] === 'exec') words.shift();
  const env: Record<string, string> = {};
  if (words[0] === 'env') {
    words.shift();
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)) {
      const [name, ...value] = (words.shift() as string).split('=');
      env[name as string] = value.join('=');
    }
  }
  if (words.shift() !== 'node' || words.length === 0) throw new Error(`cannot read the node command of npm start: ${start}`);
  return { args: words, env };
}
