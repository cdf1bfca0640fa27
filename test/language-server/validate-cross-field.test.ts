import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { SCHEMA_SOURCE_DIR } from '../../scripts/blueprint-schema/generate.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });
const rules = loadBlueprintSource(SCHEMA_SOURCE_DIR).crossFieldRules;

const FLOW = '9b2e1f4c-0d9a-4a57-9c4e-0e8a4f1a2b3c';
const GROUP = '0c7a1b1e-5d3f-4a57-9c4e-0e8a4f1a2b3c';
const entry = (model: string, identifiers: string, attrs: string) =>
  `version: 1\nentries:\n  - model: ${model}\n    identifiers:\n      ${identifiers}\n    attrs:\n${attrs}`;
const binding = (attrs: string) => entry('idp_policies.policybinding', `target: ${FLOW}\n      order: 10`, attrs);
const validate = (attrs: string) =>
  entry('idp_stages_authenticator_validate.authenticatorvalidatestage', 'name: mfa', attrs);
const identification = (attrs: string) => entry('idp_stages_identification.identificationstage', 'name: id', attrs);
const redirect = (attrs: string) => entry('idp_stages_redirect.redirectstage', 'name: away', attrs);
const proxy = (attrs: string) =>
  entry('idp_providers_proxy.proxyprovider', 'name: wiki', `      external_host: https://wiki.example.com\n${attrs}`);
const saml = (attrs: string) => entry('idp_providers_saml.samlprovider', 'name: sp', attrs);
const oidc = (attrs: string) =>
  entry('idp_sources_oauth.oauthsource', 'slug: corp', `      provider_type: openidconnect\n${attrs}`);
const oauth2 = (uris: string) =>
  entry('idp_providers_oauth2.oauth2provider', 'name: wiki', `      redirect_uris:\n${uris}`);
const messageOf = (model: string, index = 0) => rules.filter((rule) => rule.model === model)[index]!.message;

// Per rule of cross-field-rules.yaml: the mistake («» where it is reported), the corrected twin, and
// which of the model's rules it breaks when not the first.
const cases: [name: string, model: string, mistake: string, twin: string, rule?: number][] = [
  ['a binding with both a policy and a group', 'idp_policies.policybinding', binding(`      policy: ${FLOW}\n      «group»: ${GROUP}`), binding(`      group: ${GROUP}`)], // prettier-ignore
  ['a binding with none of policy, group and user', 'idp_policies.policybinding', entry('«idp_policies.policybinding»', `target: ${FLOW}`, '      order: 10'), binding('      user: 7')], // prettier-ignore
  ['a configure action without configuration stages', 'idp_stages_authenticator_validate.authenticatorvalidatestage', validate('      not_configured_action: «configure»\n      device_classes: [totp]'), validate(`      not_configured_action: configure\n      configuration_stages: [${FLOW}]`)], // prettier-ignore
  ['an identification stage with neither user fields nor sources', 'idp_stages_identification.identificationstage', entry('«idp_stages_identification.identificationstage»', 'name: id', '      sources: []'), identification('      user_fields: [email]')], // prettier-ignore
  ['a static redirect without its URL', 'idp_stages_redirect.redirectstage', redirect('      mode: «static»'), redirect('      mode: static\n      target_static: https://example.com/welcome')], // prettier-ignore
  ['a flow redirect without its flow', 'idp_stages_redirect.redirectstage', redirect('      mode: «flow»\n      target_flow: null'), redirect(`      mode: flow\n      target_flow: ${FLOW}`), 1], // prettier-ignore
  ['a proxy provider in the default mode without internal_host', 'idp_providers_proxy.proxyprovider', entry('«idp_providers_proxy.proxyprovider»', 'name: wiki', '      external_host: https://wiki.example.com'), proxy('      internal_host: http://wiki:8080')], // prettier-ignore
  ['a SAML provider that signs with neither assertion nor response', 'idp_providers_saml.samlprovider', saml(`      «signing_kp»: ${FLOW}\n      sign_assertion: false`), saml(`      signing_kp: ${FLOW}\n      sign_response: true`)], // prettier-ignore
  ['a generic OpenID Connect source without its URLs', 'idp_sources_oauth.oauthsource', entry('idp_sources_oauth.oauthsource', 'slug: corp', '      provider_type: «openidconnect»\n      authorization_url: https://id.example.com/authorize'), oidc('      oidc_well_known_url: https://id.example.com/.well-known/openid-configuration')], // prettier-ignore
  ['a regex redirect URI that does not compile', 'idp_providers_oauth2.oauth2provider', oauth2('        - matching_mode: strict\n          url: https://wiki.example.com/cb\n        - matching_mode: regex\n          url: «"https://(wiki|docs\\\\.example\\\\.com/cb"»'), oauth2('        - matching_mode: regex\n          url: "https://(wiki|docs)\\\\.example\\\\.com/cb"')], // prettier-ignore
];

