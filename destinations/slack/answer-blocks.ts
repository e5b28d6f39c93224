import type { AnswerView, DestinationView } from '../../src/delivery/destination.js';
import { clip, context, MAX_BLOCKS, MAX_SECTION_CHARS, section, splitText, type SlackMessage } from './blocks.js';
import { escapeMrkdwn, inlineMrkdwn, toMrkdwn } from './mrkdwn.js';

const MAX_QUESTION_CHARS = 1000;

/**
 * A follow-up's answer as a reply in the investigation's thread: the question (as a human typed it), the
 * model's answer (sanitised Markdown, rendered as the RCA is: escaped, no mentions, links only to allowed
 * hosts), and a context line naming the investigation. Both texts are untrusted and escaped here.
 */
export function renderAnswer(view: DestinationView, a: AnswerView): SlackMessage {
  const hosts = new Set(view.allowedHosts);
  // The question is rendered like the model's text: a bare URL in it becomes code, never a live link.
  const question = inlineMrkdwn(clip(a.question, MAX_QUESTION_CHARS), { allowedHosts: hosts });
  const head = section(`:speech_balloon: *Follow-up:* ${question}`);
  const body = splitText(toMrkdwn(a.answer, { allowedHosts: hosts }), MAX_SECTION_CHARS).map(section);
  const room = MAX_BLOCKS - 2;
  const shown =
    body.length > room
      ? [...body.slice(0, room - 1), section("_(The answer is longer; the rest is on the investigation's page.)_")]
      : body;
  const note = `Answer to follow-up ${a.entry + 1} · investigation \`${view.investigation.id}\``;
  return {
    text: escapeMrkdwn(clip(`Follow-up answered: ${a.question}`, 200)),
    blocks: [head, ...shown, context({}, view.investigation.url, note)],
  };
}
