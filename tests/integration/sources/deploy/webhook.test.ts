import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeployEvent } from '../../../../src/records/deploy-event.js';
import { example, signed } from '../../../fixtures/github/payloads.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, type TestService } from '../../../helpers/service.js';
import { postWebhook } from '../../../helpers/webhook-post.js';

/**
 * Deploy notifications through the real service's webhook route, with a deploy listener given at
 * composition (startService's onDeploy), as the health checks will give theirs: POST /webhooks/deploy
 * and GitHub's deployment_status, each deploy told once.
 */
const h = serviceHarness();
const TOKEN = 'deploy-token-1';
const SECRET = 'deploy-secret-1';
const told: DeployEvent[] = [];

async function serve(env: Record<string, string>, onDeploy?: (e: DeployEvent) => Promise<void>): Promise<TestService> {
  told.length = 0;
  const listener =
    onDeploy ??
    (async (e: DeployEvent) => {
      told.push(e);
    });
  h.svc = await startTestService(h.redis.url, { LOG_LEVEL: 'info', ...env }, { workers: false, onDeploy: listener });
  return h.svc;
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const bearer = (token = TOKEN) => ({ authorization: `Bearer ${token}` });
const BODY = JSON.stringify({
  service: 'checkout',
  namespace: 'shop',
  version: 'v2.41.0',
  url: 'https://argocd.example/applications/checkout',
  environment: 'production',
  id: 'checkout-abc123-2026-12-07T08:00:00Z',
});

describe('POST /webhooks/deploy: authenticated', () => {
  it('is refused (401 naming the settings) while neither a token nor a secret is configured', async () => {
    const svc = await serve({});
    const r = await postWebhook(svc, 'deploy', BODY, bearer());
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/LESTRADE_DEPLOY_WEBHOOK_TOKEN.*LESTRADE_DEPLOY_WEBHOOK_SECRET/);
    expect(told).toEqual([]);
  });

  it('takes a bearer token (any of several, while rotating); refuses a wrong or missing one', async () => {
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_TOKEN: `old-token, ${TOKEN}` });
    expect((await postWebhook(svc, 'deploy', BODY, bearer('nope'))).status).toBe(401);
    expect((await postWebhook(svc, 'deploy', BODY, {})).status).toBe(401);
    // A signature is no use where only tokens are configured.
    expect((await postWebhook(svc, 'deploy', BODY, { 'x-lestrade-signature-256': sign(BODY) })).status).toBe(401);
    expect(told).toEqual([]);
    const r = await postWebhook(svc, 'deploy', BODY, bearer());
    expect(r).toEqual({
      status: 202,
      body: { deploy: 'webhook:checkout-abc123-2026-12-07T08:00:00Z', service: 'checkout', duplicate: false },
    });
    expect(told).toEqual([
      {
        id: 'webhook:checkout-abc123-2026-12-07T08:00:00Z',
        service: 'checkout',
        namespace: 'shop',
        version: 'v2.41.0',
        url: 'https://argocd.example/applications/checkout',
        environment: 'production',
        source: 'webhook',
        receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
  });

  it('takes an HMAC-SHA256 signature of the raw body; refuses one of another body or another secret', async () => {
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_SECRET: SECRET });
    const other = BODY.replace('v2.41.0', 'v2.41.1');
    const sig = (s: string) => ({ 'x-lestrade-signature-256': s });
    expect((await postWebhook(svc, 'deploy', other, sig(sign(BODY)))).status).toBe(401);
    expect((await postWebhook(svc, 'deploy', BODY, sig(sign(BODY, 'other-secret')))).status).toBe(401);
    expect((await postWebhook(svc, 'deploy', BODY, sig('sha256=00'))).status).toBe(401);
    expect((await postWebhook(svc, 'deploy', BODY, bearer())).status).toBe(401);
    expect(told).toEqual([]);
    expect((await postWebhook(svc, 'deploy', BODY, sig(sign(BODY)))).status).toBe(202);
    expect(told.map((e) => e.version)).toEqual(['v2.41.0']);
  });
});

