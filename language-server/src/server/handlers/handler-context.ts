import { LSPErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem } from '../../service/problem.ts';
import type { DocumentSessions, DocumentState } from '../documents.ts';

/** What each area's handlers get from the server. */
export interface HandlerContext {
  connection: Connection;
  /** The language-service side of the open documents: their schemas and validators. */
  sessions: DocumentSessions;
  /** The state of an open document (its text, current tree and schema), or undefined when it is not open. */
  stateOf(uri: string): Promise<DocumentState | undefined>;
  /** The problems of an open document's current text (computed once per version), or undefined. */
  problemsOf(uri: string): Promise<Problem[] | undefined>;
  /** The open document, if any. */
  documentOf(uri: string): TextDocument | undefined;
  /** Writes a line to the client's output. */
  log(message: string): void;
  /**
   * Wraps a request handler so that it never throws: an exception is logged to the client's
   * output and the request answers `fallback`. A request the client cancelled before its answer
   * was ready is answered RequestCancelled.
   */
  safely<P, R>(
    name: string,
    fallback: R,
    handler: (params: P) => Promise<R> | R,
  ): (params: P, token?: CancellationToken) => Promise<R>;
}

function cancelled(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled.');
}

/**
 * The `safely` of a server. Requests come first: `busy` (before and after each request) makes a
 * pending validation wait until they have been answered.
 */
export function safeHandlers(log: (message: string) => void, busy: () => void): HandlerContext['safely'] {
  return (name, fallback, handler) => async (params, token) => {
    busy();
    try {
      // One turn of the event loop first: a cancellation the client sent right behind the request
      // (an editor cancels stale completions as the user types) is read before any work is done.
      await new Promise((resolve) => setImmediate(resolve));
      if (token?.isCancellationRequested) throw cancelled();
      const result = await handler(params);
      if (token?.isCancellationRequested) throw cancelled();
      return result;
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      log(`blueprint: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return fallback;
    } finally {
      busy();
    }
  };
}
