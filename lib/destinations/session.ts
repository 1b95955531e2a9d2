/**
 * Credentials of a sender-role session tagged with one account (policy.ts says why): in AWS an STS
 * AssumeRole of DESTINATION_SENDER_ROLE_ARN with the session tag `DESTINATIONS.tenantTagKey` =
 * the account id, kept per account for most of its hour.
 *
 * AssumeRole is one signed form POST (lib/aws/signed-request.ts: the SDK's own signer, already in every
 * bundle, with the SDK's retries and clock-skew correction) instead of `@aws-sdk/client-sts`: that client weighs 37 KB minified (its
 * XML protocol stack), which the destination worker's budget of floor + 90 KB cannot carry beside the
 * EventBridge and SQS clients (docs/cost.md). Its answer is four fields of a fixed XML document.
 *
 * Locally there is no STS: a session's token is `local-session;<key>=<account>`, which the local
 * EventBridge endpoint of the tests reads as IAM reads a session tag (fixtures/eventbridge-endpoint.ts).
 * The AWS path runs in a test too: with DESTINATION_SENDER_ROLE_ARN and STS_ENDPOINT set, AssumeRole
 * goes to a local STS that judges the synthesized trust policy (test/destinations/sender-session.test.ts).
 */

import { signedRequest } from '../aws/signed-request.ts';
import { setting } from '../core/environment.ts';
import { DESTINATIONS } from '../core/settings.ts';

export interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** ms */
  expiration: number;
}

/** A session is renewed this long before it expires. */
const RENEW_BEFORE_MS = 5 * 60_000;
const MAX_KEPT = 200;
const sessions = new Map<string, SessionCredentials>();

export const LOCAL_SESSION_PREFIX = 'local-session;';

export async function sessionFor(accountId: string, now = Date.now()): Promise<SessionCredentials> {
  const roleArn = setting('DESTINATION_SENDER_ROLE_ARN');
  if (!roleArn)
    return {
      accessKeyId: 'LOCALSESSION',
      secretAccessKey: 'local',
      sessionToken: `${LOCAL_SESSION_PREFIX}${DESTINATIONS.tenantTagKey}=${accountId}`,
      expiration: now + DESTINATIONS.sessionSeconds * 1000,
    };
  const kept = sessions.get(accountId);
  if (kept && kept.expiration - RENEW_BEFORE_MS > now) return kept;
  const fresh = await assumeRole(roleArn, accountId);
  if (sessions.size >= MAX_KEPT) sessions.delete(sessions.keys().next().value!);
  sessions.set(accountId, fresh);
  return fresh;
}

async function assumeRole(roleArn: string, accountId: string): Promise<SessionCredentials> {
  const region = setting('AWS_REGION') ?? 'us-east-1';
  // Session names allow [\w+=,.@-]; account ids are UUIDs.
  const roleSessionName = `dest-${accountId}`.slice(0, 64);
  const body = new URLSearchParams({
    Action: 'AssumeRole',
    Version: '2011-06-15',
    RoleArn: roleArn,
    RoleSessionName: roleSessionName,
    DurationSeconds: String(DESTINATIONS.sessionSeconds),
    'Tags.member.1.Key': DESTINATIONS.tenantTagKey,
    'Tags.member.1.Value': accountId,
  }).toString();
  const answer = await signedRequest({
    service: 'sts',
    operation: 'AssumeRole',
    region,
    method: 'POST',
    url: new URL(setting('STS_ENDPOINT') ?? `https://sts.${region}.amazonaws.com/`),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    input: {
      RoleArn: roleArn,
      RoleSessionName: roleSessionName,
      Tags: [{ Key: DESTINATIONS.tenantTagKey, Value: accountId }],
    },
  });
  const xml = answer.body;
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  if (answer.status >= 300)
    throw new Error(`STS AssumeRole answered ${answer.status}: ${field('Code') ?? ''} ${field('Message') ?? ''}`);
  const [accessKeyId, secretAccessKey, sessionToken, expiration] = [
    field('AccessKeyId'),
    field('SecretAccessKey'),
    field('SessionToken'),
    field('Expiration'),
  ];
  if (!accessKeyId || !secretAccessKey || !sessionToken || !expiration)
    throw new Error('STS AssumeRole answered without credentials');
  return { accessKeyId, secretAccessKey, sessionToken, expiration: Date.parse(expiration) };
}

/** The account a local session stands for (the local EventBridge endpoint reads it), or undefined. */
export function localSessionAccount(sessionToken: string | undefined): string | undefined {
  const prefix = `${LOCAL_SESSION_PREFIX}${DESTINATIONS.tenantTagKey}=`;
  return sessionToken?.startsWith(prefix) ? sessionToken.slice(prefix.length) : undefined;
}
