// Loaded by `npm start` (node --import) before the server: refuses to start a build that is
// missing or older than the sources (or whose API reference is older than the contract), instead
// of serving old code.
import { staleBuild, staleReference } from './build-check.js';

const reason = staleBuild() ?? staleReference();
if (reason !== null) {
  process.stderr.write(
    `timetrack: the compiled server in dist/ is out of date (${reason}). Run \`npm install\` (or \`npm run build\`) first.\n`,
  );
  process.exit(78);
}
