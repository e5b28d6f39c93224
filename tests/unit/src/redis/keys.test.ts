import { describe, expect, it } from 'vitest';
import { createKeys, DEFAULT_PREFIX, HASH_TAG, isInvestigationId, keys } from '../../../../src/redis/keys.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME, WRITE_BACK_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { askJobId, rerunJobId } from '../../../../src/redis/job-data.js';
import { decodeField, encodeField, losslessBytes } from '../../../../src/redis/lossless.js';

/** The part of a key Redis Cluster hashes: the first non-empty {…}, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** Each key is its prefix and a 32-hex digest, in the {lestrade} slot. */
function expectDigested(pairs: Array<[string, string]>): void {
  for (const [key, prefix] of pairs) {
    expect(key.startsWith(prefix), key).toBe(true);
    expect(key.slice(prefix.length), key).toMatch(/^[0-9a-f]{32}$/);
    expect(hashTag(key), key).toBe('lestrade');
  }
}

describe('keys', () => {
  const id = '5f0c1e2a-0000-4000-8000-000000000001';

  it('puts records, indexes and identities under the {lestrade} hash tag, ids as they are and vendor strings digested', () => {
    expect(HASH_TAG).toBe('{lestrade}');
    expect(keys.investigation(id)).toBe(`{lestrade}:inv:${id}`);
    expect(keys.linkedFrom(id)).toBe(`{lestrade}:inv:${id}:linkedFrom`);
    expect(keys.approvals(id)).toBe(`{lestrade}:inv:${id}:approvals`);
    expect(keys.index()).toBe('{lestrade}:invs');
    // In the same slot as the index: the claim script writes both.
    expect(keys.idIndex()).toBe('{lestrade}:invs:ids');
    expect(keys.dispatch()).toBe('{lestrade}:dispatch');
    expect(keys.cancelChannel()).toBe('{lestrade}:cancel');
    const digested: Array<[string, string]> = [
      [keys.dedup('github', 'acme/shop#1'), '{lestrade}:dedup:github:'],
      [keys.latest('github', 'acme/shop#1'), '{lestrade}:latest:github:'],
      [keys.group('alertmanager', '{}:{alertname="X"}'), '{lestrade}:group:alertmanager:'],
      [keys.delivery('github', 'd-1'), '{lestrade}:delivery:github:'],
      [keys.writtenComment('github', 'acme/shop#1'), '{lestrade}:written:github:'],
      [keys.writeResume('github', 'acme/shop#1'), '{lestrade}:writeresume:github:'],
      [keys.writeLock('github', 'acme/shop#1'), '{lestrade}:writelock:github:'],
      [keys.pollCursor('github:acme/shop'), '{lestrade}:poll:'],
    ];
    expectDigested(digested);
  });

  it('spreads checkpoints and kept outputs over the cluster by investigation id', () => {
    expect(keys.checkpoint(id)).toBe(`lestrade:checkpoint:{${id}}`);
    expect(hashTag(keys.checkpoint(id))).toBe(id);
    const output = keys.output(id, 'call_1');
    expect(output.startsWith(`lestrade:output:{${id}}:`)).toBe(true);
    expect(output.slice(`lestrade:output:{${id}}:`.length)).toMatch(/^[0-9a-f]{32}$/);
    expect(hashTag(output)).toBe(id);
    expect(keys.output(id, 'call_2')).not.toBe(output);
  });

  it('digests with SHA-256: the same text, the same key; different texts, different keys', () => {
    expect(keys.dedup('s', 'abc')).toBe('{lestrade}:dedup:s:ba7816bf8f01cfea414140de5dae2223');
    expect(keys.dedup('s', 'abc')).toBe(keys.dedup('s', 'abc'));
    expect(keys.dedup('s', 'abd')).not.toBe(keys.dedup('s', 'abc'));
    expect(keys.dedup('t', 'abc')).not.toBe(keys.dedup('s', 'abc'));
    // Lone surrogates, which UTF-8 would turn into the same U+FFFD, stay apart.
    expect(keys.dedup('s', 'x\ud800')).not.toBe(keys.dedup('s', 'x\udc00'));
    expect(keys.dedup('s', 'x\ud800')).not.toBe(keys.dedup('s', 'x\ufffd'));
  });
});

