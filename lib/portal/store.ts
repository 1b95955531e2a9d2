/** The portal links' DynamoDB calls (keys.ts: `PORTAL#<pl_…>` / `LINK`). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import { ENTITY, portalLinkKey } from '../store/keys.ts';
import { TTL_ATTRIBUTE } from '../store/table.ts';

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

export async function putPortalLink(link: PortalLinkRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...portalLinkKey(link.link_id),
        entity: ENTITY.portalLink,
        ...link,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(link.link_expires_at) / 1000) + TTL_GRACE_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
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
): Promise<boolean> {
  const result = await conditionalUpdate({
    Key: portalLinkKey(linkId),
    UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
    ConditionExpression: 'attribute_exists(PK) AND agent_id = :agent AND owner_id = :owner',
    ExpressionAttributeValues: { ':now': now, ':agent': agentId, ':owner': ownerId },
  });
  return result.ok;
}
