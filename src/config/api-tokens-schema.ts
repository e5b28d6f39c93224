import { z } from 'zod';
import { TOKEN_NAME_PATTERN, type NamedToken } from '../named-tokens.js';

const NAME_RULE = 'a token name is 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';

const NamedTokenObject = z.strictObject({
  name: z.string().regex(TOKEN_NAME_PATTERN, NAME_RULE),
  token: z.string().min(1),
});

/** "alice:tok" → {name: alice, token: tok}: the form LESTRADE_API_TOKENS takes (the token may hold colons). */
function fromText(text: string): unknown {
  const i = text.indexOf(':');
  return i <= 0 ? null : { name: text.slice(0, i).trim(), token: text.slice(i + 1).trim() };
}

/** One token: {name, token}, or "name:token"; a bad one says the form, never quoting the value. */
const NamedTokenEntry = z.unknown().transform((value, ctx): NamedToken => {
  const parsed = NamedTokenObject.safeParse(typeof value === 'string' ? fromText(value) : value);
  if (parsed.success) return parsed.data;
  ctx.addIssue({ code: 'custom', message: `expected <name>:<token> or {name, token}; ${NAME_RULE}` });
  return z.NEVER;
});

/**
 * server.apiTokens (env LESTRADE_API_TOKENS=alice:<token>,bob:<token>): the API's tokens, each with
 * the name that is recorded as who decided. Names are unique; so are tokens.
 */
export const NamedTokensSchema = z
  .array(NamedTokenEntry)
  .min(1)
  .superRefine((tokens, ctx) => {
    const names = new Set<string>();
    const values = new Set<string>();
    for (const [i, t] of tokens.entries()) {
      if (names.has(t.name))
        ctx.addIssue({ code: 'custom', path: [i], message: `the name "${t.name}" is given twice` });
      // Never quote a token: say which entry repeats one.
      if (values.has(t.token)) ctx.addIssue({ code: 'custom', path: [i], message: 'this token is given twice' });
      names.add(t.name);
      values.add(t.token);
    }
  });
