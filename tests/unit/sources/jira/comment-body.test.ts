import { describe, expect, it } from 'vitest';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { adfToPlainText } from '../../../../sources/jira/render-adf.js';
import { renderBody } from '../../../../sources/jira/render-comment.js';

const locator = { key: 'OPS-7', ref: { issueKey: 'OPS-7', id: '10042' } };
const doc = (rca: string) =>
  composeComment({ rca, issueKey: 'OPS-7', investigationId: 'inv-1', allowedHosts: new Set() });
const RCA =
  '## Alert explanation\nCheckout 502s.\n\n## Root cause\nThe upstream pool is exhausted.\n\n## Next steps\n- raise the pool size';
const big = (n: number) =>
  Array.from({ length: n }, (_, i) => `## Finding ${i}\n${'evidence '.repeat(400)}`).join('\n\n');

describe('the comment body', () => {
  it('is an ADF document on Cloud, with the marker in its footer text', () => {
    const { body, cut } = renderBody('cloud', doc(RCA), locator, 32_767);
    expect(body).toMatchObject({ version: 1, type: 'doc' });
    expect(cut).toBe(false);
    const text = adfToPlainText(body);
    expect(text).toContain('The upstream pool is exhausted.');
    expect(text).toMatch(/Lestrade investigation inv-1 for OPS-7 · lestrade:rca:OPS-7\s*$/);
  });

  it('is wiki markup on Data Center, with the marker in its footer', () => {
    const { body } = renderBody('datacenter', doc(RCA), locator, 32_767);
    expect(typeof body).toBe('string');
    expect(body as string).toMatch(/^h3\. Lestrade/);
    expect(body as string).toContain('{{lestrade:rca:OPS-7}}');
  });

  it('on Cloud the ADF JSON fits the limit, sections cut with a note, marker kept', () => {
    const limit = 8_000;
    const { body, cut } = renderBody('cloud', doc(big(10)), locator, limit);
    expect(cut).toBe(true);
    expect(JSON.stringify(body).length).toBeLessThanOrEqual(limit);
    const text = adfToPlainText(body);
    expect(text).toMatch(/sections were cut to fit Jira's comment limit/);
    expect(text).toContain('lestrade:rca:OPS-7');
  });

  it('on Data Center the wiki text fits a configured limit', () => {
    const { body, cut } = renderBody('datacenter', doc(big(10)), locator, 5_000);
    expect(cut).toBe(true);
    expect((body as string).length).toBeLessThanOrEqual(5_000);
    expect(body as string).toContain('lestrade:rca:OPS-7');
  });
});
