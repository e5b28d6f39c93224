import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startJiraDouble, type JiraDouble } from './doubles/jira-double.js';

/** What a suite gets from jiraDoubleSuite(): its Jira double, set once beforeAll has run. */
export interface JiraDoubleSuite {
  jira: JiraDouble;
}

/**
 * Call inside a describe: one Jira double of `deployment` (validating against Jira's OpenAPI spec)
 * for the suite, closed after it; before each test its issues, requests and faults are cleared and
 * `seed` adds what the test starts from. The suite's own afterEach checks the double's violations.
 */
export function jiraDoubleSuite(deployment: 'cloud' | 'datacenter', seed: (jira: JiraDouble) => void): JiraDoubleSuite {
  const s = {} as JiraDoubleSuite;
  beforeAll(async () => {
    s.jira = await startJiraDouble({ deployment });
  });
  afterAll(async () => {
    await s.jira?.close();
  });
  beforeEach(() => {
    s.jira.state.issues.clear();
    s.jira.state.groups.clear();
    s.jira.state.roles.clear();
    s.jira.state.projectTypes.clear();
    s.jira.requests.length = 0;
    s.jira.faults.clear();
    seed(s.jira);
  });
  return s;
}
