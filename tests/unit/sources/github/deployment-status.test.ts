import { describe, expect, it } from 'vitest';
import { readJson } from '../../../../src/read-json.js';
import { DeploymentStatusEventSchema, deploymentStatusOutcome } from '../../../../sources/github/deployment-status.js';
import { example } from '../../../fixtures/github/payloads.js';

const AT = new Date('2026-12-07T08:00:00.000Z');
const outcome = (payload: Record<string, unknown>) =>
  deploymentStatusOutcome(readJson(payload, DeploymentStatusEventSchema), AT);

/** The real example (@octokit/webhooks-examples), with the deployment's and the status's fields replaced. */
function success(deployment: Record<string, unknown> = {}, status: Record<string, unknown> = {}) {
  const ex = example('deployment_status', 'created', 0);
  return {
    ...ex,
    deployment: { ...ex.deployment, ...deployment },
    deployment_status: { ...ex.deployment_status, ...status },
  };
}

describe("GitHub's deployment_status as a deploy", () => {
  it('the real success example: service from the repository, version from the ref, one id per deployment', () => {
    const ex = success();
    expect(outcome(ex)).toEqual({
      kind: 'deploy',
      deploy: {
        id: `github:Codertocat/Hello-World:deployment:${ex.deployment.id}`,
        service: 'Hello-World',
        version: 'master',
        environment: 'production',
        source: 'github',
        receivedAt: '2026-12-07T08:00:00.000Z',
      },
    });
  });

  it('takes service, namespace and version from the deployment payload (an object or JSON text)', () => {
    const fields = { service: ' checkout ', namespace: 'shop', version: 'v2.41.0', other: 1 };
    for (const payload of [fields, JSON.stringify(fields)]) {
      const o = outcome(success({ payload, ref: 'refs/tags/v2.41.0' }));
      expect(o).toMatchObject({ deploy: { service: 'checkout', namespace: 'shop', version: 'v2.41.0' } });
    }
    const blank = outcome(success({ payload: { service: '  ', version: 7 } }));
    expect(blank).toMatchObject({ deploy: { service: 'Hello-World', version: 'master' } });
    expect(outcome(success({ payload: 'not json' }))).toMatchObject({ deploy: { service: 'Hello-World' } });
  });

  it("the url: the status's environment_url, else its target_url, only http(s)", () => {
    const env = 'https://checkout.example';
    const target = 'https://ci.example/run/1';
    expect(outcome(success({}, { environment_url: env, target_url: target }))).toMatchObject({ deploy: { url: env } });
    expect(outcome(success({}, { environment_url: '', target_url: target }))).toMatchObject({
      deploy: { url: target },
    });
    const none = outcome(success({}, { environment_url: 'javascript:alert(1)', target_url: null }));
    expect(none.kind === 'deploy' && 'url' in none.deploy).toBe(false);
  });

  it("environment: the status's, else the deployment's", () => {
    expect(outcome(success({ environment: 'staging' }, { environment: 'prod-eu' }))).toMatchObject({
      deploy: { environment: 'prod-eu' },
    });
    const noStatusEnv = success({ environment: 'staging' });
    delete (noStatusEnv.deployment_status as Record<string, unknown>).environment;
    expect(outcome(noStatusEnv)).toMatchObject({ deploy: { environment: 'staging' } });
  });

  it('every other state is ignored, saying which', () => {
    for (const state of ['pending', 'in_progress', 'queued', 'failure', 'error', 'inactive'])
      expect(outcome(success({}, { state }))).toEqual({
        kind: 'ignored',
        reason: `deployment_status ${state} is not a finished deploy`,
      });
  });

  it('a payload without the deployment is refused naming the field', () => {
    const { deployment: _d, ...rest } = success();
    expect(() => outcome(rest)).toThrow(/deployment/);
  });
});
