import type { z } from 'zod';
import { InputError, describeZodIssues } from './errors.js';

/** Validates a parsed document; InputError naming the first offending field. */
export function readJson<T extends z.ZodType>(doc: unknown, schema: T): z.infer<T> {
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join('.') ?? '';
    // The message without the first field's path, which InputError puts in front (a key may hold ": ").
    const described = describeZodIssues(parsed.error.issues);
    const prefix = `${field || '(root)'}: `;
    throw new InputError(field, described.startsWith(prefix) ? described.slice(prefix.length) : described);
  }
  return parsed.data;
}
