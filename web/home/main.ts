/**
 * The landing page (`GET /`): the links are in the HTML, so it works without script; the script
 * points the API's links at the API (deployed, it is not this site: `/web-config.json` names it),
 * says whether health answers, and lists the OpenAPI document's operations as a reference.
 */
import { apiBase } from '../shared/api.ts';
import { byId, h, show } from '../shared/dom.ts';

interface Operation {
  summary?: string;
  operationId?: string;
  tags?: string[];
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(document: OpenApi): HTMLElement {
  const rows = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m]! })),
  );
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { id: 'operation-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Method', 'Path', 'What it does'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map(({ method, path, op }) =>
          h(
            'tr',
            {},
            h('td', {}, method),
            h('td', {}, h('code', {}, path)),
            h('td', {}, op.summary ?? op.operationId ?? ''),
          ),
        ),
      ),
    ),
  );
}

async function start(): Promise<void> {
  const base = (await apiBase()).replace(/\/$/, '');
  byId<HTMLAnchorElement>('openapi-link').href = `${base}/openapi.json`;
  byId<HTMLAnchorElement>('health-link').href = `${base}/health`;
  const [health, document] = await Promise.allSettled([
    fetch(`${base}/health`).then((r) => r.status),
    fetch(`${base}/openapi.json`).then((r) => r.json() as Promise<OpenApi>),
  ]);
  show(
    byId('health'),
    health.status === 'fulfilled' && health.value === 200
      ? '✔ healthy: it answers 200 now.'
      : '✖ no healthy answer now.',
  );
  show(
    byId('operations'),
    document.status === 'fulfilled'
      ? operations(document.value)
      : h('p', {}, 'The OpenAPI document could not be read.'),
  );
}

void start();
