/** After this long of continuous edits or requests, a document is validated anyway. */
export const MAX_DEFER_MS = 1_000;

interface Pending {
  version: number;
  /** When the first change not yet validated was scheduled. */
  since: number;
  timer: NodeJS.Timeout;
}

/**
 * Debounces validation per document: a validation runs once the server has been quiet for the
 * delay (no change of any document, no request served), so that a burst of keystrokes is
 * validated once and requests interleaved with it are not kept waiting behind validations of
 * versions that are already stale; under a storm that never pauses, it runs every MAX_DEFER_MS.
 * Only the newest version is ever pending (scheduling replaces it); `run` receives the version it
 * was scheduled for and must drop its result when the document has moved on meanwhile.
 */
export function createDiagnosticsScheduler(
  delayMs: () => number,
  run: (uri: string, version: number) => Promise<void>,
) {
  const pending = new Map<string, Pending>();
  let lastActivity = 0;

  const arm = (uri: string, waitMs: number): NodeJS.Timeout =>
    setTimeout(() => {
      const entry = pending.get(uri);
      if (!entry) return;
      const now = performance.now();
      const quietFor = now - lastActivity;
      const delay = delayMs();
      if (quietFor < delay && now - entry.since < MAX_DEFER_MS) {
        entry.timer = arm(uri, delay - quietFor);
        return;
      }
      pending.delete(uri);
      void run(uri, entry.version);
    }, waitMs);

  return {
    schedule(uri: string, version: number, immediately = false): void {
      const now = performance.now();
      const previous = pending.get(uri);
      clearTimeout(previous?.timer);
      if (!immediately) lastActivity = now;
      const since = previous?.since ?? now;
      pending.set(uri, {
        version,
        since: immediately ? -Infinity : since,
        timer: arm(uri, immediately ? 0 : delayMs()),
      });
    },
    /** A request is being served: pending validations wait until the server is quiet again. */
    busy(): void {
      lastActivity = performance.now();
    },
    cancel(uri: string): void {
      clearTimeout(pending.get(uri)?.timer);
      pending.delete(uri);
    },
    dispose(): void {
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
    },
  };
}
