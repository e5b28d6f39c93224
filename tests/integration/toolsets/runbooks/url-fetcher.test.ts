import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunbookCatalog } from '../../../../src/runbooks/runbook-catalog.js';
import { createRunbookToolset } from '../../../../toolsets/runbooks/index.js';
import { hostAllowed, RunbookUrlFetcher, RunbookUrlRefused } from '../../../../toolsets/runbooks/url-fetcher.js';

/** A wiki on loopback: 127.0.0.1 on its port is allowed; "localhost" (same server) is not, nor another port. */
let server: Server;
let other: Server;
let base: string;
const hits: string[] = [];
const HTML = `<!doctype html><html><head><style>p{}</style><script>alert(1)</script></head><body>
<h1>Pool exhaustion</h1><p>Check <a href="https://grafana.example/d/db">the DB board</a>.</p><img src="x.png">
<ul><li>restart the pooler</li></ul></body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url!);
    if (req.url === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
    if (req.url === '/md') return void res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Plain\nstep 1');
    if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('a'.repeat(5000));
    if (req.url === '/away') return void res.writeHead(302, { location: `http://localhost:${port()}/md` }).end();
    if (req.url === '/hop') return void res.writeHead(301, { location: '/md' }).end();
    if (req.url === '/port') return void res.writeHead(302, { location: `http://127.0.0.1:${port(other)}/` }).end();
    res.writeHead(404).end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${port()}`;
  // Another service on the same host (Lestrade's own /readyz, a database's HTTP port).
  other = createServer((req, res) => {
    hits.push(`other${req.url!}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ready: redis ok, secret internals');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await new Promise<void>((r) => other.close(() => r()));
  await new Promise<void>((r) => server.close(() => r()));
});
const port = (s: Server = server) => (s.address() as AddressInfo).port;

const fetcher = (o: Partial<ConstructorParameters<typeof RunbookUrlFetcher>[0]> = {}, now?: () => number) =>
  new RunbookUrlFetcher(
    { allowedHosts: [`127.0.0.1:${port()}`], maxBytes: 2048, timeoutMs: 5000, cacheSeconds: 60, ...o },
    now,
  );
const signal = () => new AbortController().signal;

describe('RunbookUrlFetcher', () => {
  it('turns HTML into Markdown without script, style or images, keeping headings, links and lists', async () => {
    const text = await fetcher().read(`${base}/html`, signal());
    expect(text).toContain('# Pool exhaustion');
    expect(text).toContain('[the DB board](https://grafana.example/d/db)');
    expect(text).toMatch(/-\s+restart the pooler/);
    expect(text).not.toMatch(/alert\(1\)|p\{\}|x\.png/);
  });

  it('refuses hosts not allowed, other schemes and credentials, before any request', async () => {
    const f = fetcher();
    const before = hits.length;
    await expect(f.read(`http://localhost:${port()}/md`, signal())).rejects.toThrow(
      /localhost:\d+ is not in runbooks.allowedHosts \(LESTRADE_RUNBOOK_HOSTS\)/,
    );
    await expect(f.read('file:///etc/passwd', signal())).rejects.toBeInstanceOf(RunbookUrlRefused);
    await expect(f.read(`http://u:p@127.0.0.1:${port()}/md`, signal())).rejects.toThrow(/credentials/);
    expect(hits.length).toBe(before);
  });

  it('follows a redirect only to an allowed host', async () => {
    expect(await fetcher().read(`${base}/hop`, signal())).toBe('# Plain\nstep 1');
    await expect(fetcher().read(`${base}/away`, signal())).rejects.toThrow(
      /localhost:\d+ is not in runbooks.allowedHosts/,
    );
  });

  it('allows a host on its port only: another port of it is refused, directly or by a redirect, before any request', async () => {
    const before = hits.filter((h) => h.startsWith('other')).length;
    await expect(fetcher().read(`http://127.0.0.1:${port(other)}/readyz`, signal())).rejects.toThrow(
      new RegExp(`127\\.0\\.0\\.1:${port(other)} is not in runbooks.allowedHosts`),
    );
    await expect(fetcher().read(`${base}/port`, signal())).rejects.toThrow(/is not in runbooks.allowedHosts/);
    // No port given: the scheme's default only (80 for http), never the wiki's or the other service's port.
    await expect(fetcher({ allowedHosts: ['127.0.0.1'] }).read(`${base}/md`, signal())).rejects.toThrow(
      /is not in runbooks.allowedHosts/,
    );
    expect(hits.filter((h) => h.startsWith('other')).length).toBe(before);
  });

  it('reads at most maxBytes and says it cut', async () => {
    const text = await fetcher({ maxBytes: 1024 }).read(`${base}/big`, signal());
    expect(text).toBe(`${'a'.repeat(1024)}\n\n[runbook cut at 1024 bytes (runbooks.maxBytes)]`);
    expect(await fetcher({ maxBytes: 5000 }).read(`${base}/big`, signal())).toBe('a'.repeat(5000));
  });

  it('remembers a page for cacheSeconds, then reads it again', async () => {
    let now = 1_000_000;
    const f = fetcher({ cacheSeconds: 60 }, () => now);
    const count = () => hits.filter((h) => h === '/md').length;
    const start = count();
    await f.read(`${base}/md`, signal());
    await f.read(`${base}/md`, signal());
    expect(count()).toBe(start + 1);
    now += 61_000;
    await f.read(`${base}/md`, signal());
    expect(count()).toBe(start + 2);
  });

  it('names the status of a page that is not there', async () => {
    await expect(fetcher().read(`${base}/gone`, signal())).rejects.toThrow(/answered 404/);
  });

  it('hostAllowed: exact names and *.domain subdomains, case-insensitive, on the port given or the default', () => {
    const ok = (url: string, allowed: string[]) => hostAllowed(new URL(url), allowed);
    expect(ok('https://Wiki.Example.com/x', ['wiki.example.com'])).toBe(true);
    expect(ok('https://a.example.com', ['*.example.com'])).toBe(true);
    expect(ok('https://example.com', ['*.example.com'])).toBe(false);
    expect(ok('https://evil-example.com', ['*.example.com'])).toBe(false);
    expect(ok('https://wiki.example.com.evil.net', ['wiki.example.com'])).toBe(false);
    expect(ok('https://wiki.example.com:443/', ['wiki.example.com'])).toBe(true);
    expect(ok('http://wiki.example.com/', ['wiki.example.com'])).toBe(true);
    expect(ok('https://wiki.example.com:8443/', ['wiki.example.com'])).toBe(false);
    expect(ok('http://wiki.example.com:443/', ['wiki.example.com'])).toBe(false);
    expect(ok('https://wiki.example.com:8443/', ['wiki.example.com:8443'])).toBe(true);
    expect(ok('https://wiki.example.com/', ['wiki.example.com:8443'])).toBe(false);
    expect(ok('http://a.example.com:8080/', ['*.example.com:8080'])).toBe(true);
    expect(ok('http://a.example.com:8081/', ['*.example.com:8080'])).toBe(false);
  });
});

