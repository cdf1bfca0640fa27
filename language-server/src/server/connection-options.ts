import { LSPErrorCodes, type ConnectionOptions, type Message, type ResponseMessage } from 'vscode-languageserver';

/**
 * How the connection treats requests: one the client cancels while it is still queued (an
 * editor cancels the hover and completion requests that typing made stale) is answered
 * RequestCancelled at once and never run, so that a storm of edits and requests does not leave
 * the server working through answers nobody waits for.
 */
export const connectionOptions: ConnectionOptions = {
  connectionStrategy: {
    cancelUndispatched(message: Message): ResponseMessage {
      const id = (message as { id?: number | string | null }).id ?? null;
      return { jsonrpc: '2.0', id, error: { code: LSPErrorCodes.RequestCancelled, message: 'Request cancelled.' } };
    },
  },
};
