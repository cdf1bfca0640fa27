import type { ExpressionKind } from './expression-fields.ts';

/** A name the service gives an expression. */
export interface ExpressionName {
  name: string;
  kind: 'function' | 'variable';
  /** The call's parameters, for functions: `(user, **group_filters)`. */
  signature?: string;
  /** What it is, in a sentence. */
  documentation: string;
  /** The evaluators that provide it (both when absent). */
  only?: ExpressionKind;
}

/**
 * The names the service documents for expressions (docs/blueprints.md, "Expressions"): helpers
 * every evaluator has, then those of expression policies and of property mappings. Attributes of
 * these objects are left to the service's own documentation.
 */
export const expressionNames: readonly ExpressionName[] = [
  { name: 'ak_call_policy', kind: 'function', signature: '(name, **kwargs)', documentation: 'Runs the policy with this name on the current request (keyword arguments are added to its context) and returns its result: `.passing`, `.messages`.' },
  { name: 'ak_create_event', kind: 'function', signature: '(action, **kwargs)', documentation: 'Records an event with this action; keyword arguments go into its context.' },
  { name: 'ak_create_jwt', kind: 'function', signature: '(user, provider, scopes, validity="seconds=60")', documentation: 'Issues a JWT for the user, signed by an OAuth2 provider (an object or its name); needs an HTTP request.' },
  { name: 'ak_create_jwt_raw', kind: 'function', signature: '(provider, validity="seconds=60", **claims)', documentation: 'Issues a JWT signed by an OAuth2 provider with the given claims; needs no HTTP request.' },
  { name: 'ak_is_group_member', kind: 'function', signature: '(user, **group_filters)', documentation: 'Whether the user belongs to a group matching the filters, e.g. `name="admins"`.' },
  { name: 'ak_logger', kind: 'variable', documentation: 'A structured logger: `ak_logger.info("text", key=value)`.' },
  { name: 'ak_send_email', kind: 'function', signature: '(address, subject, body=None, stage=None, template=None, context=None, cc=None, bcc=None)', documentation: 'Queues an email (a body or a template, not both); returns whether it was queued.' },
  { name: 'ak_user_by', kind: 'function', signature: '(**filters)', documentation: 'The first user matching the filters, or None.' },
  { name: 'ak_user_has_authenticator', kind: 'function', signature: '(user, device_type=None)', documentation: 'Whether the user has a confirmed authenticator, optionally of one type (totp, duo, static, webauthn).' },
  { name: 'ip_address', kind: 'function', signature: '(address)', documentation: "Python's `ipaddress.ip_address`: compare addresses, test membership in a network." },
  { name: 'ip_network', kind: 'function', signature: '(network)', documentation: "Python's `ipaddress.ip_network`, e.g. `ak_client_ip in ip_network('10.0.0.0/8')`." },
  { name: 'list_flatten', kind: 'function', signature: '(value)', documentation: 'The first item of a list (None when it is empty); any other value as it is.' },
  { name: 'regex_match', kind: 'function', signature: '(value, regex)', documentation: 'Whether the regular expression matches somewhere in the value.' },
  { name: 'regex_replace', kind: 'function', signature: '(value, regex, repl)', documentation: 'The value with every match of the regular expression replaced.' },
  { name: 'requests', kind: 'variable', documentation: 'An HTTP session of the `requests` library.' },
  { name: 'resolve_dns', kind: 'function', signature: '(host, ip_version=None)', documentation: 'The addresses of a host name (only IPv4 or IPv6 with 4 or 6); cached for a few minutes.' },
  { name: 'reverse_dns', kind: 'function', signature: '(ip_addr)', documentation: 'The host name of an address, or the address when it has none.' },
  { name: 'slugify', kind: 'function', signature: '(value)', documentation: 'The value as a slug: lowercase, with hyphens for spaces.' },
  { name: 'request', kind: 'variable', only: 'policy', documentation: 'The policy request: `request.user`, `request.http_request`, `request.obj` (the object the policy runs on, if any), `request.context` (the flow\'s data).' },
  { name: 'context', kind: 'variable', only: 'policy', documentation: "The flow's data, as `request.context`: `pending_user`, `prompt_data`, `application`..." },
  { name: 'ak_message', kind: 'function', signature: '(message)', only: 'policy', documentation: 'Adds a message the user is shown with the policy\'s result.' },
  { name: 'ak_is_sso_flow', kind: 'variable', only: 'policy', documentation: 'Whether the flow was started by signing in through a source.' },
  { name: 'ak_client_ip', kind: 'variable', only: 'policy', documentation: "The client's address (255.255.255.255 when unknown), to compare with `ip_network(...)`." },
  { name: 'http_request', kind: 'variable', only: 'policy', documentation: 'The HTTP request, when there is one.' },
  { name: 'user', kind: 'variable', only: 'mapping', documentation: 'The user the mapping runs for; may be None.' },
  { name: 'request', kind: 'variable', only: 'mapping', documentation: 'The current request, when there is one; may be None.' },
]; // prettier-ignore

/** The names an expression of this kind sees, in the order above. */
export function namesFor(kind: ExpressionKind): ExpressionName[] {
  return expressionNames.filter((name) => name.only === undefined || name.only === kind);
}

/** Attributes of the policy request the service documents. */
export const policyRequestAttributes: readonly ExpressionName[] = [
  { name: 'user', kind: 'variable', documentation: 'The user the policy is checked for (in a flow, see `context["pending_user"]`).' },
  { name: 'http_request', kind: 'variable', documentation: 'The HTTP request, when there is one.' },
  { name: 'obj', kind: 'variable', documentation: 'The object the policy runs against, when there is one.' },
  { name: 'context', kind: 'variable', documentation: "The flow's data: `pending_user`, `prompt_data`, `application`..." },
]; // prettier-ignore
