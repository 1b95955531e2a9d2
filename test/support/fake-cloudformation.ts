import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands in for CloudFormation's query API on 127.0.0.1 (no CloudFormation emulator runs on this
 * machine): DescribeStacks answered as AWS documents it, XML in the 2010-05-15 namespace, for the
 * stacks it is given; any other stack gets CloudFormation's ValidationError. It records each request's
 * form and Authorization header.
 */
export function describeStacksXml(stackName: string, outputs: Record<string, string>): string {
  const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const members = Object.entries(outputs)
    .map(
      ([key, value]) =>
        `          <member>\n            <Description>${xmlText(`The ${key}`)}</Description>\n            <OutputKey>${key}</OutputKey>\n            <OutputValue>${xmlText(value)}</OutputValue>\n          </member>`,
    )
    .join('\n');
  return `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult>
    <Stacks>
      <member>
        <StackName>${stackName}</StackName>
        <StackId>arn:aws:cloudformation:eu-west-1:123456789012:stack/${stackName}/5b3b8b10-0000-11ef-9c49-0a1b2c3d4e5f</StackId>
        <CreationTime>2026-12-01T10:00:00.000Z</CreationTime>
        <StackStatus>UPDATE_COMPLETE</StackStatus>
        <Tags>
          <member><Key>stage</Key><Value>dev</Value></member>
        </Tags>
        <Outputs>
${members}
        </Outputs>
        <EnableTerminationProtection>false</EnableTerminationProtection>
      </member>
    </Stacks>
  </DescribeStacksResult>
  <ResponseMetadata><RequestId>0f5d6a1e-0000-4000-8000-000000000000</RequestId></ResponseMetadata>
</DescribeStacksResponse>
`;
}

export function validationErrorXml(message: string): string {
  return `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <Error><Type>Sender</Type><Code>ValidationError</Code><Message>${message}</Message></Error>
  <RequestId>1a2b3c4d-0000-4000-8000-000000000000</RequestId>
</ErrorResponse>
`;
}

export interface FakeCloudFormation {
  url: string;
  requests: Array<{ form: Record<string, string>; authorization: string }>;
  close(): Promise<void>;
}

export async function fakeCloudFormation(stacks: Record<string, Record<string, string>>): Promise<FakeCloudFormation> {
  const requests: FakeCloudFormation['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      requests.push({ form, authorization: String(req.headers.authorization ?? '') });
      const outputs = form['Action'] === 'DescribeStacks' ? stacks[form['StackName'] ?? ''] : undefined;
      res.writeHead(outputs ? 200 : 400, { 'content-type': 'text/xml' });
      res.end(
        outputs
          ? describeStacksXml(form['StackName']!, outputs)
          : validationErrorXml(`Stack with id ${form['StackName']} does not exist`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
