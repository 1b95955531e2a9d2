/**
 * `npm start`: the whole service on one machine, with the same handlers Lambda runs.
 * DynamoDB Local (child process) → table + indexes → demo data (once) → event pipeline
 * (stream → relay → SQS → delivery) → the daily trend rollover → API Gateway stand-in on PORT
 * (REST, and the push channel's WebSocket API) → the push worker on the stream, in a worker thread. The OpenAPI
 * document it serves is written to generated/openapi.json while the emulator starts.
 * Ctrl-C / SIGTERM stops everything it started, in reverse order. `npm start` execs this process
 * (package.json), so a signal to the npm process reaches it; should its parent die without a
 * signal, it stops too. One runtime per DATA_DIR (local/data-dir-lock.ts).
 */
import { join } from 'node:path';
import { BASE_PATHS, LOCAL_DEFAULTS, PUSH, SEARCH_DELAY } from '../lib/core/settings.ts';
import { reindexIfBehind } from '../lib/marketplace/search/reindex.ts';
import { developmentMode } from '../lib/net/url-policy.ts';
import { sendLogsTo } from '../lib/observability/log.ts';
import { createPortalLink } from '../lib/portal/links.ts';
import { portalPageUrl } from '../lib/portal/page-url.ts';
import { ensureTable } from '../lib/store/create-table.ts';
import { localConfig } from './config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { DEMO_CALLER, DEMO_IDS } from './demo/identity.ts';
import { indexDemoTemplates } from './demo/search-seed.ts';
import { seedDemoData } from './demo/seed.ts';
import { demoTemplates } from './demo/templates.ts';
import { startDemoWebhookSink } from './demo/webhook-sink.ts';
import { startDailySchedule } from './emulators/daily-schedule.ts';
import { StartupError, startDynamoDbLocal } from './emulators/dynamodb-local.ts';
import { startEventPipeline } from './emulators/event-pipeline.ts';
import { startPushThread } from './emulators/push-thread.ts';
import { createLocalApi, listen, localApiUrl } from './gateway/api-gateway.ts';
import { logFilePath, logFileWriter, logsOnConsole } from './log-file.ts';
import { nodeVersionNotice } from './node-version.ts';
import { writeOpenApiDocument } from './openapi-document.ts';
import { portInUse } from './ports.ts';
import { publishRuntime } from './runtime-file.ts';
import { waitUntilSearchable } from './search-ready.ts';
import { assertSettings, SettingsError } from './settings-check.ts';

const stops: Array<() => Promise<void>> = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    // Last started, first stopped: no request reaches a store that is already gone.
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        process.stderr.write(`while stopping: ${(err as Error).message}\n`);
      }
    }
  }
  process.exit(code);
}

/**
 * A parent that dies without passing a signal on (npm killed with SIGKILL, a closed terminal)
 * leaves this process orphaned: it notices its new parent and stops what it started.
 */
function stopWhenOrphaned(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent && !stopping) {
      process.stderr.write(`The parent process (pid ${parent}) is gone; stopping.\n`);
      void shutdown(0);
    }
  }, 1000).unref();
}

/** What the banner says about webhooks: the truth of this process's DEVELOPMENT_MODE. */
function modeLine(): string {
  return developmentMode()
    ? 'in development mode (DEVELOPMENT_MODE=true: http://localhost webhooks allowed)'
    : `with production rules (DEVELOPMENT_MODE=${process.env['DEVELOPMENT_MODE']}: webhooks must be public https URLs)`;
}

function onSignal(): void {
  if (stopping) {
    process.stderr.write('Forced exit.\n');
    process.exit(130);
  }
  process.stdout.write('\nStopping…\n');
  void shutdown(0);
}

