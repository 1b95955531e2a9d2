import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { enqueueDelivery } from '../../lib/events/delivery/queue.ts';
import { routes } from '../../lib/routes.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { invokeRoute, proxyEvent } from '../../local/gateway/proxy-event.ts';
import { AccessDeniedException } from '../../local/lambda/grant-guard.ts';
import { GrantViolation, runAsRoute, runGranted } from '../../local/lambda/grants.ts';
import { createTestUser, routeNamed } from '../support/lambda.ts';

const key = { PK: 'GRANT#test', SK: 'X' };

describe('the local runtime runs each handler with its row of the route table as its grants', () => {
  it('a route declared read that writes fails, naming the action (the handler sees AccessDenied, as in Lambda)', async () => {
    const user = await createTestUser();
    const createAgent = routeNamed('createAgent');
    const misdeclared = { ...createAgent, access: 'read' as const };
    const event = proxyEvent({
      route: misdeclared,
      caller: user,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bot' }),
    });
    await expect(invokeRoute(misdeclared, event)).rejects.toThrow(
      /createAgent used dynamodb:(PutItem|UpdateItem).*grant \(table: read/,
    );
    // The same call with the table's row succeeds.
    expect((await invokeRoute(createAgent, event)).statusCode).toBe(201);
  });

  it('refuses a write even when the handler swallows the error', async () => {
    const read = routes.find((r) => r.access === 'read')!;
    const swallowed = runAsRoute(read, async () => {
      await db()
        .send(new PutCommand({ TableName: tableName(), Item: key }))
        .catch((err: unknown) => expect(err).toBeInstanceOf(AccessDeniedException));
      return 'answered';
    });
    await expect(swallowed).rejects.toThrow(GrantViolation);
  });

  it('checks each item of a transaction, and never allows Scan', async () => {
    const writer = { table: 'readwrite' as const };
    await runGranted('writer', writer, () =>
      db().send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: tableName(), Item: key } }] })),
    );
    await expect(
      runGranted('reader', { table: 'read' }, () =>
        db().send(
          new TransactWriteCommand({
            TransactItems: [
              { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(PK)' } },
              { Delete: { TableName: tableName(), Key: key } },
            ],
          }),
        ),
      ),
    ).rejects.toThrow('dynamodb:DeleteItem');
    await expect(
      runGranted('writer', writer, () => db().send(new ScanCommand({ TableName: tableName(), Limit: 1 }))),
    ).rejects.toThrow('writer is not authorized to perform: dynamodb:Scan');
    expect(
      (
        await runGranted('reader', { table: 'read' }, () =>
          db().send(new GetCommand({ TableName: tableName(), Key: key })),
        )
      ).Item,
    ).toEqual(key);
  });

  it('gives the delivery queue only to functions that declare it', async () => {
    process.env['DELIVERY_QUEUE_URL'] ??= 'http://127.0.0.1:1/000000000000/never-reached';
    const message = {
      agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
      delivery_id: 'dlv_01KAKQAB3C4D5E6F7G8H9J0K1M',
      event_id: 'evt_01KAKQAB3C4D5E6F7G8H9J0K1M',
    };
    await expect(runGranted('noQueue', { table: 'readwrite' }, () => enqueueDelivery(message))).rejects.toThrow(
      'noQueue is not authorized to perform: sqs:SendMessage',
    );
    // A consumer sends too (its messages' later attempts go back to the queue as delayed copies):
    // the guard lets the call through, and it fails only at the unreachable queue.
    await expect(
      runGranted('consumer', { table: 'readwrite', queue: 'consume' }, () => enqueueDelivery(message)),
    ).rejects.not.toThrow('not authorized');
  });
});
