import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { quickFixes } from '../../language-server/src/service/code-actions/quick-fixes.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { createLineIndex } from '../../language-server/src/service/reading/text-document.ts';
import releaseModels from '../../schemas/source/release-models.json' with { type: 'json' };

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

/** A user entry whose attrs end with `name: <value>` (line 7), with more lines before the attrs. */
const user = (value: string, more = '') =>
  `version: 1\nentries:\n  - model: idp_core.user\n    identifiers:\n      username: a\n${more}    attrs:\n      name: ${value}\n`;
const flowWithConditions = (conditions: string) =>
  `version: 1\nentries:\n  - model: idp_flows.flow\n    id: f\n    identifiers: {slug: f}\n  - model: idp_flows.flow\n    identifiers: {slug: g}\n    conditions: ${conditions}\n`;
const role = (permission: string) =>
  `version: 1\nentries:\n  - model: idp_rbac.role\n    identifiers: {name: auditors}\n    attrs:\n      permissions: [${permission}]\n`;
const lineOf = (text: string, offset: number) => createLineIndex(text).positionAt(offset).line + 1;

type Severity = 'error' | 'warning';

// Each row: a mistake the service refuses (or a warning where it does not), the one finding
// (code, severity, the text it covers, its line, words of its message), and the corrected twin.
const cases: { name: string; mistake: string; code: string; severity: Severity; covers: string; line: number; says: string; fixed: string }[] = [
  {
    name: 'conditions: a single !Condition, not a list',
    mistake: flowWithConditions('!Condition [AND, !Context a]'),
    code: 'conditions-not-sequence', severity: 'error', covers: '!Condition [AND, !Context a]', line: 8,
    says: 'conditions must be a sequence: !Condition gives one true or false',
    fixed: flowWithConditions('[!Condition [AND, !Context a]]'),
  },
  {
    name: 'conditions: a single !KeyOf',
    mistake: flowWithConditions('!KeyOf f'),
    code: 'conditions-not-sequence', severity: 'error', covers: '!KeyOf f', line: 8,
    says: '!KeyOf gives one primary key',
    fixed: flowWithConditions('[!KeyOf f]'),
  },
  {
    name: 'a two-item !Enumerate is one mistake',
    mistake: user('!Enumerate [!Context names, !Value 0]'),
    code: 'tag-arity', severity: 'error', covers: '!Enumerate [!Context names, !Value 0]', line: 7,
    says: 'but has 2 items. The output kind seems missing',
    fixed: user('!Enumerate [!Context names, SEQ, !Value 0]'),
  },
  {
    name: '!Find on a field the model does not have',
    mistake: user('!Find [idp_flows.flow, [titel, x]]'),
    code: 'tag-find-field-unknown', severity: 'error', covers: 'titel', line: 7,
    says: "idp_flows.flow has no field 'titel'. Did you mean 'title'?",
    fixed: user('!Find [idp_flows.flow, [title, x]]'),
  },
  {
    name: '!FindObject on a field after a lookup',
    mistake: user('!FindObject [idp_core.group, [nme__iexact, admins]]'),
    code: 'tag-find-field-unknown', severity: 'error', covers: 'nme__iexact', line: 7,
    says: "idp_core.group has no field 'nme' (in 'nme__iexact')",
    fixed: user('!FindObject [idp_core.group, [name__iexact, admins]]'),
  },
  {
    name: '!Find on a model the release does not have',
    mistake: user('!Find [idp_core.usr, [username, a]]'),
    code: 'tag-find-model-unknown', severity: 'error', covers: 'idp_core.usr', line: 7,
    says: "Unknown model 'idp_core.usr' for !Find. Did you mean 'idp_core.user'?",
    fixed: user('!Find [idp_core.user, [username, a]]'),
  },
  {
    name: '!Find on a model of the release that blueprints cannot create',
    mistake: user('!Find [idp_core.source, [slug, ldap]]'),
    code: 'tag-find-model-not-blueprint', severity: 'warning', covers: 'idp_core.source', line: 7,
    says: 'idp_core.source is a model of the release that blueprints cannot create',
    fixed: user('!Find [idp_sources_ldap.ldapsource, [slug, ldap]]'),
  },
  {
    name: 'a role permission without its app label',
    mistake: role('view_flow'),
    code: 'field-invalid', severity: 'error', covers: 'view_flow', line: 6,
    says: "'view_flow' lacks its app label: permissions[0] is written <app>.<codename>. Did you mean 'idp_flows.view_flow'?",
    fixed: role('idp_flows.view_flow'),
  },
]; // prettier-ignore

