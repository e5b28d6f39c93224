import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommand, type BashPolicyConfig } from '../../toolsets/bash/policy.js';
import { requireBinary } from '../helpers/require-binary.js';
import { fcParams } from './arbitraries.js';

/**
 * issue 30, as a differential property between the policy and curl itself: whenever the policy
 * allows a curl line, the host:port curl actually asks for, and the method it actually sends, are
 * what the policy judged. The oracle is curl: it runs with http_proxy/https_proxy pointing at a
 * recording listener (as in the sandbox, where the egress proxy is its only way out), which sees
 * the absolute-form request line (plain HTTP) or the CONNECT authority (HTTPS), i.e. where curl
 * parsed the URL to go. Defect 1 (`http://A\@B/`) and defect 2 (`-X GET -X DELETE`) fail it.
 */
const asked: Array<{ method: string; target: string }> = [];
const recorder = createServer((req: IncomingMessage, res) => {
  asked.push({ method: req.method ?? '', target: req.url ?? '' });
  res.end('recorded');
});
recorder.on('connect', (req: IncomingMessage, socket: Socket) => {
  asked.push({ method: 'CONNECT', target: req.url ?? '' });
  socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
});
let proxy = '';
const ALLOWED_PORT = 18999;
const cfg: BashPolicyConfig = { allow: [], deny: [], curlHosts: [`127.0.0.1:${ALLOWED_PORT}`, 'prometheus:9090'] };
const ALLOWED = new Set([`127.0.0.1:${ALLOWED_PORT}`, 'prometheus:9090']);

beforeAll(async () => {
  requireBinary('curl');
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
  proxy = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});
afterAll(() => recorder.close());

/** Runs the argv the policy allowed, as the sandbox would, and returns what curl asked the proxy for. */
async function whatCurlAsks(argv: string[]) {
  asked.length = 0;
  const env = {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    http_proxy: proxy,
    https_proxy: proxy,
    HTTPS_PROXY: proxy,
  };
  // curl exits non-zero for a refused CONNECT or a URL it cannot parse: what it asked for is the result, not its exit.
  await promisify(execFile)(argv[0]!, [...argv.slice(1), '--max-time', '3'], { env }).catch(() => undefined);
  return asked.map((a) => ({ method: a.method, dest: destinationOf(a) }));
}

function destinationOf(a: { method: string; target: string }): string {
  if (a.method === 'CONNECT') return a.target;
  const url = new URL(a.target);
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
}

const A = `127.0.0.1:${ALLOWED_PORT}`;
const OFF = '127.0.0.1:18998';
const hostile = fc
  .tuple(
    fc.constantFrom('http', 'https', 'HTTP', 'hTTp'),
    fc.constantFrom('://', '://', '://', ':/', ':///', ':\\\\'),
    fc.constantFrom('', '', '', 'u@', 'u:p@', `${A}@`, `${A}\\@`, `${A}%40`, `${A}#`),
    fc.constantFrom(
      '127.0.0.1',
      '127.0.0.1',
      'prometheus',
      'localhost',
      '2130706433',
      '0x7f.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      'evil.example',
    ),
    fc.constantFrom('', `:${ALLOWED_PORT}`, `:${ALLOWED_PORT}`, ':9090', ':18998', ':0', `:${ALLOWED_PORT}0`),
    fc.constantFrom(
      '',
      '/',
      '/api/v1/alerts',
      `#@${OFF}/`,
      `?@${OFF}`,
      `\\@${OFF}/`,
      `@${OFF}/`,
      `/..;@${OFF}/`,
      `%2f@${OFF}`,
    ),
  )
  .map((parts) => parts.join(''));
const plain = fc
  .tuple(
    fc.constantFrom(`http://${A}`, 'http://prometheus:9090', 'https://prometheus:9090', `https://${A}`),
    fc.stringMatching(/^(\/[a-z0-9._~-]{0,8}){0,3}(\?[a-z=&@]{0,6})?(#[a-z@:/]{0,6})?$/),
  )
  .map(([base, rest]) => base + rest);
const url = fc.oneof(hostile, plain);
const METHODS = [
  '-X GET',
  '-X HEAD',
  '-XGET',
  '--request GET',
  '--request=DELETE',
  '-X DELETE',
  '-XPOST',
  '-sXPUT',
  '-I',
  '-G',
];
const methods = fc.array(fc.constantFrom(...METHODS), { maxLength: 3 });

describe('what the policy allows is what curl does', () => {
  it('an allowed line goes only to a configured host:port, with GET or HEAD only, whatever the URL or method options', async () => {
    let allowedLines = 0;
    await fc.assert(
      fc.asyncProperty(url, methods, async (u, m) => {
        const line = `curl -s ${m.join(' ')} '${u.replace(/'/g, '')}'`;
        const { verdict, stages } = await checkCommand(line, cfg);
        if (verdict.decision !== 'allow') return;
        allowedLines++;
        for (const { method, dest } of await whatCurlAsks(stages[0]!)) {
          expect(ALLOWED.has(dest), `${line} went to ${dest}`).toBe(true);
          if (method !== 'CONNECT') expect(['GET', 'HEAD'], `${line} sent ${method}`).toContain(method);
        }
      }),
      fcParams(250),
    );
    // The property is not vacuous: a good share of lines were allowed, and curl was run for them.
    expect(allowedLines).toBeGreaterThan(20);
  });

  it('catches the defects of issue 30 when the policy is wrong (the oracle sees where curl really goes)', async () => {
    expect(await whatCurlAsks(['curl', '-s', `http://${A}\\@${OFF}/exfil`])).toEqual([{ method: 'GET', dest: OFF }]);
    expect(await whatCurlAsks(['curl', '-s', '-X', 'GET', '-X', 'DELETE', `http://${A}/`])).toEqual([
      { method: 'DELETE', dest: A },
    ]);
  });
});