describe('fetch_runbook', () => {
  const tool = (catalog = new RunbookCatalog([]), allowedHosts = [`127.0.0.1:${port()}`]) =>
    createRunbookToolset(catalog, { allowedHosts, maxBytes: 4096, timeoutMs: 5000, cacheSeconds: 0 }).tools[0]!;
  const ctx = () => ({ signal: signal(), approved: false });

  it('reads a catalog runbook by id, and names the ids it has when one is unknown', async () => {
    const catalog = new RunbookCatalog([
      { id: 'db/pool', file: '/x', title: 'Pool', description: 'd', matchers: [], body: 'step 1' },
    ]);
    expect(await tool(catalog).run({ id: 'db/pool' }, ctx())).toEqual({
      status: 'success',
      data: { id: 'db/pool', title: 'Pool', text: 'step 1' },
    });
    expect(await tool(catalog).run({ id: 'nope' }, ctx())).toEqual({
      status: 'error',
      error: 'no runbook "nope": the catalog has db/pool',
    });
  });

  it('reads a URL; a refused URL is an error result the model reads, not a thrown error', async () => {
    expect(await tool().run({ url: `${base}/md` }, ctx())).toEqual({
      status: 'success',
      data: { url: `${base}/md`, text: '# Plain\nstep 1' },
    });
    expect(await tool().run({ url: 'https://evil.example/x' }, ctx())).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/evil.example is not in runbooks.allowedHosts/),
    });
    expect(await tool().run({}, ctx())).toEqual({ status: 'error', error: 'give exactly one of id or url' });
    expect(await tool().run({ id: 'a', url: 'b' }, ctx())).toEqual({
      status: 'error',
      error: 'give exactly one of id or url',
    });
  });

  it('the toolset is off, saying which settings turn it on, without runbooks or hosts', async () => {
    const off = createRunbookToolset(new RunbookCatalog([]), {
      allowedHosts: [],
      maxBytes: 1024,
      timeoutMs: 1000,
      cacheSeconds: 0,
    });
    const check = off.prerequisites[0]!;
    expect(check.kind === 'check' && (await check.run())).toMatch(/LESTRADE_RUNBOOKS_DIR .* LESTRADE_RUNBOOK_HOSTS/);
    const on = createRunbookToolset(new RunbookCatalog([]), {
      allowedHosts: ['x'],
      maxBytes: 1024,
      timeoutMs: 1,
      cacheSeconds: 0,
    });
    const onCheck = on.prerequisites[0]!;
    expect(onCheck.kind === 'check' && (await onCheck.run())).toBeNull();
  });
});
