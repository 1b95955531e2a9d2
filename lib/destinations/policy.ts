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
        Condition: { StringEquals: { [`aws:PrincipalTag/${DESTINATIONS.tenantTagKey}`]: accountId } },
      },
    ],
  };
}
