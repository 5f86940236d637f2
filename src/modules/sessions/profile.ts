import type { Write } from '../../db/write.js';
import { words } from '../../i18n/index.js';
import { DomainError } from '../../errors.js';
import { isOperator, type Principal } from '../../principal.js';
import type { ProfileInput } from '../accounts/service.js';
import { sessionErrors as errors } from './errors.js';
import { verifyPassword } from './password.js';
import type { SessionAccounts } from './ports.js';

/** A member's own profile, where a password guards the sign-in email, and mail's confirmation when set up (part of the sessions service). */
export function createProfileUpdates({
  accounts,
  write,
  askEmailChange,
  endResets,
}: {
  accounts: SessionAccounts;
  write: Write<never>;
  /** Inside the write: the account's unused reset links end (its sign-in email changed: L1). */
  endResets: (userId: string) => void;
  /** Inside the write: mails the new address its link and says so (false when mail is off). */
  askEmailChange: (userId: string, email: string, workspaceId: string | null) => boolean;
}) {
  return {
    /**
     * A member's own profile (the web app's Profile form) in one write: name, zone and first
     * day, and the sign-in email, which changes only with their current password (decisions §8a:
     * an email is not proven by typing it; a taken one is refused without saying by whom). With
     * mail set up, a new email waits for the link mailed to it (`emailPending`).
     */
    async updateProfile(principal: Principal, input: ProfileInput & { currentPassword: string }): Promise<{ emailPending: string | null }> {
      if (isOperator(principal)) throw errors.userNotFound('operator');
      accounts.checkProfile(input);
      const stored = accounts.userOf(principal.userId);
      if (!stored) throw errors.userNotFound(principal.userId);
      const changing = input.email.trim().toLowerCase() !== stored.email.toLowerCase();
      if (changing) {
        if (input.currentPassword === '')
          throw new DomainError('invalid', 'current password: your current password is needed to change your sign-in email.', {
            field: 'current',
            words: words('accounts.refused.emailNeedsPassword'),
          });
        const hash = accounts.passwordHashOf(principal.userId);
        if (hash === null || !(await verifyPassword(input.currentPassword, hash)))
          throw new DomainError('invalid', 'current password: that is not your current password.', {
            field: 'current',
            words: words('accounts.refused.wrongPassword'),
          });
      }
      return write(() => {
        accounts.setProfile(principal, principal.userId, { ...input, email: stored.email });
        if (!changing) return { emailPending: null };
        const email = input.email.trim();
        // Refused here already when another account holds it (without saying which), and again when confirmed.
        accounts.checkEmailFree(principal.userId, email);
        // With mail set up, the change waits for the link sent to the new address (decisions §8a).
        if (askEmailChange(principal.userId, email, principal.workspaceId)) return { emailPending: email };
        accounts.storeEmail(principal.userId, email, false);
        endResets(principal.userId);
        return { emailPending: null };
      });
    },
  };
}
