import type { ErrorObject } from 'ajv';
import { boundMessage, isBoundKeyword } from '../core/bound-message.ts';
import { suggest } from '../../common/spelling.ts';
import { MAX_ERROR_ENTRIES } from '../core/errors.ts';
import type { ResponseErrorDetail } from './errors.ts';

/** openapi-backend validates `{path, query, header, requestBody}`; the client knows them as these. */
function clientPointer(instancePath: string): string {
  return instancePath.replace(/^\/requestBody(?=\/|$)/, '/body') || '/body';
}

/** The last segment of a pointer, the name a person recognises (`/query/per_page` -> `per_page`). */
function fieldName(pointer: string): string {
  const segments = pointer.split('/').filter(Boolean);
  const last = segments.at(-1) ?? 'body';
  // Array items are named after their array: `/body/transaction/tag_ids/0` -> `tag_ids[0]`.
  if (/^\d+$/.test(last) && segments.length > 1) return `${segments.at(-2)}[${last}]`;
  return last.replace(/~1/g, '/').replace(/~0/g, '~');
}

const FORMAT_WORDS: Record<string, string> = {
  date: 'a valid date (YYYY-MM-DD)',
  'date-time': 'a valid ISO 8601 timestamp',
  uuid: 'a valid UUID',
  email: 'a valid email address',
};

/** An enum longer than this is summarised in messages (the currency list has 162 codes). */
const ENUM_LISTED = 20;

/** The `anyOf` of `required` alternatives (`name` or `description`), reported as one problem. */
const REQUIRED_ANY_OF = 'requiredAnyOf';

function enumMessage(field: string, allowed: unknown[]): string {
  if (allowed.length <= ENUM_LISTED) return `${field} must be one of: ${allowed.map(String).join(', ')}`;
  const examples = allowed.slice(0, 3).map(String).join(', ');
  return `${field} must be one of the ${allowed.length} values listed in the contract (${examples}, ...)`;
}

/** The names an object may hold where an unknown one was found: its schema's `properties` (Ajv's `verbose`). */
function knownNames(error: ErrorObject): string[] {
  return Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
}

/**
 * The one rule for a name the contract does not define, in a query or at any depth of a body:
 * named at its pointer, with the defined name it is closest to, if one is close (the language
 * service's "did you mean" measure). `known` holds every name allowed there (all `oneOf` branches).
 */
