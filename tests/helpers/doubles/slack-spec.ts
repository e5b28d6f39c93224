import { Ajv, type ValidateFunction } from 'ajv';
import { loadSpec } from './specs.js';
import { formatError } from './double-io.js';
import { EXTRA_METHODS } from './slack-extra-methods.js';

/**
 * The Slack Web API subset (Swagger 2.0, archived 2021) as a request and response validator.
 * Amended where the archived spec predates what Slack documents today, each named here:
 * - `metadata` (chat.postMessage, chat.update) and `include_all_metadata` (conversations.history,
 *   .replies): message metadata, documented at api.slack.com/metadata since 2022;
 * - a message object may carry `metadata` ({event_type, event_payload});
 * - conversations.history may answer an empty `messages` (the spec says minItems 1; Slack answers []).
 * Slack takes every method's arguments as query, form or JSON body alike, with the token as a
 * Bearer header or a `token` argument: all are read here as one set of arguments.
 */
export const SLACK_SPEC = 'slack/slack-web-subset.json';

const LATER_PARAMS: Record<string, string[]> = {
  'chat.postMessage': ['metadata'],
  'chat.update': ['metadata'],
  'conversations.history': ['include_all_metadata'],
  'conversations.replies': ['include_all_metadata'],
};

interface Param {
  name: string;
  in: string;
  type?: string;
  required?: boolean;
}
interface Operation {
  parameters?: Param[];
  responses: Record<string, { schema?: Record<string, unknown> }>;
}

export interface SlackSpec {
  methods: string[];
  /** Errors in these arguments (empty when valid). */
  validateArgs(method: string, args: Record<string, unknown>): string[];
  /** Errors of a success answer against the method's 200 schema. */
  validateAnswer(method: string, body: unknown): string[];
}

export function loadSlackSpec(): SlackSpec {
  const spec = loadSpec(SLACK_SPEC) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    definitions: Record<string, Record<string, unknown>>;
  };
  const definitions = structuredClone(spec.definitions);
  const message = definitions.objs_message as { properties: Record<string, unknown> };
  message.properties.metadata = {
    type: 'object',
    required: ['event_type'],
    properties: { event_type: { type: 'string' }, event_payload: { type: 'object' } },
  };
  const ops = new Map(
    Object.entries(spec.paths).map(([path, byMethod]) => [path.slice(1), Object.values(byMethod)[0]!]),
  );
  const ajv = new Ajv({ allErrors: true, strict: false });
  const answers = new Map<string, ValidateFunction>();
  for (const [method, op] of ops) {
    const schema = structuredClone(op.responses['200']?.schema ?? {}) as {
      properties?: Record<string, { minItems?: number }>;
    };
    if (method === 'conversations.history' && schema.properties?.messages) delete schema.properties.messages.minItems;
    answers.set(method, ajv.compile({ ...schema, definitions }));
  }
  // Methods the spec subset lacks (views.open, chat.postEphemeral, usergroups.users.list): see slack-extra-methods.ts.
  for (const [method, extra] of Object.entries(EXTRA_METHODS)) {
    ops.set(method, { parameters: extra.params.map((p) => ({ ...p, in: 'formData' })), responses: {} });
    answers.set(method, ajv.compile(extra.answer));
  }
  return {
    methods: [...ops.keys()],
    validateArgs: (method, args) => validateArgs(ops.get(method)?.parameters ?? [], LATER_PARAMS[method] ?? [], args),
    validateAnswer: (method, body) => {
      const check = answers.get(method);
      if (!check || check(body)) return [];
      return (check.errors ?? []).map(formatError);
    },
  };
}

function validateArgs(params: Param[], later: string[], args: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const known = new Set([...params.map((p) => p.name), ...later, 'token']);
  for (const name of Object.keys(args)) if (!known.has(name)) errors.push(`unknown argument ${name}`);
  for (const p of params) {
    if (p.name === 'token') continue;
    const v = args[p.name];
    if (v === undefined) {
      if (p.required) errors.push(`missing required argument ${p.name}`);
      continue;
    }
    const bad = typeError(p.type, v);
    if (bad) errors.push(`${p.name}: ${bad}`);
  }
  return errors;
}

/** Form values arrive as strings; JSON bodies may carry booleans and numbers (and objects for JSON-typed strings). */
function typeError(type: string | undefined, v: unknown): string | null {
  const text = typeof v === 'string' ? v : null;
  switch (type) {
    case 'boolean':
      return typeof v === 'boolean' || (text !== null && /^(true|false|1|0)$/.test(text))
        ? null
        : `expected a boolean, got ${JSON.stringify(v)}`;
    case 'integer':
      return Number.isInteger(typeof v === 'number' ? v : Number(text)) && text !== ''
        ? null
        : `expected an integer, got ${JSON.stringify(v)}`;
    case 'number':
      return Number.isFinite(typeof v === 'number' ? v : Number(text)) && text !== ''
        ? null
        : `expected a number, got ${JSON.stringify(v)}`;
    default:
      return typeof v === 'string' || typeof v === 'object' ? null : `expected a string, got ${JSON.stringify(v)}`;
  }
}
