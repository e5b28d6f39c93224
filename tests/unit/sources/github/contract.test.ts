import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { IssueCommentEventSchema, IssuesEventSchema } from '../../../../sources/github/schema.js';
import { SPECS_DIR } from '../../../helpers/doubles/specs.js';
import { commentCreated, issuesClosed, issuesLabeled, issuesOpened } from '../../../fixtures/github/payloads.js';

/**
 * The adapted fixtures are still valid GitHub payloads (webhooks-issues-subset.json, from
 * @octokit/openapi-webhooks), and our zod schemas accept them: a spread that broke a payload, or a
 * zod schema stricter than GitHub's, fails here.
 */
const spec = JSON.parse(readFileSync(`${SPECS_DIR}github/webhooks-issues-subset.json`, 'utf8')) as {
  components: unknown;
};
const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'webhooks', components: spec.components });
const validator = (name: string) => {
  const v = ajv.getSchema(`webhooks#/components/schemas/${name}`);
  if (!v) throw new Error(`no schema ${name}`);
  return (payload: unknown) => (v(payload) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
};

describe("adapted webhook fixtures against GitHub's webhook schemas", () => {
  it.each([
    ['webhook-issues-labeled', issuesLabeled({ sender: 'alice', label: 'lestrade' })],
    ['webhook-issues-opened', issuesOpened({ labels: ['lestrade', 'P1'] })],
    ['webhook-issues-closed', issuesClosed()],
    [
      'webhook-issue-comment-created',
      commentCreated({ body: '/lestrade investigate', login: 'bob', association: 'MEMBER' }),
    ],
  ])('%s is valid and parses', (name, payload) => {
    expect(validator(name)(payload)).toEqual([]);
    const zod = name.startsWith('webhook-issue-comment') ? IssueCommentEventSchema : IssuesEventSchema;
    expect(zod.safeParse(payload).success).toBe(true);
  });

  it('the schemas catch a broken adaptation (the check itself works)', () => {
    const broken = { ...issuesLabeled(), repository: { ...issuesLabeled().repository, private: 'yes' } };
    expect(validator('webhook-issues-labeled')(broken)).not.toEqual([]);
    expect(IssuesEventSchema.safeParse(broken).success).toBe(false);
  });
});
