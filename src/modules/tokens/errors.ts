import { DomainError, notFound } from '../../errors.js';

/** The refusals of the tokens module, worded once. */
export const tokenErrors = {
  notFound: (id: string) => notFound(`Token ${id}`),
  /** A member asked about a token that is not theirs (or none): they learn nothing of it. */
  notYours: () => new DomainError('not_found', 'That token was not found among yours.'),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  tooMany: (active: number) =>
    new DomainError(
      'conflict',
      `You hold ${active} active tokens, the most a member may (TOKENS_PER_MEMBER): revoke one you no longer use, then mint again.`,
    ),
};
