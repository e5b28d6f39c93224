import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import { loadYamlToolset } from '../../src/tools/yaml-toolset.js';
import { fcParams, paramString } from './arbitraries.js';

/**
 * (c) For any parameter values, YAML tools keep each value in its declared place: the HTTP runner
 * never leaves the declared host, path segment and query key (a local server sees every request),
 * and the command runner passes a value as exactly its one declared argument (printf echoes argv).
 * A value that cannot be kept in place is refused, naming its parameter, and nothing is sent or run.
 */
const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  requests.push({
    method: req.method!,
    url: req.url!,
    headers: req.headers,
    body: Buffer.concat(chunks).toString('utf8'),
  });
  res.writeHead(200, { 'content-type': 'text/plain' }).end('seen');
});
let executor: ToolExecutor;
let host = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-fuzz-tools-'));
  writeFileSync(
    join(dir, 'fuzz.yaml'),
    `name: fuzz
description: tools under fuzzing
tools:
  - name: item_detail
    description: x
    params:
      a: { type: string }
      b: { type: string }
      n: { type: integer, required: false }
    http:
      url: "http://${host}/api/v1/items/{{ a }}/detail?fixed=1"
      method: POST
      query: { q: "{{ b }}" }
      headers: { x-fixed: yes }
      body: { a: "{{ a }}", text: "a={{ a }}", n: "{{ n }}", list: ["{{ b }}"] }
  - name: echo_args
    description: x
    params:
      v: { type: string }
      w: { type: string, required: false }
    command: [printf, '%s\\0', "{{ v }}", fixed, { when: w, args: ["--w={{ w }}"] }]
`,
  );
  executor = new ToolExecutor({ tools: loadYamlToolset(join(dir, 'fuzz.yaml')).tools, maxOutputChars: 1_000_000 });
});
afterAll(() => {
  server.close();
});

let sent = 0;

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const decodedFully = (s: string) => {
  for (let i = 0; i < 8; i++) {
    try {
      const d = decodeURIComponent(s);
      if (d === s) break;
      s = d;
    } catch {
      break;
    }
  }
  return s;
};
const dotSegment = (s: string) =>
  decodedFully(s)
    .split(/[/\\]/)
    .some((p) => p === '.' || p === '..');
const call = (name: string, args: Record<string, unknown>) =>
  executor.execute({ id: 'c', name, arguments: JSON.stringify(args) });

describe('YAML tool runners under fuzzing', () => {
  it('(c) HTTP: a value never leaves its host, path segment, query key and JSON field', async () => {
    await fc.assert(
      fc.asyncProperty(paramString, paramString, fc.option(fc.integer(), { nil: undefined }), async (a, b, n) => {
        const before = requests.length;
        const r = await call('item_detail', { a, b, ...(n === undefined ? {} : { n }) });
        const tooLong = a.length > 4096 || b.length > 4096;
        const refusable = tooLong || dotSegment(a) || LONE.test(a) || LONE.test(b);
        if (r.status === 'error') {
          expect(refusable, `refused ${JSON.stringify(a)}, ${JSON.stringify(b)}: ${r.error}`).toBe(true);
          expect(r.error).toMatch(tooLong ? /invalid arguments/ : /parameter [ab]\b/);
          expect(requests.length).toBe(before);
          return;
        }
        expect(refusable, `sent ${JSON.stringify(a)}`).toBe(false);
        expect(r.status).toBe('success');
        expect(requests.length).toBe(before + 1);
        sent += 1;
        const seen = requests.at(-1)!;
        expect(seen.method).toBe('POST');
        expect(seen.headers.host).toBe(host);
        expect(seen.headers['x-fixed']).toBe('yes');
        const [path, query = ''] = seen.url.split(/\?(.*)/s);
        const segments = path!.split('/');
        expect(segments.length).toBe(6);
        expect([segments[0], segments[1], segments[2], segments[3], segments[5]]).toEqual([
          '',
          'api',
          'v1',
          'items',
          'detail',
        ]);
        expect(decodeURIComponent(segments[4]!)).toBe(a);
        const params = [...new URLSearchParams(query)];
        expect(params).toEqual([['fixed', '1'], ...(b === '' ? [] : [['q', b]])]);
        expect(JSON.parse(seen.body)).toEqual({ a, text: `a=${a}`, ...(n === undefined ? {} : { n }), list: [b] });
      }),
      fcParams(500),
    );
    expect(sent, 'most calls are sent, not refused').toBeGreaterThan(150);
  });

  it('(c) command: a value is passed as exactly its one declared argument', async () => {
    await fc.assert(
      fc.asyncProperty(paramString, fc.option(paramString, { nil: undefined }), async (v, w) => {
        const r = await call('echo_args', { v, ...(w === undefined ? {} : { w }) });
        const values = [v, ...(w === undefined ? [] : [w])];
        const refusable = values.some(
          (x) => x.length > 4096 || x.startsWith('-') || x.includes('\u0000') || LONE.test(x),
        );
        if (r.status === 'error') {
          expect(refusable, `refused ${JSON.stringify(values)}: ${r.error}`).toBe(true);
          expect(r.error).toMatch(/invalid arguments|parameter [vw]\b/);
          return;
        }
        expect(refusable, `ran with ${JSON.stringify(values)}`).toBe(false);
        const argv = r.data!.split('\u0000');
        expect(argv).toEqual([v, 'fixed', ...(w ? [`--w=${w}`] : []), '']);
      }),
      fcParams(300),
    );
  });
});
