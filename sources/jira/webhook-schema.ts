import { z } from 'zod';
import { ChangeItemSchema, CommentSchema, IssueBeanSchema, IssueKeySchema, UserSchema } from './schema.js';

/**
 * Jira webhook deliveries (Cloud admin webhooks, Data Center webhooks), as Atlassian documents
 * them: `webhookEvent` names the event; issue events carry the issue and, on updates, the
 * changelog; comment events carry the comment and a slim issue (id, key, a few fields).
 */
export const DeliveryHeadSchema = z.object({ webhookEvent: z.string().min(1) });

export const IssueEventSchema = z.object({
  webhookEvent: z.enum(['jira:issue_created', 'jira:issue_updated']),
  timestamp: z.number().optional(),
  issue_event_type_name: z.string().optional(),
  user: UserSchema.optional(),
  issue: IssueBeanSchema,
  changelog: z.object({ id: z.string().optional(), items: z.array(ChangeItemSchema) }).optional(),
});
export type IssueEvent = z.infer<typeof IssueEventSchema>;

export const CommentEventSchema = z.object({
  webhookEvent: z.literal('comment_created'),
  timestamp: z.number().optional(),
  comment: CommentSchema,
  issue: z.object({ id: z.union([z.string(), z.number()]).transform(String), key: IssueKeySchema }),
});
export type CommentEvent = z.infer<typeof CommentEventSchema>;