describe('isInvestigationId', () => {
  it('takes lower-case UUIDs only, whole', () => {
    expect(isInvestigationId('5f0c1e2a-0000-4000-8000-00000000000a')).toBe(true);
    for (const id of [
      '5F0C1E2A-0000-4000-8000-00000000000A',
      '5f0c1e2a-0000-4000-8000-00000000000',
      'x5f0c1e2a-0000-4000-8000-00000000000a',
      '5f0c1e2a-0000-4000-8000-00000000000ax',
      '5f0c1e2a00004000800000000000000a',
      '5f0c1e2a-0000-4000-8000-00000000000g',
      '',
      '../etc',
    ]) {
      expect(isInvestigationId(id), id).toBe(false);
    }
  });
});

describe('lossless fields', () => {
  it('stores well-formed text as it is', () => {
    expect(encodeField('plain é 😀')).toBe('plain é 😀');
    expect(decodeField('plain é 😀')).toBe('plain é 😀');
  });

  it('stores a lone surrogate, or text starting with the marker, as the marker and JSON, and reads it back exactly', () => {
    for (const s of ['a\ud800b', '\udc00', '\u0000starts with NUL', '\u0000']) {
      const stored = encodeField(s);
      expect(stored.startsWith('\u0000'), JSON.stringify(s)).toBe(true);
      expect(stored.slice(1)).toBe(JSON.stringify(s));
      expect(decodeField(stored)).toBe(s);
    }
    expect(encodeField('a\u0000b')).toBe('a\u0000b');
  });

  it('reads a missing field as undefined, and a marked field that is not a JSON string as it is', () => {
    expect(decodeField(null)).toBeUndefined();
    expect(decodeField(undefined)).toBeUndefined();
    expect(decodeField('\u0000{"not":"a string"}')).toBe('\u0000{"not":"a string"}');
    expect(decodeField('\u0000not json')).toBe('\u0000not json');
    expect(decodeField('')).toBe('');
  });

  it('gives each string its own bytes: UTF-8 when it has one, else a 0xFF mark and UTF-16', () => {
    expect(losslessBytes('é')).toEqual(Buffer.from('é', 'utf8'));
    expect(losslessBytes('a\ud800')).toEqual(Buffer.concat([Buffer.from([0xff]), Buffer.from('a\ud800', 'utf16le')]));
    expect(losslessBytes('a\ud800').equals(losslessBytes('a\udc00'))).toBe(false);
  });

  it('keys the dashboard, destinations, live changes and the LLM limiter in the namespace, digested where vendor text goes', () => {
    expect(keys.changesChannel()).toBe('{lestrade}:changes');
    const digested: Array<[string, string]> = [
      [keys.session('s3cr3t-session'), '{lestrade}:session:'],
      [keys.signInFailures('127.0.0.1'), '{lestrade}:signin-failures:'],
      [keys.destinationMemo('slack', 'inv-1'), '{lestrade}:dest:slack:'],
      [keys.destinationLock('slack', 'inv-1'), '{lestrade}:destlock:slack:'],
      [keys.llmLimit('gpt-4o'), '{lestrade}:llmlimit:'],
    ];
    expectDigested(digested);
    // A session id (a credential) never appears in its key.
    expect(keys.session('s3cr3t-session')).not.toContain('s3cr3t');
  });
});

describe('createKeys', () => {
  it('defaults to the lestrade namespace', () => {
    expect(DEFAULT_PREFIX).toBe('lestrade');
    expect(createKeys().tag).toBe('{lestrade}');
  });

  it('takes 1 to 40 letters, digits, _ . - and refuses anything else, naming the pattern', () => {
    expect(createKeys('a').tag).toBe('{a}');
    expect(createKeys('team-a_1.prod').queuePrefix).toBe('{team-a_1.prod}:bull');
    expect(createKeys('x'.repeat(40)).prefix).toBe('x'.repeat(40));
    for (const bad of ['', 'x'.repeat(41), 'a b', 'a:b', 'a{b}', 'ü']) {
      expect(() => createKeys(bad), JSON.stringify(bad)).toThrow(
        `redis prefix "${bad}" must match /^[A-Za-z0-9_.-]{1,40}$/`,
      );
    }
  });
});

describe('queue names and job ids', () => {
  it('are stable: a running deployment finds its queues and jobs under these names after an upgrade', () => {
    expect([QUEUE_NAME, EXPIRY_QUEUE_NAME, WRITE_BACK_QUEUE_NAME]).toEqual([
      'investigations',
      'approval-expiries',
      'writebacks',
    ]);
    expect(rerunJobId('inv-1', 2)).toBe('inv-1-rerun-2');
    expect(askJobId('inv-1', 3)).toBe('inv-1-ask-3');
  });
});
