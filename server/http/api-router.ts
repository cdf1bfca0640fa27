import type { Context, Middleware } from 'koa';
import type { Operation } from 'openapi-backend';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Queryable, SqlTarget } from '../core/sql.ts';
import type { AccessGate } from './access-gate.ts';
import type { WorkSlots } from '../core/work-slots.ts';
import { bodyThreadFor, OFF_THREAD_BYTES, type BulkText } from './body-thread.ts';
import type { Handler, HandlerInput, OperationId } from './contract.ts';
import type { StoredText } from '../core/stored-text.ts';
import { BadRequest, Forbidden, NotFound } from '../core/errors.ts';
import { HttpError } from './errors.ts';
import { answerOnce, IDEMPOTENCY_KEY } from './idempotency.ts';
import { jsonBody, jsonBytes, refuse } from './json-body.ts';
import type { OpenApiDocument } from './openapi-document.ts';
import {
  checkJsonRequest,
  checkRequest,
  createRequestValidator,
  operationCheck,
  type BodyCheck,
  type ValidRequest,
} from './request-check.ts';
import { setHeaders, setJsonBody } from './response-headers.ts';
import { RouteTable } from './route-table.ts';

/** Contract extensions read by the router: the scope an operation needs and the feature it belongs to. */
interface ContractExtensions {
  'x-scope'?: 'read' | 'read_write';
  'x-feature'?: 'ai';
  /** A browser step: every failure after the access gate is a redirect, not a JSON error. */
  'x-error-redirect'?: boolean;
}

export interface ApiRouterOptions {
  document: OpenApiDocument;
  handlers: Partial<{ [K in OperationId]: Handler<K> }>;
  orm: MikroORM;
  /** Where statements outside a unit of work run: a handler's `db`, the access gate, idempotency keys. */
  statements: Queryable;
  jsonBodyLimit: number;
  accessGate: AccessGate;
  /** Whether an AI provider is configured: without one, `x-feature: ai` operations are 403. */
  aiAvailable: boolean;
  /** Where a failed browser step (`x-error-redirect`) sends the browser. */
  errorRedirect?: (error: unknown, log: Logger) => string;
  /**
   * Operations that each take a slot of the given WorkSlots once their caller is let in and
   * before their body is read, holding it to their answer: heavy requests that may run only so
   * many at once (their bodies wait unread meanwhile, holding neither memory nor a connection).
   */
  admission?: Partial<Record<OperationId, WorkSlots>>;
  /**
   * Operations whose large bodies (above OFF_THREAD_BYTES) are parsed and checked against the
   * contract on a worker thread (`body-thread.ts`), so the event loop keeps answering others, each
   * with the top-level string field that carries its bulk: the handler gets that field's UTF-8
   * bytes as `text`, or, for a large body whose `store` kept them, where (`stored`); the body holds
   * their digest (`checkJsonRequest`). `discard` removes a stored text once the request has
   * answered, unless the handler kept it: a replayed `Idempotency-Key`, or a refusal after the
   * store, must not leave it behind.
   */
  offThread?: Partial<Record<OperationId, OffThreadText>>;
  /** The time kept answers of an `Idempotency-Key` expire by (the system's by default); tests move it. */
  clock?: Clock;
}

/** An operation's bulk text, and how a stored one that no handler kept goes again. */
export interface OffThreadText extends BulkText {
  discard?: (db: SqlTarget, stored: StoredText) => Promise<void>;
}

/** "getTransaction" + "id" -> "Transaction"; "createChatMessage" + "chat_id" -> "Chat". */
function resourceName(operationId: string, pathParam: string | undefined): string {
  if (pathParam && pathParam !== 'id') {
    const base = pathParam.replace(/_id$/, '');
    return base.charAt(0).toUpperCase() + base.slice(1);
  }
  return operationId.replace(/^(get|update|delete|list|create|retry)/, '') || 'Record';
}

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(.*)$/i.exec(header);
  return match ? match[1]!.trim() : header.trim();
}

