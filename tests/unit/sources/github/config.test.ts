import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { ConfigError } from '../../../../src/errors.js';
import { mountSources } from '../../../../src/app/mount-sources.js';
import { createLogger } from '../../../../src/log.js';
import { readPrivateKey } from '../../../../sources/github/client.js';
import type { GitHubConfig } from '../../../../sources/github/config.js';
import { github } from '../../../../sources/github/index.js';
import { githubPollers } from '../../../../sources/github/pollers.js';
import { createGitHubApi } from '../../../../sources/github/index.js';

const dir = mkdtempSync(join(tmpdir(), 'lestrade-gh-config-'));
const file = (text: string) => {
  const p = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(p, text);
  return p;
};
const slice = (env: Record<string, string>, path?: string) =>
  loadConfig(env, path, [github]).sources.github as GitHubConfig;
const log = createLogger('silent');

describe('sources.github config', () => {
  it('has the documented defaults', () => {
    expect(slice({})).toEqual({
      apiUrl: 'https://api.github.com',
      triggerLabel: 'lestrade',
      command: '/lestrade investigate',
      trustedAssociations: ['OWNER', 'MEMBER', 'COLLABORATOR'],
      allowPublicRepos: false,
      repos: {},
      writeBack: true,
      poll: [],
    });
  });

  it('binds the environment variables, the environment winning over the file', () => {
    const c = slice(
      {
        GITHUB_TOKEN: 'ghp_x',
        GITHUB_API_URL: 'https://ghe.example.com/api/v3',
        GITHUB_WEBHOOK_SECRET: 'a,b',
        GITHUB_APP_ID: '123',
        GITHUB_APP_PRIVATE_KEY: '/etc/key.pem',
        GITHUB_APP_INSTALLATION_ID: '456',
      },
      file('sources:\n  github:\n    token: from-file\n    triggerLabel: rca\n'),
    );
    expect(c).toMatchObject({
      token: 'ghp_x',
      apiUrl: 'https://ghe.example.com/api/v3',
      webhookSecret: 'a,b',
      triggerLabel: 'rca',
      app: { appId: '123', privateKey: '/etc/key.pem', installationId: 456 },
    });
  });

  it('names the offending key', () => {
    expect(() => slice({}, file('sources:\n  github:\n    tokn: x\n'))).toThrow(
      /sources\.github: Unrecognized key: "tokn"/,
    );
    expect(() => slice({}, file('sources:\n  github:\n    allowPublicRepos: [octo]\n'))).toThrow(
      /sources\.github\.allowPublicRepos/,
    );
    expect(() => slice({}, file('sources:\n  github:\n    poll: [{ repo: octo/app, everySeconds: 1 }]\n'))).toThrow(
      /sources\.github\.poll\.0\.everySeconds/,
    );
    expect(() => slice({}, file('sources:\n  github:\n    trustedAssociations: [OWNER, FRIEND]\n'))).toThrow(
      /sources\.github\.trustedAssociations\.1/,
    );
    expect(() => slice({}, file('sources:\n  github:\n    repos: { octo/app: { triggerLable: x } }\n'))).toThrow(
      /sources\.github\.repos\.octo\/app: Unrecognized key: "triggerLable"/,
    );
    expect(() => slice({ GITHUB_API_URL: 'not a url' })).toThrow(/sources\.github\.apiUrl/);
    expect(() => slice({ GITHUB_APP_INSTALLATION_ID: 'abc' })).toThrow(
      /GITHUB_APP_INSTALLATION_ID: expected an integer/,
    );
  });

  it('is off without a token or complete App credentials, and says what is missing', () => {
    expect(github.disabledReason(slice({}))).toBe('no GITHUB_TOKEN or GitHub App credentials');
    expect(github.disabledReason(slice({ GITHUB_APP_ID: '1', GITHUB_APP_INSTALLATION_ID: '2' }))).toBe(
      'no GITHUB_TOKEN or GitHub App credentials (sources.github.app lacks privateKey)',
    );
    expect(github.disabledReason(slice({ GITHUB_TOKEN: 't' }))).toBeNull();
    expect(
      github.disabledReason(
        slice({ GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: 'k', GITHUB_APP_INSTALLATION_ID: '2' }),
      ),
    ).toBeNull();
  });

  it('warns that the webhook refuses everything without a secret, and mounts no writer when writeBack is off', () => {
    const config = loadConfig({ GITHUB_TOKEN: 't' }, file('sources:\n  github:\n    writeBack: false\n'), [github]);
    const [mounted] = mountSources([github], config, { log, env: {} });
    expect(mounted!.webhookWarnings).toContain(
      'no GITHUB_WEBHOOK_SECRET set: /webhooks/github refuses every delivery (401)',
    );
    expect(mounted!.writer).toBeNull();
    expect(mounted!.webhook).not.toBeNull();
  });

  it('makes one poller per entry, with the default query and a stable id; none for a disabled repository', () => {
    const c = slice(
      { GITHUB_TOKEN: 't' },
      file(
        [
          'sources:',
          '  github:',
          '    repos: { octo/off: { enabled: false }, octo/ops: { triggerLabel: needs rca } }',
          '    poll: [{ repo: octo/app }, { repo: octo/ops, everySeconds: 60 }, { repo: octo/app, query: "is:open label:bug" }, { repo: octo/off }]',
        ].join('\n'),
      ),
    );
    const pollers = githubPollers(c, createGitHubApi(c), log);
    expect(pollers.map((p) => [p.id, p.everyMs])).toEqual([
      ['github:octo/app:is:open label:lestrade', 300_000],
      ['github:octo/ops:is:open label:"needs rca"', 60_000],
      ['github:octo/app:is:open label:bug', 300_000],
    ]);
  });
});

describe('the App private key', () => {
  it('is PEM text (newlines possibly escaped) or a file path; otherwise a ConfigError naming the key', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n';
    expect(readPrivateKey(pem)).toBe(pem);
    expect(readPrivateKey(pem.replace(/\n/g, '\\n'))).toBe(pem);
    const p = join(dir, 'key.pem');
    writeFileSync(p, pem);
    expect(readPrivateKey(p)).toBe(pem);
    expect(() => readPrivateKey('/nonexistent/key.pem')).toThrow(ConfigError);
    expect(() => readPrivateKey('/nonexistent/key.pem')).toThrow(/sources\.github\.app\.privateKey/);
  });
});
