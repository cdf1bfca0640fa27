/**
 * Debounces validation per document: each change restarts the document's timer, so a burst of
 * keystrokes is validated once; `run` receives the version it was scheduled for and must drop its
 * result when the document has moved on meanwhile.
 */
export function createDiagnosticsScheduler(
  delayMs: () => number,
  run: (uri: string, version: number) => Promise<void>,
) {
  const timers = new Map<string, NodeJS.Timeout>();
  return {
    schedule(uri: string, version: number, immediately = false): void {
      clearTimeout(timers.get(uri));
      const fire = () => {
        timers.delete(uri);
        void run(uri, version);
      };
      timers.set(uri, setTimeout(fire, immediately ? 0 : delayMs()));
    },
    cancel(uri: string): void {
      clearTimeout(timers.get(uri));
      timers.delete(uri);
    },
    dispose(): void {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
