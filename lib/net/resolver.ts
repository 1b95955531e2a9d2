import { promises as dns } from 'node:dns';

/** Name → every address it resolves to. Outbound callers may pass their own (tests script DNS with it). */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** The system resolver (getaddrinfo), every address, in the order the system prefers. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
