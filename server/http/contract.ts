import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { operations } from '../core/api-types.generated.ts';
import type { JsonInteger, JsonText } from '../core/exact-json.ts';
import type { SqlTarget } from '../core/sql.ts';
import type { Principal } from './principal.ts';
import type { StoredText } from '../core/stored-text.ts';

/** The operationIds of the contract. */
export type OperationId = keyof operations;

type Operation<K extends OperationId> = operations[K];
type Defined<T> = [T] extends [undefined] ? Record<string, never> : NonNullable<T>;

export type PathParams<K extends OperationId> = Defined<Operation<K>['parameters']['path']>;
export type QueryParams<K extends OperationId> = Defined<Operation<K>['parameters']['query']>;
export type CookieParams<K extends OperationId> = Defined<Operation<K>['parameters']['cookie']>;
export type RequestBody<K extends OperationId> =
  Operation<K> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : undefined;

/** Statuses a handler returns itself; 302 only for the browser steps of single sign-on. */
type SuccessStatus = 200 | 201 | 202 | 204 | 302;
type Responses<K extends OperationId> = Operation<K>['responses'];

/**
 * A body as a handler may build it: where the contract has a number, an ExactInteger may stand
 * for an integer past 2^53, which the answer writes as its digits; where it has an object of any
 * members, a JsonText may stand for one already written (core/exact-json.ts).
 */
type Answerable<T> = T extends number
  ? JsonInteger
  : T extends readonly (infer U)[]
    ? Answerable<U>[]
    : T extends object
      ? { [P in keyof T]: Answerable<T[P]> } | (string extends keyof T ? JsonText : never)
      : T;

/** What a handler returns: one of the operation's documented success statuses, with its body type and any headers. */
export type HandlerResult<K extends OperationId> = {
  [S in keyof Responses<K> & SuccessStatus]: (Responses<K>[S] extends { content: { 'application/json': infer B } }
    ? { status: S; body: Answerable<B> }
    : { status: S; body?: undefined }) & { headers?: Record<string, string | string[]> };
}[keyof Responses<K> & SuccessStatus];

/** Operations the contract marks `security: []`: they run without a credential (a test keeps this list true). */
export const PUBLIC_OPERATIONS = [
  'login',
  'refreshToken',
  'exchangeSsoCode',
  'linkSsoAccount',
  'createSsoAccount',
  'startMobileSso',
  'finishMobileSso',
  'getApiIndex',
] as const;
export type PublicOperation = (typeof PUBLIC_OPERATIONS)[number];

/** Everything a handler may read: the request as validated (and coerced) by the contract. */
export interface HandlerInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  cookies: CookieParams<K>;
  body: RequestBody<K>;
  /**
   * The UTF-8 bytes of the body's bulk text field, for the operations that name one (api-router's
   * `offThread`); that field of `body` then holds their digest, not the text.
   */
  text: Uint8Array | undefined;
  /** Where the body thread stored that text instead, for a large body whose operation has a store. */
  stored: StoredText | undefined;
  /** The client's address (http/client-address.ts: the socket's peer, or as our proxies report it). */
  address: string;
  /** The caller; none for the public operations. */
  principal: K extends PublicOperation ? undefined : Principal;
  /**
   * Where statements outside a unit of work run (reads, one-statement writes): the pool, or the
   * transaction the caller is in. No EntityManager is made for them.
   */
  db: SqlTarget;
  /** A fork of the ORM's EntityManager for this request only, made when first read. */
  em: EntityManager;
  log: Logger;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerResult<K>>;

/** Handlers of a resource, keyed by operationId. */
export type Handlers<K extends OperationId = OperationId> = { [Id in K]: Handler<Id> };
