import { describe, expect, it } from 'vitest';
import { RetryableError, PermanentError } from '../../../../src/errors.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { markedDigest, markerLine, rcaDigest } from '../../../../sources/pagerduty/marker.js';
import { pagerDutyFailure, pagerDutyReason } from '../../../../sources/pagerduty/pagerduty-error.js';
import { renderNote } from '../../../../sources/pagerduty/render-note.js';

const locator = { key: 'PT4KHLK', ref: { incidentId: 'PT4KHLK' } };
const doc = (rca: string, investigationId = 'inv-1') =>
  composeComment({ rca, issueKey: 'PT4KHLK', investigationId, allowedHosts: new Set() });

describe('the note', () => {
  it("starts with our marker and the RCA's digest, then the RCA as readable plain text", () => {
    const { content, digest } = renderNote(
      locator,
      doc('## Root cause\nThe pool is exhausted.\n\n## Next steps\n- Roll back'),
      25_000,
    );
    expect(content.split('\n')[0]).toBe(`lestrade:rca:PT4KHLK sha=${digest}`);
    expect(digest).toMatch(/^[0-9a-f]{12}$/);
    expect(content).toContain('### Lestrade — automated root-cause analysis');
    expect(content).toContain('## Root cause\nThe pool is exhausted.');
    expect(content).toContain('Lestrade investigation `inv-1` for `PT4KHLK`');
  });

  it('the digest follows the RCA, not the investigation that wrote it', () => {
    expect(rcaDigest(doc('## Root cause\nA', 'inv-1'))).toBe(rcaDigest(doc('## Root cause\nA', 'inv-2')));
    expect(rcaDigest(doc('## Root cause\nA'))).not.toBe(rcaDigest(doc('## Root cause\nB')));
  });

  it('fits the limit, marker included, saying what was cut', () => {
    const long = Array.from({ length: 40 }, (_, i) => `## Section ${i}\n${'word '.repeat(200)}`).join('\n\n');
    const { content, digest } = renderNote(locator, doc(long), 5_000);
    expect(content.length).toBeLessThanOrEqual(5_000);
    expect(content.startsWith(`lestrade:rca:PT4KHLK sha=${digest}\n`)).toBe(true);
    expect(content).toMatch(/sections were cut to fit the note size limit/);
  });

  it('defangs URLs the sanitizer left inert (a clickable link in plain text), keeps links to vouched hosts', () => {
    const rca =
      '## Key findings\n- See [the panel](https://grafana.acme.internal/d/1) and https://evil.example/?q=token\n- also www.evil.example/x\n\n```\ncurl http://evil.example/y\n```';
    const d = composeComment({
      rca,
      issueKey: 'PT4KHLK',
      investigationId: 'inv-1',
      resultsUrl: 'https://lestrade.acme.internal/api/investigations/inv-1',
      allowedHosts: new Set(['grafana.acme.internal', 'lestrade.acme.internal']),
    });
    const { content } = renderNote(locator, d, 25_000);
    expect(content).toContain('[the panel](https://grafana.acme.internal/d/1)');
    expect(content).toContain('`hxxps://evil.example/?q=token`');
    expect(content).toContain('www[.]evil.example/x');
    expect(content).toContain('curl hxxp://evil.example/y');
    expect(content).toContain('<https://lestrade.acme.internal/api/investigations/inv-1>');
    expect(content).not.toMatch(/https?:\/\/evil/);
  });

  it('a marker names exactly one incident', () => {
    const line = markerLine(locator, 'abcdef012345');
    expect(markedDigest(`${line}\n\nrest`, locator)).toBe('abcdef012345');
    expect(markedDigest(`text\n  ${line}  \nmore`, locator)).toBe('abcdef012345');
    expect(markedDigest(line, { key: 'PT4KHL', ref: {} })).toBeNull();
    expect(markedDigest(markerLine({ key: 'PT4KHLKX', ref: {} }, 'abcdef012345'), locator)).toBeNull();
    expect(markedDigest('lestrade:rca:PT4KHLK', locator)).toBeNull();
    expect(markedDigest('say lestrade:rca:PT4KHLK sha=abcdef012345', locator)).toBeNull();
  });
});

describe('PagerDuty errors', () => {
  const h = (init: Record<string, string> = {}) => new Headers(init);

  it("reads PagerDuty's error body: message and errors", () => {
    expect(
      pagerDutyReason(
        '{"error":{"message":"Invalid Input Provided","code":2001,"errors":["Requester User Not Found"]}}',
      ),
    ).toBe('Invalid Input Provided; Requester User Not Found');
    expect(pagerDutyReason('<html>bad gateway</html>')).toBe('<html>bad gateway</html>');
    expect(pagerDutyReason('')).toBe('');
  });

  it('429 waits Retry-After, else ratelimit-reset, else a minute; 5xx retry; other 4xx are permanent', () => {
    const wait = (headers: Headers) => (pagerDutyFailure('x', 429, headers, '') as RetryableError).retryAfterMs;
    expect(wait(h({ 'retry-after': '7' }))).toBe(7_000);
    expect(wait(h({ 'ratelimit-limit': '960', 'ratelimit-remaining': '0', 'ratelimit-reset': '23' }))).toBe(23_000);
    expect(wait(h())).toBe(60_000);
    expect(pagerDutyFailure('x', 503, h(), '')).toBeInstanceOf(RetryableError);
    const bad = pagerDutyFailure(
      'add note to P1',
      400,
      h(),
      '{"error":{"message":"Invalid Input Provided","errors":["Content can\'t be blank"]}}',
    );
    expect(bad).toBeInstanceOf(PermanentError);
    expect(bad.message).toBe(
      "PagerDuty answered HTTP 400: add note to P1: Invalid Input Provided; Content can't be blank",
    );
  });
});
