/**
 * A stack's partition, region and account as cdk-nag writes them in a finding's resource: the
 * literal where the template has one (a pinned stack, and with `@aws-cdk/core:enablePartitionLiterals`
 * the partition of a known region), else the pseudo parameter's placeholder.
 */
import { type Stack, Token } from 'aws-cdk-lib';

export function nagArnParts(stack: Stack): { partition: string; region: string; account: string } {
  const part = (value: string, placeholder: string) => (Token.isUnresolved(value) ? placeholder : value);
  return {
    partition: part(stack.partition, '<AWS::Partition>'),
    region: part(stack.region, '<AWS::Region>'),
    account: part(stack.account, '<AWS::AccountId>'),
  };
}
