/**
 * Debounces validation per document: each change restarts the document's timer, so a burst of
 * keystrokes is validated once; `run` receives the version it was scheduled for and must drop its
 * result when a newer version has arrived meanwhile (see `isCurrent`).
 */
export function createDiagnosticsScheduler(
  delayMs: () => number,
  run: (uri: string, version: number) => Promise<void>,
) {
  const timers = new Map<string, NodeJS.Timeout>();
  const latest = new Map<string, number>();
  return {
    schedule(uri: string, version: number, immediately = false): void {
      latest.set(uri, version);
      clearTimeout(timers.get(uri));
      const fire = () => {
        timers.delete(uri);
        void run(uri, version);
      };
      timers.set(uri, setTimeout(fire, immediately ? 0 : delayMs()));
    },
    /** Whether `version` is still the newest one scheduled for the document. */
    isCurrent(uri: string, version: number): boolean {
      return latest.get(uri) === version;
    },
    cancel(uri: string): void {
      clearTimeout(timers.get(uri));
      timers.delete(uri);
      latest.delete(uri);
    },
    dispose(): void {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
