import type { ActionContext } from './action-context.js';
import type { MattermostClient } from './mattermost-client.js';
import { clip } from './markdown.js';

/** The dialogs' single fields: a Deny's reason (optional), a Wrong verdict's actual root cause (required). */
export const FIELD = { reason: 'reason', rootCause: 'root_cause' } as const;

/**
 * Opens the dialog a Deny or a Wrong asks for. Its `state` is the button's signed context, echoed back with the
 * submission and checked again there (a submission is as unsigned as a click). False when it could not be opened.
 */
export async function openDialog(
  client: MattermostClient,
  url: string,
  triggerId: string,
  c: ActionContext,
  tool: string | null,
): Promise<boolean> {
  const deny = c.a === 'deny';
  const dialog = {
    callback_id: `lestrade_${c.a}`,
    title: clip(deny ? `Deny ${tool ?? 'the call'}` : 'What was the root cause?', 24),
    elements: [
      deny
        ? {
            display_name: 'Why (optional, the model reads it)',
            name: FIELD.reason,
            type: 'textarea',
            optional: true,
            max_length: 2000,
          }
        : {
            display_name: 'The actual root cause',
            name: FIELD.rootCause,
            type: 'textarea',
            optional: false,
            max_length: 2000,
          },
    ],
    submit_label: deny ? 'Deny' : 'Record',
    state: JSON.stringify(c),
  };
  try {
    await client.openDialog(triggerId, url, dialog);
    return true;
  } catch {
    // The trigger id expired (Mattermost gives a few seconds) or the server refused: the clicker is told to retry.
    return false;
  }
}
