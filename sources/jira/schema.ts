import { z } from 'zod';

/**
 * Jira entities as the REST API (v3 Cloud, v2 Data Center) and webhooks send them, written from
 * IssueBean, Comment, UserDetails and ChangeDetails in Atlassian's v3 spec. Only what Lestrade reads
 * is declared; unknown keys are allowed, as Jira adds fields freely.
 */
const numericId = z.union([z.string().regex(/^\d+$/, 'must be a numeric id'), z.int().nonnegative()]).transform(String);

export const IssueKeySchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*-\d+$/, 'must be an issue key such as OPS-7');

/** Cloud names users by accountId; Data Center by name and key. */
export const UserSchema = z.object({
  accountId: z.string().optional(),
  name: z.string().optional(),
  key: z.string().optional(),
  displayName: z.string().optional(),
  timeZone: z.string().optional(),
});
export type JiraUser = z.infer<typeof UserSchema>;

const named = z.object({ name: z.string() });

/** A comment's `visibility`: restricted to a project role or a group (`identifier` is a group's id on Cloud). */
export const VisibilitySchema = z.object({
  type: z.string(),
  value: z.string().nullish(),
  identifier: z.string().nullish(),
});

export const CommentSchema = z.object({
  id: numericId,
  author: UserSchema.optional(),
  visibility: VisibilitySchema.nullish(),
  /** ADF on Cloud API v3; a wiki-markup string on v2 and in many webhook deliveries. */
  body: z.unknown(),
  created: z.string().optional(),
  updated: z.string().optional(),
});
export type JiraComment = z.infer<typeof CommentSchema>;

export const IssueFieldsSchema = z.object({
  summary: z.string().nullish(),
  description: z.unknown().optional(),
  labels: z.array(z.string()).nullish(),
  priority: named.nullish(),
  components: z.array(named).nullish(),
  status: z.object({ name: z.string(), statusCategory: z.object({ key: z.string() }).nullish() }).nullish(),
  issuetype: named.nullish(),
  /** projectTypeKey: `service_desk` for Jira Service Management, `software`, `business`. */
  project: z.object({ key: z.string(), projectTypeKey: z.string().nullish() }).nullish(),
  resolution: named.nullish(),
  created: z.string().nullish(),
  updated: z.string().nullish(),
  reporter: UserSchema.nullish(),
  comment: z.object({ comments: z.array(CommentSchema) }).nullish(),
});

export const IssueBeanSchema = z.object({
  id: numericId,
  key: IssueKeySchema,
  // search/jql answers only id and key when no fields are asked for.
  fields: IssueFieldsSchema.prefault({}),
});
export type IssueBean = z.infer<typeof IssueBeanSchema>;

/** The fields Lestrade asks for explicitly (search/jql returns only ids without them). */
export const ISSUE_FIELDS = [
  'summary',
  'description',
  'labels',
  'priority',
  'components',
  'status',
  'issuetype',
  'project',
  'resolution',
  'created',
  'updated',
  'reporter',
  'comment',
];

export const ChangeItemSchema = z.object({
  field: z.string(),
  fieldId: z.string().nullish(),
  from: z.string().nullish(),
  fromString: z.string().nullish(),
  to: z.string().nullish(),
  toString: z.string().nullish(),
});

export const PageOfCommentsSchema = z.object({
  comments: z.array(CommentSchema),
  startAt: z.int().optional(),
  maxResults: z.int().optional(),
  total: z.int().optional(),
});

export const EntityPropertySchema = z.object({ key: z.string().optional(), value: z.unknown() });
