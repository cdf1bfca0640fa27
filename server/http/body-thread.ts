import { Worker } from 'node:worker_threads';
import type { OpenApiDocument } from './openapi-document.ts';
import type { StoredText } from '../core/stored-text.ts';
import type { BodyCheck, RequestParts } from './request-check.ts';

/** A JSON body above this many bytes is parsed and checked on the thread, a smaller one where it arrived. */
export const OFF_THREAD_BYTES = 1024 * 1024;

/**
 * Where the thread keeps a large body's text field itself rather than moving its bytes back to the
 * event loop: a module exporting `storeUpload(bytes, options): Promise<StoredText | undefined>`
 * (undefined: not kept, the bytes go back as `text`), and its options (structured-cloneable).
 */
export interface TextStore {
  module: string;
  options: unknown;
}

/** An operation's bulk text field (a top-level string of its body), and where a large one is kept. */
export interface BulkText {
  field: string;
  store?: TextStore | undefined;
}

/** The signature `TextStore.module` exports. */
export type StoreUpload = (bytes: Uint8Array, options: unknown) => Promise<StoredText | undefined>;

/** A request for the thread: its operation, its parts without the body, the body's bytes, and its bulk text. */
export interface BodyJob {
  id: number;
  operationId: string;
  request: Omit<RequestParts, 'body'>;
  bytes: Uint8Array;
  bulk: BulkText | undefined;
}

/** An error carries its `code` back, so a lost database still answers 503 (connection-loss.ts). */
export type BodyJobResult = { id: number; check: BodyCheck } | { id: number; error: string; code?: string };

/** `bytes` as a view of a buffer of its own, which can move between threads (a pooled one is copied first). */
export function movable(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : Uint8Array.prototype.slice.call(bytes);
}

/** What the thread posts once its validator is built. */
export const THREAD_READY = 'ready';

interface Waiting {
  resolve(check: BodyCheck): void;
  reject(error: Error): void;
}

function failure({ error, code }: { error: string; code?: string }): Error {
  return new Error(`checking a request body failed: ${error}`, { cause: { code, message: error } });
}

/**
 * One worker thread that reads large JSON bodies and checks their requests against the contract
 * (`checkJsonRequest`): parsing 10 MiB of JSON and validating a 10-million-character string took
 * the event loop about 30 ms per upload, during which no other request was answered
 * (docs/faults.md#background-work-yields). The bytes are moved to the thread, not copied, and a
 * bulk text with a store is kept by the thread, so a CSV never comes back to the event loop's heap
 * (copying it into the driver's message and collecting it again slowed other reads). The
 * thread is started ahead and waited for (`bodyThreadFor`): loading it took up to 5 s on a busy
 * machine, which the first upload would otherwise wait for. It does not keep the process alive;
 * if it dies, the requests it held fail (500) and the next body starts a new one.
 */
class BodyThread {
  private worker: Worker | undefined;
  /** Settles once the thread can take bodies (or has failed to start). */
  ready: Promise<void> = Promise.resolve();
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor(private readonly document: OpenApiDocument) {}

  check(
    operationId: string,
    request: Omit<RequestParts, 'body'>,
    bytes: Buffer,
    bulk: BulkText | undefined,
  ): Promise<BodyCheck> {
    const worker = this.start();
    const id = this.nextId++;
    const owned = movable(bytes);
    const job: BodyJob = { id, operationId, request, bytes: owned, bulk };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage(job, [owned.buffer as ArrayBuffer]);
    });
  }

  /** Starts the thread unless it runs. */
  start(): Worker {
    if (this.worker) return this.worker;
    const entry = new URL('./body-thread.worker.ts', import.meta.url).href;
    // The thread runs TypeScript as the service does, through tsx, registered in the thread itself.
    const boot = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
      register();
      await import(${JSON.stringify(entry)});`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
      workerData: { document: this.document },
    });
    worker.unref();
    this.ready = new Promise((resolve) => {
      worker.on('message', (message) => message === THREAD_READY && resolve());
      worker.once('exit', () => resolve());
    });
    worker.on('message', (result: BodyJobResult | typeof THREAD_READY) => {
      if (result === THREAD_READY) return;
      const waiting = this.waiting.get(result.id);
      this.waiting.delete(result.id);
      if ('error' in result) waiting?.reject(failure(result));
      else waiting?.resolve(result.check);
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the request body thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/** The threads of this process, one per contract: the apps a test run creates one after another share one. */
const threads = new Map<string, BodyThread>();

/** The body thread of `document`'s contract, started and ready. */
export async function bodyThreadFor(document: OpenApiDocument): Promise<BodyThread> {
  const key = JSON.stringify(document);
  let thread = threads.get(key);
  if (!thread) {
    thread = new BodyThread(document);
    threads.set(key, thread);
  }
  thread.start();
  await thread.ready;
  return thread;
}