/**
 * What a handler gets. A class, so that its lazy parts cost nothing until read: the
 * EntityManager fork (a handler of raw SQL never makes one) and the child logger.
 */
class RequestInput implements HandlerInput<OperationId> {
  readonly params: never;
  readonly query: never;
  readonly text: Uint8Array | undefined;
  readonly stored: StoredText | undefined;
  private fork: EntityManager | undefined;

  constructor(
    checked: ValidRequest,
    readonly cookies: never,
    readonly body: never,
    readonly address: string,
    readonly principal: never,
    readonly db: SqlTarget,
    private readonly orm: MikroORM,
    private readonly state: { log: Logger },
  ) {
    this.params = checked.params as never;
    this.query = checked.query as never;
    this.text = checked.text;
    this.stored = checked.stored;
  }

  get em(): EntityManager {
    return (this.fork ??= this.orm.em.fork());
  }

  get log(): Logger {
    return this.state.log;
  }
}

/** Runs the rest of the chain and answers any failure with the redirect `presenter` chooses. */
function redirectErrors(presenter: (error: unknown, log: Logger) => string) {
  return async (ctx: Context, next: () => Promise<unknown>) => {
    try {
      await next();
    } catch (error) {
      ctx.status = 302;
      // The feature knows domain errors only: a request the contract refused is a bad request to it.
      const refused = error instanceof HttpError ? new BadRequest(error.message) : error;
      ctx.redirect(presenter(refused, ctx.state.log));
    }
  };
}

/** The steps as one middleware, each handed the next. */
function chain(steps: Middleware[]): Middleware {
  return (ctx, next) => {
    const run = (index: number): Promise<unknown> =>
      index === steps.length ? next() : Promise.resolve(steps[index]!(ctx, () => run(index + 1)));
    return run(0);
  };
}

/**
 * One route per operation of the contract (route-table.ts). Each request is validated with the
 * validators openapi-backend compiled for its already-known operation (request-validator.ts; its own
 * router re-scans every operation per request: docs/stack-traps.md#openapi-backend).
 * Order per request: access gate (address limit, credential, credential limit) -> feature -> scope
 * -> body -> validation -> handler, so a caller
 * without rights learns nothing about the shape of a valid request.
 */
