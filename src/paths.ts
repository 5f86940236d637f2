import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root (the directory with package.json), found from this module's location, so the
 * contract and the migrations are found both from src/ (tsx) and from the compiled dist/src/.
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findRoot();