describe('POST /webhooks/deploy: payloads and repeats', () => {
  it('answers 400 naming the field for a bad payload, and tells nothing', async () => {
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_TOKEN: TOKEN });
    const cases: Array<[unknown, string]> = [
      [{ namespace: 'shop' }, 'service'],
      [{ service: '' }, 'service'],
      [{ service: 'checkout', url: 'not a url' }, 'url'],
      [{ service: 'checkout', version: 41 }, 'version'],
      [{ service: 'checkout', servce: 'typo' }, ''],
    ];
    for (const [payload, field] of cases) {
      const r = await postWebhook(svc, 'deploy', JSON.stringify(payload), bearer());
      expect(r.status, JSON.stringify(payload)).toBe(400);
      expect(r.body.field).toBe(field);
      if (field === '') expect(r.body.error).toContain('servce');
    }
    const notJson = await fetch(`${svc.base}/webhooks/deploy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: '{"service":',
    });
    expect(notJson.status).toBe(400);
    expect(told).toEqual([]);
  });

  it('is one event however often it comes: by its id, or without one by its fields', async () => {
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_TOKEN: TOKEN });
    expect((await postWebhook(svc, 'deploy', BODY, bearer())).body.duplicate).toBe(false);
    const again = await postWebhook(svc, 'deploy', BODY, bearer());
    expect(again).toMatchObject({ status: 202, body: { duplicate: true } });
    // The same id with other fields (a sender's retry after editing its template) is the same deploy.
    const sameId = JSON.stringify({ ...JSON.parse(BODY), version: 'v9' });
    expect((await postWebhook(svc, 'deploy', sameId, bearer())).body.duplicate).toBe(true);
    const bare = JSON.stringify({ service: 'cart', version: 'v1' });
    const both = await Promise.all([1, 2, 3].map(() => postWebhook(svc, 'deploy', bare, bearer())));
    expect(both.map((r) => r.body.duplicate).sort()).toEqual([false, true, true]);
    expect(
      (await postWebhook(svc, 'deploy', JSON.stringify({ service: 'cart', version: 'v2' }), bearer())).body.duplicate,
    ).toBe(false);
    expect(told.map((e) => `${e.service}@${e.version}`)).toEqual(['checkout@v2.41.0', 'cart@v1', 'cart@v2']);
  });

  it("takes Flux's own event: a succeeded reconciliation is a deploy, anything else is ignored", async () => {
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_TOKEN: TOKEN });
    const flux = (reason: string, severity = 'info') =>
      JSON.stringify({
        involvedObject: {
          apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
          kind: 'Kustomization',
          name: 'checkout',
          namespace: 'shop',
        },
        metadata: { 'kustomize.toolkit.fluxcd.io/revision': 'main@sha1:731f7ea' },
        severity,
        reason,
        message: 'm',
        reportingController: 'kustomize-controller',
        timestamp: '2026-12-07T08:00:00Z',
      });
    const failed = await postWebhook(svc, 'deploy', flux('HealthCheckFailed', 'error'), bearer());
    expect(failed).toMatchObject({
      status: 200,
      body: { ignored: 'Flux event HealthCheckFailed (error) is not a finished deploy' },
    });
    expect((await postWebhook(svc, 'deploy', flux('ReconciliationSucceeded'), bearer())).status).toBe(202);
    expect((await postWebhook(svc, 'deploy', flux('ReconciliationSucceeded'), bearer())).body.duplicate).toBe(true);
    expect(told.map((e) => [e.service, e.namespace, e.version])).toEqual([['checkout', 'shop', 'main@sha1:731f7ea']]);
  });

  it('a listener that fails answers 503 and takes nothing: the retry is told', async () => {
    let fail = true;
    const svc = await serve({ LESTRADE_DEPLOY_WEBHOOK_TOKEN: TOKEN }, async (e) => {
      if (fail) throw new Error('redis down');
      told.push(e);
    });
    expect((await postWebhook(svc, 'deploy', BODY, bearer())).status).toBe(503);
    fail = false;
    expect(await postWebhook(svc, 'deploy', BODY, bearer())).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(told).toHaveLength(1);
  });

  it('with no listener the deploy is logged and answered 202', async () => {
    h.svc = await startTestService(
      h.redis.url,
      { LOG_LEVEL: 'info', LESTRADE_DEPLOY_WEBHOOK_TOKEN: TOKEN },
      { workers: false },
    );
    expect((await postWebhook(h.svc, 'deploy', BODY, bearer())).status).toBe(202);
    expect(
      h.svc.logs.some((l) => String(l.msg).startsWith('deploy seen; nothing listens') && l.service === 'checkout'),
    ).toBe(true);
  });
});

describe("GitHub's deployment_status", () => {
  const github = { GITHUB_TOKEN: 'ghp_test', GITHUB_WEBHOOK_SECRET: 'whsec', GITHUB_API_URL: 'http://127.0.0.1:9/' };
  const post = (svc: TestService, payload: Record<string, unknown>, id?: string) => {
    const s = signed('deployment_status', payload, 'whsec', id);
    return postWebhook(svc, 'github', s.body, s.headers);
  };

  it('success is a deploy (once per deployment, whatever redelivers it); other states are not', async () => {
    const svc = await serve(github);
    const success = example('deployment_status', 'created', 0);
    expect(success.deployment_status.state).toBe('success');
    const inProgress = example('deployment_status', 'created', 1);
    expect(inProgress.deployment_status.state).toBe('in_progress');
    const failure = { ...success, deployment_status: { ...success.deployment_status, state: 'failure' } };

    const ignored = await post(svc, inProgress);
    expect(ignored.status).toBe(200);
    expect(ignored.body.ignored).toBe('deployment_status in_progress is not a finished deploy');
    expect((await post(svc, failure)).body.ignored).toBe('deployment_status failure is not a finished deploy');
    expect(told).toEqual([]);

    const r = await post(svc, success, 'delivery-1');
    expect(r.status).toBe(202);
    expect(told).toEqual([
      {
        id: `github:Codertocat/Hello-World:deployment:${success.deployment.id}`,
        service: 'Hello-World',
        version: success.deployment.ref,
        environment: 'production',
        source: 'github',
        receivedAt: expect.any(String),
      },
    ]);
    // GitHub's redelivery (the same X-GitHub-Delivery) and a second success status of the same deployment: one deploy.
    expect((await post(svc, success, 'delivery-1')).status).toBe(200);
    expect((await post(svc, success, 'delivery-2')).body.duplicate).toBe(true);
    expect(told).toHaveLength(1);
  });

  it('a repository disabled in sources.github.repos reports no deploys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-deploy-'));
    writeFileSync(
      join(dir, 'c.yaml'),
      'sources: { github: { repos: { "Codertocat/Hello-World": { enabled: false } } } }\n',
    );
    const svc = await serve({ ...github, LESTRADE_CONFIG: join(dir, 'c.yaml') });
    const r = await post(svc, example('deployment_status', 'created', 0));
    expect(r.body.ignored).toBe('Codertocat/Hello-World is disabled in sources.github.repos');
    expect(told).toEqual([]);
  });

  it('an unsigned or wrongly signed deployment_status is refused', async () => {
    const svc = await serve(github);
    const s = signed('deployment_status', example('deployment_status', 'created', 0), 'not-the-secret');
    expect((await postWebhook(svc, 'github', s.body, s.headers)).status).toBe(401);
    expect(told).toEqual([]);
  });
});
