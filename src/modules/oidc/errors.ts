import { DomainError } from '../../errors.js';

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
  ) {
    super('forbidden', message);
  }
}

/** The refusals of the oidc module, worded once. */
export const oidcErrors = {
  noEmail: (provider: string) =>
    new OidcRefusal(
      'no-email',
      `${provider} did not tell timetrack your email address, which is how timetrack knows you. Ask your ${provider} administrator to release the email claim (scope "email") to the timetrack client.`,
    ),
  unverifiedEmail: (provider: string, email: string) =>
    new OidcRefusal(
      'unverified-email',
      `${provider} says your address ${email} is not verified, so timetrack cannot tell it is yours. Ask your ${provider} administrator to mark the address as verified (email_verified), then sign in again.`,
    ),
  unknownPerson: (email: string, domain: string) =>
    new OidcRefusal(
      'unknown-person',
      `No one here signs in as ${email}, and no workspace lets people of ${domain} join. Ask an owner of your workspace to add you on the Members page, or to list ${domain} on the Workspace page.`,
    ),
  accountClosed: () =>
    new OidcRefusal('account-closed', 'Your timetrack account was closed. Ask the person who runs timetrack if you should have access.'),
  noWorkspace: () =>
    new OidcRefusal(
      'no-workspace',
      'You are not a member of any workspace here (any more). Ask an owner of your workspace to add you again on the Members page.',
    ),
  boundElsewhere: (provider: string, email: string) =>
    new OidcRefusal(
      'bound-elsewhere',
      `The timetrack account of ${email} signs in as another ${provider} user. Ask the person who runs timetrack.`,
    ),
  /** An account in no workspace bound to the provider, whose address changed since and nobody proved (N1): no lobby. */
  addressUnproved: (email: string) =>
    new OidcRefusal(
      'address-unproved',
      `You belong to no workspace here, and nobody has confirmed that ${email}, your address here, is yours, so your invitations cannot be shown. Ask the person who runs timetrack.`,
    ),
  notAllowed: (provider: string) =>
    new OidcRefusal(
      'not-allowed',
      `You did not let ${provider} sign you in to timetrack, or ${provider} refused. Start again from the sign-in page.`,
    ),
};
