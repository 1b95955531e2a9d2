/**
 * TOKEN authorizer: API key or portal link token → caller, on every request; a key's policy allows
 * every route of the API, a portal token's only its agent's portal routes (lib/http/authorizer-policy.ts). Throwing 'Unauthorized' is API Gateway's contract for a
 * 401. `usageIdentifierKey` names the API Gateway API key whose usage plan limits this caller (the
 * API's key source is AUTHORIZER): a portal token's is the key's that made the link, which must
 * still stand. API Gateway caches no answer (infra/api-stack.ts: resultsCacheTtl 0), so a revoked
 * key or link is refused from its next request.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken, findCallerByApiKey } from '../lib/accounts/api-keys.ts';
import { allowedResources } from '../lib/http/authorizer-policy.ts';
import { callerToContext } from '../lib/http/caller.ts';
import { observed } from '../lib/observability/lambda.ts';
import type { InvocationContext } from '../lib/observability/log.ts';
import { findCallerByPortalToken } from '../lib/portal/portal-caller.ts';
import { PORTAL_TOKEN_PREFIX } from '../lib/portal/token.ts';
import { deadlineOf, withCallDeadline } from '../lib/store/call-deadline.ts';

/** Time kept back from the lookup's store calls: a store that does not answer is a 500 from the gateway before the timeout. */
const ANSWER_RESERVE_MS = 500;

export const handler = observed((event: APIGatewayTokenAuthorizerEvent, context?: InvocationContext) =>
  withCallDeadline(deadlineOf(context, ANSWER_RESERVE_MS), () => authorize(event)),
);

async function authorize(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(event.authorizationToken);
  const portal = token?.startsWith(PORTAL_TOKEN_PREFIX) === true;
  const caller = !token ? undefined : portal ? await findCallerByPortalToken(token) : await findCallerByApiKey(token);
  // A key is its own usage identity; a link's is the key's that made it (both carry it as usageKey).
  const usageKey = caller?.usageKey;
  if (!caller || !usageKey) throw new Error('Unauthorized');
  return {
    principalId: caller.userId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: allowedResources(event.methodArn, caller) },
      ],
    },
    context: callerToContext({ ...caller, usageKey }),
    usageIdentifierKey: usageKey,
  };
}
