import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../../src/errors.js';
import { IssueSchema, normaliseSeverity, type Issue } from '../../src/issue.js';
import { issuesFromWebhook } from '../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../sources/alertmanager/schema.js';

/** When a case gives no time, its issue started at this fixed one, so prompts are the same run to run. */
const CASE_TIME = '2026-01-01T00:00:00Z';

/**
 * The issue a case investigates, from the first of: `issue.json` (Lestrade's Issue; fields left
 * out get neutral defaults), `alertmanager_webhook.json` (an Alertmanager webhook delivery, mapped
 * by the Alertmanager source's own mapping), `investigate_request.json` (HolmesGPT's
 * test_investigate request), or the case's `user_prompt` (a question, asked as a ticket by a person).
 */
export function issueOfCase(folder: string, id: string, userPrompt: string | undefined): Issue {
  const read = (name: string): unknown => {
    const path = join(folder, name);
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new InputError('', `${path}: not valid JSON (${(err as Error).message})`);
    }
  };
  const own = read('issue.json');
  if (own !== undefined) return validIssue(join(folder, 'issue.json'), { ...defaults(id), ...(own as object) });
  const hook = read('alertmanager_webhook.json');
  if (hook !== undefined) return fromWebhook(join(folder, 'alertmanager_webhook.json'), hook);
  const request = read('investigate_request.json');
  if (request !== undefined) return fromHolmesRequest(id, request as Record<string, unknown>);
  if (userPrompt) return question(id, userPrompt);
  throw new InputError(
    '',
    `${join(folder, 'test_case.yaml')}: no issue: give user_prompt, or an issue.json, alertmanager_webhook.json ` +
      'or investigate_request.json in the case folder',
  );
}

function defaults(id: string): Issue {
  return {
    identity: `eval:${id}`,
    fingerprint: `eval:${id}`,
    source: 'eval',
    sourceInstance: 'eval',
    title: id,
    description: '',
    url: null,
    severity: 'unknown',
    status: 'open',
    labels: {},
    annotations: {},
    startedAt: CASE_TIME,
    raw: null,
  };
}

function validIssue(path: string, value: unknown): Issue {
  const parsed = IssueSchema.safeParse(value);
  if (!parsed.success) throw new InputError('', `${path}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** One alert: its issue; several (an alert storm): one group investigation over all of them. */
function fromWebhook(path: string, payload: unknown): Issue {
  const parsed = WebhookPayloadSchema.safeParse(payload);
  if (!parsed.success) throw new InputError('', `${path}: ${describeZodIssues(parsed.error.issues)}`);
  const issues = issuesFromWebhook(parsed.data);
  if (issues.length === 0) throw new InputError('', `${path}: the delivery has no alerts`);
  const [first] = issues as [Issue, ...Issue[]];
  if (issues.length === 1) return first;
  const shared = (pick: (i: Issue) => Record<string, string>) =>
    Object.fromEntries(Object.entries(pick(first)).filter(([k, v]) => issues.every((i) => pick(i)[k] === v)));
  const labels = shared((i) => i.labels);
  const annotations = shared((i) => i.annotations);
  const own = (all: Record<string, string>, common: Record<string, string>) =>
    Object.fromEntries(Object.entries(all).filter(([k]) => !Object.hasOwn(common, k)));
  const title = Object.entries(parsed.data.groupLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return {
    ...first,
    title: `${issues.length} alerts: ${title}`,
    labels,
    annotations,
    alerts: issues.map((i) => ({
      identity: i.identity,
      fingerprint: i.fingerprint,
      title: i.title,
      status: i.status,
      severity: i.severity,
      startedAt: i.startedAt,
      url: i.url,
      labels: own(i.labels, labels),
      annotations: own(i.annotations, annotations),
    })),
  };
}

const HolmesRequestSchema = z.looseObject({
  source: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  subject: z.record(z.string(), z.unknown()).optional(),
});

/** HolmesGPT's InvestigateRequest: title, description, and the subject's name/namespace/kind as labels. */
function fromHolmesRequest(id: string, value: Record<string, unknown>): Issue {
  const r = HolmesRequestSchema.parse(value);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.subject ?? {})) {
    if (typeof v === 'string' && v) labels[k === 'subject_type' ? 'kind' : k] = v;
  }
  return {
    ...defaults(id),
    source: r.source ?? 'eval',
    title: r.title ?? id,
    description: r.description ?? '',
    severity: normaliseSeverity(typeof value.severity === 'string' ? value.severity : undefined),
    labels,
    raw: value,
  };
}

/** A question, asked as a person would in a ticket: the text is untrusted, like any ticket's. */
function question(id: string, prompt: string): Issue {
  return {
    ...defaults(id),
    source: 'question',
    title: prompt.length > 120 ? `${prompt.slice(0, 117)}...` : prompt,
    untrusted: [{ label: 'Question', text: prompt }],
  };
}