function unknownName(pointer: string, name: string, known: readonly string[] | undefined): ResponseErrorDetail {
  const meant = known && suggest(name, known);
  const what = pointer.startsWith('/query') ? 'query parameter' : 'field';
  return {
    path: `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    message: `${name} is not a known ${what}${meant ? `; did you mean ${meant}?` : ''}`,
  };
}

/**
 * `known`: per pointer, the names defined there; undefined once the answer holds as many entries
 * as it shows (MAX_ERROR_ENTRIES), after which a suggestion would only cost time.
 */
function describe(error: ErrorObject, known: Map<string, Set<string>> | undefined): ResponseErrorDetail | undefined {
  const pointer = clientPointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  // The words the server uses for a decimal string beyond the same bound (server/core/bound-message.ts).
  if (isBoundKeyword(error.keyword)) {
    return { path: pointer, message: boundMessage(fieldName(pointer), error.keyword, params.limit as number) };
  }
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const path = pointer === '/body' && missing === 'requestBody' ? '/body' : `${pointer}/${missing}`;
      return { path, message: missing === 'requestBody' ? 'request body is required' : `${missing} is required` };
    }
    case REQUIRED_ANY_OF: {
      const [first, ...others] = params.properties as string[];
      return { path: `${pointer}/${first}`, message: `${first} is required (or ${others.join(' or ')})` };
    }
    case 'dependentRequired': {
      const missing = String(params.missingProperty);
      return {
        path: `${pointer}/${missing}`,
        message: `${missing} is required when ${String(params.property)} is sent`,
      };
    }
    case 'additionalProperties':
      return unknownName(pointer, String(params.additionalProperty), known && [...(known.get(pointer) ?? [])]);
    case 'enum':
      return { path: pointer, message: enumMessage(fieldName(pointer), params.allowedValues as unknown[]) };
    case 'const':
      return { path: pointer, message: `${fieldName(pointer)} must be ${JSON.stringify(params.allowedValue)}` };
    case 'format':
      return {
        path: pointer,
        message: `${fieldName(pointer)} must be ${FORMAT_WORDS[String(params.format)] ?? `in ${String(params.format)} format`}`,
      };
    case 'type': {
      const type = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      return { path: pointer, message: `${fieldName(pointer)} must be of type ${type.replace(',', ' or ')}` };
    }
    case 'not':
      return { path: pointer, message: `${fieldName(pointer)} cannot be sent here` };
    case 'parse':
      return undefined; // malformed JSON is answered earlier, as a 400
    case 'anyOf':
    case 'oneOf':
    case 'if':
      return undefined; // the branch errors already say what is wrong
    default:
      return { path: pointer, message: `${fieldName(pointer)} ${error.message ?? 'is invalid'}` };
  }
}

/**
 * A failed `anyOf` whose every branch failed on `required` alone becomes one `requiredAnyOf`
 * error (name or description: one problem, not two). Ajv reports the branch errors right before
 * their `anyOf`, so they are taken back from the end of the list: linear in the number of errors.
 */
function mergeRequiredAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const merged: ErrorObject[] = [];
  for (const error of errors) {
    if (error.keyword !== 'anyOf') {
      merged.push(error);
      continue;
    }
    const prefix = `${error.schemaPath}/`;
    let start = merged.length;
    while (start > 0 && merged[start - 1]!.schemaPath.startsWith(prefix)) start--;
    const branches = merged.slice(start);
    if (branches.length && branches.every((branch) => branch.keyword === 'required')) {
      merged.length = start;
      merged.push({
        ...error,
        keyword: REQUIRED_ANY_OF,
        params: { properties: branches.map((branch) => String(branch.params.missingProperty)) },
      });
    } else merged.push(error);
  }
  return merged;
}

type Schema = Record<string, unknown>;
type Messages = Record<string, string>;

/**
 * The schemas that apply the failing keyword's schema in place, outermost first: the chain of
 * `allOf` items leading to it from `root` (the validator's schema). A field that applies a shared
 * component (`allOf: [{$ref: DecimalInput}]`) may word the component's messages itself.
 */
function inPlaceSchemas(error: ErrorObject, roots: readonly Schema[]): Schema[] {
  const segments = error.schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  for (const root of roots) {
    const chain: Schema[] = [root];
    for (const segment of segments) {
      const next = (chain.at(-1) as Record<string, unknown> | undefined)?.[
        segment.replace(/~1/g, '/').replace(/~0/g, '~')
      ];
      if (!next || typeof next !== 'object') break;
      chain.push(next as Schema);
    }
    if (chain.length !== segments.length + 1 || chain.at(-1) !== error.parentSchema) continue;
    // Walk back from the keyword's schema while it was reached as `allOf/<n>` of its parent.
    let first = chain.length - 1;
    for (let at = segments.length; at >= 2 && segments[at - 2] === 'allOf'; at -= 2) first -= 2;
    return chain.slice(first).filter((_, index) => index % 2 === 0);
  }
  return error.parentSchema ? [error.parentSchema as Schema] : [];
}

/**
 * The contract may word a rule's message itself: `x-error-messages: {<keyword>: <message>}` on
 * the schema that holds the keyword (the seed's "Both amount and date are required when
 * updating reconciliation"), or on a schema applying it in place through `allOf`, whose words
 * win (a trade's `qty` words the messages of the shared `DecimalInput`). `{field}` stands for the
 * field's name. Needs Ajv's `verbose` option, which gives each error its schema.
 */
function contractMessage(error: ErrorObject, pointer: string, roots: readonly Schema[]): string | undefined {
  const keyword = error.keyword === REQUIRED_ANY_OF ? 'anyOf' : error.keyword;
  for (const schema of inPlaceSchemas(error, roots)) {
    const message = (schema['x-error-messages'] as Messages | undefined)?.[keyword];
    if (message) return message.replaceAll('{field}', fieldName(pointer));
  }
  return undefined;
}

/** Turns Ajv results into one entry per problem, each with a JSON pointer into the request. */
export function validationDetails(errors: ErrorObject[], roots: readonly Schema[] = []): ResponseErrorDetail[] {
  const seen = new Set<string>();
  const details: ResponseErrorDetail[] = [];
  // An object under `oneOf` is checked against each branch: the names of all of them are known there.
  // Each schema's names are read once per pointer, however many stray members it reports there.
  const known = new Map<string, Set<string>>();
  const schemasRead = new Map<string, Set<unknown>>();
  for (const error of errors) {
    if (error.keyword !== 'additionalProperties') continue;
    const pointer = clientPointer(error.instancePath);
    const schemas = schemasRead.get(pointer) ?? new Set<unknown>();
    schemasRead.set(pointer, schemas);
    if (schemas.has(error.parentSchema)) continue;
    schemas.add(error.parentSchema);
    const names = known.get(pointer) ?? new Set<string>();
    for (const name of knownNames(error)) names.add(name);
    known.set(pointer, names);
  }
  for (const error of mergeRequiredAlternatives(errors)) {
    const described = describe(error, details.length < MAX_ERROR_ENTRIES ? known : undefined);
    if (!described) continue;
    const custom = contractMessage(error, described.path ?? '/body', roots);
    const detail = custom ? { ...described, message: custom } : described;
    const key = `${detail.path}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
  }
  return details;
}

/** Whether a problem lies in the URL path (a malformed id), which the API answers with 404. */
export function isPathProblem(error: ErrorObject): boolean {
  return error.instancePath.startsWith('/path');
}
