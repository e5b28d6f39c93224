import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../../toolsets/bash/policy.js';

const cfg = { allow: [], deny: [], curlHosts: [] };
const verdict = async (command: string) => (await checkCommand(command, cfg)).verdict;

/** issue 16, defect 7: jq read the environment through string interpolation, which blanking "..." hid. */
describe('jq: the environment, file names and modules are refused, interpolations included', () => {
  it.each([
    [`jq -n '"\\(env)"'`, /environment/],
    [`jq -n '"\\($ENV.PATH)"'`, /environment/],
    [`jq -n '"a \\("b \\(env.HOME)")"'`, /environment/],
    [`jq -n '@base64 "\\(env)"'`, /environment/],
    [`jq -n '$ ENV'`, /environment/],
    [`jq -n '{$ENV}'`, /environment/],
    [`jq -n '{a: env}'`, /environment/],
    [`jq -n '{env: env}'`, /environment/],
    [`jq -n '$__loc__'`, /__loc__/],
    [`jq -n 'input_filename'`, /input_filename/],
    [`jq -n '"\\(input_filename)"'`, /input_filename/],
    [`jq -L /tmp 'import "x" as x; .'`, /modules/],
    [`jq 'include "x"; .'`, /modules/],
    [`jq -n 'get_search_list'`, /modules/],
    [`jq --rawfile a /etc/passwd -n 'env'`, /environment/],
  ])('refuses %s', async (command, reason) => {
    const v = await verdict(command);
    expect(v.decision).toBe('deny');
    expect((v as { reason: string }).reason).toMatch(reason);
  });

  it.each([
    `jq --rawfile a /proc/1/environ -n '$a'`,
    `jq --slurpfile a /etc/passwd -n '$a'`,
    `jq -f /etc/passwd`,
    `jq -L /tmp .`,
    `jq . /etc/hosts`,
    `jq -n '"unterminated`,
  ])('asks a human for (or refuses) %s', async (command) => {
    expect((await verdict(command)).decision).not.toBe('allow');
  });

  it.each([
    `jq '.spec.containers[].env'`,
    `jq '.items[] | {name: .metadata.name, env: .spec.containers[0].env}'`,
    `jq '{env}'`,
    `jq -r '.items[] | "\\(.metadata.name) \\(.status.phase)"'`,
    `jq -r '"env is a word in a string"'`,
    `jq -R .`,
    `jq -c --arg ns prod '.items[] | select(.metadata.namespace == $ns)'`,
    `jq '.items | map(.import)'`,
  ])('still allows %s', async (command) => {
    expect(await verdict(command)).toEqual({ decision: 'allow' });
  });
});
