import type { AnySource } from '../src/registration/source.js';
import { alertmanager } from './alertmanager/index.js';
import { deploy } from './deploy/index.js';
import { github } from './github/index.js';
import { jira } from './jira/index.js';
import { jsmOps } from './jsm-ops/index.js';
import { opsgenie } from './opsgenie/index.js';
import { pagerduty } from './pagerduty/index.js';

/** Every source Lestrade knows. A new source is a folder under sources/ and one line here. */
export const sources: readonly AnySource[] = [alertmanager, github, jira, opsgenie, jsmOps, pagerduty, deploy];
