import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunbookCatalog } from '../../../../src/runbooks/runbook-catalog.js';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-runbooks-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const POOL = `---
title: Checkout database pool exhaustion
description: What to check when checkout runs out of database connections
match: ['alertname="CheckoutDbPool"', 'namespace=~"shop|prod"']
---
1. Check active connections.
`;

const issue = (labels: Record<string, string>, o: { source?: string; title?: string } = {}) => ({
  source: o.source ?? 'alertmanager',
  title: o.title ?? 'CheckoutDbPool firing',
  labels,
});

describe('RunbookCatalog', () => {
  it('reads runbooks recursively, ids are paths without .md, the body follows the front matter', () => {
    const dir = folder({ 'db/pool.md': POOL, 'notes.txt': 'not a runbook' });
    const c = RunbookCatalog.load([dir]);
    expect(c.problems).toEqual([]);
    expect(c.runbooks.map((r) => r.id)).toEqual(['db/pool']);
    expect(c.get('db/pool')).toMatchObject({
      title: 'Checkout database pool exhaustion',
      body: '1. Check active connections.\n',
    });
  });

  it('matches when every matcher holds on the labels (missing labels are empty), and the source and title', () => {
    const dir = folder({
      'pool.md': POOL,
      'gh.md': '---\ntitle: T\ndescription: D\nsource: github\ntitleMatches: "^Deploy"\n---\nx',
      'any.md': '---\ntitle: Any\ndescription: every issue\n---\nx',
    });
    const c = RunbookCatalog.load([dir]);
    const ids = (i: ReturnType<typeof issue>) =>
      c
        .matching(i)
        .map((r) => r.id)
        .sort();
    expect(ids(issue({ alertname: 'CheckoutDbPool', namespace: 'shop' }))).toEqual(['any', 'pool']);
    expect(ids(issue({ alertname: 'CheckoutDbPool', namespace: 'staging' }))).toEqual(['any']);
    expect(ids(issue({ namespace: 'prod' }))).toEqual(['any']);
    expect(ids(issue({}, { source: 'github', title: 'Deploy broke checkout' }))).toEqual(['any', 'gh']);
    expect(ids(issue({}, { source: 'github', title: 'Checkout broke' }))).toEqual(['any']);
    expect(ids(issue({}, { source: 'jira', title: 'Deploy broke checkout' }))).toEqual(['any']);
  });

  it('skips a bad file with its path, the line to look at and why; the good ones still load', () => {
    const dir = folder({
      'good.md': POOL,
      'no-front.md': '# Just markdown\n',
      'unclosed.md': '---\ntitle: x\n',
      'yaml.md': '---\ntitle: x\ndescription: [unclosed\n---\n',
      'typo.md': '---\ntitle: x\ndescription: y\nmatchers: []\n---\n',
      'matcher.md': '---\ntitle: x\ndescription: y\nmatch:\n  - "severity critical"\n---\n',
      'regex.md': '---\ntitle: x\ndescription: y\ntitleMatches: "(["\n---\n',
      'missing.md': '---\ntitle: x\n---\n',
    });
    const c = RunbookCatalog.load([dir]);
    expect(c.runbooks.map((r) => r.id)).toEqual(['good']);
    const byFile = Object.fromEntries(c.problems.map((p) => [p.file.slice(dir.length + 1), p]));
    expect(byFile['no-front.md']).toMatchObject({
      line: 1,
      reason: expect.stringMatching(/must start with a line "---"/),
    });
    expect(byFile['unclosed.md']).toMatchObject({ line: 1, reason: expect.stringMatching(/never closed/) });
    expect(byFile['yaml.md']!.line).toBeGreaterThanOrEqual(3);
    expect(byFile['typo.md']).toMatchObject({ line: 2, reason: expect.stringMatching(/matchers/) });
    expect(byFile['matcher.md']).toMatchObject({ line: 5, reason: expect.stringMatching(/not a matcher/) });
    expect(byFile['regex.md']).toMatchObject({
      line: 4,
      reason: expect.stringMatching(/titleMatches: not a valid regular/),
    });
    expect(byFile['missing.md']).toMatchObject({ line: 2, reason: expect.stringMatching(/^description:/) });
    expect(c.problems).toHaveLength(7);
  });

  it('a folder that cannot be read is a problem, not a crash; the same id twice keeps the first', () => {
    const a = folder({ 'x.md': POOL });
    const b = folder({ 'x.md': POOL });
    const c = RunbookCatalog.load([a, join(a, 'nope'), b]);
    expect(c.runbooks).toHaveLength(1);
    expect(c.runbooks[0]!.file).toBe(join(a, 'x.md'));
    expect(c.problems.map((p) => p.reason)).toEqual([
      expect.stringMatching(/cannot read the folder/),
      'another folder already has a runbook "x"',
    ]);
  });
});
