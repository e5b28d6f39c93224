import type { Request } from 'express';
import type { z } from 'zod';
import { InputError, describeZodIssues } from '../errors.js';

/** Parses the raw body (kept raw so signatures can be checked first) and validates it. */
export function readJsonBody<T extends z.ZodType>(req: Request, schema: T): z.infer<T> {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw new InputError('', 'request body is empty; expected JSON');
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new InputError('', `request body is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new InputError(first?.path.map(String).join('.') ?? '', describeZodIssues(parsed.error.issues).replace(/^[^:]*: /, ''));
  }
  return parsed.data;
}
