import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { GitHubConfigSchema } from '../../../../sources/github/config.js';
import { createGitHubApi } from '../../../../sources/github/index.js';
import { locatorFor } from '../../../../sources/github/map.js';
import { githubWriter } from '../../../../sources/github/writer.js';
import { startGithubDouble, type GithubDouble } from '../../../helpers/doubles/github-double.js';

/** As a GitHub App installation: a JWT for GET /app, an installation token for the rest; we are `<slug>[bot]`. */
let gh: GithubDouble;
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const locator = locatorFor('octo/app', 3);
const doc = (rca: string) =>
  composeComment({ rca, issueKey: locator.key, investigationId: 'inv-app', allowedHosts: new Set() });

beforeAll(async () => {
  gh = await startGithubDouble({ app: { id: 4242, slug: 'lestrade-app', installationId: 77 } });
  gh.addRepo({ owner: 'octo', name: 'app', private: true });
  gh.addIssue({ owner: 'octo', repo: 'app', number: 3, title: 'x' });
});
afterAll(async () => {
  expect(gh.violations).toEqual([]);
  await gh.close();
});

describe('GitHub App credentials', () => {
  it('write as the installation, recognise that bot as us, and read the key from a file', async () => {
    const keyFile = join(mkdtempSync(join(tmpdir(), 'lestrade-gh-app-')), 'app.pem');
    writeFileSync(keyFile, privateKey);
    const config = GitHubConfigSchema.parse({
      apiUrl: gh.url,
      app: { appId: '4242', privateKey: keyFile, installationId: 77 },
    });
    const api = createGitHubApi(config, { pacing: false });
    expect(await api.botLogin()).toBe('lestrade-app[bot]');
    const w = githubWriter(api, config);
    const first = await writeRca(w, locator, doc('one'), null);
    const second = await writeRca(w, locator, doc('two'), null);
    expect([first.action, second.action]).toEqual(['created', 'updated']);
    const comments = gh.state.comments('octo', 'app', 3);
    expect(comments.map((c) => c.user.login)).toEqual(['lestrade-app[bot]']);
    expect(comments[0]!.body).toContain('two');
    const auth = gh.requests.filter((r) => r.path === '/app/installations/77/access_tokens');
    expect(auth.length).toBeGreaterThanOrEqual(1);
    expect(String(gh.requests.find((r) => r.path === '/app')?.headers.authorization)).toMatch(
      /^bearer [\w-]+\.[\w-]+\.[\w-]+$/i,
    );
  });

  it('PEM text with escaped newlines, as an environment variable carries it, works too', async () => {
    const config = GitHubConfigSchema.parse({
      apiUrl: gh.url,
      app: { appId: 4242, privateKey: privateKey.replace(/\n/g, '\\n'), installationId: 77 },
    });
    const api = createGitHubApi(config, { pacing: false });
    expect(await api.repository('octo', 'app')).toEqual({ full_name: 'octo/app', private: true });
  });
});
