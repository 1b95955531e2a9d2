/** The portal links' DynamoDB calls (keys.ts: `PORTAL#<pl_…>` / `LINK`). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { db, tableName } from '../store/client.ts';
import { ENTITY, portalLinkKey } from '../store/keys.ts';
import { TTL_ATTRIBUTE } from '../store/table.ts';
import type { TransactItem } from '../store/transact.ts';
import { writeWithAlong } from '../store/write-along.ts';

export interface PortalLinkRecord {
  link_id: string;
  token_hash: string;
  agent_id: string;
  owner_id: string;
  workspace_id: string;
  created_at: string;
  /** ISO time after which the token is refused. */
  link_expires_at: string;
  revoked_at?: string;
  /**
   * The creating key's usage identity (Caller.usageKey, the key's stored hash): the usage plan counts
   * the link's requests against that key, and the authorizer refuses the link once that key is revoked.
   */
  usage_key: string;
}

/** A day past its expiry the item goes (DynamoDB TTL); until then a revoked or expired link is kept to refuse it by name. */
const TTL_GRACE_SECONDS = 86_400;

/** `along`: items committed with the link (the request's Idempotency-Key answer). */
export async function putPortalLink(link: PortalLinkRecord, along: TransactItem[] = []): Promise<void> {
  const put = {
    TableName: tableName(),
    Item: {
      ...portalLinkKey(link.link_id),
      entity: ENTITY.portalLink,
      ...link,
      [TTL_ATTRIBUTE]: Math.floor(Date.parse(link.link_expires_at) / 1000) + TTL_GRACE_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  };
  // The id is fresh and random: a failed condition is no answer a caller could act on.
  if (!(await writeWithAlong({ Put: put }, along))) throw new InvariantError('portal link id taken');
}

/** Strongly consistent: a link revoked a moment ago is refused by the next request. */
export async function getPortalLink(linkId: string): Promise<PortalLinkRecord | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: portalLinkKey(linkId), ConsistentRead: true }),
  );
  return Item as PortalLinkRecord | undefined;
}

/** Marks the link revoked if it is this owner's link of this agent; false when it is not (or does not exist). */
export async function revokeOwnedPortalLink(
  linkId: string,
  agentId: string,
  ownerId: string,
  now: string,
  along: TransactItem[] = [],
): Promise<boolean> {
  return writeWithAlong(
    {
      Update: {
        TableName: tableName(),
        Key: portalLinkKey(linkId),
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(PK) AND agent_id = :agent AND owner_id = :owner',
        ExpressionAttributeValues: { ':now': now, ':agent': agentId, ':owner': ownerId },
      },
    },
    along,
  );
}
