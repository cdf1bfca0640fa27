import type { Connection } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Problem } from '../../service/problem.ts';
import type { DocumentState } from '../documents.ts';

/** What each feature's handlers get from the server. */
export interface FeatureContext {
  connection: Connection;
  /** The state of an open document (its text, current tree and schema), or undefined when it is not open. */
  stateOf(uri: string): Promise<DocumentState | undefined>;
  /** The problems of an open document's current text (computed once per version), or undefined. */
  problemsOf(uri: string): Promise<Problem[] | undefined>;
  /** The open document, if any. */
  documentOf(uri: string): TextDocument | undefined;
  /**
   * Wraps a request handler so that it never throws: an exception is logged to the client's
   * output and the request answers `fallback`.
   */
  safely<P, R>(name: string, fallback: R, handler: (params: P) => Promise<R> | R): (params: P) => Promise<R>;
}
