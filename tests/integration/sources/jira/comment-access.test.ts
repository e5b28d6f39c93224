import { afterEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import type { IssueLocator } from '../../../../src/issue.js';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { writeRca } from '../../../../src/delivery/write-rca.js';
import { cloudApi } from '../../../../sources/jira/cloud-api.js';
import { JiraConfigSchema } from '../../../../sources/jira/config.js';
import { dataCenterApi } from '../../../../sources/jira/datacenter-api.js';
import { textOf } from '../../../../sources/jira/text-of.js';
import { jiraWriter } from '../../../../sources/jira/writer.js';
import { isInternal } from '../../../helpers/doubles/jira-state.js';
import { jiraDoubleSuite } from '../../../helpers/jira-double-suite.js';

/** Who sees the RCA: sources.jira.projects.<KEY>.visibility, and JSM's internal comments on service desks. */
const doc = (rca: string, key = 'OPS-7') =>
  composeComment({ rca, issueKey: key, investigationId: 'inv-1', allowedHosts: new Set() });
const locatorOf = (key: string, projectType?: string): IssueLocator => ({
  key,
  ref: { issueKey: key, id: '1', project: key.split('-')[0]!, ...(projectType ? { projectType } : {}) },
});
const SD_INTERNAL = { key: 'sd.public.comment', value: { internal: true } };

describe.each(['cloud', 'datacenter'] as const)('Jira comment visibility (%s)', (deployment) => {
  const d = jiraDoubleSuite(deployment, (jira) => {
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout 502s' });
    jira.addProject('HELP', 'service_desk');
    jira.addIssue({ key: 'HELP-3', summary: 'Customer cannot pay' });
  });
  const api = () =>
    deployment === 'cloud'
      ? cloudApi(d.jira.url, 'lestrade@example.com', 'test-api-token')
      : dataCenterApi(d.jira.url, 'test-pat');
  const writer = (projects: unknown = {}) => jiraWriter(api(), 32_767, JiraConfigSchema.parse({ projects }).projects);
  const bodies = (method: 'POST' | 'PUT', key: string) =>
    d.jira.requests
      .filter((r) => r.method === method && /\/comment(\/\d+)?$/.test(r.path) && r.path.includes(`/${key}/`))
      .map((r) => r.body as { visibility?: unknown; properties?: unknown[] });
  const developers = { type: 'role', value: 'Developers' };
  const weAreDevelopers = () => d.jira.state.setRole('OPS', 'Developers', { users: [d.jira.state.meId()] });

  afterEach(() => {
    expect(d.jira.violations).toEqual([]);
    expect(d.jira.responseViolations).toEqual([]);
  });

  it('a software project with visibility role Developers: the comment carries it, and the edit keeps it', async () => {
    weAreDevelopers();
    const w = writer({ OPS: { visibility: developers } });
    const first = await writeRca(w, locatorOf('OPS-7', 'software'), doc('first'), null);
    const c = d.jira.state.comments('OPS-7')[0]!;
    expect(c.visibility).toEqual(developers);
    expect(bodies('POST', 'OPS-7')[0]!.visibility).toEqual(developers);
    expect(c.properties).not.toHaveProperty('sd.public.comment');

    const second = await writeRca(w, locatorOf('OPS-7', 'software'), doc('second'), first.comment.id);
    expect(second.action).toBe('updated');
    expect(bodies('PUT', 'OPS-7')[0]!.visibility).toEqual(developers);
    expect(d.jira.state.comments('OPS-7')).toHaveLength(1);
    expect(d.jira.state.comments('OPS-7')[0]!.visibility).toEqual(developers);
    expect(textOf(d.jira.state.comments('OPS-7')[0]!.body)).toContain('second');
  });

  it('a group visibility works the same way', async () => {
    d.jira.state.setGroups(d.jira.state.meId(), ['sre']);
    await writeRca(
      writer({ OPS: { visibility: { type: 'group', value: 'sre' } } }),
      locatorOf('OPS-7', 'software'),
      doc('x'),
      null,
    );
    expect(d.jira.state.comments('OPS-7')[0]!.visibility).toEqual({ type: 'group', value: 'sre' });
  });

  it('a service desk project: internal (sd.public.comment) by default, on the create and on the edit', async () => {
    const w = writer();
    const first = await writeRca(w, locatorOf('HELP-3', 'service_desk'), doc('first', 'HELP-3'), null);
    expect(bodies('POST', 'HELP-3')[0]!.properties).toContainEqual(SD_INTERNAL);
    const c = d.jira.state.comments('HELP-3')[0]!;
    expect(isInternal(c)).toBe(true);
    expect(c.visibility).toBeUndefined();
    if (deployment === 'cloud') {
      const got = await fetch(`${d.jira.url}${d.jira.apiPath}/issue/HELP-3/comment/${c.id}`, {
        headers: { authorization: `Basic ${Buffer.from('lestrade@example.com:test-api-token').toString('base64')}` },
      });
      expect(((await got.json()) as { jsdPublic: boolean }).jsdPublic).toBe(false);
    }
    await writeRca(w, locatorOf('HELP-3', 'service_desk'), doc('second', 'HELP-3'), first.comment.id);
    expect(bodies('PUT', 'HELP-3')[0]!.properties).toContainEqual(SD_INTERNAL);
    expect(isInternal(d.jira.state.comments('HELP-3')[0]!)).toBe(true);
  });

  it('a service desk project with internal: false: public, no JSM property at all', async () => {
    await writeRca(
      writer({ HELP: { internal: false } }),
      locatorOf('HELP-3', 'service_desk'),
      doc('x', 'HELP-3'),
      null,
    );
    expect(JSON.stringify(bodies('POST', 'HELP-3')[0]!.properties)).not.toContain('sd.public.comment');
    expect(isInternal(d.jira.state.comments('HELP-3')[0]!)).toBe(false);
  });

  it('a software project without configuration stays public, as before', async () => {
    await writeRca(writer(), locatorOf('OPS-7', 'software'), doc('x'), null);
    const post = bodies('POST', 'OPS-7')[0]!;
    expect(post.visibility).toBeUndefined();
    expect(post.properties).toEqual([{ key: 'lestrade', value: { marker: 'lestrade:rca:OPS-7' } }]);
  });

  it("an older locator without the project's type: asked once through the API, then internal on a service desk", async () => {
    await writeRca(writer(), { key: 'HELP-3', ref: { issueKey: 'HELP-3', id: '1' } }, doc('x', 'HELP-3'), null);
    const asked = d.jira.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/issue/HELP-3'));
    expect(asked).toHaveLength(1);
    expect(String(asked[0]!.query.fields)).toContain('project');
    expect(isInternal(d.jira.state.comments('HELP-3')[0]!)).toBe(true);
    d.jira.requests.length = 0;
    await writeRca(writer(), locatorOf('HELP-3', 'service_desk'), doc('y', 'HELP-3'), null);
    expect(d.jira.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/issue/HELP-3'))).toEqual([]);
  });

  it('our restricted or internal comment is still found (by the marker search) and edited, never duplicated', async () => {
    weAreDevelopers();
    const w = writer({ OPS: { visibility: developers } });
    d.jira.faults.add({ method: 'POST', path: /\/issue\/OPS-7\/comment$/, kind: 'accept-then-drop' });
    expect(await writeRca(w, locatorOf('OPS-7', 'software'), doc('one'), null).catch((e: unknown) => e)).toBeInstanceOf(
      RetryableError,
    );
    const retry = await writeRca(w, locatorOf('OPS-7', 'software'), doc('two'), null);
    expect(retry.action).toBe('updated');
    expect(d.jira.state.comments('OPS-7')).toHaveLength(1);
    expect(d.jira.state.comments('OPS-7')[0]!.visibility).toEqual(developers);

    const sd = writer();
    await writeRca(sd, locatorOf('HELP-3', 'service_desk'), doc('one', 'HELP-3'), null);
    const again = await writeRca(sd, locatorOf('HELP-3', 'service_desk'), doc('two', 'HELP-3'), null);
    expect(again.action).toBe('updated');
    expect(d.jira.state.comments('HELP-3')).toHaveLength(1);
    expect(isInternal(d.jira.state.comments('HELP-3')[0]!)).toBe(true);
  });

  it('an edit never widens: a restriction or internal flag set by hand is kept when none is configured', async () => {
    d.jira.state.setGroups(d.jira.state.meId(), ['admins']);
    const admins = { type: 'group' as const, value: 'admins' };
    const ours = d.jira.addComment({
      issueKey: 'OPS-7',
      body: 'old RCA',
      properties: { lestrade: { marker: 'lestrade:rca:OPS-7' } },
      visibility: admins,
    });
    await writeRca(writer(), locatorOf('OPS-7', 'software'), doc('new'), ours.id);
    expect(bodies('PUT', 'OPS-7')[0]!.visibility).toEqual(admins);
    expect(d.jira.state.comments('OPS-7')[0]!.visibility).toEqual(admins);

    const internal = d.jira.addComment({
      issueKey: 'HELP-3',
      body: 'old RCA',
      properties: { lestrade: { marker: 'lestrade:rca:HELP-3' }, 'sd.public.comment': { internal: true } },
    });
    await writeRca(
      writer({ HELP: { internal: false } }),
      locatorOf('HELP-3', 'service_desk'),
      doc('new', 'HELP-3'),
      null,
    );
    expect(d.jira.state.comments('HELP-3').map((c) => c.id)).toEqual([internal.id]);
    expect(isInternal(d.jira.state.comments('HELP-3')[0]!)).toBe(true);
  });

  it("an edit of a comment this writer did not find first asks Jira for the comment's visibility", async () => {
    d.jira.state.setGroups(d.jira.state.meId(), ['admins']);
    const admins = { type: 'group' as const, value: 'admins' };
    const ours = d.jira.addComment({ issueKey: 'OPS-7', body: 'old', visibility: admins });
    await writer().update(locatorOf('OPS-7', 'software'), { id: ours.id, url: null }, doc('new'));
    expect(d.jira.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/comment/${ours.id}`))).toHaveLength(1);
    expect(d.jira.state.comments('OPS-7')[0]!.visibility).toEqual(admins);
  });

  it('a visibility Jira refuses (a role our account is not in) is a permanent error naming the key', async () => {
    const err = await writeRca(
      writer({ OPS: { visibility: developers } }),
      locatorOf('OPS-7', 'software'),
      doc('x'),
      null,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(
      /^Jira answered HTTP 400: add comment to OPS-7: commentLevel: Role with id: Developers does not exist\./,
    );
    expect((err as Error).message).toContain('sources.jira.projects.OPS.visibility (role "Developers")');
    expect(d.jira.state.comments('OPS-7')).toHaveLength(0);
  });

  it('the double refuses what Jira would: a visibility type other than role or group, and hides what we may not see', async () => {
    const auth =
      deployment === 'cloud'
        ? `Basic ${Buffer.from('lestrade@example.com:test-api-token').toString('base64')}`
        : 'Bearer test-pat';
    const body = deployment === 'cloud' ? { type: 'doc', version: 1, content: [] } : 'x';
    const post = await fetch(`${d.jira.url}${d.jira.apiPath}/issue/OPS-7/comment`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ body, visibility: { type: 'team', value: 'sre' } }),
    });
    expect(post.status).toBe(400);
    expect(
      d.jira.violations
        .splice(0)
        .flatMap((v) => v.errors)
        .join(),
    ).toMatch(/visibility\/type/);
    expect(d.jira.state.comments('OPS-7')).toHaveLength(0);

    const hidden = d.jira.addComment({
      issueKey: 'OPS-7',
      body: 'sec only',
      visibility: { type: 'group', value: 'sec' },
    });
    const list = await fetch(`${d.jira.url}${d.jira.apiPath}/issue/OPS-7/comment`, {
      headers: { authorization: auth },
    });
    expect(((await list.json()) as { comments: unknown[] }).comments).toEqual([]);
    const one = await fetch(`${d.jira.url}${d.jira.apiPath}/issue/OPS-7/comment/${hidden.id}`, {
      headers: { authorization: auth },
    });
    expect(one.status).toBe(404);
  });
});
