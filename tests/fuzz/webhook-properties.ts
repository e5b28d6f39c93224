import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/redis/keys.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { anyJson, fcParams, focusedMutationsOf, mutationsOf, toJsonText } from './arbitraries.js';
import { DEFAULT_RUNS, type WebhookEndpoint } from './webhook-endpoints.js';

/**
 * Properties of a webhook endpoint (a row of WEBHOOK_ENDPOINTS) against the real service on a
 * real Redis, and the vendor double its handler calls:
 * (a) any JSON, or any mutation of a real payload, correctly signed, gets 2xx or 4xx (5xx only
 *     means Redis or the vendor is down; no answer within ANSWER_MS fails too); a payload the
 *     vendor can send gets 200, one the source's schema refuses creates nothing, and a repeat
 *     creates nothing new;
 * (b) whatever strings a valid payload holds are stored, and read back, exactly;
 * (c) a forged or missing credential is 401, creates nothing and does not use up the delivery id;
 * (d) a delivery id acted on once is never acted on again, whatever the body (one refused with 4xx
 *     is not used up: the vendor's redelivery still counts).
 * Payloads are judged as the row's source reads them (parseBody: OpsGenie and JSM keep integers past
 * 2^53 exact), and posted as toJsonText writes them (RAW markers become raw number tokens).
 * Defects these found in src/ or sources/ are listed per row (KnownDefect): the properties are
 * narrowed around each, and its minimal counterexample runs as it.fails.
 * Runs are bounded (fcParams) and seeded (tests/setup/fast-check-seed.ts: FC_SEED). FUZZ_STATS=1 prints what the deliveries came to.
 */
const ANSWER_MS = 8_000;

