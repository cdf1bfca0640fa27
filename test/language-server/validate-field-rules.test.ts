import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const entry = (model: string, identifiers: string, attrs = '') =>
  `version: 1\nentries:\n  - model: ${model}\n    identifiers:\n      ${identifiers}\n${attrs ? `    attrs:\n      ${attrs}\n` : ''}`;
const login = (attrs: string) => entry('idp_stages_user_login.userloginstage', 'name: login', attrs);
const oauth2 = (attrs: string) => entry('idp_providers_oauth2.oauth2provider', 'name: rota', attrs);
const proxy = (attrs: string) => entry('idp_providers_proxy.proxyprovider', 'name: wiki', `mode: forward_single\n      ${attrs}`); // prettier-ignore

const DURATION =
  'must be a duration: key=value pairs separated by \';\', each key one of weeks, days, hours, minutes, seconds, milliseconds, microseconds, each value a number, e.g. "hours=1;minutes=30".';
const SLUG = "must be a slug: letters, digits, '-' and '_' only, e.g. \"my-application\".";

// A mistake the service's validators refuse, on its line, and the corrected twin with no finding.
const cases: [name: string, mistake: string, message: string, twin: string][] = [
  ['a duration written 12h', login('session_duration: «12h»'), `session_duration ${DURATION}`, login('session_duration: hours=12')], // prettier-ignore
  ['a duration with a trailing ;', oauth2('access_token_validity: «"minutes=10;"»'), `access_token_validity ${DURATION}`, oauth2('access_token_validity: minutes=10')], // prettier-ignore
  ['a duration with an unknown key only', oauth2('refresh_token_validity: «hour=1»'), `refresh_token_validity ${DURATION}`, oauth2('refresh_token_validity: hours=1')], // prettier-ignore
  ['an application slug with a dot', entry('idp_core.application', 'slug: «wiki.internal»'), `slug ${SLUG}`, entry('idp_core.application', 'slug: wiki-internal')], // prettier-ignore
  ['a flow slug with a space', entry('idp_flows.flow', 'slug: «"my flow"»'), `slug ${SLUG}`, entry('idp_flows.flow', 'slug: my-flow')], // prettier-ignore
  ['a source slug with a slash', entry('idp_sources_oauth.oauthsource', 'slug: «github/corp»'), `slug ${SLUG}`, entry('idp_sources_oauth.oauthsource', 'slug: github-corp')], // prettier-ignore
  ['a token identifier with a dot', entry('idp_core.token', 'identifier: «ci.deploy»'), `identifier ${SLUG}`, entry('idp_core.token', 'identifier: ci-deploy')], // prettier-ignore
  [
    "a user's path with a leading slash",
    entry('idp_core.user', 'username: ada', 'path: «/users/staff»'),
    "path must be a path of names separated by '/', with no '/' at the start or the end and no empty name, e.g. \"users/contractors\".",
    entry('idp_core.user', 'username: ada', 'path: users/staff'),
  ],
  [
    'a proxy external host without its scheme',
    proxy('external_host: «wiki.example.com»'),
    'external_host must be an http or https URL with a host, e.g. "https://app.example.com".',
    proxy('external_host: https://wiki.example.com'),
  ],
  [
    'a SAML ACS URL with another scheme',
    entry('idp_providers_saml.samlprovider', 'name: saml', 'acs_url: «ftp://sp.example.com/acs»'),
    'acs_url must be an http or https URL with a host, e.g. "https://app.example.com".',
    entry('idp_providers_saml.samlprovider', 'name: saml', 'acs_url: https://sp.example.com/acs'),
  ],
  [
    'an application launch URL without a scheme',
    entry('idp_core.application', 'slug: wiki', 'meta_launch_url: «wiki.example.com/home»'),
    'meta_launch_url must be a URL with a scheme (http, https, ftp, ftps, or blank://blank to hide the application), e.g. "https://app.example.com/login".',
    entry('idp_core.application', 'slug: wiki', 'meta_launch_url: blank://blank'),
  ],
  [
    'an LDAP server URI without its scheme',
    entry('idp_sources_ldap.ldapsource', 'slug: corp', 'server_uri: «dc1.example.com»'),
    'server_uri must be one or more ldap:// or ldaps:// URLs, separated by \',\', e.g. "ldaps://dc1.example.com,ldaps://dc2.example.com".',
    entry('idp_sources_ldap.ldapsource', 'slug: corp', 'server_uri: ldaps://dc1.example.com'),
  ],
  [
    'certificate data that is no PEM',
    entry('idp_crypto.certificatekeypair', 'name: web', 'certificate_data: «MIIBkTCB+wIJAK»'),
    'certificate_data must be a PEM certificate (-----BEGIN CERTIFICATE----- ...), e.g. "-----BEGIN CERTIFICATE-----\\nMIIB...\\n-----END CERTIFICATE-----".',
    entry('idp_crypto.certificatekeypair', 'name: web', 'certificate_data: !File /certs/web.pem'),
  ],
];

describe("values the service's field validators refuse", () => {
  it.each(cases)('%s', (_name, mistake, message, twin) => {
    const { text, range } = marked(mistake);
    expect(withoutFixes(service.doValidation(text))).toEqual([{ code: 'field-invalid', severity: 'error', message, range }]); // prettier-ignore
    expect(service.doValidation(twin)).toEqual([]);
  });

  it.each([
    ['a duration with several keys, any case, spaces and an unknown key', login("session_duration: 'Hours=1; minutes= 30;extra=x'")], // prettier-ignore
    ['a duration from a tag', login('session_duration: !Format ["hours=%s", 12]')],
    ['an empty internal host: the validator is skipped for an allowed empty value', proxy('internal_host: ""')],
    ['an empty launch URL', entry('idp_core.application', 'slug: wiki', 'meta_launch_url: ""')],
    ['a nullable URL left null', entry('idp_sources_saml.samlsource', 'slug: corp', 'slo_url: null')],
    ['several LDAP servers', entry('idp_sources_ldap.ldapsource', 'slug: corp', "server_uri: 'ldaps://dc1.example.com, ldap://dc2.example.com:389'")], // prettier-ignore
  ])('no finding: %s', (_name, text) => {
    expect(service.doValidation(text)).toEqual([]);
  });
});
