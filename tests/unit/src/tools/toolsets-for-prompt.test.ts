import { describe, expect, it } from 'vitest';
import { createRedactor, noSecrets } from '../../../../src/redact.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import {
  MAX_REASON_CHARS,
  safeReason,
  statusForDisplay,
  toolsetsForPrompt,
} from '../../../../src/tools/toolsets-for-prompt.js';
import { failing, toolset } from '../../../helpers/toolset-fixtures.js';

describe('the toolsets the system prompt lists', () => {
  it('offers the enabled ones with their instructions and lists every other one with the reason toolsets list shows', async () => {
    const r = await resolveToolsets(
      [
        toolset('prometheus', { instructions: '  Find names first.\n' }),
        toolset('kubernetes', { prerequisites: [{ kind: 'command', argv: ['definitely-not-kubectl', 'version'] }] }),
        toolset('bash', { enabled: false, instructions: 'never shown' }),
        toolset('runbooks', { prerequisites: [failing('no runbooks: set LESTRADE_RUNBOOKS_DIR')] }),
      ],
      {},
      {},
      [{ name: 'mine', origin: '/etc/lestrade/mine.yaml', state: 'failed', reason: 'tools: required', tools: [] }],
    );
    const out = toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets);
    expect(out.toolsets).toEqual([
      { name: 'prometheus', description: 'the prometheus toolset', instructions: 'Find names first.' },
    ]);
    expect(out.unavailable).toEqual([
      {
        name: 'kubernetes',
        reason: expect.stringMatching(/^prerequisite not met: `definitely-not-kubectl version` could not run/),
      },
      { name: 'bash', reason: 'switched off in configuration' },
      { name: 'runbooks', reason: 'prerequisite not met: no runbooks: set LESTRADE_RUNBOOKS_DIR' },
      { name: 'mine', reason: 'tools: required' },
    ]);
    // The reason is the registry's own words, as `lestrade toolsets list` prints them.
    for (const u of out.unavailable)
      expect(r.statuses.find((s) => s.name === u.name)!.reason!.replace(/\s+/g, ' ')).toContain(u.reason);
  });

  it("appends the operators' instructions from the settings to the toolset's own", async () => {
    const r = await resolveToolsets(
      [toolset('prometheus', { instructions: 'Find names first.' }), toolset('k8s')],
      {},
      {},
    );
    const settings = {
      prometheus: { instructions: '  Our SLO metrics start with slo_.\n' },
      k8s: { instructions: 'Production is the prod-* namespaces.' },
    };
    expect(toolsetsForPrompt(r.enabled, r.statusesNow(), settings, noSecrets).toolsets).toEqual([
      {
        name: 'prometheus',
        description: 'the prometheus toolset',
        instructions: 'Find names first.\nOur SLO metrics start with slo_.',
      },
      { name: 'k8s', description: 'the k8s toolset', instructions: 'Production is the prod-* namespaces.' },
    ]);
  });

  it('moves a toolset that failed since start-up (a server dropped) to the unavailable list, and back', async () => {
    let trouble: string | null = null;
    const r = await resolveToolsets([toolset('grafana', { origin: 'mcp', health: () => trouble })], {}, {});
    expect(toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets).toolsets.map((t) => t.name)).toEqual([
      'grafana',
    ]);
    trouble = 'the MCP server grafana dropped: ECONNREFUSED; reconnecting';
    expect(toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets)).toEqual({
      toolsets: [],
      unavailable: [{ name: 'grafana', reason: 'the MCP server grafana dropped: ECONNREFUSED; reconnecting' }],
    });
    trouble = null;
    expect(toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets).unavailable).toEqual([]);
  });

  it('does not list as unavailable a name the model has (a broken user file named as a built-in), nor one twice', async () => {
    const r = await resolveToolsets([toolset('kubernetes')], {}, {}, [
      { name: 'kubernetes', origin: '/mine/kubernetes.yaml', state: 'failed', reason: 'bad', tools: [] },
      { name: 'x', origin: '/a/x.yaml', state: 'failed', reason: 'first', tools: [] },
      { name: 'x', origin: '/b/x.yaml', state: 'failed', reason: 'second', tools: [] },
    ]);
    expect(toolsetsForPrompt(r.enabled, r.statusesNow(), {}, noSecrets)).toEqual({
      toolsets: [{ name: 'kubernetes', description: 'the kubernetes toolset' }],
      unavailable: [{ name: 'x', reason: 'first' }],
    });
  });
});

describe('a reason fit for the prompt', () => {
  it('redacts configured secrets, URL passwords and query strings, on one line', () => {
    const redact = createRedactor(['s3cr3t-header-value']);
    const reason =
      'Prometheus at http://lestrade:pa55word@prom:9090/ did not answer: 401 for token s3cr3t-header-value\n' +
      'see https://svc.example/healthz?api_key=abc123&x=1#frag and http://svc/ready#tok';
    const safe = safeReason(reason, redact);
    expect(safe).toBe(
      'Prometheus at http://lestrade:***@prom:9090/ did not answer: 401 for token [redacted] ' +
        'see https://svc.example/healthz and http://svc/ready',
    );
  });

  it('folds every run of whitespace into one space and trims the ends', () => {
    expect(safeReason('  kubectl failed:\n\n   connection   refused \n', noSecrets)).toBe(
      'kubectl failed: connection refused',
    );
  });

  it('keeps a reason of exactly the limit whole', () => {
    expect(safeReason('x'.repeat(MAX_REASON_CHARS), noSecrets)).toBe('x'.repeat(MAX_REASON_CHARS));
  });

  it('clips a long reason', () => {
    const safe = safeReason('x'.repeat(1000), noSecrets);
    expect(safe).toHaveLength(MAX_REASON_CHARS);
    expect(safe.endsWith('…')).toBe(true);
  });
});

describe('a status for a page or /readyz', () => {
  it('gets the same redaction as the prompt, keeps its lines and length, and leaves a reasonless status alone', () => {
    const redact = createRedactor(['s3cr3t-header-value']);
    const reason = `cannot reach http://u:pa55@prom:9090/api?access_token=abc123 (token s3cr3t-header-value)\n${'x'.repeat(300)}`;
    const shown = statusForDisplay(
      { name: 'prometheus', origin: 'builtin', state: 'disabled', reason, tools: [] },
      redact,
    );
    expect(shown.reason).toBe(`cannot reach http://u:***@prom:9090/api (token [redacted])\n${'x'.repeat(300)}`);
    const enabled = { name: 'k', origin: 'builtin', state: 'enabled' as const, tools: ['a'] };
    expect(statusForDisplay(enabled, redact)).toBe(enabled);
  });
});
