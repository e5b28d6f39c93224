import { describe, expect, it } from 'vitest';
import { marked, type Token } from 'marked';
import type { Issue } from '../../../../src/issue.js';
import { commentFor } from '../../../../src/delivery/comment-for.js';
import { anIssue } from '../../../helpers/issue.js';

function issue(over: Partial<Issue> = {}): Issue {
  return anIssue('acme/shop#12', {
    source: 'github',
    sourceInstance: 'api.github.com',
    title: 'Checkout is slow',
    description: 'Since the deploy.',
    url: 'https://github.com/acme/shop/issues/12',
    severity: 'high',
    startedAt: '2026-01-01T00:00:00Z',
    raw: {},
    locator: { key: 'acme/shop#12', ref: { owner: 'acme', repo: 'shop', number: 12 } },
    ...over,
  });
}

function liveLinks(md: string): string[] {
  const out: string[] = [];
  // The callback is synchronous: walkTokens returns no promise worth awaiting here.
  void marked.walkTokens(marked.lexer(md), (t: Token) => {
    if (t.type === 'link') out.push(new URL(String(t.href)).hostname);
  });
  return out;
}

const rca = [
  '## Root cause',
  'See [the status page](https://evil.example/c?k=c2VjcmV0), [the dashboard](https://grafana.example.com/d/1),',
  '[the wiki](https://wiki.example.com/x), [the runbook](https://runbooks.example.com/r),',
  '[the trusted note](https://trusted.example.com/n) and [the issue](https://github.com/acme/shop/issues/12).',
].join('\n');

function hostsOf(inv: Parameters<typeof commentFor>[0], opts?: Parameters<typeof commentFor>[1]): string[] {
  return commentFor(inv, opts).sections.flatMap(liveLinks).sort();
}

// Issue 16, defect 3: hosts named only by untrusted text (a commenter's "our status page is
// https://evil.example/") kept the model's links to them live. This test failed before the fix.
describe('commentFor: which links stay live', () => {
  it('never vouches for a host that only untrusted text named', () => {
    const hostile = issue({
      description: 'Opened by someone: the status page is https://evil.example/',
      annotations: { details: 'https://evil.example/x' },
      untrusted: [{ label: 'comment by @mallory', text: 'our status page is https://evil.example/' }],
    });
    expect(hostsOf({ id: 'i1', issue: hostile, rca, linkHosts: [] })).toEqual(['github.com']);
  });

  it('vouches for tool results, configured hosts, the issue itself and text its source trusts', () => {
    const trusted = issue({ trustedHosts: ['trusted.example.com'] });
    const hosts = hostsOf(
      { id: 'i1', issue: trusted, rca, linkHosts: ['grafana.example.com'] },
      { linkHosts: ['wiki.example.com'] },
    );
    expect(hosts).toEqual(['github.com', 'grafana.example.com', 'trusted.example.com', 'wiki.example.com']);
  });

  it("names the issue by its locator's label where it has one (an OpsGenie tinyId), else by its key", () => {
    const og = issue({ locator: { key: 'abc-1', label: '#42', ref: { alertId: 'abc-1' } } });
    expect(commentFor({ id: 'i1', issue: og, rca: 'x', linkHosts: [] }).footer).toBe(
      'Lestrade investigation `i1` for `#42`',
    );
    expect(commentFor({ id: 'i1', issue: issue(), rca: 'x', linkHosts: [] }).footer).toBe(
      'Lestrade investigation `i1` for `acme/shop#12`',
    );
  });

  it("vouches for Lestrade's own results link", () => {
    const doc = commentFor(
      { id: 'i1', issue: issue({ url: null }), rca: 'x', linkHosts: [] },
      { publicUrl: 'https://lestrade.example.com/' },
    );
    expect(doc.footer).toContain('<https://lestrade.example.com/api/investigations/i1>');
  });
});
