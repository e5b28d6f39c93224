import type { Issue } from '../../src/issue.js';
import type { WriteGate } from '../../src/registration/source.js';
import type { JiraConfig } from './config.js';
import type { JiraApi } from './jira-api.js';
import { isOwnComment } from './own-comments.js';
import type { IssueBean } from './schema.js';
import { textOf } from './text-of.js';
import { decideIssueEvent, projectOf, startsWithCommand } from './triggers.js';
import { JiraTrust } from './trust.js';

/**
 * The webhooks' trust rules for `lestrade investigate jira --update`: the issue's project is in
 * sources.jira.triggers.projects, and either its creation would have started an investigation
 * (triggers.onCreate with issueTypes, labels and jql; or created with the label by a trusted
 * reporter), or a trusted account (trusted.groups, trusted.projectRoles) wrote the command on it.
 */
export function jiraWriteGate(api: JiraApi, config: JiraConfig, beans: ReadonlyMap<string, IssueBean>): WriteGate {
  const trust = new JiraTrust(api, config.trusted);
  return async (issue: Issue) => {
    const bean = issue.locator ? beans.get(issue.locator.key) : undefined;
    if (!bean) return 'not found by this query';
    const project = projectOf(bean);
    const d = decideIssueEvent(
      { webhookEvent: 'jira:issue_created', issue: bean, user: bean.fields.reporter ?? undefined },
      config.triggers,
    );
    if (d.kind === 'created') return d.checkJql ? failsJql(api, config, bean) : null;
    if (d.kind === 'label' && !(await trust.refusal(d.by, project))) return null;
    if (d.kind === 'ignored' && !config.triggers.projects.includes(project)) return d.reason;
    const me = await api.myself();
    for (const c of bean.fields.comment?.comments ?? []) {
      const text = textOf(c.body).trim();
      if (isOwnComment(c.author, text, me) || !startsWithCommand(text, config.triggers.command)) continue;
      if (!(await trust.refusal(c.author, project))) return null;
    }
    return (
      `${bean.key}: its creation started nothing (${d.kind === 'ignored' ? d.reason : 'the label was added by an untrusted reporter'}) ` +
      `and no account of sources.jira.trusted wrote ${config.triggers.command} on it`
    );
  };
}

async function failsJql(api: JiraApi, config: JiraConfig, bean: IssueBean): Promise<string | null> {
  const jql = `key = ${bean.key} AND (${config.triggers.jql})`;
  const page = await api.searchPage(jql, { fields: ['id'], maxResults: 1, reconcileIds: [bean.id] });
  return page.issues.some((i) => i.key === bean.key) ? null : `${bean.key} does not match sources.jira.triggers.jql`;
}
