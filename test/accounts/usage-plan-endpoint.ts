/**
 * A stand-in for the part of API Gateway's control plane the admin command calls (no emulator runs
 * API Gateway): API keys and one usage plan's keys, in memory, behind the real REST paths on
 * 127.0.0.1, so the real `@aws-sdk/client-api-gateway` client signs, sends and parses each call
 * (the SDK finds it through AWS_ENDPOINT_URL_API_GATEWAY). It keeps what API Gateway would and
 * answers as it documents; it checks no signature, enforces no quota and knows one plan only.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface ApiKey {
  id: string;
  name: string;
  value: string;
  enabled: boolean;
}

export interface UsagePlanEndpoint {
  url: string;
  /** The API keys that exist, and the ids of those in the plan. */
  apiKeys: Map<string, ApiKey>;
  planKeyIds: Set<string>;
  /** The usage identifiers (API key values) the plan admits: what API Gateway counts a request against. */
  planValues(): string[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function send(res: ServerResponse, status: number, body?: unknown, errorType?: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export async function startUsagePlanEndpoint(usagePlanId: string): Promise<UsagePlanEndpoint> {
  const apiKeys = new Map<string, ApiKey>();
  const planKeyIds = new Set<string>();
  const planKey = (key: ApiKey) => ({ id: key.id, type: 'API_KEY', value: key.value, name: key.name });
  const notFound = (res: ServerResponse, what: string) =>
    send(res, 404, { message: `Invalid ${what} specified` }, 'NotFoundException');

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const body = await bodyOf(req);
    if (req.method === 'POST' && url.pathname === '/apikeys') {
      const key: ApiKey = {
        id: randomBytes(5).toString('hex'),
        name: String(body['name']),
        value: String(body['value']),
        enabled: body['enabled'] === true,
      };
      apiKeys.set(key.id, key);
      return send(res, 201, key);
    }
    if (parts[0] === 'apikeys' && parts.length === 2 && req.method === 'DELETE') {
      if (!apiKeys.delete(parts[1]!)) return notFound(res, 'API Key identifier');
      // Deleting an API key takes it out of every plan.
      planKeyIds.delete(parts[1]!);
      return send(res, 202);
    }
    if (parts[0] !== 'usageplans' || parts[2] !== 'keys') return send(res, 404, { message: 'Unknown path' });
    if (parts[1] !== usagePlanId) return notFound(res, 'Usage Plan ID');
    if (req.method === 'POST' && parts.length === 3) {
      const key = apiKeys.get(String(body['keyId']));
      if (!key) return notFound(res, 'API Key identifier');
      planKeyIds.add(key.id);
      return send(res, 201, planKey(key));
    }
    if (req.method === 'GET' && parts.length === 3) {
      // `name` is API Gateway's nameQuery: the keys whose name starts with it.
      const name = url.searchParams.get('name') ?? '';
      const item = [...planKeyIds]
        .map((id) => apiKeys.get(id)!)
        .filter((key) => key.name.startsWith(name))
        .map(planKey);
      return send(res, 200, { item });
    }
    if (req.method === 'DELETE' && parts.length === 4) {
      if (!planKeyIds.delete(parts[3]!)) return notFound(res, 'API Key identifier');
      return send(res, 202);
    }
    return send(res, 404, { message: 'Unknown path' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKeys,
    planKeyIds,
    planValues: () => [...planKeyIds].map((id) => apiKeys.get(id)!.value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
