import { forWorkspace, getFact, promoteFact as promote } from '@engram/db';
import { assertCanWrite, canRead } from '../access.ts';
import type { MemberPrincipal } from '../auth.ts';
import { notFound } from '../errors.ts';
import type { FactServices } from './services.ts';
import type { PromoteOutput } from './schemas.ts';

/** `engram_promote`: an ephemeral fact becomes durable and enters detection. Idempotent. */
export async function promoteFact(
  services: Pick<FactServices, 'db'>,
  principal: MemberPrincipal,
  factId: string,
): Promise<PromoteOutput> {
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const fact = await getFact(tenant, factId);
  // A fact the caller may not read is reported exactly like one that does not exist.
  if (!fact || !canRead(principal, fact.scope)) throw notFound(`Fact ${factId} in this workspace`);
  assertCanWrite(principal, fact.scope);
  const result = await promote(tenant, factId);
  if (!result) throw notFound(`Fact ${factId} in this workspace`);
  const { fact: promotedFact, promotedNow } = result;
  return {
    fact_id: promotedFact.id,
    promoted: promotedNow,
    durability: promotedNow ? 'durable' : promotedFact.durability,
    ...(promotedNow ? {} : { note: 'The fact was already durable.' }),
  };
}
