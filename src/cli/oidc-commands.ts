import { OPERATOR } from '../principal.js';
import { type Command, command, ReportedFailure } from './command.js';

/** `oidc test` as a person reads it: each problem and note a sentence, then the addresses to register. */
function human(result: Record<string, unknown>): string {
  const lines: string[] = [];
  const problems = result.problems as string[];
  const notes = result.notes as string[];
  lines.push(problems.length === 0 ? `OK: ${String(result.issuer)} fits this server's settings.` : `Not usable: ${String(result.issuer)}`);
  for (const problem of problems) lines.push(`  problem: ${problem}`);
  for (const note of notes) lines.push(`  note: ${note}`);
  lines.push('Register these with the provider:');
  lines.push(`  redirect URI:             ${String(result.redirectUri)}`);
  lines.push(`  post-logout redirect URI: ${String(result.postLogoutRedirectUri)}`);
  lines.push(`  back-channel logout URI:  ${String(result.backchannelLogoutUri)}`);
  return `${lines.join('\n')}\n`;
}

/** `oidc …`: the identity provider. */
export const oidcCommands: Record<string, Command> = {
  'oidc test': {
    ...command(
      'oidc test',
      "Check OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET against the identity provider's discovery document and token endpoint, and print what is wrong.",
      {},
      0,
      async (_v, _p, s) => {
        const result = await s.oidc.test(OPERATOR);
        if (!result.ok) throw new ReportedFailure(result, result.problems.join(' '));
        return result;
      },
    ),
    human,
  },
};
