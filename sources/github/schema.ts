import { z } from 'zod';

/**
 * The parts of GitHub's `issues` and `issue_comment` webhook payloads that Lestrade reads, as in
 * webhooks-issues-subset.json (@octokit/openapi-webhooks). Other keys are kept: GitHub adds some often.
 */
const User = z.looseObject({ login: z.string() });
const Label = z.looseObject({ name: z.string() });

export const WebhookIssueSchema = z.looseObject({
  number: z.int(),
  title: z.string(),
  body: z.string().nullable().optional(),
  /** GitHub's schema does not require it (issues.pinned/unpinned come without): absent means open. */
  state: z.string().optional(),
  html_url: z.string(),
  user: User.nullable(),
  labels: z.array(Label).default([]),
  created_at: z.string(),
  updated_at: z.string(),
  author_association: z.string().optional(),
  pull_request: z.unknown().optional(),
  repository_url: z.string(),
  comments: z.int().default(0),
});

const Repository = z.looseObject({
  full_name: z.string().regex(/^[^/]+\/[^/]+$/, 'expected owner/name'),
  private: z.boolean(),
});

export const IssuesEventSchema = z.looseObject({
  action: z.string(),
  issue: WebhookIssueSchema,
  /** The label just added (issues.labeled). */
  label: Label.optional(),
  repository: Repository,
  sender: User,
});
export type IssuesEvent = z.infer<typeof IssuesEventSchema>;

export const IssueCommentEventSchema = z.looseObject({
  action: z.string(),
  issue: WebhookIssueSchema,
  comment: z.looseObject({
    id: z.int(),
    body: z.string(),
    user: User.nullable(),
    author_association: z.string(),
    created_at: z.string(),
    html_url: z.string(),
  }),
  repository: Repository,
  sender: User,
});
export type IssueCommentEvent = z.infer<typeof IssueCommentEventSchema>;
