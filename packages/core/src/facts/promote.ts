import { forWorkspace, promoteFact as promote } from '@engram/db';
import type { MemberPrincipal } from '../auth.ts';
import { notFound } from '../errors.ts';
import type { FactServices } from './commit.ts';
import type { PromoteOutput } from './schemas.ts';

/** `engram_promote`: an ephemeral fact becomes durable and enters detection. Idempotent. */
export async function promoteFact(
  services: Pick<FactServices, 'db'>,
  principal: MemberPrincipal,
  factId: string,
): Promise<PromoteOutput> {
  const tenant = forWorkspace(services.db, principal.workspaceId);
  const result = await promote(tenant, factId);
  if (!result) throw notFound(`Fact ${factId} in this workspace`);
  const { fact, promotedNow } = result;
  return {
    fact_id: fact.id,
    promoted: promotedNow,
    durability: promotedNow ? 'durable' : fact.durability,
    ...(promotedNow ? {} : { note: 'The fact was already durable.' }),
  };
}
