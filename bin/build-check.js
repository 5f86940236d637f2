// Whether dist/ (the compiled server and command line, built by `npm run build`, which
// `npm install` runs as its prepare step) is current: every source file under src/ and
// generated/ has a compiled file at least as new, and the bundle `npm start` and `timetrack` run
// (dist/bundle/, made from the compiled files: scripts/bundle.ts) is newer than every source.
// Plain JavaScript: it runs before any build.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's entry, what `npm start` and `timetrack` run. */
export const BUNDLE_ENTRY = join('dist', 'bundle', 'main.js');

/** Why dist/ cannot be used (a sentence naming the file), or null when it is current. */
export function staleBuild(base = root) {
  let bundled = null;
  for (const folder of ['src', 'generated']) {
    for (const source of sources(join(base, folder))) {
      const compiled = join(base, 'dist', relative(base, source)).replace(/\.ts$/, '.js');
      let built;
      try {
        built = statSync(compiled).mtimeMs;
      } catch {
        return `${relative(base, compiled)} is missing`;
      }
      const changed = statSync(source).mtimeMs;
      if (changed > built) return `${relative(base, source)} is newer than ${relative(base, compiled)}`;
      try {
        bundled ??= statSync(join(base, BUNDLE_ENTRY)).mtimeMs;
      } catch {
        return `${BUNDLE_ENTRY} is missing`;
      }
      if (changed > bundled) return `${relative(base, source)} is newer than ${BUNDLE_ENTRY}`;
    }
  }
  return null;
}

/**
 * Why dist/api-reference.html (the API reference `npm run build` renders from the contract,
 * served at /api/reference) cannot be used: missing, or older than openapi/openapi.yaml; null
 * when current. Separate from staleBuild: the command line does not need it.
 */
export function staleReference(base = root) {
  const contract = join(base, 'openapi', 'openapi.yaml');
  const reference = join(base, 'dist', 'api-reference.html');
  let built;
  try {
    built = statSync(reference).mtimeMs;
  } catch {
    return `${relative(base, reference)} is missing`;
  }
  if (statSync(contract).mtimeMs > built) return `${relative(base, contract)} is newer than ${relative(base, reference)}`;
  return null;
}

function* sources(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) yield path;
  }
}