describe("the serializers' cross-field rules", () => {
  it.each(cases)('%s', (_name, model, mistake, twin, rule) => {
    const { text, range } = marked(mistake);
    const message = messageOf(model, rule);
    expect(withoutFixes(service.doValidation(text))).toEqual([{ code: 'field-combination', severity: 'error', message, range }]); // prettier-ignore
    expect(service.doValidation(twin)).toEqual([]);
  });

  it("refuses a regex redirect URI with an escape Python's re does not know", () => {
    const { text, range } = marked(
      oauth2('        - matching_mode: regex\n          url: «"https://wiki\\\\.example\\\\.com/\\\\q"»'),
    );
    expect(service.doValidation(text).map((found) => [found.code, found.range])).toEqual([
      ['field-combination', range],
    ]);
  });

  it('checks an entry whose model part is written in another case, as the service finds it', () => {
    const text = binding(`      policy: ${FLOW}\n      group: ${GROUP}`).replace('idp_policies.policybinding', 'idp_policies.PolicyBinding'); // prettier-ignore
    expect(service.doValidation(text).map((found) => found.code)).toEqual(['model-case', 'field-combination']);
  });

  it('every rule of cross-field-rules.yaml has a case above', () => {
    const found = new Set(
      cases.map(([, model, mistake]) => {
        const message = service.doValidation(marked(mistake).text)[0]?.message;
        return `${model}: ${message}`;
      }),
    );
    expect(rules.map((rule) => `${rule.model}: ${rule.message}`).filter((rule) => !found.has(rule))).toEqual([]);
  });

  it.each([
    ['a subject given by a tag that only resolves when applied', binding('      policy: !Find [idp_policies_dummy.dummypolicy, [name, p]]')], // prettier-ignore
    ['a subject in identifiers, as exports write it', entry('idp_policies.policybinding', `target: ${FLOW}\n      group: ${GROUP}`, '      order: 10')], // prettier-ignore
    ['other subjects null beside the one set', binding(`      policy: null\n      group: ${GROUP}\n      user: null`)],
    ['an entry that deletes the binding', `version: 1\nentries:\n  - model: idp_policies.policybinding\n    state: absent\n    identifiers:\n      target: ${FLOW}\n      order: 10`], // prettier-ignore
    ['attrs from a tag', `version: 1\nentries:\n  - model: idp_policies.policybinding\n    identifiers:\n      target: ${FLOW}\n    attrs: !Context binding`], // prettier-ignore
    ['a configure action whose stages come from a tag', validate('      not_configured_action: configure\n      configuration_stages: !Context stages')], // prettier-ignore
    ['another not_configured_action', validate('      not_configured_action: skip')],
    ['a forward-auth proxy without internal_host', proxy('      mode: forward_single')],
    ['a SAML provider with no signing key', saml('      signing_kp: null')],
    ['an OAuth source of a type with its own URLs', entry('idp_sources_oauth.oauthsource', 'slug: gh', '      provider_type: github')], // prettier-ignore
    ['the URLs given as null: the service asks only that they are given', oidc('      authorization_url: null\n      access_token_url: null\n      profile_url: null')], // prettier-ignore
    ['a strict redirect URI with a parenthesis: no regular expression', oauth2('        - matching_mode: strict\n          url: https://wiki.example.com/cb?(x')], // prettier-ignore
    ["a regex redirect URI with Python's named group and inline flag", oauth2('        - matching_mode: regex\n          url: "(?i)https://(?P<host>[a-z]+)\\\\.example\\\\.com/cb\\\\Z"')], // prettier-ignore
  ])('no finding: %s', (_name, text) => {
    expect(service.doValidation(text).filter((found) => found.code === 'field-combination')).toEqual([]);
  });
});
