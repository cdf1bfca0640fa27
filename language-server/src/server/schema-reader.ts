import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Bounds on reading a schema, whoever named it. */
export interface SchemaLimits {
  /** Largest schema read, in bytes (default 5 MiB; the bundled schema is about 0.6 MiB). */
  maxBytes: number;
  /** Milliseconds a file may take to read (default 5,000). */
  fileTimeoutMs: number;
  /** Milliseconds a download may take, body included (default 10,000). */
  downloadTimeoutMs: number;
}

export const defaultSchemaLimits: SchemaLimits = {
  maxBytes: 5 * 1024 * 1024,
  fileTimeoutMs: 5_000,
  downloadTimeoutMs: 10_000,
};

/**
 * A schema that cannot be used. `reason` completes "The schema at X ..." and never quotes the
 * file: a modeline may point at any file, and its text must not reach a diagnostic.
 */
export class SchemaUnavailable extends Error {
  constructor(
    readonly reason: string,
    readonly location?: string,
  ) {
    super(location === undefined ? reason : `The schema at ${displayLocation(location)} ${reason}.`);
    this.name = 'SchemaUnavailable';
  }
}

/** A file URL as its path, any other location as is. */
export function displayLocation(location: string): string {
  return location.startsWith('file:') ? fileURLToPath(location) : location;
}

/** The text of the schema at a file or http(s) URL, within `limits`; throws `SchemaUnavailable`. */
export function readSchemaText(location: string, limits: SchemaLimits = defaultSchemaLimits): Promise<string> {
  if (location.startsWith('file:'))
    return readLocalText(fileURLToPath(location), limits.maxBytes, limits.fileTimeoutMs);
  return download(location, limits);
}

/**
 * The text of a regular file (never a FIFO or device) of at most `maxBytes`, read within
 * `timeoutMs`; throws `SchemaUnavailable` with the reason. Also for blueprints read from disk.
 */
export function readLocalText(file: string, maxBytes: number, timeoutMs: number): Promise<string> {
  return withDeadline(readRegularFile(file, maxBytes), timeoutMs, () => {
    return new SchemaUnavailable(`could not be read within ${timeoutMs / 1000} s`);
  });
}

/**
 * Reads a regular file only. The type is checked before opening: opening a FIFO waits for a writer
 * and would hold one of libuv's four file-system threads for good (four such modelines stopped all
 * diagnostics). O_NONBLOCK covers a path swapped for a FIFO between the check and the open.
 */
async function readRegularFile(file: string, maxBytes: number): Promise<string> {
  checkRegular(await stat(file).catch(fileProblem), maxBytes);
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(fileProblem);
  try {
    checkRegular(await handle.stat(), maxBytes);
    // Read to the end rather than to the size stat gave: some files (in /proc) report 0 bytes.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null).catch(fileProblem);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}

function checkRegular(stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) throw new SchemaUnavailable(`is not a regular file (it is ${kindOf(stats)})`);
  if (stats.size > maxBytes) throw tooLarge(maxBytes);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

function tooLarge(maxBytes: number): SchemaUnavailable {
  return new SchemaUnavailable(`is larger than ${maxBytes / (1024 * 1024)} MiB`);
}

/** A file-system error as a reason that completes "The schema at X ...". */
function fileProblem(error: NodeJS.ErrnoException): never {
  switch (error.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      throw new SchemaUnavailable('does not exist');
    case 'EACCES':
    case 'EPERM':
      throw new SchemaUnavailable('cannot be read (permission denied)');
    case 'ELOOP':
      throw new SchemaUnavailable('cannot be read (a loop of symbolic links)');
    default:
      throw new SchemaUnavailable(`cannot be read (${error.code ?? 'file-system error'})`);
  }
}

/** An http(s) download with a deadline for the whole body and a size cap checked as it arrives. */
async function download(location: string, limits: SchemaLimits): Promise<string> {
  const protocol = URL.canParse(location) ? new URL(location).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new SchemaUnavailable('is not a file or an http(s) URL');
  }
  const seconds = limits.downloadTimeoutMs / 1000;
  const signal = AbortSignal.timeout(limits.downloadTimeoutMs);
  const failed = (error: unknown): never => {
    if (error instanceof SchemaUnavailable) throw error;
    if (signal.aborted) throw new SchemaUnavailable(`could not be downloaded within ${seconds} s`);
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw new SchemaUnavailable(`could not be downloaded (${typeof code === 'string' ? code : 'network error'})`);
  };
  try {
    const response = await fetch(location, { signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw new SchemaUnavailable(`answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > limits.maxBytes) {
      await response.body?.cancel();
      throw tooLarge(limits.maxBytes);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      total += next.value.byteLength;
      if (total > limits.maxBytes) {
        await reader!.cancel();
        throw tooLarge(limits.maxBytes);
      }
      chunks.push(next.value);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (error) {
    return failed(error);
  }
}

/**
 * `work`, or `timedOut()` after `ms`. The work itself is not cancelled (a file-system call cannot
 * be): it finishes on its thread and closes what it opened, but nobody waits for it.
 */
function withDeadline<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
