/**
 * TOKEN authorizer: API key → user. API Gateway caches the answer per key, so the policy allows
 * every route of the API (the ARN up to the stage, then `*`), not just the one first called.
 * Throwing 'Unauthorized' is API Gateway's contract for a 401. `usageIdentifierKey` names the API
 * Gateway API key whose usage plan limits this caller (the API's key source is AUTHORIZER).
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { bearerToken, findCallerByApiKey, usageIdentifierFor } from '../lib/accounts/api-keys.ts';
import { callerToContext } from '../lib/http/caller.ts';
import { observed } from '../lib/observability/lambda.ts';

export const handler = observed(async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const key = bearerToken(event.authorizationToken);
  const caller = key ? await findCallerByApiKey(key) : undefined;
  if (!key || !caller) throw new Error('Unauthorized');
  const [arnPrefix, stage] = event.methodArn.split('/');
  return {
    principalId: caller.userId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnPrefix}/${stage}/*` }],
    },
    context: callerToContext(caller),
    usageIdentifierKey: usageIdentifierFor(key),
  };
});