export async function createApiRouter(options: ApiRouterOptions): Promise<RouteTable> {
  const api = await createRequestValidator(options.document);
  const bodyThread = Object.keys(options.offThread ?? {}).length ? await bodyThreadFor(options.document) : undefined;

  const routes = new RouteTable();
  // Statements outside a unit of work run on a pool of their own: a fork of the ORM's manager per
  // request (an identity map, a unit of work, loaders) is made only for a handler that uses `em`.
  const db: SqlTarget = options.statements;
  const unhandled = (api.getOperations() as Operation[])
    .map((operation) => operation.operationId as OperationId)
    .filter((operationId) => !options.handlers[operationId]);
  if (unhandled.length) throw new Error(`operations of the contract without a handler: ${unhandled.join(', ')}`);
  const parseBody = jsonBody(options.jsonBodyLimit);
  for (const operation of api.getOperations() as (Operation & ContractExtensions)[]) {
    const operationId = operation.operationId as OperationId;
    // Seen from the router, every handler takes the generic input and returns some status and body.
    const handler = options.handlers[operationId] as (
      input: HandlerInput<OperationId>,
    ) => Promise<{ status: number; body?: unknown; headers?: Record<string, string | string[]> }>;
    const security = operation.security ?? options.document.security ?? [];
    const secured = security.length > 0;
    const pathParam = /\{(\w+)\}/.exec(operation.path)?.[1];
    const check = operationCheck(api, operation);
    const permits = options.admission?.[operationId];
    const parameters = (operation.parameters ?? []) as { in?: string; name?: string }[];
    const cookieNames = parameters.filter((parameter) => parameter.in === 'cookie').map((parameter) => parameter.name!);
    // The operations whose contract takes the header run at most once per key.
    const idempotent = parameters.some((parameter) => parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY);
    const requestParts = (ctx: Context) => {
      const cookies: Record<string, string> = {};
      for (const name of cookieNames) {
        const value = ctx.cookies.get(name);
        if (value !== undefined) cookies[name] = value;
      }
      return { path: ctx.path, params: ctx.params, headers: ctx.headers, querystring: ctx.querystring, cookies };
    };
    /** The parameters as coerced, or the refusal of what the check found. */
    const validated = (checked: BodyCheck): ValidRequest => {
      if (checked.outcome === 'not_found') throw NotFound.entity(resourceName(operationId, pathParam));
      if (checked.outcome !== 'valid') refuse(checked);
      return checked;
    };
    // Read, parsed and checked in one step, on the thread when the body is large.
    const offThread = options.offThread?.[operationId];
    // What the thread is sent (a function cannot be).
    const bulk: BulkText | undefined = offThread && { field: offThread.field, store: offThread.store };
    const checkOffThread = async (ctx: Context, next: () => Promise<unknown>) => {
      const bytes = await jsonBytes(ctx, options.jsonBodyLimit);
      const checked =
        bytes && bodyThread && bytes.byteLength > OFF_THREAD_BYTES
          ? await bodyThread.check(operationId, requestParts(ctx), bytes, bulk)
          : checkJsonRequest(check, requestParts(ctx), bytes, bulk?.field);
      const valid = validated(checked);
      ctx.state.checked = valid;
      if ('body' in checked) ctx.request.body = checked.body;
      const stored = valid.stored;
      if (!stored || !offThread?.discard) return next();
      try {
        return await next();
      } finally {
        await offThread.discard(db, stored).catch((error: unknown) => {
          ctx.state.log.warn({ err: error }, 'a stored upload could not be discarded; the hourly sweep will');
        });
      }
    };
    const bodySteps = bulk ? [checkOffThread] : operation.requestBody ? [parseBody] : [];

    const steps = [
      async (ctx: Context, next: () => Promise<unknown>) => {
        const access = await options.accessGate(db, {
          address: ctx.ip,
          secured,
          bearer: bearerToken(ctx),
          apiKey: ctx.get('x-api-key') || undefined,
        });
        setHeaders(ctx, access.headers);
        const principal = access.principal;
        if (principal) {
          ctx.state.principal = principal;
          if (operation['x-feature'] === 'ai') {
            if (!options.aiAvailable)
              throw new Forbidden('feature_disabled', 'No AI provider is configured on this server');
            if (!principal.aiEnabled) throw new Forbidden('feature_disabled', 'AI features are disabled for this user');
          }
          if (operation['x-scope'] === 'read_write' && principal.scope !== 'read_write') {
            throw Forbidden.scope('read_write');
          }
        }
        await next();
      },
      ...(permits ? [(_ctx: Context, next: () => Promise<unknown>) => permits.run(next)] : []),
      ...bodySteps,
      ...(operation['x-error-redirect'] && options.errorRedirect ? [redirectErrors(options.errorRedirect)] : []),
      async (ctx: Context) => {
        const parts = requestParts(ctx);
        const checked: ValidRequest =
          ctx.state.checked ?? validated(checkRequest(check, { ...parts, body: ctx.request.body }));
        const input = new RequestInput(
          checked,
          parts.cookies as never,
          ctx.request.body as never,
          ctx.ip,
          ctx.state.principal as never,
          db,
          options.orm,
          ctx.state,
        );
        const answer = async () => {
          const response = await handler(input);
          ctx.status = response.status;
          if (response.headers) ctx.set(response.headers);
          if (response.body !== undefined) setJsonBody(ctx, response.body);
        };
        await (idempotent ? answerOnce(ctx, db, options.clock ?? systemClock, answer) : answer());
      },
    ];
    routes.add(operation.method, operation.path, chain(steps));
  }
  return routes;
}
