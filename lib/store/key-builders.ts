/**
 * The builders of every item's keys (the key design: lib/store/keys.ts). One export each, imported
 * as a namespace (`import * as keys from '…/store/key-builders.ts'`): each bundle keeps only the
 * builders it calls, where one object of them all put every builder in every function.
 */
import { type Key, searchPostingPk as postingPk, type SearchOrder } from './keys.ts';

export const apiKey = (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' });
/** Every key in one index partition: only the admin commands read it (list, revoke by key id). */
export const apiKeysIndexPk = 'APIKEYS';
/** GSI1 entry of an API key: every key, by key id. */
export const apiKeysIndex = (keyId: string) => ({ GSI1PK: 'APIKEYS', GSI1SK: keyId });
export const user = (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'PROFILE' });
export const template = (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'META' });
export const slug = (slug: string): Key => ({ PK: `SLUG#${slug}`, SK: 'SLUG' });
export const version = (templateId: string, sortableVersion: string): Key => ({
  PK: `TPL#${templateId}`,
  SK: `VER#${sortableVersion}`,
});
export const versionPrefix = 'VER#';
export const review = (templateId: string, userId: string): Key => ({
  PK: `TPL#${templateId}`,
  SK: `REVIEW#${userId}`,
});
export const reviewsIndexPk = (templateId: string): string => `TPLREV#${templateId}`;
/** GSI1 partition of a template's hidden reviews (same sort key), which operators still see in the list. */
export const hiddenReviewsIndexPk = (templateId: string): string => `TPLREVHID#${templateId}`;
/** GSI1 entry of a review: the template's reviews, newest first. */
export const reviewsIndex = (templateId: string, createdAt: string, reviewId: string) => ({
  GSI1PK: `TPLREV#${templateId}`,
  GSI1SK: `${createdAt}#${reviewId}`,
});
export const install = (workspaceId: string, templateId: string): Key => ({
  PK: `WS#${workspaceId}`,
  SK: `INSTALL#${templateId}`,
});
export const installsIndexPk = (workspaceId: string): string => `WSINST#${workspaceId}`;
/** GSI1 entry of an install marker: the workspace's installs, newest first. */
export const installsIndex = (workspaceId: string, installedAt: string, templateId: string) => ({
  GSI1PK: `WSINST#${workspaceId}`,
  GSI1SK: `${installedAt}#${templateId}`,
});
export const categoryCount = (category: string): Key => ({ PK: `CATEGORY#${category}`, SK: 'COUNT' });
export const searchPosting = (order: SearchOrder, list: string, sortKey: string): Key => ({
  PK: postingPk(order, list),
  SK: sortKey,
});
export const searchPostingPk = (order: SearchOrder, list: string): string => postingPk(order, list);
export const searchCount = (list: string): Key => ({ PK: `TOKCOUNT#${list}`, SK: 'COUNT' });
export const searchState = (templateId: string): Key => ({ PK: `TPL#${templateId}`, SK: 'SEARCH' });
export const searchPair = (prefix: string, cut: string, templateId: string): Key => ({
  PK: `TOKPAIR#${prefix}`,
  SK: `${cut}#${templateId}`,
});
export const searchPairPk = (prefix: string): string => `TOKPAIR#${prefix}`;
export const searchWide = (prefix: string, templateId: string): Key => ({ PK: `TOKWIDE#${prefix}`, SK: templateId });
export const searchWidePk = (prefix: string): string => `TOKWIDE#${prefix}`;
export const searchIndexFormat = { PK: 'SEARCHINDEX', SK: 'FORMAT' } as Key;
export const agent = (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'META' });
export const agentsIndexPk = (userId: string): string => `OWNER#${userId}`;
export const agentsIndexSk = (agentId: string): string => `AGENT#${agentId}`;
/** GSI1 entry of an agent: its owner's agents, newest first. */
export const agentsIndex = (userId: string, agentId: string) => ({
  GSI1PK: `OWNER#${userId}`,
  GSI1SK: `AGENT#${agentId}`,
});
export const contract = (contractId: string): Key => ({ PK: `CONTRACT#${contractId}`, SK: 'META' });
export const event = (agentId: string, eventId: string): Key => ({ PK: `AGENT#${agentId}`, SK: `EVT#${eventId}` });
export const eventPrefix = 'EVT#';
export const delivery = (agentId: string, deliveryId: string): Key => ({
  PK: `AGENT#${agentId}`,
  SK: `DLV#${deliveryId}`,
});
export const deliveryPrefix = 'DLV#';
/**
 * A delivery record's place in the DeliveriesByStatus index (table.ts), failures only: `failed`, or
 * `pending` after a failed attempt (waiting for its retry). Written with the status in the same
 * write, and removed by the write that records a success (lib/events/delivery/record.ts).
 */
export const deliveryStatusPlacement = (agentId: string, status: string): { dlvStatus: string } => ({
  dlvStatus: `AGENT#${agentId}#${status}`,
});
export const agentCount = (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'AGENTS' });
export const verifyLimit = (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'LIMIT#VERIFY' });
export const streamLease = (agentId: string, slot: number): Key => ({ PK: `AGENT#${agentId}`, SK: `STREAM#${slot}` });
export const pushConnections = (agentId: string): Key => ({ PK: `AGENT#${agentId}`, SK: 'PUSH' });
export const pushConnection = (connectionId: string): Key => ({ PK: `PUSHCONN#${connectionId}`, SK: 'PUSHCONN' });
export const pushMessageLimit = (connectionId: string): Key => ({
  PK: `PUSHCONN#${connectionId}`,
  SK: 'LIMIT#MESSAGES',
});
export const pushKeyLimit = (keyHash: string): Key => ({ PK: `APIKEY#${keyHash}`, SK: 'LIMIT#PUSH' });
export const idempotency = (userId: string, keyHash: string): Key => ({
  PK: `IDEMPOTENCY#${userId}#${keyHash}`,
  SK: 'IDEMPOTENCY',
});
