import { z } from 'zod';
import { paramsKey } from './call-key.js';
import { firstFailure } from './check-prerequisites.js';
import { DEFAULT_INSTANCE_LABEL, pickInstance, type InstanceScoping } from './pick-instance.js';
import type { Tool, ToolContext, Toolset } from './types.js';

/** One named instance of a toolset (a cluster, a Prometheus server): the toolset built for it alone. */
export interface ToolsetInstance {
  name: string;
  /** What the model is told of it (the `instance` parameter's description lists each). */
  description?: string;
  toolset: Toolset;
}

type Env = Record<string, string | undefined>;

/**
 * One toolset over several instances of it, each built by the toolset itself for one instance: the model sees one
 * set of tools, with an `instance` parameter (an enum of the names, each described) when there is more than one;
 * each call goes to the instance `pickInstance` chooses from its arguments and the labels, or is refused.
 * Enabled when at least one instance's prerequisites pass; a call to an instance whose did not is answered why.
 */
export function instancedToolset(
  instances: ToolsetInstance[],
  scoping: InstanceScoping,
  env: Env = process.env,
): Toolset {
  const first = instances[0];
  if (!first) throw new Error(`${scoping.configKey}.instances is empty`);
  const names = instances.map((i) => i.name);
  const down = new Map<string, string>();
  const tools = first.toolset.tools.map((t) => instancedTool(t, instances, scoping, down));
  const many = instances.length > 1;
  return {
    ...first.toolset,
    description: many ? `${first.toolset.description} (instances: ${names.join(', ')})` : first.toolset.description,
    instructions: [first.toolset.instructions, many ? instancesNote(scoping) : undefined].filter(Boolean).join('\n'),
    prerequisites: [{ kind: 'check', run: () => checkInstances(instances, down, env) }],
    tools,
    close: async () => {
      await Promise.allSettled(instances.map(async (i) => i.toolset.close?.()));
    },
  };
}

function instancesNote(scoping: InstanceScoping): string {
  return (
    `Each tool takes an instance; without one it goes to the issue's own (named by its ${scoping.label} label).` +
    (scoping.crossInstance ? '' : " Other instances are refused: stay on the issue's own.") +
    ' Each result says its instance: name it with every finding you draw from it (e.g. "[prod-eu] 5xx rate 12%").'
  );
}

/** Null when one instance at least is usable (the others remembered in `down`), else every instance's reason. */
async function checkInstances(
  instances: ToolsetInstance[],
  down: Map<string, string>,
  env: Env,
): Promise<string | null> {
  const failures = await Promise.all(instances.map((i) => firstFailure(i.toolset.prerequisites, env)));
  down.clear();
  failures.forEach((f, i) => f && down.set(instances[i]!.name, f.reason));
  if (down.size < instances.length) return null;
  return instances.map((i) => `${i.name}: ${down.get(i.name)}`).join('; ');
}

function instancedTool(
  template: Tool,
  instances: ToolsetInstance[],
  scoping: InstanceScoping,
  down: ReadonlyMap<string, string>,
): Tool {
  const names = instances.map((i) => i.name);
  const toolOf = (name: unknown): Tool | undefined =>
    instances.find((i) => i.name === name)?.toolset.tools.find((t) => t.name === template.name);
  const params = names.length > 1 ? template.params.extend({ instance: instanceParam(instances) }) : template.params;
  const judged = template.verdict !== undefined;
  return {
    ...template,
    params,
    pickInstance: (p, scope) => pickInstance(p.instance as string | undefined, names, scoping, scope),
    ...(judged ? { verdict: (p) => (toolOf(p.instance) ?? template).verdict!(withoutInstance(p)) } : {}),
    run: async (p, ctx) => {
      const name = ctx.instance ?? names[0]!;
      const tool = toolOf(name);
      if (!tool) return { status: 'error', error: `no instance ${name}: one of ${names.join(', ')}` };
      const why = down.get(name);
      if (why !== undefined) return { status: 'error', error: `instance ${name} is unavailable: ${why}` };
      const own = withoutInstance(p);
      // The executor checked the approval against the whole call; the instance's tool sees its own arguments.
      const approvedCall = ctx.approvedCall !== undefined ? { approvedCall: paramsKey(tool.name, own) } : {};
      const instanceCtx: ToolContext = { ...ctx, ...approvedCall };
      return tool.run(own, instanceCtx);
    },
  };
}

function instanceParam(instances: ToolsetInstance[]): z.ZodType {
  const names = instances.map((i) => i.name) as [string, ...string[]];
  const each = instances.map((i) => (i.description ? `${i.name}: ${i.description}` : i.name)).join('; ');
  return z.enum(names).optional().describe(`which instance to query (default: the issue's own). ${each}`);
}

function withoutInstance(p: Record<string, unknown>): Record<string, unknown> {
  const { instance: _instance, ...rest } = p;
  return rest;
}

/** A toolset's settings with instances (src/registration/toolset-instances.ts). */
export interface InstancesSettings<I> {
  instances?: I[] | undefined;
  instanceLabel?: string | undefined;
  crossInstance?: boolean | undefined;
}

/**
 * The toolset over its configured instances, `single` (the single-URL form's, named `default`, when set) first; null
 * when `instances` is not set, so the toolset is built as it always was (its calls then carry no instance).
 */
export function fromInstances<I extends { name: string; description?: string | undefined }>(
  settings: InstancesSettings<I>,
  configKey: string,
  single: I | null,
  build: (instance: I) => Toolset,
): Toolset | null {
  if (!settings.instances) return null;
  const all = [...(single ? [single] : []), ...settings.instances];
  const scoping = {
    label: settings.instanceLabel ?? DEFAULT_INSTANCE_LABEL,
    crossInstance: settings.crossInstance ?? false,
    configKey,
  };
  return instancedToolset(
    all.map((i) => ({ name: i.name, ...(i.description ? { description: i.description } : {}), toolset: build(i) })),
    scoping,
  );
}
