import { z } from 'zod';
import type { Prerequisite, Tool, Toolset } from '../../src/tools/types.js';

/** A tool that answers "ok", with no parameters. */
export const tool = (name: string): Tool => ({
  name,
  description: name,
  params: z.strictObject({}),
  run: () => Promise.resolve({ status: 'success' as const, data: 'ok' }),
});

/** A built-in, enabled toolset with one tool, `<name>_tool`, and no prerequisites unless given. */
export const toolset = (name: string, more: Partial<Toolset> = {}): Toolset => ({
  name,
  description: `the ${name} toolset`,
  origin: 'builtin',
  enabled: true,
  prerequisites: [],
  tools: [tool(`${name}_tool`)],
  ...more,
});

/** A prerequisite that is never met, for the reason given. */
export const failing = (reason: string): Prerequisite => ({ kind: 'check', run: () => Promise.resolve(reason) });
