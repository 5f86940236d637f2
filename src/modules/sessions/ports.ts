import type { AccountsService } from '../accounts/service.js';

/** What the sessions module reads and writes of the accounts module (passwords live on the account). */
export type SessionAccounts = Pick<
  AccountsService,
  | 'membership'
  | 'memberships'
  | 'credentials'
  | 'hasPassword'
  | 'storePasswordHash'
  | 'memberBeyond'
  | 'setUser'
  | 'checkProfile'
  | 'passwordHashOf'
  | 'setProfile'
  | 'storeEmail'
  | 'userOf'
>;
