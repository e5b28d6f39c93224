import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCommand } from '../../toolsets/bash/parse-command.js';
import { checkCommand, type BashPolicyConfig } from '../../toolsets/bash/policy.js';
import { fcParams } from './arbitraries.js';
import { ALLOWED, CORPUS, SHAPES, type Category, type GtfoEntry } from './gtfobins/index.js';
import { Choices, joinWords, quoteWord, rewriteOptions } from './gtfobins/disguise.js';

/**
 * The principle of issue 16, as a property: for every program the bash toolset runs, every way it
 * can read a file, write one, run a program, reach the network, load code or read the environment
 * (the GTFOBins-derived corpus in tests/fuzz/gtfobins) is refused or needs a human, however it is
 * written: quoted or escaped word by word, with odd whitespace, options spelled long or short,
 * attached or apart, an added "--" or harmless option, inside a pipeline of allowed stages, or two
 * entries piped together. The same disguises leave everyday lines allowed (ALLOWED): the disguises
 * keep meaning, and the policy is not simply refusing everything.
 */
const cfg: BashPolicyConfig = { allow: [], deny: [], curlHosts: ['prometheus:9090'] };
const CONTEXT_BEFORE = [
  'kubectl get pods -o json',
  'kubectl logs api --tail 100',
  'curl -s http://prometheus:9090/api/v1/alerts',
];
const CONTEXT_AFTER = ['head -n 5', 'sort', "grep -v '^$'", 'wc -l'];

interface Parsed {
  entry: GtfoEntry;
  argv: string[] | null;
}
let parsed: Parsed[] = [];

beforeAll(async () => {
  parsed = await Promise.all(
    CORPUS.map(async (entry) => {
      const p = await parseCommand(entry.line);
      return { entry, argv: p.ok && p.stages.length === 1 ? p.stages[0]! : null };
    }),
  );
});

/** The entry in a disguise, and the argv the disguised stage must parse back to. */
function disguise(p: Parsed, c: Choices): { line: string; argv: string[] | null } {
  if (!p.argv) return { line: p.entry.line, argv: null };
  const names = p.entry.names ?? [p.argv[0]!];
  const name = names[c.pick(names.length)]!;
  const shape = SHAPES[name] ?? SHAPES[p.argv[0]!];
  const argv = shape ? rewriteOptions([name, ...p.argv.slice(1)], shape, c) : [name, ...p.argv.slice(1)];
  return {
    line: joinWords(
      argv.map((w) => quoteWord(w, c)),
      c,
    ),
    argv,
  };
}

async function decide(line: string) {
  return checkCommand(line, cfg);
}

const draws = fc.array(fc.nat(), { minLength: 16, maxLength: 48 });

describe('the GTFOBins corpus against the bash policy', () => {
  it('holds entries for every program the policy runs without asking, in every category it applies to', () => {
    const programs = new Set(CORPUS.flatMap((e) => e.names ?? [e.line.split(' ')[0]!]));
    for (const p of [
      'awk',
      'gawk',
      'mawk',
      'jq',
      'grep',
      'egrep',
      'fgrep',
      'head',
      'tail',
      'sort',
      'uniq',
      'wc',
      'cut',
      'tr',
      'kubectl',
      'curl',
    ]) {
      expect(programs, p).toContain(p);
    }
    const categories = new Set<Category>(CORPUS.map((e) => e.category));
    for (const c of [
      'shell',
      'command',
      'reverse-shell',
      'file-read',
      'file-write',
      'library-load',
      'env-read',
    ] as const)
      expect(categories, c).toContain(c);
  });

  it('refuses or asks for every entry as written', async () => {
    const allowed: string[] = [];
    for (const { entry } of parsed) {
      for (const name of entry.names ?? [undefined]) {
        const line = name ? entry.line.replace(/^\S+/, name) : entry.line;
        if ((await decide(line)).verdict.decision === 'allow') allowed.push(line);
      }
    }
    expect(allowed).toEqual([]);
  });

  it('refuses or asks for every entry in any disguise (quoting, whitespace, option spellings, "--", added options)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: CORPUS.length - 1 }), draws, async (index, d) => {
        const c = new Choices(d);
        const p = parsed[index]!;
        const { line, argv } = disguise(p, c);
        const result = await decide(line);
        if (argv)
          expect(result.stages.length ? result.stages : [argv], `the disguise kept the words of ${line}`).toEqual([
            argv,
          ]);
        expect(result.verdict.decision, `${p.entry.category}: ${line}`).not.toBe('allow');
      }),
      fcParams(3000),
    );
  });

  it('refuses or asks for every entry inside a pipeline of allowed stages, or piped into another entry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: CORPUS.length - 1 }),
        fc.nat({ max: CORPUS.length - 1 }),
        draws,
        async (i, j, d) => {
          const c = new Choices(d);
          const first = disguise(parsed[i]!, c).line;
          const parts = [first];
          if (c.chance(2)) parts.unshift(CONTEXT_BEFORE[c.pick(CONTEXT_BEFORE.length)]!);
          if (c.chance(2)) parts.push(CONTEXT_AFTER[c.pick(CONTEXT_AFTER.length)]!);
          if (c.chance(3)) parts.push(disguise(parsed[j]!, c).line);
          const line = parts.join(c.chance(2) ? ' | ' : '|');
          expect((await decide(line)).verdict.decision, line).not.toBe('allow');
        },
      ),
      fcParams(1500),
    );
  });

  it('leaves everyday lines allowed under the same disguises (they keep meaning; the policy is not refusing everything)', async () => {
    const everyday = await Promise.all(
      ALLOWED.map(async (line) => ({
        entry: { category: 'command' as const, line },
        argv: (await parseCommand(line)).ok ? ((await parseCommand(line)) as { stages: string[][] }).stages[0]! : null,
      })),
    );
    for (const e of everyday) expect((await decide(e.entry.line)).verdict, e.entry.line).toEqual({ decision: 'allow' });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: everyday.length - 1 }), draws, async (index, d) => {
        const c = new Choices(d);
        const { line, argv } = disguise(everyday[index]!, c);
        const result = await decide(line);
        expect(result.stages, line).toEqual([argv]);
        expect(result.verdict, line).toEqual({ decision: 'allow' });
      }),
      fcParams(1000),
    );
  });
});
