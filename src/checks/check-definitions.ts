import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CheckSchema, type CheckConfig, type ChecksConfig } from '../config/checks-schema.js';
import { ConfigError, describeZodIssues } from '../errors.js';

/**
 * Every check: `checks.list` from the config file, then one per `*.yaml`/`*.yml` file of each `checks.dirs` folder,
 * each validated by the same schema. A bad file, a missing folder or a name used twice is a ConfigError naming the
 * file and the key, so nothing starts half-configured.
 */
export function loadChecks(config: ChecksConfig): CheckConfig[] {
  const out = [...config.list];
  const where = new Map(out.map((c, i) => [c.name, `checks.list[${i}]`]));
  for (const dir of config.dirs) {
    for (const file of yamlFiles(dir)) {
      const check = parseCheckFile(join(dir, file));
      const earlier = where.get(check.name);
      if (earlier) throw new ConfigError(`${join(dir, file)}: check "${check.name}" is already defined in ${earlier}`);
      where.set(check.name, join(dir, file));
      out.push(check);
    }
  }
  return out;
}

function yamlFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort();
  } catch (err) {
    throw new ConfigError(`checks.dirs: cannot read folder ${dir} (${(err as Error).message}); fix or remove it`);
  }
}

/** One check file: YAML with the keys of a `checks.list` entry. */
export function parseCheckFile(path: string): CheckConfig {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${path}: not a readable YAML file: ${(err as Error).message}`);
  }
  const parsed = CheckSchema.safeParse(doc);
  if (!parsed.success) throw new ConfigError(`${path}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}
