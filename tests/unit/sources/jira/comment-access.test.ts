import { describe, expect, it } from 'vitest';
import {
  accessFor,
  accessRequestFields,
  keepOnEdit,
  projectOfLocator,
  SD_PUBLIC_COMMENT,
} from '../../../../sources/jira/comment-access.js';
import type { JiraProject } from '../../../../sources/jira/config.js';

const projects: Record<string, JiraProject> = {
  OPS: { visibility: { type: 'role', value: 'Developers' }, internal: true },
  HELP: { internal: false },
  SRE: { visibility: { type: 'group', value: 'sre' }, internal: true },
};

describe('who sees the RCA comment', () => {
  it('a software project: public unless its visibility is configured; internal means nothing there', () => {
    expect(accessFor({}, 'OPS', 'software')).toEqual({ internal: false });
    expect(accessFor(projects, 'OPS', 'software')).toEqual({
      visibility: { type: 'role', value: 'Developers' },
      internal: false,
      configKey: 'sources.jira.projects.OPS.visibility',
    });
    expect(accessFor(projects, 'SRE', 'business')).toMatchObject({
      visibility: { type: 'group', value: 'sre' },
      internal: false,
    });
  });

  it('a service desk project: internal by default, public only with internal: false', () => {
    expect(accessFor({}, 'SD', 'service_desk')).toEqual({ internal: true });
    expect(accessFor(projects, 'HELP', 'service_desk')).toEqual({ internal: false });
    expect(accessFor(projects, 'OPS', 'service_desk')).toMatchObject({
      visibility: { type: 'role', value: 'Developers' },
      internal: true,
    });
  });

  it('a project whose type is unknown is treated as a service desk (the property is harmless elsewhere)', () => {
    expect(accessFor({}, 'X', null)).toEqual({ internal: true });
    expect(accessFor(projects, 'HELP', null)).toEqual({ internal: false });
  });

  it('an edit keeps the restriction the comment has when none is configured, and never widens it', () => {
    const none = accessFor({}, 'OPS', 'software');
    const kept = keepOnEdit(none, { type: 'group', value: 'admins' });
    expect(kept).toEqual({ internal: false, visibility: { type: 'group', value: 'admins' } });
    expect(keepOnEdit(none, null)).toEqual(none);
    const configured = accessFor(projects, 'OPS', 'software');
    expect(keepOnEdit(configured, { type: 'group', value: 'admins' })).toEqual(configured);
  });

  it('the request fields: visibility as Jira takes it, and the JSM property only when internal', () => {
    expect(accessRequestFields({ internal: false })).toEqual({ properties: [] });
    expect(accessRequestFields(accessFor(projects, 'OPS', 'service_desk'))).toEqual({
      visibility: { type: 'role', value: 'Developers' },
      properties: [{ key: SD_PUBLIC_COMMENT, value: { internal: true } }],
    });
    expect(SD_PUBLIC_COMMENT).toBe('sd.public.comment');
  });

  it("the locator's project and type; old locators without them fall back to the key's prefix and unknown", () => {
    const ref = { issueKey: 'OPS-7', id: '1', project: 'OPS', projectType: 'service_desk' };
    expect(projectOfLocator({ key: 'OPS-7', ref })).toEqual({ project: 'OPS', projectType: 'service_desk' });
    expect(projectOfLocator({ key: 'OPS-7', ref: { issueKey: 'OPS-7', id: '1' } })).toEqual({
      project: 'OPS',
      projectType: null,
    });
  });
});