export function fuzzWebhook(endpoint: WebhookEndpoint): void {
  /** The body as the source reads it (JSON.parse unless the row says otherwise), or undefined when it is no JSON. */
  const parseOrUndefined = (text: string): unknown => {
    try {
      return (endpoint.parseBody ?? JSON.parse)(text);
    } catch {
      return undefined;
    }
  };
  const runs = { ...DEFAULT_RUNS, ...endpoint.runs };
  let redis: TestRedis;
  let admin: Redis;
  let svc: TestService;
  const stats = new Map<string, number>();

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    const s = await endpoint.setup?.();
    // JSON is YAML: the endpoint's sources.<name>, if it has any.
    const config = join(mkdtempSync(join(tmpdir(), 'lestrade-fuzz-')), 'lestrade.yaml');
    writeFileSync(config, JSON.stringify({ sources: s?.config ? { [endpoint.name]: s.config } : {} }));
    // No LLM: nothing runs, so every claim stays visible as a record and a queued job.
    svc = await startTestService(redis.url, {
      LOG_LEVEL: 'silent',
      ...endpoint.env,
      ...s?.env,
      LESTRADE_CONFIG: config,
    });
  });
  afterAll(async () => {
    if (process.env.FUZZ_STATS && svc) {
      const lines = [...stats].map(([k, n]) => `  ${String(n).padStart(5)}  ${k}`).sort();
      const refused = endpoint.report?.() ?? [];
      console.log(
        `${endpoint.path}:\n${lines.join('\n')}${refused.length ? `\n  the double refused:\n${refused.map((l) => `    ${l}`).join('\n')}` : ''}`,
      );
    }
    await svc?.close();
    admin?.disconnect();
    await endpoint.teardown?.();
    await redis?.stop();
  });

  const created = () => admin.zcard(keys.index());
  async function post(text: string, headers: Record<string, string> = endpoint.sign(text)) {
    try {
      return await fetch(`${svc.base}${endpoint.path}`, {
        method: 'POST',
        headers,
        body: text,
        signal: AbortSignal.timeout(ANSWER_MS),
      });
    } catch (err) {
      throw new Error(
        `POST ${endpoint.path} got no answer within ${ANSWER_MS} ms (${(err as Error).name}): ${text.slice(0, 300)}`,
      );
    }
  }

  /** Fresh 16-hex-digit identities: a run prefix, then a counter. */
  const runPrefix = randomBytes(4).toString('hex');
  let counter = 0;
  const nextId = () => `${runPrefix}${(counter++).toString(16).padStart(8, '0')}`;

  let property = '';
  const tally = (status: number, body: unknown, createdNow: number) => {
    const b = body as { ignored?: string; duplicates?: unknown[]; resolved?: unknown[]; error?: string } | undefined;
    // Reasons and errors without the ids and values in them, so like outcomes count together.
    const gist = (t: string, n: number) =>
      t
        .replace(/\d+/g, 'N')
        .replace(/"[^"]*"|\([^)]*\)|@\S+/g, '…')
        .slice(0, n);
    const what = (() => {
      if (createdNow > 0) return 'created';
      if (b?.ignored) return `ignored: ${gist(b.ignored, 70)}`;
      if (b?.duplicates?.length) return 'duplicate';
      if (b?.resolved?.length) return 'resolved';
      return status >= 400 ? gist(b?.error ?? '', 50) : '';
    })();
    const key = `${property} ${status} ${what}`;
    stats.set(key, (stats.get(key) ?? 0) + 1);
  };

  describe(`POST ${endpoint.path} under fuzzing`, () => {
    const sourceAccepts = (doc: unknown) => (endpoint.sourceAccepts ?? endpoint.specAccepts)(doc);

    /** Posts a correctly signed body, checking the status class and that a refused payload creates nothing. */
    async function checkDelivery(
      text: string,
      headers?: Record<string, string>,
    ): Promise<{ status: number; body: unknown; createdNow: number }> {
      const before = await created();
      const res = await post(text, headers);
      // A reply that is not JSON has no body to judge.
      const body = await res.json().catch(() => undefined);
      const createdNow = (await created()) - before;
      tally(res.status, body, createdNow);
      const doc = parseOrUndefined(text);
      const accepted = doc !== undefined && sourceAccepts(doc);
      expect(res.status, `${res.status} ${JSON.stringify(body)}`).toBeLessThan(500);
      if (doc !== undefined && endpoint.specAccepts(doc))
        expect(accepted, "the vendor may send this, but the source's schema refuses it").toBe(true);
      if (accepted) expect(res.status, JSON.stringify(body)).toBe(200);
      else {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(createdNow).toBe(0);
      }
      return { status: res.status, body, createdNow };
    }

    /** Leaves out payloads that hit a known, reported defect (each demonstrated by an it.fails below). */
    const narrow = (text: string) => {
      const doc = parseOrUndefined(text);
      fc.pre(!endpoint.knownDefects?.some((d) => d.hits(doc)));
    };

    it('(a) answers any JSON value with 2xx or 4xx, creating nothing from what the schema refuses', async () => {
      property = 'any-json';
      await fc.assert(
        fc.asyncProperty(anyJson, async (value) => {
          const text = toJsonText(value);
          narrow(text);
          await checkDelivery(text);
        }),
        fcParams(runs.anyJson),
      );
    });

    const mutated = endpoint.hotPaths
      ? fc.oneof(
          mutationsOf(endpoint.fixtures),
          focusedMutationsOf(endpoint.fixtures, endpoint.hotPaths, endpoint.hotValues),
        )
      : mutationsOf(endpoint.fixtures);

    it('(a) answers any mutation of a real payload with 2xx or 4xx; a repeat of an accepted one creates nothing new', async () => {
      property = 'mutation';
      await fc.assert(
        fc.asyncProperty(mutated, async (doc) => {
          const text = toJsonText(endpoint.freshen(doc, nextId));
          narrow(text);
          const first = await checkDelivery(text);
          if (first.status !== 200) return;
          const again = await checkDelivery(text);
          expect(again.createdNow).toBe(0);
        }),
        fcParams(runs.mutations),
      );
    });

    it('(b) stores what a valid payload holds exactly, and a repeat creates nothing new', async () => {
      property = 'valid';
      await fc.assert(
        fc.asyncProperty(endpoint.valid, async (doc) => {
          // The payload as the source reads it from the text posted (raw numbers such as a nanosecond updatedAt included).
          const text = toJsonText(endpoint.freshen(doc, nextId));
          narrow(text);
          const payload = parseOrUndefined(text);
          expect(endpoint.specAccepts(payload)).toBe(true);
          const first = await checkDelivery(text);
          const { queued } = first.body as { queued: string[] };
          const expected = endpoint.expectedOpenIssues(payload);
          expect(queued).toHaveLength(expected.length);
          for (const [i, id] of queued.entries()) {
            const res = await fetch(`${svc.base}/api/investigations/${id}`);
            const inv = JSON.parse(await res.text());
            // Compared as JSON text: own "__proto__" keys, lone surrogates and key order all count.
            expect(JSON.stringify(inv.issue)).toBe(JSON.stringify(expected[i]));
            expect(inv.title).toBe(expected[i]!.title);
            if (i === 0 && endpoint.exactText) {
              const text = endpoint.exactText(payload);
              if (text.title !== undefined) expect(JSON.stringify(inv.issue.title)).toBe(JSON.stringify(text.title));
              if (text.description !== undefined)
                expect(JSON.stringify(inv.issue.description)).toBe(JSON.stringify(text.description));
              for (const name of text.labels ?? []) {
                expect(
                  Object.hasOwn(inv.issue.labels, name) && inv.issue.labels[name],
                  `label ${JSON.stringify(name)}`,
                ).toBe('true');
              }
              for (const [path, value] of text.fields ?? []) {
                const stored = path.reduce<unknown>(
                  (node, key) =>
                    node !== null && typeof node === 'object' && Object.hasOwn(node, key)
                      ? (node as Record<string | number, unknown>)[key]
                      : undefined,
                  inv.issue,
                );
                expect(JSON.stringify(stored), `issue.${path.join('.')}`).toBe(JSON.stringify(value));
              }
            }
          }
          const again = await checkDelivery(text);
          expect(again.createdNow).toBe(0);
          expect((again.body as { queued: string[] }).queued).toEqual([]);
        }),
        fcParams(runs.valid),
      );
    });

    it('(c) refuses a forged or missing credential with 401, creating nothing and leaving the delivery id unused', async () => {
      property = 'forged';
      await fc.assert(
        fc.asyncProperty(endpoint.valid, endpoint.forgeries, async (doc, forgery) => {
          const text = toJsonText(endpoint.freshen(doc, nextId));
          narrow(text);
          const deliveryId = randomUUID();
          const before = await created();
          const res = await post(text, endpoint.forge(text, forgery, deliveryId));
          // The body only annotates the failure; a reply that is not JSON shows none.
          expect(res.status, JSON.stringify(await res.json().catch(() => undefined))).toBe(401);
          expect(await created()).toBe(before);
          // The authentic delivery of the same id and body still counts: a forgery cannot pre-empt it.
          const genuine = await checkDelivery(text, endpoint.sign(text, { deliveryId }));
          expect((genuine.body as { queued: string[] }).queued).toHaveLength(
            endpoint.expectedOpenIssues(parseOrUndefined(text)).length,
          );
        }),
        fcParams(runs.forged),
      );
    });

    it.skipIf(!endpoint.deliveryIdHeader)(
      '(d) never acts on a delivery id twice, whatever the second body holds, once a delivery was acted on',
      async () => {
        property = 'replay';
        await fc.assert(
          fc.asyncProperty(endpoint.valid, endpoint.valid, anyJson, async (a, b, refused) => {
            const deliveryId = randomUUID();
            const first = toJsonText(endpoint.freshen(a, nextId));
            narrow(first);
            // A delivery the source refuses (4xx) does not use up its id: the vendor's redelivery still counts.
            const bad = toJsonText(refused);
            const badDoc = parseOrUndefined(bad);
            if (
              !(badDoc !== undefined && sourceAccepts(badDoc)) &&
              !endpoint.knownDefects?.some((d) => d.hits(badDoc))
            ) {
              await checkDelivery(bad, endpoint.sign(bad, { deliveryId }));
            }
            const r1 = await checkDelivery(first, endpoint.sign(first, { deliveryId }));
            expect(r1.createdNow).toBe(endpoint.expectedOpenIssues(parseOrUndefined(first)).length);
            for (const text of [first, toJsonText(endpoint.freshen(b, nextId))]) {
              const again = await checkDelivery(text, endpoint.sign(text, { deliveryId }));
              expect(again.createdNow).toBe(0);
              expect(again.body).toMatchObject({ ignored: 'delivery already handled', queued: [] });
            }
          }),
          fcParams(runs.replay),
        );
      },
    );

    // Fixed defects the properties found: their minimal counterexamples stay as regression tests.
    for (const fixed of endpoint.regressions ?? []) {
      it(`regression: ${fixed.title}`, async () => {
        property = 'regression';
        await fixed.demonstrate({ deliver: (text) => checkDelivery(text) });
      });
    }

    // Known defects (found by the properties above, reported, not fixed here): each fails today.
    for (const defect of endpoint.knownDefects ?? []) {
      it.fails(`known defect: ${defect.title}`, async () => {
        property = 'known-defect';
        await defect.demonstrate({ deliver: (text) => checkDelivery(text) });
      });
    }
  });
}
