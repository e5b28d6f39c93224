import type { DestinationView } from '../../src/delivery/destination.js';

/**
 * The Adaptive Card (schema 1.4, which Teams renders) for one investigation, wrapped as a Teams
 * Workflows webhook expects it. TextBlock Markdown in Teams is a small subset (bold, italic,
 * lists, links): the RCA's sanitised Markdown is passed with links only to allowed hosts (the
 * sanitiser's policy); HTML is not rendered and `<at>` mentions need entities we never send.
 */
export interface TeamsMessage {
  type: 'message';
  attachments: Array<{
    contentType: 'application/vnd.microsoft.card.adaptive';
    contentUrl: null;
    content: AdaptiveCard;
  }>;
}

export type AdaptiveCard = Record<string, unknown> & { type: 'AdaptiveCard'; version: string; body: unknown[] };

const COLOR: Record<string, string> = {
  critical: 'Attention',
  high: 'Attention',
  warning: 'Warning',
  info: 'Accent',
  unknown: 'Default',
};
const MAX_TEXT = 20_000;

export function teamsMessage(view: DestinationView): TeamsMessage {
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: adaptiveCard(view) },
    ],
  };
}

export function adaptiveCard(view: DestinationView): AdaptiveCard {
  const labels = Object.entries(view.issue.labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, 12);
  const body: unknown[] = [
    { type: 'TextBlock', text: plain(view.investigation.title), weight: 'Bolder', size: 'Large', wrap: true },
    {
      type: 'TextBlock',
      text: `Severity: ${view.issue.severity.toUpperCase()}`,
      color: COLOR[view.issue.severity] ?? 'Default',
      weight: 'Bolder',
      spacing: 'Small',
      wrap: true,
    },
    {
      type: 'FactSet',
      facts: [
        { title: 'Source', value: plain(view.investigation.source) },
        { title: 'State', value: view.thread.status === 'resolved' ? 'resolved' : `${view.thread.firing} firing` },
        ...labels.map(([k, v]) => ({ title: plain(k), value: plain(v) })),
      ],
    },
    { type: 'TextBlock', text: plain(view.doc.preamble), isSubtle: true, size: 'Small', wrap: true },
    ...view.doc.sections.map((md) => ({
      type: 'TextBlock',
      text: clip(headingsBold(md).replace(/<at>/gi, '&lt;at>'), MAX_TEXT),
      wrap: true,
      separator: true,
    })),
    {
      type: 'TextBlock',
      text: plain(`Lestrade investigation ${view.investigation.id}`),
      isSubtle: true,
      size: 'Small',
      wrap: true,
    },
  ];
  const card: AdaptiveCard = {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.4',
    body,
  };
  if (view.investigation.url)
    card.actions = [{ type: 'Action.OpenUrl', title: 'Open in Lestrade', url: view.investigation.url }];
  return card;
}

/**
 * A TextBlock's Markdown has no headings (Teams shows `## Root cause` as written): a heading line becomes a bold
 * line. Lines inside fenced code stay as they are.
 */
export function headingsBold(md: string): string {
  let fenced = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
      const heading = fenced ? null : /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      return heading?.[1] ? `**${heading[1]}**` : line;
    })
    .join('\n');
}

/** Text that must not be read as Markdown or as a mention: escaped. */
function plain(text: string): string {
  return text.replace(/[\\`*_[\]#<>]/g, '\\$&').replace(/@(?=\w)/g, '@\u2060');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
