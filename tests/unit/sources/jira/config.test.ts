import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { deploymentOf, type JiraConfig } from '../../../../sources/jira/config.js';
import { jira } from '../../../../sources/jira/index.js';

const load = (env: Record<string, string>, yaml?: string) => {
  let path: string | undefined;
  if (yaml) {
    path = join(mkdtempSync(join(tmpdir(), 'lestrade-jira-')), 'config.yaml');
    writeFileSync(path, yaml);
  }
  return loadConfig(env, path, [jira]).sources.jira as JiraConfig;
};

describe('sources.jira config', () => {
  it('reads the environment, with defaults for triggers, write-back, limit and polling', () => {
    const c = load({
      JIRA_URL: 'https://acme.atlassian.net',
      JIRA_EMAIL: 'bot@acme.example',
      JIRA_API_TOKEN: 'tok',
      JIRA_WEBHOOK_SECRET: 'a,b',
    });
    expect(c).toMatchObject({
      url: 'https://acme.atlassian.net',
      email: 'bot@acme.example',
      apiToken: 'tok',
      webhookSecret: 'a,b',
      writeBack: true,
      commentLimit: 32767,
      poll: [],
      triggers: { projects: [], triggerLabel: 'lestrade', command: '/lestrade investigate' },
    });
    expect(jira.disabledReason(c)).toBeNull();
  });

  it('defaults the deployment by host: *.atlassian.net is Cloud, anything else Data Center; JIRA_DEPLOYMENT overrides', () => {
    expect(deploymentOf({ url: 'https://acme.atlassian.net' })).toBe('cloud');
    expect(deploymentOf({ url: 'https://ACME.Atlassian.NET/' })).toBe('cloud');
    expect(deploymentOf({ url: 'https://jira.example.com/jira' })).toBe('datacenter');
    expect(deploymentOf({ url: 'https://atlassian.net.evil.example' })).toBe('datacenter');
    expect(deploymentOf(load({ JIRA_URL: 'http://127.0.0.1:8080', JIRA_DEPLOYMENT: 'cloud' }))).toBe('cloud');
  });

  it('says why it is off: no URL, or no credentials for the deployment', () => {
    expect(jira.disabledReason(load({}))).toBe('no JIRA_URL');
    expect(jira.disabledReason(load({ JIRA_URL: 'https://acme.atlassian.net', JIRA_EMAIL: 'bot@acme.example' }))).toBe(
      'no JIRA_EMAIL + JIRA_API_TOKEN for Jira Cloud',
    );
    expect(jira.disabledReason(load({ JIRA_URL: 'https://acme.atlassian.net', JIRA_PAT: 'pat' }))).toBe(
      'no JIRA_EMAIL + JIRA_API_TOKEN for Jira Cloud',
    );
    expect(
      jira.disabledReason(load({ JIRA_URL: 'https://jira.example.com', JIRA_EMAIL: 'a@b', JIRA_API_TOKEN: 't' })),
    ).toBe('no JIRA_PAT for Jira Data Center');
    expect(jira.disabledReason(load({ JIRA_URL: 'https://jira.example.com', JIRA_PAT: 'pat' }))).toBeNull();
  });

  it('errors name the key', () => {
    expect(() => load({ JIRA_URL: 'not a url' })).toThrow(/sources\.jira\.url/);
    expect(() => load({ JIRA_URL: 'https://jira.example.com', JIRA_DEPLOYMENT: 'server' })).toThrow(
      /sources\.jira\.deployment/,
    );
    expect(() => load({}, 'sources:\n  jira:\n    triggers: { projects: [ops] }\n')).toThrow(
      /sources\.jira\.triggers\.projects\.0: must be a Jira project key/,
    );
    expect(() => load({}, 'sources:\n  jira:\n    triggers: { lables: [x] }\n')).toThrow(
      /sources\.jira\.triggers: Unrecognized key: "lables"/,
    );
    expect(() => load({}, 'sources:\n  jira:\n    poll: [{ jql: "project = OPS", everySeconds: 5 }]\n')).toThrow(
      /sources\.jira\.poll\.0\.everySeconds/,
    );
    expect(() => load({}, 'sources:\n  jira:\n    commentLimit: 10\n')).toThrow(/sources\.jira\.commentLimit/);
  });

  it('takes triggers and polls from the file', () => {
    const c = load(
      { JIRA_URL: 'https://jira.example.com', JIRA_PAT: 'p' },
      [
        'sources:',
        '  jira:',
        '    triggers: { projects: [OPS, SRE], issueTypes: [Incident], jql: "priority = High" }',
        '    poll: [{ jql: "project = OPS" }]',
        '    writeBack: false',
      ].join('\n'),
    );
    expect(c.triggers).toMatchObject({ projects: ['OPS', 'SRE'], issueTypes: ['Incident'], jql: 'priority = High' });
    expect(c.poll).toEqual([{ jql: 'project = OPS', everySeconds: 300 }]);
    expect(jira.writer?.(c, { log: undefined as never, env: {} })).toBeNull();
    expect(jira.pollers?.(c, { log: undefined as never, env: {} }).map((p) => [p.id, p.everyMs])).toEqual([
      ['jira:project = OPS', 300_000],
    ]);
  });

  it('warns when the webhook would refuse everything, or when the token is shadowed by a secret', () => {
    const base = { JIRA_URL: 'https://jira.example.com', JIRA_PAT: 'p' };
    expect(jira.webhookWarnings?.(load(base))).toContainEqual(
      expect.stringMatching(
        /no JIRA_WEBHOOK_SECRET or JIRA_WEBHOOK_TOKEN set: \/webhooks\/jira refuses every delivery/,
      ),
    );
    expect(jira.webhookWarnings?.(load({ ...base, JIRA_WEBHOOK_TOKEN: 't', JIRA_WEBHOOK_SECRET: 's' }))).toContainEqual(
      expect.stringMatching(/JIRA_WEBHOOK_TOKEN is not accepted while JIRA_WEBHOOK_SECRET is set/),
    );
    expect(
      jira.warnings?.(
        load(
          { ...base, JIRA_WEBHOOK_TOKEN: 't' },
          'sources:\n  jira:\n    triggers: { projects: [OPS] }\n    trusted: { groups: [sre] }\n',
        ),
      ),
    ).toEqual([]);
  });

  it('reads who sees the RCA per project: visibility (role or group) and internal (default true)', () => {
    const c = load(
      { JIRA_URL: 'https://jira.example.com', JIRA_PAT: 'p' },
      [
        'sources:',
        '  jira:',
        '    projects:',
        '      OPS: { visibility: { type: role, value: Developers } }',
        '      HELP: { internal: false }',
        '      SD: {}',
      ].join('\n'),
    );
    expect(c.projects).toEqual({
      OPS: { visibility: { type: 'role', value: 'Developers' }, internal: true },
      HELP: { internal: false },
      SD: { internal: true },
    });
    expect(load({}).projects).toEqual({});
  });

  it('per-project errors name the key', () => {
    const projects = (yaml: string) => load({}, `sources:\n  jira:\n    projects:\n${yaml}\n`);
    expect(() => projects('      OPS: { visibility: { type: team, value: sre } }')).toThrow(
      /sources\.jira\.projects\.OPS\.visibility\.type: expected role or group/,
    );
    expect(() => projects('      OPS: { visibility: { type: group } }')).toThrow(
      /sources\.jira\.projects\.OPS\.visibility\.value/,
    );
    expect(() => projects('      OPS: { visibility: { type: group, value: "" } }')).toThrow(
      /sources\.jira\.projects\.OPS\.visibility\.value/,
    );
    expect(() => projects('      OPS: { internal: "no" }')).toThrow(/sources\.jira\.projects\.OPS\.internal/);
    expect(() => projects('      OPS: { visiblity: { type: role, value: x } }')).toThrow(
      /sources\.jira\.projects\.OPS: Unrecognized key: "visiblity"/,
    );
    expect(() => projects('      ops: {}')).toThrow(/sources\.jira\.projects\.ops.*must be a Jira project key/);
  });
});
