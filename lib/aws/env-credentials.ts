/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (infra/lambda-function.ts
 * aliases it): Lambda always hands a function its role's credentials in AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the first source the default chain tries. The rest
 * of the chain (SSO, profiles, web identity, IMDS and the nested STS/SSO clients) is about 90 KB
 * of every bundle that a function never runs.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
/** Re-exported names of the module this replaces; environment credentials never need a refresh check. */
export const credentialsWillNeedRefresh = (): boolean => false;
export const credentialsTreatedAsExpired = (): boolean => false;
