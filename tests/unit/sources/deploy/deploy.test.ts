import { describe, expect, it } from 'vitest';
import { readJson } from '../../../../src/read-json.js';
import { deployAuth, signBody } from '../../../../sources/deploy/auth.js';
import { deployFromPayload, DeployPayloadSchema } from '../../../../sources/deploy/payload.js';
import { fluxOutcome, FluxEventSchema, isFluxEvent } from '../../../../sources/deploy/flux.js';

const AT = new Date('2026-12-07T08:00:00.000Z');
const read = (doc: unknown) => deployFromPayload(readJson(doc, DeployPayloadSchema), AT);

describe('the deploy payload', () => {
  it('keeps the fields given (trimmed), and its id prefixed', () => {
    expect(read({ id: 'sync-1', service: ' checkout ', namespace: 'shop', environment: 'prod' })).toEqual({
      id: 'webhook:sync-1',
      service: 'checkout',
      namespace: 'shop',
      environment: 'prod',
      source: 'webhook',
      receivedAt: '2026-12-07T08:00:00.000Z',
    });
  });

  it('without an id: the same fields are the same deploy; any other field value is another', () => {
    const base = { service: 'checkout', version: 'v1' };
    const id = read(base).id;
    expect(id).toMatch(/^webhook:[0-9a-f]{32}$/);
    expect(read({ version: 'v1', service: 'checkout' }).id).toBe(id);
    for (const other of [
      { ...base, version: 'v2' },
      { ...base, namespace: 'shop' },
      { ...base, environment: 'prod' },
      { ...base, url: 'https://x.example' },
      { service: 'cart', version: 'v1' },
    ])
      expect(read(other).id).not.toBe(id);
  });

  it('refuses bad fields by name', () => {
    const field = (doc: unknown) => {
      try {
        read(doc);
        return null;
      } catch (e) {
        return (e as { field: string }).field;
      }
    };
    expect(field({})).toBe('service');
    expect(field({ service: 'x'.repeat(201) })).toBe('service');
    expect(field({ service: 'a', id: '' })).toBe('id');
    expect(field({ service: 'a', url: 'ftp//x' })).toBe('url');
    expect(field({ service: 'a', namespace: 3 })).toBe('namespace');
    expect(field({ service: 'a' })).toBeNull();
  });
});

describe('the deploy webhook credentials', () => {
  const body = Buffer.from('{"service":"checkout"}');
  it('with nothing configured refuses every request, naming the settings', () => {
    const v = deployAuth({}).checkHeaders({ authorization: 'Bearer x' });
    expect(v).toMatchObject({ ok: false, fix: expect.stringContaining('LESTRADE_DEPLOY_WEBHOOK_TOKEN') });
  });

  it('a bearer token is judged on the headers; a signature on the raw body', () => {
    const auth = deployAuth({ token: 'a, b', secret: 's1,s2' });
    expect(auth.checkHeaders({ authorization: 'Bearer b' })).toEqual({ ok: true });
    expect(auth.checkHeaders({ authorization: 'Bearer c' }).ok).toBe(false);
    expect(auth.checkHeaders({})).toMatchObject({ ok: false, reason: expect.stringContaining('missing') });
    const signature = signBody(body, 's2');
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(auth.checkHeaders({ 'x-lestrade-signature-256': signature })).toEqual({ ok: true });
    expect(auth.verify({ headers: { 'x-lestrade-signature-256': signature }, rawBody: body })).toEqual({ ok: true });
    const tampered = Buffer.from('{"service":"cart"}');
    expect(auth.verify({ headers: { 'x-lestrade-signature-256': signature }, rawBody: tampered }).ok).toBe(false);
    expect(auth.verify({ headers: { 'x-lestrade-signature-256': signature.toUpperCase() }, rawBody: body }).ok).toBe(
      false,
    );
  });

  it('a credential of a kind not configured is refused', () => {
    expect(deployAuth({ secret: 's' }).checkHeaders({ authorization: 'Bearer s' }).ok).toBe(false);
    expect(deployAuth({ token: 't' }).checkHeaders({ 'x-lestrade-signature-256': signBody(body, 't') }).ok).toBe(false);
  });
});

describe("Flux's event (the notification-controller's generic provider)", () => {
  // The shape of Flux's documented event example (fluxcd/pkg/apis/event), as a successful reconciliation.
  const event = (over: Record<string, unknown> = {}) => ({
    involvedObject: {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      name: 'checkout',
      namespace: 'shop',
      uid: '7d0cdc51-ddcf-4743-b223-83ca5c699632',
    },
    metadata: { 'kustomize.toolkit.fluxcd.io/revision': 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1' },
    severity: 'info',
    reason: 'ReconciliationSucceeded',
    message: 'Reconciliation finished in 1.2s, next run in 10m0s',
    reportingController: 'kustomize-controller',
    timestamp: '2026-12-07T08:00:00Z',
    ...over,
  });
  const outcome = (doc: unknown) => fluxOutcome(readJson(doc, FluxEventSchema), AT);

  it('a reconciliation that succeeded is a deploy of the object, at its revision, once per revision', () => {
    expect(isFluxEvent(event())).toBe(true);
    expect(isFluxEvent({ service: 'checkout' })).toBe(false);
    expect(outcome(event())).toEqual({
      kind: 'deploy',
      deploy: {
        id: 'flux:Kustomization/shop/checkout@main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        service: 'checkout',
        namespace: 'shop',
        version: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        source: 'webhook',
        receivedAt: '2026-12-07T08:00:00.000Z',
      },
    });
    const helm = outcome(
      event({ reason: 'UpgradeSucceeded', metadata: { 'helm.toolkit.fluxcd.io/revision': '1.4.2' } }),
    );
    expect(helm).toMatchObject({ deploy: { version: '1.4.2' } });
  });

  it('errors and other reasons are ignored, saying which', () => {
    expect(outcome(event({ severity: 'error', reason: 'ValidationFailed' }))).toEqual({
      kind: 'ignored',
      reason: 'Flux event ValidationFailed (error) is not a finished deploy',
    });
    expect(outcome(event({ reason: 'Progressing' }))).toMatchObject({ kind: 'ignored' });
    expect(outcome(event({ severity: 'error' }))).toMatchObject({ kind: 'ignored' });
  });

  it('an event without its object name is refused naming the field', () => {
    expect(() => outcome(event({ involvedObject: { kind: 'Kustomization', namespace: 'shop' } }))).toThrow(
      /involvedObject\.name/,
    );
  });
});
