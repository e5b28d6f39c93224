import { describe, expect, it } from 'vitest';
import { composeComment, toMarkdown } from '../../../../src/render/compose-comment.js';
import { GITHUB_COMMENT_LIMIT, renderComment } from '../../../../sources/github/render-comment.js';
import { hasAnyMarker, markerComment } from '../../../../sources/github/marker.js';

const locator = { key: 'octo/app#12', ref: { owner: 'octo', repo: 'app', number: 12 } };
const doc = (rca: string) =>
  composeComment({ rca, issueKey: locator.key, investigationId: 'inv-1', allowedHosts: new Set() });

describe('the GitHub comment body', () => {
  it('is the Markdown with our marker last', () => {
    const d = doc('## Root cause\nThe disk filled up.');
    const body = renderComment(locator, d);
    expect(body).toBe(`${toMarkdown(d)}\n\n<!-- lestrade:rca:octo/app#12 -->`);
    expect(hasAnyMarker(body)).toBe(true);
  });

  it("fits GitHub's 65,536 characters, marker included, by cutting whole sections", () => {
    const section = (n: number) => `## Part ${n}\n${'word '.repeat(4_000)}`;
    const body = renderComment(locator, doc([1, 2, 3, 4, 5].map(section).join('\n\n')));
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body.endsWith(markerComment(locator))).toBe(true);
    expect(body).toContain('## Part 1');
    expect(body).not.toContain('## Part 5');
    expect(body).toMatch(/sections? cut to fit GitHub's comment size limit/);
  });

  it('stays within a smaller limit too, so the marker is never what gets cut', () => {
    const body = renderComment(locator, doc(`## Root cause\n${'x'.repeat(5_000)}`), 1_000);
    expect(body.length).toBeLessThanOrEqual(1_000);
    expect(body.endsWith(markerComment(locator))).toBe(true);
  });
});
