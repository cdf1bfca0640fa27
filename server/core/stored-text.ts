/**
 * A request's large text that was stored as it arrived, off the event loop (the body thread's
 * store, server/http/body-thread.ts): the id its store gave it, and its size in bytes.
 */
export interface StoredText {
  id: string;
  bytes: number;
}
