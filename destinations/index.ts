import type { AnyDestination } from '../src/delivery/destination.js';
import { mattermost } from './mattermost/index.js';
import { pagerdutyEvents } from './pagerduty-events/index.js';
import { slack } from './slack/index.js';
import { teams } from './teams/index.js';
import { webhook } from './webhook/index.js';

/** Every destination Lestrade knows. A new one is a folder under destinations/ and one line here. */
export const destinations: readonly AnyDestination[] = [slack, teams, webhook, pagerdutyEvents, mattermost];
