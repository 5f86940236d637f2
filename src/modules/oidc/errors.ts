import { DomainError } from '../../errors.js';
import { type Key, translator, type Vars, type Words, words } from '../../i18n/index.js';

/**
 * Why a person who signed in at the identity provider is not let in here, in words they can
 * hand to whoever can help (the provider's administrator, or an owner here). `reason` is the
 * stable name the log carries.
 */
export class OidcRefusal extends DomainError {
  constructor(
    readonly reason:
      | 'no-email'
      | 'unverified-email'
      | 'unknown-person'
      | 'account-closed'
      | 'no-workspace'
      | 'bound-elsewhere'
      | 'not-allowed'
      | 'address-unproved',
    message: string,
    words?: Words,
  ) {
    super('forbidden', message, words === undefined ? {} : { words });
  }
}

/** A refusal of the way back: its words by key (the sign-in page says them in its reader's language), its English message the same key said in English. */
const refusal = (reason: OidcRefusal['reason'], key: Key, vars?: Vars) =>
  new OidcRefusal(reason, translator('en')(key, vars), words(key, vars));

/** The way back's other failures (not let in, not checked, not reached), in English and by key: what the sign-in page says. */
export const said = (key: Key, vars?: Vars): { message: string; words: Words } => ({
  message: translator('en')(key, vars),
  words: words(key, vars),
});

/** The refusals of the oidc module, worded once. */
export const oidcErrors = {
  noEmail: (provider: string) => refusal('no-email', 'oidc.refused.noEmail', { provider }),
  unverifiedEmail: (provider: string, email: string) => refusal('unverified-email', 'oidc.refused.unverifiedEmail', { provider, email }),
  unknownPerson: (email: string, domain: string) => refusal('unknown-person', 'oidc.refused.unknownPerson', { email, domain }),
  accountClosed: () => refusal('account-closed', 'oidc.refused.accountClosed'),
  noWorkspace: () => refusal('no-workspace', 'oidc.refused.noWorkspace'),
  boundElsewhere: (provider: string, email: string) => refusal('bound-elsewhere', 'oidc.refused.boundElsewhere', { provider, email }),
  /** An account in no workspace bound to the provider, whose address changed since and nobody proved (N1): no lobby. */
  addressUnproved: (email: string) => refusal('address-unproved', 'oidc.refused.addressUnproved', { email }),
  notAllowed: (provider: string) => refusal('not-allowed', 'oidc.refused.notAllowed', { provider }),
};
