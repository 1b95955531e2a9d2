/**
 * The push channel's @connections API (API Gateway's management API of the WebSocket API): post a
 * frame to one connection. PUSH_CONNECTIONS_ENDPOINT names it (infra sets it on the functions that
 * push; the local runtime points it at its own WebSocket stand-in, local/gateway/push-gateway.ts).
 * A connection that is gone answers 410, which is an answer here, not an error: its slot is freed.
 */
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { awsClientMade } from '../../aws/client-hooks.ts';
import { setting } from '../../core/environment.ts';

/** Sends one frame; 'gone' when the connection no longer exists. */
export type PostFrame = (connectionId: string, frame: string) => Promise<'sent' | 'gone'>;
/** Closes a connection from the service's side (its $disconnect follows); a connection already gone is fine. */
export type CloseConnection = (connectionId: string) => Promise<void>;

let client: ApiGatewayManagementApiClient | undefined;
let clientEndpoint: string | undefined;

function connections(): ApiGatewayManagementApiClient {
  const endpoint = setting('PUSH_CONNECTIONS_ENDPOINT');
  if (!endpoint) throw new Error('PUSH_CONNECTIONS_ENDPOINT is not set');
  if (!client || clientEndpoint !== endpoint) {
    // The local stand-in checks no signature; the emulators' dummy credentials keep the SDK from looking for real ones.
    const local = setting('DYNAMODB_ENDPOINT') !== undefined;
    client = new ApiGatewayManagementApiClient({
      endpoint,
      ...(local
        ? {
            region: setting('AWS_REGION') ?? 'us-east-1',
            credentials: { accessKeyId: setting('EMULATOR_ACCESS_KEY_ID') ?? 'local', secretAccessKey: 'local' },
          }
        : {}),
    });
    awsClientMade(client, 'execute-api');
    clientEndpoint = endpoint;
  }
  return client;
}

export const postFrame: PostFrame = async (connectionId, frame) => {
  try {
    await connections().send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: frame }));
    return 'sent';
  } catch (err) {
    if (err instanceof GoneException) return 'gone';
    throw err;
  }
};

export const closeFromServer: CloseConnection = async (connectionId) => {
  try {
    await connections().send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (err) {
    if (!(err instanceof GoneException)) throw err;
  }
};
