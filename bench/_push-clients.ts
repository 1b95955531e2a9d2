/**
 * The push bench's WebSocket clients, in a child process of their own. In AWS a client never shares
 * the service's CPU; in one process its 1,000 sockets' frames and timers would queue behind the
 * local API, the stream poller, the push worker and the stand-in's @connections on one event loop,
 * and a frame's arrival would be stamped when that loop got round to it. Here the clients have their
 * own loop (the machine's cores are still shared), and each frame is stamped on arrival with the
 * wall clock both processes read.
 *
 * The parent (bench/push.ts) drives it over IPC: `open` the connections (the handshake as the client
 * package makes it: the key as a subprotocol, then a sync), `await` until each connection holds
 * what its agent is owed (or a deadline), then `close`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PUSH } from '../lib/core/settings.ts';
import type { Received } from './_push-trace.ts';

export interface ClientReport {
  agentId: string;
  /** Ids of the frames received, each once. */
  seen: string[];
  /** Ids received again (two overlapping sends; the client package drops them). */
  repeats: number;
  /** Each new frame, with the move that made it (contract id and event type) and whether its id was below the last one seen. */
  frames: (Received & { move: string; outOfOrder: boolean })[];
}

type Request =
  | { kind: 'open'; url: string; key: string; agents: string[]; atOnce: number }
  | { kind: 'await'; owed: Record<string, number>; deadlineMs: number }
  | { kind: 'close' };
type Answer =
  | { kind: 'opened'; connections: number }
  | { kind: 'reports'; reports: ClientReport[] }
  | { kind: 'failed'; message: string };

const self = fileURLToPath(import.meta.url);

/** Starts the clients' process; `open` before `await`, `close` always. */
export function startPushClients() {
  // Node runs this TypeScript file itself (type stripping), as it runs the bench.
  const child: ChildProcess = fork(self, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (request: Request) =>
    new Promise<Answer>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the push clients' process exited (${code})`));
      child.once('exit', exited);
      child.once('message', (answer: Answer) => {
        child.off('exit', exited);
        if (answer.kind === 'failed') reject(new Error(answer.message));
        else resolve(answer);
      });
      child.send(request);
    });
  return {
    pid: child.pid!,
    async open(url: string, key: string, agents: string[], atOnce: number): Promise<number> {
      const answer = await ask({ kind: 'open', url, key, agents, atOnce });
      return answer.kind === 'opened' ? answer.connections : 0;
    },
    /** Waits until every connection of each agent has seen that many events, or the deadline. */
    async awaitOwed(owed: Map<string, number>, deadlineMs: number): Promise<ClientReport[]> {
      const answer = await ask({ kind: 'await', owed: Object.fromEntries(owed), deadlineMs });
      return answer.kind === 'reports' ? answer.reports : [];
    },
    close(): void {
      if (child.connected) child.send({ kind: 'close' } satisfies Request);
      child.disconnect?.();
    },
  };
}

// ——— The child ———

interface Connection extends ClientReport {
  socket: WebSocket;
  last: string;
  seenSet: Set<string>;
}

function connect(url: string, key: string, agentId: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url}?agent_id=${agentId}`, [PUSH.protocol, `key.${key}`]);
    const c: Connection = {
      agentId,
      socket,
      seen: [],
      seenSet: new Set(),
      last: '',
      repeats: 0,
      frames: [],
    };
    socket.addEventListener('message', (message) => {
      const arrived = Date.now();
      const event = JSON.parse(String(message.data)) as {
        id: string;
        type: string;
        created_at: string;
        data: { contract_id?: string };
      };
      if (c.seenSet.has(event.id)) {
        c.repeats++;
        return;
      }
      const outOfOrder = event.id < c.last;
      if (!outOfOrder) c.last = event.id;
      c.seenSet.add(event.id);
      c.frames.push({
        id: event.id,
        createdAt: Date.parse(event.created_at),
        arrived,
        move: `${event.data.contract_id}|${event.type}`,
        outOfOrder,
      });
    });
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ action: 'sync' }));
      resolve(c);
    });
    socket.addEventListener('error', () => reject(new Error(`handshake for ${agentId} refused`)));
  });
}

async function serve(): Promise<void> {
  const connections: Connection[] = [];
  const reply = (answer: Answer) => process.send!(answer);
  process.on('disconnect', () => {
    for (const c of connections) c.socket.close();
    process.exit(0);
  });
  process.on('message', (request: Request) => {
    void (async () => {
      if (request.kind === 'open') {
        for (let i = 0; i < request.agents.length; i += request.atOnce)
          connections.push(
            ...(await Promise.all(
              request.agents.slice(i, i + request.atOnce).map((agentId) => connect(request.url, request.key, agentId)),
            )),
          );
        reply({ kind: 'opened', connections: connections.length });
      } else if (request.kind === 'await') {
        const done = () => connections.every((c) => c.seenSet.size >= (request.owed[c.agentId] ?? 0));
        // Checked on a short timer of this process's own, which no server work can hold up.
        while (!done() && Date.now() < request.deadlineMs) await new Promise((r) => setTimeout(r, 20));
        reply({
          kind: 'reports',
          reports: connections.map(({ agentId, seenSet, repeats, frames }) => ({
            agentId,
            seen: [...seenSet],
            repeats,
            frames,
          })),
        });
      } else {
        for (const c of connections) c.socket.close();
        process.exit(0);
      }
    })().catch((err: unknown) => reply({ kind: 'failed', message: (err as Error).message }));
  });
}

if (process.argv[1] === self) await serve();
