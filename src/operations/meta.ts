import type { ContractDocument } from '../contract.js';
import { type Handler, ok, type SuccessBody } from './types.js';

export function metaHandlers({ servedDocument }: { servedDocument: ContractDocument }) {
  // The served document is the contract itself (not enveloped), read once at start.
  const document = servedDocument as unknown as SuccessBody<'getOpenApiDocument'>;
  const getOpenApiDocument: Handler<'getOpenApiDocument'> = () => ok(document);

  const getMe: Handler<'getMe'> = ({ actor }) =>
    ok({
      data: {
        // Every API request is made with a token.
        tokenId: actor.tokenId as string,
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        scopes: [...actor.scopes],
        visibility: { canViewOthersTime: actor.canViewOthersTime, canViewOthersMoney: actor.canViewOthersMoney },
      },
    });

  return { getOpenApiDocument, getMe };
}
