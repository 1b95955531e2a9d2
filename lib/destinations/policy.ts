/**
 * The resource policy a customer puts on their queue or bus (docs/webhooks.md, "AWS destinations").
 *
 * The confused deputy: every tenant's deliveries leave from the same service, so a grant to the
 * service's role alone would let any tenant register someone else's granted queue and write into it.
 * `aws:SourceAccount`/`aws:SourceArn` cannot tell them apart: IAM sets those only when an AWS service
 * principal acts, never for a role. What IAM does carry for a role is its session's tags: every send
 * is made by a session of the sender role tagged with the account the destination belongs to
 * (session.ts), set by the service from the registrant's own API key, and the policy allows that
 * role only while `aws:PrincipalTag/<key>` is the customer's account. A session tagged for another
 * tenant is refused by the customer's own policy, before anything reaches the queue.
 */
import { setting } from '../core/environment.ts';
import { DESTINATIONS } from '../core/settings.ts';
import type { DestinationKind } from './arn.ts';

/** Locally there is no role: the policy names this stand-in, as the local sessions do (session.ts). */
export const LOCAL_SENDER_ROLE_ARN = 'arn:aws:iam::000000000000:role/local-destination-sender';

export const senderRoleArn = (): string => setting('DESTINATION_SENDER_ROLE_ARN') ?? LOCAL_SENDER_ROLE_ARN;

const ACTION: Record<DestinationKind, string> = { sqs: 'sqs:SendMessage', eventbridge: 'events:PutEvents' };

/**
 * A queue or bus encrypted with the customer's own KMS key: SQS (SendMessage) and EventBridge
 * (PutEvents) use the key on the sender's behalf, so cross-account KMS needs both sides, the sender
 * role's policy (infra/workers-stack.ts) and the customer's key policy, each only through those
 * services (`kms:ViaService`).
 */
export const DESTINATION_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;
const VIA_SERVICE: Record<DestinationKind, string> = { sqs: 'sqs', eventbridge: 'events' };
/** The services the sender role may use a customer's key through, in any region. */
export const DESTINATION_KEY_VIA_SERVICES = Object.values(VIA_SERVICE).map((service) => `${service}.*.amazonaws.com`);

const tagged = (accountId: string) => ({ [`aws:PrincipalTag/${DESTINATIONS.tenantTagKey}`]: accountId });

/**
 * The statement to add to the customer's own KMS key policy when the queue or bus is encrypted with
 * it: the sender role, only through the destination's service in its region, only for this account.
 */
export function keyPolicyStatement(kind: DestinationKind, arn: string, accountId: string): Record<string, unknown> {
  const region = arn.split(':')[3];
  return {
    Sid: 'TemplateMarketplaceDeliveriesKey',
    Effect: 'Allow',
    Principal: { AWS: senderRoleArn() },
    Action: [...DESTINATION_KEY_ACTIONS],
    Resource: '*',
    Condition: {
      StringEquals: { ...tagged(accountId), 'kms:ViaService': `${VIA_SERVICE[kind]}.${region}.amazonaws.com` },
    },
  };
}

export function resourcePolicy(kind: DestinationKind, arn: string, accountId: string): Record<string, unknown> {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'TemplateMarketplaceDeliveries',
        Effect: 'Allow',
        Principal: { AWS: senderRoleArn() },
        Action: ACTION[kind],
        Resource: arn,
        Condition: { StringEquals: tagged(accountId) },
      },
    ],
  };
}