async function main(): Promise<void> {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stopWhenOrphaned();
  try {
    assertSettings();
  } catch (err) {
    if (err instanceof SettingsError) throw new StartupError(err.message);
    throw err;
  }
  const config = localConfig();
  const notice = nodeVersionNotice();
  if (notice) process.stderr.write(`${notice}\n`);
  // Lines go to a file unless LOG_LEVEL asks for them: the console is the banner's (local/log-file.ts).
  const logFile = logsOnConsole() ? undefined : logFilePath(config.dataDir, config.port);
  if (logFile) {
    const file = logFileWriter(logFile);
    sendLogsTo(file.write);
    stops.push(async () => {
      sendLogsTo(undefined);
      file.close();
    });
  }
  process.env['DEVELOPMENT_MODE'] ??= 'true';
  process.env['AWS_REGION'] ??= LOCAL_DEFAULTS.region;

  if (await portInUse(config.port)) {
    throw new StartupError(
      `Port ${config.port} is already in use. Stop what uses it or start with PORT=<another port>.`,
    );
  }
  const inMemory = config.dataDir === ':memory:';
  // Before any port or child: a second start on the same folder is refused at once, naming the first.
  const lock = inMemory ? undefined : await lockDataDir(config.dataDir, config.port);
  if (lock) stops.push(async () => lock.release());
  // GET /openapi.json serves this build artifact: made while the emulator starts, awaited before the API listens.
  const openApiDocument = writeOpenApiDocument();
  // Its failure is reported where it is awaited; until then it must not end the process as unhandled.
  openApiDocument.catch(() => {});
  let dynamoEndpoint = config.externalDynamoEndpoint;
  if (!dynamoEndpoint) {
    const dynamo = await startDynamoDbLocal({
      port: config.dynamoPort,
      host: config.host,
      dataDir: inMemory ? ':memory:' : join(config.dataDir, 'dynamodb'),
    });
    stops.push(dynamo.stop);
    dynamoEndpoint = dynamo.endpoint;
  }
  process.env['DYNAMODB_ENDPOINT'] = dynamoEndpoint;
  process.env['TABLE_NAME'] = config.tableName;
  await ensureTable(config.tableName);
  // The push worker, in a thread of its own (as its Lambda has its own CPU), posts to the API's own
  // @connections stand-in. Started now, the thread loads its modules (seconds on a busy machine)
  // while this one goes on; nothing can be connected to push to before the API listens.
  const pushStarting = startPushThread({
    connectionsEndpoint: localApiUrl(config.host, config.port),
    ...(logFile ? { logFile } : {}),
  });
  // Its failure is reported where it is awaited; until then it must not end the process as unhandled.
  pushStarting.catch(() => {});
  // What an operator runs after a deploy that changes the search index's format (docs/operations.md, "Reindex search").
  await reindexIfBehind();
  const sink = developmentMode() ? await startDemoWebhookSink() : undefined;
  if (sink) stops.push(sink.close);
  // The demo templates are indexed for search while the rest of the demo data is made, and before
  // the stream indexer starts, so search finds them when the banner prints (local/demo/search-seed.ts).
  let indexing: Promise<boolean> | undefined;
  const demo = await seedDemoData({
    webhookSink: sink?.url,
    onCatalog: () => {
      indexing = indexDemoTemplates();
      // Its failure is reported where it is awaited, just below.
      indexing.catch(() => {});
    },
  });
  const searchReady = await (indexing ?? indexDemoTemplates());

  // The relay hands new feed slots to the push worker: it needs the worker's Invoke endpoint (set
  // when the thread is ready), so the thread is ready first. It is stopped after the relay (below).
  const push = await pushStarting;
  let pushStopped: Promise<void> | undefined;
  const stopPush = () => (pushStopped ??= push.stop());
  stops.push(stopPush);
  const pipeline = await startEventPipeline({
    tableName: config.tableName,
    dynamoEndpoint,
    dataDir: inMemory ? undefined : config.dataDir,
    host: config.host,
  });
  let pipelineStopped: Promise<void> | undefined;
  const stopPipeline = () => (pipelineStopped ??= pipeline.stop());
  stops.push(stopPipeline);
  process.env['DELIVERY_QUEUE_URL'] = pipeline.queueUrl;
  const withdraw = publishRuntime(dynamoEndpoint, {
    sqs_endpoint: pipeline.sqsEndpoint,
    queue_url: pipeline.queueUrl,
    connections_endpoint: localApiUrl(config.host, config.port),
  });
  // The admin and invoke commands find this runtime's ports here, whatever ports it was given.
  lock?.record({
    dynamodb_endpoint: dynamoEndpoint,
    table_name: config.tableName,
    sqs_endpoint: pipeline.sqsEndpoint,
    queue_url: pipeline.queueUrl,
    dlq_url: pipeline.deadLetterQueueUrl,
  });
  stops.push(async () => withdraw());
  stops.push(startDailySchedule().stop);

  await openApiDocument;
  const base = `http://localhost:${config.port}`;
  // Portal links point here, from configuration: never from a request's Host (lib/portal/page-url.ts).
  process.env['PORTAL_URL'] ??= `${base}/portal/`;
  const api = await listen(createLocalApi(), config.port, config.host);
  stops.push(api.close);
  // Stopped before the API closes (last registered, first stopped), so no batch posts to a closed API,
  // and after the relay, so no hand-off goes to a stopped worker.
  stops.push(async () => {
    await stopPipeline();
    await stopPush();
  });
  const portal = await createPortalLink(DEMO_CALLER, DEMO_IDS.buyerAgent, {}, portalPageUrl());
  process.stdout.write(
    [
      '',
      `Template marketplace is running ${modeLine()}.`,
      `  Marketplace   ${base}${BASE_PATHS.marketplace}`,
      `  Agents API    ${base}${BASE_PATHS.agents}`,
      `  Health        ${base}/health`,
      `  Push          ${base.replace('http', 'ws')}${PUSH.localPath}?agent_id=<agent> (WebSocket; docs/events.md, "Push")`,
      `  Catalog page  ${base}/catalog/#key=${demo.apiKey}`,
      `  Portal page   ${portal.url} (the demo buyer agent; the link lasts until ${portal.expires_at})`,
      searchReady
        ? `  Search        ready: every demo template is found; a publish is searchable within ${SEARCH_DELAY.publishToSearchableSeconds} s`
        : `  Search        indexing the demo templates; a line below says when they are found; lists work now`,
      `  DynamoDB      ${dynamoEndpoint} (table ${config.tableName}${inMemory ? ', in memory' : `, data in ${config.dataDir}`})`,
      logFile
        ? `  Logs          ${logFile} (LOG_LEVEL=info npm start prints them here instead)`
        : `  Logs          here (LOG_LEVEL=${process.env['LOG_LEVEL']})`,
      '',
      `  Demo API key  ${demo.apiKey}`,
      `  Second key    ${demo.secondApiKey} (another account)`,
      ...(sink ? [`  Demo webhook  ${sink.url} (the demo agents' endpoint)`] : []),
      '  Samples       npm run invoke -- <function> runs its sample event against this runtime',
      `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${base}${BASE_PATHS.marketplace}/templates`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  if (!searchReady) void announceSearchReady(Date.now());
}

/**
 * Should the demo templates not be found by search at the banner (indexDemoTemplates gave up):
 * says when the stream indexer has them, or that it still has not after
 * SEARCH_DELAY.firstStartWaitSeconds.
 */
async function announceSearchReady(since: number): Promise<void> {
  const slugs = demoTemplates.filter((t) => t.visibility === 'public').map((t) => t.slug);
  let ready: boolean;
  try {
    ready = await waitUntilSearchable(slugs, SEARCH_DELAY.firstStartWaitSeconds * 1000, () => stopping);
  } catch (err) {
    if (!stopping) process.stderr.write(`while waiting for search: ${(err as Error).message}\n`);
    return;
  }
  if (stopping) return;
  const seconds = Math.round((Date.now() - since) / 1000);
  process.stdout.write(
    ready
      ? `Search is ready: every demo template is found (${seconds} s after the banner). A publish is searchable within ${SEARCH_DELAY.publishToSearchableSeconds} s.\n`
      : `Search is still indexing the demo templates after ${seconds} s; they show up as the indexer catches up.\n`,
  );
}

main().catch(async (err: unknown) => {
  if (err instanceof StartupError) process.stderr.write(`Cannot start: ${err.message}\n`);
  else process.stderr.write(`Cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  await shutdown(1);
});
