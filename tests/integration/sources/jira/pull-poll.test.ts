import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cloudApi } from '../../../../sources/jira/cloud-api.js';
import { dataCenterApi } from '../../../../sources/jira/datacenter-api.js';
import { jiraPoller } from '../../../../sources/jira/poller.js';
import { JiraPull } from '../../../../sources/jira/pull.js';
import { startJiraDouble, type JiraDouble } from '../../../helpers/doubles/jira-double.js';

let now = new Date('2025-03-04T12:00:00.000Z');
const at = (hhmm: string) => new Date(`2025-03-04T${hhmm}:00.000Z`);
const searches = (jira: JiraDouble) =>
  jira.requests.filter((r) => r.path.endsWith('/search/jql') || r.path.endsWith('/search'));

describe.each(['cloud', 'datacenter'] as const)('pull and polling (%s)', (deployment) => {
  let jira: JiraDouble;
  const api = () =>
    deployment === 'cloud'
      ? cloudApi(jira.url, 'lestrade@example.com', 'test-api-token')
      : dataCenterApi(jira.url, 'test-pat');

  beforeAll(async () => {
    jira = await startJiraDouble({ deployment, clock: () => now });
  });
  afterAll(async () => {
    await jira?.close();
  });
  beforeEach(() => {
    jira.state.issues.clear();
    jira.requests.length = 0;
    now = at('12:00');
    for (let n = 1; n <= 7; n++)
      jira.addIssue({ key: `OPS-${n}`, summary: `issue ${n}`, created: at(`10:0${n}`), priority: 'High' });
    jira.addIssue({ key: 'SEC-1', summary: 'other project', created: at('10:30') });
  });
  afterEach(() => {
    expect(jira.violations).toEqual([]);
    expect(jira.responseViolations).toEqual([]);
  });

  it('pull pages through every issue the JQL finds, in its order, with the fields asked for', async () => {
    const issues = await new JiraPull(api(), 3).fetchIssues({ jql: 'project = OPS ORDER BY key ASC' });
    expect(issues.map((i) => i.identity)).toEqual(['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4', 'OPS-5', 'OPS-6', 'OPS-7']);
    expect(issues[0]).toMatchObject({
      title: 'issue 1',
      severity: 'high',
      url: `${jira.url}/browse/OPS-1`,
      status: 'open',
    });
    const pages = searches(jira);
    expect(pages).toHaveLength(3);
    if (deployment === 'cloud') {
      expect(pages.map((p) => p.method)).toEqual(['POST', 'POST', 'POST']);
      const bodies = pages.map((p) => p.body as { nextPageToken?: string; fields: string[] });
      expect(bodies[0]!.nextPageToken).toBeUndefined();
      expect(bodies[1]!.nextPageToken).toEqual(expect.any(String));
      expect(bodies[2]!.nextPageToken).not.toBe(bodies[1]!.nextPageToken);
      expect(bodies[0]!.fields).toEqual(
        expect.arrayContaining(['summary', 'description', 'labels', 'priority', 'comment', 'updated']),
      );
    } else {
      expect(pages.map((p) => [p.path, p.query.startAt, p.query.maxResults])).toEqual([
        ['/rest/api/2/search', '0', '3'],
        ['/rest/api/2/search', '3', '3'],
        ['/rest/api/2/search', '6', '3'],
      ]);
    }
  });

  it('pull stops asking once -n issues are in hand', async () => {
    const issues = await new JiraPull(api(), 3).fetchIssues({ jql: 'project = OPS ORDER BY key ASC', limit: 4 });
    expect(issues.map((i) => i.identity)).toEqual(['OPS-1', 'OPS-2', 'OPS-3', 'OPS-4']);
    expect(searches(jira)).toHaveLength(2);
  });

  it('the poller looks back one interval at first, then resumes from the newest updated seen, minus an overlap', async () => {
    const poller = jiraPoller(api(), { jql: 'project = OPS ORDER BY created DESC', everySeconds: 3600 }, () => now);
    expect(poller.id).toBe('jira:project = OPS ORDER BY created DESC');
    expect(poller.everyMs).toBe(3_600_000);

    // 10:01…10:07 are more than an hour before 12:00: the first poll sees none of them.
    jira.state.issue('OPS-3')!.updated = at('11:30').getTime();
    const first = await poller.poll(null);
    expect(first.issues.map((i) => i.identity)).toEqual(['OPS-3']);
    expect(first.cursor).toBe('2025-03-04T11:30:00.000Z');
    const jql = (r: (typeof jira.requests)[number]) =>
      r.method === 'POST' ? (r.body as { jql: string }).jql : String(r.query.jql);
    expect(jql(searches(jira)[0]!)).toBe('(project = OPS) AND updated >= "2025-03-04 11:00" ORDER BY updated ASC');

    now = at('12:40');
    jira.state.issue('OPS-5')!.updated = at('12:35').getTime();
    jira.state.issue('OPS-1')!.updated = at('12:10').getTime();
    const second = await poller.poll(first.cursor);
    expect(jql(searches(jira)[1]!)).toBe('(project = OPS) AND updated >= "2025-03-04 11:25" ORDER BY updated ASC');
    expect(second.issues.map((i) => i.identity)).toEqual(['OPS-3', 'OPS-1', 'OPS-5']);
    expect(second.cursor).toBe('2025-03-04T12:35:00.000Z');

    const quiet = await poller.poll(second.cursor);
    expect(quiet.issues.map((i) => i.identity)).toEqual(['OPS-5']);
    expect(quiet.cursor).toBe(second.cursor);
  });

  it('the poller hands over resolved issues as resolved, so intake marks rather than starts', async () => {
    jira.state.issue('OPS-2')!.status = 'Done';
    jira.state.issue('OPS-2')!.updated = at('11:50').getTime();
    const { issues } = await jiraPoller(api(), { jql: 'project = OPS', everySeconds: 3600 }, () => now).poll(null);
    expect(issues.map((i) => [i.identity, i.status])).toEqual([['OPS-2', 'resolved']]);
  });
});
