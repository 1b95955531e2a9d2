import { describe, expect, it } from 'vitest';
import {
  bucketFloor,
  bucketLabel,
  bucketOfSortKey,
  isRangeBucket,
  popularityBucket,
} from '../../lib/marketplace/search/popularity-bucket.ts';
import {
  countedPrefixes,
  countedPrefixOf,
  drivingPrefix,
  indexedPrefixes,
  matchesEveryWord,
  mayMatch,
  POSTING_WORDS_MAX,
  postingWords,
  words,
} from '../../lib/marketplace/search/search-text.ts';
import { ratingAverage, ratingKey } from '../../lib/marketplace/templates/template-item.ts';
import { placeholders } from '../../lib/marketplace/templates/template-schema.ts';
import { compareVersions, sortableVersion } from '../../lib/marketplace/templates/version.ts';
import {
  bucketAttribute,
  bucketsOutsideWindow,
  installsInWindow,
  windowDays,
} from '../../lib/marketplace/trending/trend.ts';
import { decodeCursor, encodeCursor } from '../../lib/store/cursor.ts';

describe('versions', () => {
  it('compare numerically, part by part, and sort as strings in the same order', () => {
    const ordered = ['0.0.1', '0.1.0', '1.0.0', '1.2.0', '1.10.0', '2.0.0', '10.0.0', '999999.999999.999999'];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareVersions(ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
      expect(sortableVersion(ordered[i - 1]!) < sortableVersion(ordered[i]!)).toBe(true);
    }
    expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
  });
});

describe('search text', () => {
  it('folds case and accents and splits on non-alphanumerics', () => {
    expect(words('Café-Grade  HTTP/2 check_list')).toEqual(['cafe', 'grade', 'http', '2', 'check', 'list']);
  });

  it('indexes 2-, 4- and 6-character prefixes and picks the longest one to drive a query', () => {
    expect([...indexedPrefixes({ name: 'Uptime', slug: 'up', description: 'a', category: 'ai' })].sort()).toEqual([
      'ai',
      'up',
      'upti',
      'uptime',
    ]);
    expect(drivingPrefix(['upt', 'monitoring'])).toBe('monito');
    expect(drivingPrefix(['upt'])).toBe('up');
    expect(drivingPrefix(['a', 'b'])).toBeUndefined();
  });

  it('matches when every query word prefixes some word of the template', () => {
    const t = { name: 'Dataset rows', slug: 'dataset-rows', description: 'Counts CSV rows.', category: 'data' };
    expect(matchesEveryWord(['data', 'csv'], t)).toBe(true);
    expect(matchesEveryWord(['rows', 'json'], t)).toBe(false);
    expect(matchesEveryWord(['datasets'], t)).toBe(false);
  });

  it('puts the words cut to 6 characters on postings, and filters on them exactly up to 6 characters', () => {
    const t = { name: 'Uptime monitoring', slug: 'uptime-monitoring', description: 'Up, up!', category: 'http' };
    expect(postingWords(t)).toBe('uptime monito up http');
    const cut = postingWords(t)!;
    for (const query of [['upt'], ['uptime'], ['up', 'http'], ['moni', 'h']]) {
      expect(mayMatch(query, cut)).toBe(true);
      expect(matchesEveryWord(query, t)).toBe(true);
    }
    for (const query of [['uptimes'.slice(0, 6), 'down'], ['monk'], ['https']])
      expect(mayMatch(query, cut)).toBe(matchesEveryWord(query, t));
    // Beyond 6 characters the posting can only say "maybe": the template item decides.
    expect(mayMatch(['monitors'], cut)).toBe(true);
    expect(matchesEveryWord(['monitors'], t)).toBe(false);
  });

  it('never lets a non-match through the posting filter wrongly rejected (random words and queries)', () => {
    // Accented, upper-case and non-Latin letters too: the query goes through words() as the route's does.
    const alphabet = ['a', 'b', 'c', 'É', 'ü', 'ß', '漢', '字'];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = () => Array.from({ length: 1 + rand(9) }, () => alphabet[rand(alphabet.length)]).join('');
    let matched = 0;
    for (let i = 0; i < 2000; i++) {
      const t = { name: `${word()} ${word()}`, slug: word(), description: word(), category: 'code' };
      const query = words(Array.from({ length: 1 + rand(3) }, word).join(' '));
      if (matchesEveryWord(query, t)) matched++;
      // The filter may say yes to a non-match (the item decides), never no to a match.
      if (matchesEveryWord(query, t))
        expect(mayMatch(query, postingWords(t)!), `${query} in ${JSON.stringify(t)}`).toBe(true);
    }
    expect(matched).toBeGreaterThan(100); // the property was exercised, not vacuously true
  });

  it('leaves the words off a posting past POSTING_WORDS_MAX bytes, counting bytes, not characters', () => {
    const long = {
      name: 'n',
      slug: 'sl',
      description: Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '),
      category: 'other',
    };
    expect(postingWords(long)).toBeUndefined();
    const cjk = (n: number) => ({
      name: 'n',
      slug: 'sl',
      description: Array.from({ length: n }, (_, i) => `漢字${String.fromCharCode(0x4e00 + i)}`).join(' '),
      category: 'other',
    });
    // 30 words of 3 ideographs: about 130 characters and 300 bytes, within the limit.
    expect(Buffer.byteLength(postingWords(cjk(30))!)).toBeLessThanOrEqual(POSTING_WORDS_MAX);
    // 50 words: about 210 characters (under the limit as characters) but about 500 bytes.
    const fifty = cjk(50);
    expect(`${fifty.name} ${fifty.slug} ${fifty.description} ${fifty.category}`.length).toBeLessThan(POSTING_WORDS_MAX);
    expect(postingWords(fifty)).toBeUndefined();
  });
});