describe('shapes the service refuses: one mistake, one finding', () => {
  it.each(cases)('$name', ({ mistake, code, severity, covers, line, says }) => {
    const problems = service.doValidation(mistake);
    expect(problems.map((found) => ({ code: found.code, severity: found.severity }))).toEqual([{ code, severity }]);
    expect(allCodes[code as keyof typeof allCodes].severity).toBe(severity);
    const [found] = problems;
    expect(mistake.slice(...found!.range)).toBe(covers);
    expect(lineOf(mistake, found!.range[0])).toBe(line);
    expect(found!.message).toContain(says);
  });

  it.each(cases)('corrected: $name', ({ fixed }) => {
    expect(service.doValidation(fixed)).toEqual([]);
  });
});

describe('!Find on read-only fields of the model', () => {
  const silent: [string, string][] = [
    ['the primary key field of a flow', '!Find [idp_flows.flow, [flow_uuid, x]]'],
    ['a user’s join date with a lookup', '!Find [idp_core.user, [date_joined__gte, "2026-01-01"]]'],
    ['the user of a TOTP device', '!Find [idp_stages_authenticator_totp.totpdevice, [user, 1]]'],
    ['a policy’s own uuid (its family’s)', '!Find [idp_policies_expression.expressionpolicy, [policy_uuid, x]]'],
    ['a property mapping’s uuid', '!Find [idp_providers_oauth2.scopemapping, [pm_uuid, x]]'],
    ['pk on any model', '!Find [idp_core.group, [pk, x]]'],
  ]; // prettier-ignore
  it.each(silent)('no finding: %s', (_name, value) => {
    expect(service.doValidation(user(value))).toEqual([]);
  });

  it('only warns on a model whose read-only fields are not known', () => {
    const problems = service.doValidation(user('!Find [idp_endpoints.deviceaccessgroup, [group_uuid, x]]'));
    expect(problems.map(({ code, severity }) => ({ code, severity }))).toEqual([
      { code: 'tag-find-field-unlisted', severity: 'warning' },
    ]);
  });
});

describe('the permission quick fix', () => {
  it('adds the app label', () => {
    const text = role('view_flow');
    const problems = service.doValidation(text);
    const [fix] = quickFixes(text, problems, problems[0]!.range);
    expect(fix!.title).toBe("Change to 'idp_flows.view_flow'");
    const [edit] = fix!.edits;
    expect(text.slice(0, edit!.range[0]) + edit!.newText + text.slice(edit!.range[1])).toBe(
      role('idp_flows.view_flow'),
    );
  });
});

describe('the release model list (schemas/source/release-models.json)', () => {
  const schemaModels = [...service.index.models.keys()];

  it('names no blueprint model among the others', () => {
    expect(releaseModels.otherModels.filter((name) => service.index.models.has(name))).toEqual([]);
  });

  it('gives read-only fields of blueprint models only, none of them writable', () => {
    for (const [name, fields] of Object.entries(releaseModels.readOnly.models)) {
      const model = service.index.models.get(name);
      expect(model, name).toBeDefined();
      expect(
        fields.filter((field) => model!.fieldNames.includes(field)),
        name,
      ).toEqual([]);
    }
  });

  it('has families that each cover some blueprint model', () => {
    for (const { models } of releaseModels.readOnly.families) {
      const pattern = new RegExp(
        `^${models
          .split('*')
          .map((part) => part.replace(/\./g, '\\.'))
          .join('.*')}$`,
      );
      expect(
        schemaModels.some((name) => pattern.test(name)),
        models,
      ).toBe(true);
    }
  });
});