describe('popularity buckets', () => {
  it('are exact below 32, then 16 per doubling; each bucket starts at its floor and they never skip', () => {
    let previous = -1;
    let crossings = 0;
    for (let n = 0; n <= 1_000_000; n++) {
      const bucket = popularityBucket(n);
      if (bucket === previous) continue;
      expect(bucket).toBe(previous + 1);
      expect(bucketFloor(bucket)).toBe(n);
      previous = bucket;
      crossings++;
    }
    // 32 + 16 × log2(1,000,000 / 32) ≈ 271: what one template's postings are rewritten over a million installs.
    expect(crossings).toBe(271);
    expect([0, 31, 32, 33, 34, 64].map((n) => isRangeBucket(popularityBucket(n)))).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
    expect(popularityBucket(Number.MAX_SAFE_INTEGER)).toBeLessThan(1000); // fits the 3-digit label
    expect(bucketOfSortKey(`${bucketLabel(popularityBucket(5000))}#2026-01-01T00:00:00.000Z#x`)).toBe(
      popularityBucket(5000),
    );
  });
});

describe('search counters', () => {
  it('count every prefix of 2 to 16 characters of every word', () => {
    const t = { name: 'Uptime', slug: 'u', description: 'internationalization', category: 'http' };
    const prefixes = countedPrefixes(t);
    for (const p of ['up', 'upt', 'upti', 'uptim', 'uptime', 'ht', 'htt', 'http', 'in'])
      expect(prefixes.has(p), p).toBe(true);
    expect(prefixes.has('internationaliza')).toBe(true);
    expect(prefixes.has('internationaliz')).toBe(true);
    expect(prefixes.has('internationalizat')).toBe(false);
    expect(prefixes.has('u')).toBe(false);
    expect(countedPrefixOf('internationalization')).toEqual({ prefix: 'internationaliza', exact: false });
    expect(countedPrefixOf('uptime')).toEqual({ prefix: 'uptime', exact: true });
  });
});

describe('placeholders', () => {
  it('finds {{names}} in strings at any depth, with their paths, and nowhere else', () => {
    expect(placeholders({ a: 'x {{ one }} {{two}}', b: [1, { c: '{{three}}' }], '{{key}}': true }, ['config'])).toEqual(
      [
        { path: ['config', 'a'], name: 'one' },
        { path: ['config', 'a'], name: 'two' },
        { path: ['config', 'b', 1, 'c'], name: 'three' },
      ],
    );
  });
});

describe('rating', () => {
  it('rounds the average to 2 decimals and orders keys by average, then count', () => {
    expect(ratingAverage(10, 3)).toBe(3.33);
    expect(ratingAverage(0, 0)).toBe(0);
    expect(ratingKey(9, 2) > ratingKey(40, 10)).toBe(true); // 4.5 beats 4.0
    expect(ratingKey(45, 10) > ratingKey(9, 2)).toBe(true); // 4.5 × 10 beats 4.5 × 2
  });
});

describe('trend window', () => {
  it('is today and the 6 days before, across month ends', () => {
    expect(windowDays('2026-03-02')).toEqual([
      '2026-03-02',
      '2026-03-01',
      '2026-02-28',
      '2026-02-27',
      '2026-02-26',
      '2026-02-25',
      '2026-02-24',
    ]);
  });

  it('counts buckets inside the window and lists those outside', () => {
    const item = {
      [bucketAttribute('2026-03-02')]: 2,
      [bucketAttribute('2026-02-24')]: 3,
      [bucketAttribute('2026-02-23')]: 5,
      other: 1,
    };
    expect(installsInWindow(item, '2026-03-02')).toBe(5);
    expect(bucketsOutsideWindow(item, '2026-03-02')).toEqual(['inst_20260223']);
  });
});

describe('cursor', () => {
  it('round-trips and refuses another scope, another partition or extra keys', () => {
    const cursor = encodeCursor('s', { PK: 'a', SK: 'b', listAll: 'PUBLIC', popKey: 3 }, 20);
    expect(decodeCursor(cursor, 's', { PK: 'S', SK: 'S', listAll: 'S', popKey: 'N' }, { listAll: 'PUBLIC' })).toEqual({
      key: { PK: 'a', SK: 'b', listAll: 'PUBLIC', popKey: 3 },
      position: 20,
      owed: 0,
    });
    expect(() =>
      decodeCursor(cursor, 'other', { PK: 'S', SK: 'S', listAll: 'S', popKey: 'N' }, { listAll: 'PUBLIC' }),
    ).toThrow();
    expect(() =>
      decodeCursor(cursor, 's', { PK: 'S', SK: 'S', listAll: 'S', popKey: 'N' }, { listAll: 'CAT#ai' }),
    ).toThrow();
    expect(() => decodeCursor(cursor, 's', { PK: 'S', SK: 'S' }, {})).toThrow();
    expect(() => decodeCursor('not base64 json', 's', { PK: 'S' }, {})).toThrow();
  });

  it('carries the offset a search page still owes, and refuses an edited one', () => {
    const types = { PK: 'S', SK: 'S' } as const;
    expect(decodeCursor(encodeCursor('s', { PK: 'a', SK: 'b' }, 30, 25), 's', types, {}, 10_000)).toEqual({
      key: { PK: 'a', SK: 'b' },
      position: 30,
      owed: 25,
    });
    const edited = (o: unknown) =>
      Buffer.from(JSON.stringify({ s: 's', k: { PK: 'a', SK: 'b' }, p: 30, o })).toString('base64url');
    for (const o of [-1, 0, 1.5, 10_001, '3'])
      expect(() => decodeCursor(edited(o), 's', types, {}, 10_000), String(o)).toThrow();
  });
});
